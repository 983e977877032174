"""Every wire message, defined once: one frozen dataclass per message type, and its validation.

A message on the wire is a map with a type tag ``t`` and the fields of its dataclass
(``docs/protocol.md`` is the reference). Constructing a message validates it, so an instance
is always well formed: a bad value raises :class:`ProtocolError` naming the field. Bytes are
the codec's business (``protocol.codec``); this module sees plain Python values only.

- :func:`from_wire` turns a decoded map into a message (unknown fields refused, absent or nil
  optional fields become ``None``); :func:`to_wire` turns a message into its map, ``t`` first
  then the fields in declaration order, optional fields left out when ``None``.
- Opaque payloads (``result``, ``view``, ``events``, ``detail``) are only checked for their
  shape here; the codec checks that they are plain data within the size limits.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias, get_type_hints

from protocol.cards import card_index
from protocol.talk import QUICK_MESSAGES

__all__ = [
    "ACTION_KINDS",
    "CARD_ACTION_KINDS",
    "CLIENT_MESSAGES",
    "HIDDEN_EVENT",
    "MAX_REQUEST_ID",
    "MAX_SEQ",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "SAID_SINCE_MINOR",
    "SERVER_MESSAGES",
    "AILevel",
    "Ack",
    "Act",
    "Action",
    "ActionKind",
    "AiSeat",
    "AiSubscribe",
    "Bye",
    "CallStandIn",
    "CancelQuickMatch",
    "ClaimWin",
    "ClientMessage",
    "CreateRoom",
    "Direction",
    "Error",
    "ErrorCode",
    "Hello",
    "JoinRoom",
    "Leave",
    "Lobby",
    "Message",
    "Ping",
    "PlainMap",
    "Pong",
    "ProtocolError",
    "QuickMatch",
    "Reconnect",
    "Rematch",
    "RequestId",
    "Resume",
    "ResumeMode",
    "RoomAssigned",
    "RoomMode",
    "Rules",
    "Said",
    "Say",
    "ServerMessage",
    "SetName",
    "Snapshot",
    "Stats",
    "Unfollow",
    "Update",
    "Watch",
    "as_request_id",
    "from_wire",
    "is_compatible",
    "parse_version",
    "sent_by_client",
    "to_wire",
]

PROTOCOL_VERSION: Final = "1.1"
#: The first MINOR (of MAJOR 1) whose clients get ``said``: the server sends no message
#: type newer than a client's MINOR.
SAID_SINCE_MINOR: Final = 1

#: A request id: an integer 0..2**53-1 (safe in JavaScript) or a string of 1..64 characters.
RequestId: TypeAlias = int | str
MAX_REQUEST_ID: Final = 2**53 - 1
#: The largest sequence number (the JavaScript safe-integer bound).
MAX_SEQ: Final = 2**53 - 1

#: Who sent a frame: a client (``client``), the server (``server``), or either (``any``).
Direction: TypeAlias = Literal["client", "server", "any"]
RoomMode: TypeAlias = Literal["ai", "private"]
AILevel: TypeAlias = Literal["easy", "normal", "hard"]
ActionKind: TypeAlias = Literal[
    "take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock", "gin", "next_hand"
]
ResumeMode: TypeAlias = Literal["events", "snapshot"]
#: An opaque plain-data map (checked by the codec: plain values, string keys, bounded size).
PlainMap: TypeAlias = Mapping[str, Any]

ACTION_KINDS: Final = (
    "take_upcard",
    "pass",
    "draw_stock",
    "draw_discard",
    "discard",
    "knock",
    "gin",
    "next_hand",
)
#: Action kinds that name a card (a knock or a gin is declared with its discard).
CARD_ACTION_KINDS: Final = frozenset({"discard", "knock", "gin"})
#: What a recipient gets, in ``update.events``, for an event it may not see at all.
HIDDEN_EVENT: Final[PlainMap] = MappingProxyType({"type": "hidden"})


class ErrorCode(StrEnum):
    """Stable error codes: clients branch on them; ``docs/protocol.md`` explains each one."""

    BAD_MESSAGE = "bad_message"
    FRAME_TOO_LARGE = "frame_too_large"
    UNKNOWN_TYPE = "unknown_type"
    UNSUPPORTED_VERSION = "unsupported_version"
    NOT_AUTHENTICATED = "not_authenticated"
    BAD_TOKEN = "bad_token"
    RATE_LIMITED = "rate_limited"
    NOT_FOUND = "not_found"
    ROOM_FULL = "room_full"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    STALE_SEQUENCE = "stale_sequence"
    DUPLICATE_REQUEST = "duplicate_request"
    HISTORY_GONE = "history_gone"
    BAD_ORIGIN = "bad_origin"
    INVALID_ARGUMENT = "invalid_argument"
    BAD_NAME = "bad_name"
    ALREADY_IN_QUEUE = "already_in_queue"
    OPPONENT_PRESENT = "opponent_present"
    NOT_AWAY_LONG_ENOUGH = "not_away_long_enough"
    IDLE_TIMEOUT = "idle_timeout"
    HELLO_TIMEOUT = "hello_timeout"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    TOO_MANY_ROOMS = "too_many_rooms"
    TOO_MANY_AI_ROOMS = "too_many_ai_rooms"
    TOO_MANY_PLAYERS = "too_many_players"
    TOO_MANY_LOOKUPS = "too_many_lookups"
    TOO_MANY_PHRASES = "too_many_phrases"
    NOT_REPLICATED = "not_replicated"
    STORE_UNAVAILABLE = "store_unavailable"
    INTERNAL = "internal"


class ProtocolError(ValueError):
    """A frame or a message that breaks the protocol.

    ``code`` is the :class:`ErrorCode` to answer with, ``field`` the path of the offending
    value when there is one (``"action.card"``, ``"events[2].type"``), ``request_id`` the id
    of the request when it could be read (so the answer reaches the right request), and
    ``detail`` optional plain data for the ``error`` frame.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        field: str | None = None,
        request_id: RequestId | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.request_id = request_id
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def at(self, head: str) -> ProtocolError:
        """Prefix ``field`` with the path ``head`` (a field name or ``[index]``); returns self."""
        if self.field is None:
            self.field = head
        elif self.field.startswith("["):
            self.field = head + self.field
        else:
            self.field = f"{head}.{self.field}"
        return self

    def to_message(self) -> Error:
        """The ``error`` frame that answers this failure."""
        detail = dict(self.detail or {})
        if self.field is not None:
            detail.setdefault("field", self.field)
        message = str(self)[:1024] or self.code.value
        return Error(id=self.request_id, code=self.code, message=message, detail=detail or None)


def _bad(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_MESSAGE, message)


def _invalid(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.INVALID_ARGUMENT, message)


# -- versions ---------------------------------------------------------------------------------

_VERSION = re.compile(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})")


def parse_version(version: str) -> tuple[int, int]:
    """``"1.0"`` → ``(1, 0)``; a ``ValueError`` unless the text is ``MAJOR.MINOR``."""
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        raise ValueError(f"a protocol version is 'MAJOR.MINOR' like '1.0', got {version!r}")
    return int(match[1]), int(match[2])


def is_compatible(version: str) -> bool:
    """True when a peer speaking ``version`` can talk to us: the same MAJOR number."""
    try:
        return parse_version(version)[0] == parse_version(PROTOCOL_VERSION)[0]
    except ValueError:
        return False


# -- field checks: each takes a wire value and returns it (normalised) or raises --------------

Check: TypeAlias = Callable[[Any], Any]


def _type_name(value: object) -> str:
    return "nil" if value is None else type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer(low: int, high: int) -> Check:
    def check(value: object) -> int:
        if type(value) is int and low <= value <= high:  # the common case, in short
            return value
        if not _is_int(value):
            raise _bad(f"expected an integer, got {_type_name(value)}")
        assert isinstance(value, int)
        if not low <= value <= high:
            raise _invalid(f"must be between {low} and {high}, got {value}")
        return int(value)

    return check


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise _bad(f"expected a boolean, got {_type_name(value)}")
    return value


def _text(
    low: int,
    high: int,
    *,
    pattern: str | None = None,
    printable: bool = False,
    strip: bool = False,
) -> Check:
    """A string of ``low..high`` characters (after stripping when ``strip``)."""
    compiled = re.compile(pattern) if pattern else None

    def check(value: object) -> str:
        if type(value) is not str:
            if not isinstance(value, str):
                raise _bad(f"expected a string, got {_type_name(value)}")
            value = str.__str__(value)
        if strip:
            value = value.strip()
        if not low <= len(value) <= high:
            raise _invalid(f"must be {low} to {high} characters, got {len(value)}")
        if printable and not value.isprintable():
            raise _invalid("must be printable (no control characters)")
        if compiled is not None and compiled.fullmatch(value) is None:
            raise _invalid(f"must match {compiled.pattern}, got {value!r}")
        return value

    return check


def _one_of(*choices: str) -> Check:
    def check(value: object) -> str:
        if type(value) is str and value in choices:  # the common case, in short
            return value
        if not isinstance(value, str):
            raise _bad(f"expected a string, got {_type_name(value)}")
        if value not in choices:
            raise _invalid(f"must be one of {', '.join(choices)}, got {value!r}")
        return str.__str__(value)

    return check


def _version(value: object) -> str:
    if not isinstance(value, str):
        raise _bad(f"expected a version string like '1.0', got {_type_name(value)}")
    try:
        parse_version(value)
    except ValueError as error:
        raise _invalid(str(error)[:200]) from None
    return str.__str__(value)


def _card(value: object) -> str:
    if not isinstance(value, str):
        raise _bad(f"expected a card string like 'QS', got {_type_name(value)}")
    try:
        card_index(value)
    except ValueError as error:
        raise _invalid(str(error)) from None
    return str.__str__(value)


def _request_id(value: object) -> RequestId:
    if type(value) is int and 0 <= value <= MAX_REQUEST_ID:  # the common case, in short
        return value
    if _is_int(value):
        assert isinstance(value, int)
        if 0 <= value <= MAX_REQUEST_ID:
            return int(value)
        raise _bad(f"an integer request id is 0..2**53-1, got {value}")
    if isinstance(value, str):
        if 1 <= len(value) <= 64:
            return str.__str__(value)
        raise _bad(f"a string request id has 1 to 64 characters, got {len(value)}")
    raise _bad(f"a request id is an integer or a string, got {_type_name(value)}")


def as_request_id(value: object) -> RequestId | None:
    """``value`` if it is a valid request id, else ``None``."""
    try:
        return _request_id(value)
    except ProtocolError:
        return None


def _nullable_request_id(value: object) -> RequestId | None:
    return None if value is None else _request_id(value)


def _plain_map(value: object) -> PlainMap:
    if not isinstance(value, Mapping):
        raise _bad(f"expected a map, got {_type_name(value)}")
    for key in value:
        if not isinstance(key, str):
            raise _bad(f"map keys must be strings, got {_type_name(key)}")
    return value


def _events(value: object) -> tuple[PlainMap, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise _bad(f"expected a list of event maps, got {_type_name(value)}")
    checked = []
    for index, event in enumerate(value):
        try:
            _plain_map(event)
            kind = event.get("type")
            if not isinstance(kind, str) or not kind:
                raise _bad("an event needs a non-empty string 'type'").at("type")
        except ProtocolError as error:
            raise error.at(f"[{index}]") from None
        checked.append(event)
    return tuple(checked)


def _error_code(value: object) -> str:
    """A known :class:`ErrorCode`, or (from a newer peer) any lowercase ``snake_case`` code."""
    if not isinstance(value, str):
        raise _bad(f"expected an error code string, got {_type_name(value)}")
    if value in _ERROR_CODES:
        return ErrorCode(value)
    if _CODE.fullmatch(value) is None:
        raise _invalid(f"an error code is lowercase snake_case, got {value!r}")
    return str.__str__(value)


_ERROR_CODES = frozenset(code.value for code in ErrorCode)
_CODE = re.compile(r"[a-z][a-z0-9_]{0,63}")

_ID = "[A-Za-z0-9_-]+"
_REQUEST_ID: Final = _request_id
_ROOM: Final = _text(1, 64, pattern=_ID)
_WATCH_TOKEN: Final = _text(1, 64, pattern=_ID)
_NAME: Final = _text(1, 32, printable=True, strip=True)
_SEQ: Final = _integer(0, MAX_SEQ)
_SEAT: Final = _integer(0, 1)
_MESSAGE_TEXT: Final = _text(1, 1024)


def _nested(cls: type[Any]) -> Check:
    """A map holding the fields of ``cls`` (a dataclass of this module)."""

    def check(value: object) -> object:
        if type(value) is dict:  # from the wire
            return _build(cls, value)
        if isinstance(value, cls):
            return value
        if not isinstance(value, Mapping):
            raise _bad(f"expected a map, got {_type_name(value)}")
        return _build(cls, value)

    return check


# -- the field machinery shared by every message ----------------------------------------------


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    check: Check
    optional: bool


_SPECS: dict[type[Any], tuple[_Field, ...]] = {}
#: Per class, what building and checking an instance takes, resolved once (``_plan``).
_PLANS: dict[type[Any], _Plan] = {}


def _spec(cls: type[Any]) -> tuple[_Field, ...]:
    spec = _SPECS.get(cls)
    if spec is None:
        hints = get_type_hints(cls, include_extras=True)
        spec = tuple(
            _Field(
                name=field.name,
                check=hints[field.name].__metadata__[0],
                optional=field.default is not dataclasses.MISSING,
            )
            for field in dataclasses.fields(cls)
        )
        _SPECS[cls] = spec
    return spec


@dataclass(frozen=True, slots=True)
class _Plan:
    names: frozenset[str]
    """The keys a map of the class may hold: its fields, and ``t`` for a message."""
    fields: tuple[tuple[str, Check, bool], ...]
    """Each field as (name, check, optional), in declaration order."""
    required: tuple[str, ...]
    """The names of the required fields, in declaration order."""
    rules: bool
    """Whether the class has rules across fields (overrides ``_check``)."""


def _plan(cls: type[Any]) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        spec = _spec(cls)
        # ``_build`` makes instances without ``__init__`` (it does the work of ``__init__`` and
        # ``__post_init__``): the class must be a plain dataclass whose optional fields are None
        for base in cls.__mro__:
            if base not in (_Checked, object) and {"__new__", "__post_init__"} & vars(base).keys():
                raise TypeError(f"{cls.__name__} has a __new__ or __post_init__ of its own")
        for field in dataclasses.fields(cls):
            if not field.init or field.default not in (None, dataclasses.MISSING):
                raise TypeError(f"{cls.__name__}.{field.name}: optional fields default to None")
        names = {field.name for field in spec}
        if isinstance(getattr(cls, "t", None), str):
            names.add("t")
        plan = _Plan(
            names=frozenset(names),
            fields=tuple((field.name, field.check, field.optional) for field in spec),
            required=tuple(field.name for field in spec if not field.optional),
            rules=cls._check is not _Checked._check,
        )
        _PLANS[cls] = plan
    return plan


class _Checked:
    """Base of every message and nested map: validates (and normalises) fields on creation."""

    __slots__ = ()

    def __post_init__(self) -> None:
        plan = _PLANS.get(type(self)) or _plan(type(self))
        for name, check, optional in plan.fields:
            value = getattr(self, name)
            if value is None and optional:
                continue
            try:
                checked = check(value)
            except ProtocolError as error:
                raise error.at(name) from None
            if checked is not value:
                object.__setattr__(self, name, checked)
        if plan.rules:
            self._check()

    def _check(self) -> None:
        """Rules across fields; overridden where a message has some."""


def _build(cls: type[Any], data: Mapping[Any, object]) -> Any:
    """``cls(**fields of data)``, refusing unknown fields, then the first missing one, then
    checking each field in order and the rules across fields, as the constructor would; the
    instance is made and filled here (what ``__init__`` and ``__post_init__`` do, at once)."""
    plan = _PLANS.get(cls) or _plan(cls)
    names = plan.names
    for key in data:
        if key not in names:
            unknown = sorted(repr(key) for key in data if key not in names)
            raise _bad(f"unknown field(s) {', '.join(unknown)}")
    for name in plan.required:
        if name not in data:
            raise _bad("missing required field").at(name)
    instance = object.__new__(cls)
    set_field = object.__setattr__
    for name, check, optional in plan.fields:
        value = data.get(name)
        if value is not None or not optional:
            try:
                value = check(value)
            except ProtocolError as error:
                raise error.at(name) from None
        set_field(instance, name, value)
    if plan.rules:
        instance._check()
    return instance


def _fields_to_wire(obj: _Checked) -> dict[str, object]:
    out: dict[str, object] = {}
    for field in _spec(type(obj)):
        value = getattr(obj, field.name)
        if value is None and field.optional:
            continue
        if isinstance(value, _Checked):
            value = _fields_to_wire(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[field.name] = value
    return out


# -- nested maps ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rules(_Checked):
    """Match rules of a new room; an absent field takes the server default."""

    target: Annotated[int | None, _integer(1, 10_000)] = None
    game_bonus: Annotated[bool | None, _flag] = None
    box_bonus: Annotated[bool | None, _flag] = None
    shutout_bonus: Annotated[bool | None, _flag] = None


@dataclass(frozen=True, slots=True)
class Action(_Checked):
    """A move: ``kind``, and ``card`` for ``discard``, ``knock`` and ``gin`` only."""

    kind: Annotated[ActionKind, _one_of(*ACTION_KINDS)]
    card: Annotated[str | None, _card] = None

    def _check(self) -> None:
        if self.kind in CARD_ACTION_KINDS and self.card is None:
            raise _invalid(f"{self.kind} needs a card").at("card")
        if self.kind not in CARD_ACTION_KINDS and self.card is not None:
            raise _invalid(f"{self.kind} takes no card").at("card")


# -- client → server --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello(_Checked):
    """First request of a connection: protocol version, and the token of a returning player."""

    t: ClassVar[str] = "hello"
    id: Annotated[RequestId, _REQUEST_ID]
    version: Annotated[str, _version]
    token: Annotated[str | None, _text(1, 128, pattern="[\x21-\x7e]+")] = None
    name: Annotated[str | None, _NAME] = None
    client: Annotated[str | None, _text(1, 64, printable=True)] = None
    worker_key: Annotated[str | None, _text(1, 128, pattern="[\x21-\x7e]+")] = None


@dataclass(frozen=True, slots=True)
class Ping(_Checked):
    """Liveness check, answered by ``pong`` (not an ack); metered by a bucket of its own."""

    t: ClassVar[str] = "ping"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class SetName(_Checked):
    t: ClassVar[str] = "set_name"
    id: Annotated[RequestId, _REQUEST_ID]
    name: Annotated[str, _NAME]


@dataclass(frozen=True, slots=True)
class CreateRoom(_Checked):
    """Open a room against an AI seat (``level`` required) or a private one (invite code).
    ``public`` lists its hands and lets anyone watch it by room id (default: not)."""

    t: ClassVar[str] = "create_room"
    id: Annotated[RequestId, _REQUEST_ID]
    mode: Annotated[RoomMode, _one_of("ai", "private")]
    level: Annotated[AILevel | None, _one_of("easy", "normal", "hard")] = None
    rules: Annotated[Rules | None, _nested(Rules)] = None
    turn_seconds: Annotated[int | None, _integer(0, 3600)] = None
    stand_in: Annotated[bool | None, _flag] = None
    public: Annotated[bool | None, _flag] = None
    turn_bank: Annotated[int | None, _integer(0, 3600)] = None

    def _check(self) -> None:
        if self.mode == "ai" and self.level is None:
            raise _invalid("an AI room needs a level").at("level")
        if self.mode != "ai" and self.level is not None:
            raise _invalid("only an AI room has a level").at("level")
        if self.mode == "ai" and self.stand_in:
            raise _invalid("a room against the AI waits for its player: no stand-in").at("stand_in")


@dataclass(frozen=True, slots=True)
class JoinRoom(_Checked):
    """Take the free seat of a room, by room id or by invite code (exactly one of them). An AI
    worker names the ``seat`` of the ``ai_seat`` offer it takes (with ``room``)."""

    t: ClassVar[str] = "join_room"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str | None, _ROOM] = None
    invite: Annotated[str | None, _text(1, 64, pattern=_ID)] = None
    seat: Annotated[int | None, _SEAT] = None

    def _check(self) -> None:
        if (self.room is None) == (self.invite is None):
            raise _invalid("give exactly one of room and invite")
        if self.seat is not None and self.room is None:
            raise _invalid("a seat is taken by room id, not by invite").at("seat")


@dataclass(frozen=True, slots=True)
class QuickMatch(_Checked):
    t: ClassVar[str] = "quick_match"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class CancelQuickMatch(_Checked):
    t: ClassVar[str] = "cancel_quick_match"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class Watch(_Checked):
    """Spectate a room live (public view only): an ack, then a ``snapshot``, then updates.
    A room that is not public needs its ``watch_token`` (the watch link's)."""

    t: ClassVar[str] = "watch"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]
    watch_token: Annotated[str | None, _WATCH_TOKEN] = None


@dataclass(frozen=True, slots=True)
class Resume(_Checked):
    """Catch up after a reconnect: ``last_seq`` is the last number seen, -1 for none. A
    watcher of a room that is not public gives its ``watch_token`` again."""

    t: ClassVar[str] = "resume"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]
    last_seq: Annotated[int, _integer(-1, MAX_SEQ)]
    watch_token: Annotated[str | None, _WATCH_TOKEN] = None


@dataclass(frozen=True, slots=True)
class Act(_Checked):
    """Play ``action`` in ``room``; ``seq`` is the room's sequence number the client last saw."""

    t: ClassVar[str] = "act"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]
    seq: Annotated[int, _SEQ]
    action: Annotated[Action, _nested(Action)]


@dataclass(frozen=True, slots=True)
class Leave(_Checked):
    """Leave a room; a player leaving a running match forfeits it."""

    t: ClassVar[str] = "leave"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]


@dataclass(frozen=True, slots=True)
class Unfollow(_Checked):
    """Stop following a room on this connection (the page shows another one); a person's seat
    there that no other connection of theirs follows is away until they ``resume`` it."""

    t: ClassVar[str] = "unfollow"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]


@dataclass(frozen=True, slots=True)
class ClaimWin(_Checked):
    """Claim the match of an opponent away past the grace period: the opponent forfeits."""

    t: ClassVar[str] = "claim_win"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]


@dataclass(frozen=True, slots=True)
class CallStandIn(_Checked):
    """Let an AI play for an opponent away past the grace period, until they come back."""

    t: ClassVar[str] = "stand_in"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]


@dataclass(frozen=True, slots=True)
class Rematch(_Checked):
    t: ClassVar[str] = "rematch"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]


@dataclass(frozen=True, slots=True)
class AiSubscribe(_Checked):
    """An AI worker (``hello`` with ``worker_key``) asks for up to ``capacity`` AI seats; the
    server then sends it ``ai_seat`` frames. ``capacity`` 0 stops new seats (draining)."""

    t: ClassVar[str] = "ai_subscribe"
    id: Annotated[RequestId, _REQUEST_ID]
    capacity: Annotated[int, _integer(0, 10_000)]


@dataclass(frozen=True, slots=True)
class Lobby(_Checked):
    t: ClassVar[str] = "lobby"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class Stats(_Checked):
    t: ClassVar[str] = "stats"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class Say(_Checked):
    """A seated player sends the other seat a quick message: ``phrase`` is one of the ids
    of ``protocol.talk`` (no free text)."""

    t: ClassVar[str] = "say"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]
    phrase: Annotated[str, _one_of(*QUICK_MESSAGES)]


# -- server → client --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ack(_Checked):
    """The success answer to request ``id``; ``result`` depends on the request."""

    t: ClassVar[str] = "ack"
    id: Annotated[RequestId, _REQUEST_ID]
    result: Annotated[PlainMap, _plain_map]


@dataclass(frozen=True, slots=True)
class Error(_Checked):
    """The failure answer to request ``id`` (nil when the request's id could not be read)."""

    t: ClassVar[str] = "error"
    id: Annotated[RequestId | None, _nullable_request_id]
    code: Annotated[str, _error_code]
    message: Annotated[str, _MESSAGE_TEXT]
    detail: Annotated[PlainMap | None, _plain_map] = None


@dataclass(frozen=True, slots=True)
class Pong(_Checked):
    t: ClassVar[str] = "pong"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class Update(_Checked):
    """Room change ``seq``: the events this recipient may see, and its view of the new state."""

    t: ClassVar[str] = "update"
    room: Annotated[str, _ROOM]
    seq: Annotated[int, _SEQ]
    events: Annotated[Sequence[PlainMap], _events]
    view: Annotated[PlainMap | None, _plain_map] = None


@dataclass(frozen=True, slots=True)
class Snapshot(_Checked):
    """The recipient's whole view of a room at ``seq`` (after ``watch``, or a long gap)."""

    t: ClassVar[str] = "snapshot"
    room: Annotated[str, _ROOM]
    seq: Annotated[int, _SEQ]
    view: Annotated[PlainMap, _plain_map]


@dataclass(frozen=True, slots=True)
class AiSeat(_Checked):
    """To an AI worker: take seat ``seat`` of ``room`` (``join_room``) and play it at ``level``."""

    t: ClassVar[str] = "ai_seat"
    room: Annotated[str, _ROOM]
    seat: Annotated[int, _SEAT]
    level: Annotated[AILevel, _one_of("easy", "normal", "hard")]


@dataclass(frozen=True, slots=True)
class RoomAssigned(_Checked):
    """Quick match paired you: your room and seat."""

    t: ClassVar[str] = "room_assigned"
    room: Annotated[str, _ROOM]
    seat: Annotated[int, _SEAT]


@dataclass(frozen=True, slots=True)
class Said(_Checked):
    """To the other seat's connections only (never a watcher): seat ``seat`` of ``room`` said
    ``phrase`` at ``at`` (unix milliseconds, the server's clock). Not a room change: no
    sequence number, not in the room's history or replays."""

    t: ClassVar[str] = "said"
    room: Annotated[str, _ROOM]
    seat: Annotated[int, _SEAT]
    phrase: Annotated[str, _one_of(*QUICK_MESSAGES)]
    at: Annotated[int, _integer(0, MAX_SEQ)]


@dataclass(frozen=True, slots=True)
class Reconnect(_Checked):
    """The server is going away: reconnect after ``retry_ms`` and ``resume``."""

    t: ClassVar[str] = "reconnect"
    reason: Annotated[str, _text(1, 256)]
    retry_ms: Annotated[int, _integer(0, 3_600_000)]


@dataclass(frozen=True, slots=True)
class Bye(_Checked):
    """The server is closing this connection (idle, flood, ...); ``code`` says why."""

    t: ClassVar[str] = "bye"
    code: Annotated[str, _error_code]
    message: Annotated[str, _MESSAGE_TEXT]


ClientMessage: TypeAlias = (
    Hello
    | Ping
    | SetName
    | CreateRoom
    | JoinRoom
    | QuickMatch
    | CancelQuickMatch
    | Watch
    | Resume
    | Act
    | Leave
    | Unfollow
    | Rematch
    | Lobby
    | Stats
    | AiSubscribe
    | ClaimWin
    | CallStandIn
    | Say
)
ServerMessage: TypeAlias = (
    Ack | Error | Pong | Update | Snapshot | RoomAssigned | AiSeat | Said | Reconnect | Bye
)
Message: TypeAlias = ClientMessage | ServerMessage

_CLIENT_CLASSES: tuple[type[ClientMessage], ...] = (
    Hello,
    Ping,
    SetName,
    CreateRoom,
    JoinRoom,
    QuickMatch,
    CancelQuickMatch,
    Watch,
    Resume,
    Act,
    Leave,
    Unfollow,
    Rematch,
    Lobby,
    Stats,
    AiSubscribe,
    ClaimWin,
    CallStandIn,
    Say,
)
_SERVER_CLASSES: tuple[type[ServerMessage], ...] = (
    Ack,
    Error,
    Pong,
    Update,
    Snapshot,
    RoomAssigned,
    AiSeat,
    Said,
    Reconnect,
    Bye,
)
#: Type tag → class, for the frames a client sends.
CLIENT_MESSAGES: Final[Mapping[str, type[ClientMessage]]] = MappingProxyType(
    {cls.t: cls for cls in _CLIENT_CLASSES}
)
#: Type tag → class, for the frames the server sends.
SERVER_MESSAGES: Final[Mapping[str, type[ServerMessage]]] = MappingProxyType(
    {cls.t: cls for cls in _SERVER_CLASSES}
)
#: Type tag → class, both directions.
MESSAGES: Final[Mapping[str, type[Message]]] = MappingProxyType(
    {**CLIENT_MESSAGES, **SERVER_MESSAGES}
)
_REGISTRIES: Final[Mapping[Direction, Mapping[str, type[Message]]]] = {
    "client": CLIENT_MESSAGES,
    "server": SERVER_MESSAGES,
    "any": MESSAGES,
}

for _cls in (Rules, Action, *MESSAGES.values()):
    _plan(_cls)  # resolve every field's check at import: a mistake fails loudly, once


def from_wire(data: Mapping[Any, object], *, direction: Direction = "any") -> Message:
    """The message a decoded map stands for; :class:`ProtocolError` on anything invalid.

    ``direction`` says who sent the map: a server decodes with ``"client"`` so that a client
    cannot send server messages (they are an ``unknown_type``).
    """
    try:
        tag = data.get("t")
    except Exception:  # a mapping that breaks on lookup is not plain data
        raise _bad("a message is a map with a type tag 't'") from None
    given = data.get("id")
    try:
        if tag is None:
            raise _bad("a message needs a type tag 't'").at("t")
        if not isinstance(tag, str):
            raise _bad(f"the type tag is a string, got {_type_name(tag)}").at("t")
        cls = _REGISTRIES[direction].get(tag)
        if cls is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, _unknown_type(tag, direction), field="t")
        message: Message = _build(cls, data)
        return message
    except ProtocolError as error:
        if error.request_id is None:
            error.request_id = as_request_id(given)
        raise


def _unknown_type(tag: str, direction: Direction) -> str:
    if direction == "client" and tag in SERVER_MESSAGES:
        return f"{tag!r} is sent by the server, never by a client"
    if direction == "server" and tag in CLIENT_MESSAGES:
        return f"{tag!r} is sent by a client, never by the server"
    return f"unknown message type {tag[:64]!r}"


def to_wire(message: Message) -> dict[str, object]:
    """The map of a message: ``t`` first, then its fields in order, absent when ``None``."""
    cls = type(message)
    if MESSAGES.get(getattr(cls, "t", "")) is not cls:
        raise TypeError(f"not a protocol message: {message!r}")
    wire: dict[str, object] = {"t": cls.t}
    wire.update(_fields_to_wire(message))
    return wire


def sent_by_client(message: Message) -> bool:
    """True for the messages a client sends, False for the server's."""
    return type(message) in _CLIENT_CLASSES
