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
from types import MappingProxyType, MemberDescriptorType
from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias, get_args, get_type_hints

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
    "NUDGE_ABOUT",
    "NUDGE_SINCE_MINOR",
    "PROTOCOL_VERSION",
    "SAID_SINCE_MINOR",
    "SERVER_MESSAGES",
    "AILevel",
    "AIPace",
    "Ack",
    "Act",
    "Action",
    "ActionKind",
    "AiSeat",
    "AiSubscribe",
    "Bye",
    "CallStandIn",
    "CancelQuickMatch",
    "Check",
    "ClaimWin",
    "ClientMessage",
    "CloseResult",
    "CreateRoom",
    "Direction",
    "Error",
    "ErrorCode",
    "Field",
    "Hello",
    "InviteInfo",
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
    "ReviewDone",
    "ReviewHand",
    "ReviewProgress",
    "ReviewTake",
    "RoomAssigned",
    "RoomMode",
    "Rules",
    "Said",
    "Say",
    "Schema",
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
    "schema",
    "sent_by_client",
    "to_wire",
]

PROTOCOL_VERSION: Final = "1.2"
#: The first MINOR (of MAJOR 1) whose clients get ``said``: the server sends no message
#: type newer than a client's MINOR.
SAID_SINCE_MINOR: Final = 1
#: The first MINOR whose clients get ``nudge``.
NUDGE_SINCE_MINOR: Final = 2
#: What a ``nudge`` may be about: the player's challenges (``/api/challenges``).
NUDGE_ABOUT: Final = ("challenges",)

#: A request id: an integer 0..2**53-1 (safe in JavaScript) or a string of 1..64 characters.
RequestId: TypeAlias = int | str
MAX_REQUEST_ID: Final = 2**53 - 1
#: The largest sequence number (the JavaScript safe-integer bound).
MAX_SEQ: Final = 2**53 - 1

#: Who sent a frame: a client (``client``), the server (``server``), or either (``any``).
Direction: TypeAlias = Literal["client", "server", "any"]
RoomMode: TypeAlias = Literal["ai", "private"]
AILevel: TypeAlias = Literal["easy", "normal", "hard"]
#: How quickly the AI of a room against the AI plays: its worker's own pace, or faster.
AIPace: TypeAlias = Literal["normal", "fast"]
ActionKind: TypeAlias = Literal[
    "take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock", "gin", "next_hand"
]
ResumeMode: TypeAlias = Literal["events", "snapshot"]
#: An opaque plain-data map (checked by the codec: plain values, string keys, bounded size).
PlainMap: TypeAlias = Mapping[str, Any]

#: The action kinds, in the order of ``ActionKind``.
ACTION_KINDS: Final[tuple[ActionKind, ...]] = get_args(ActionKind)
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
    INVITE_USED = "invite_used"
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
    TOO_MANY_REVIEWS = "too_many_reviews"
    HAND_NOT_OVER = "hand_not_over"
    BAD_HANDLE = "bad_handle"
    HANDLE_TAKEN = "handle_taken"
    UNKNOWN_HANDLE = "unknown_handle"
    BAD_PASSWORD = "bad_password"
    BAD_PASSKEY = "bad_passkey"
    CHALLENGE_EXPIRED = "challenge_expired"
    BAD_CREDENTIALS = "bad_credentials"
    SIGNIN_LIMITED_ACCOUNT = "signin_limited_account"
    SIGNIN_LIMITED_ADDRESS = "signin_limited_address"
    ALREADY_CLAIMED = "already_claimed"
    NOT_AN_ACCOUNT = "not_an_account"
    SIGNED_OUT = "signed_out"
    ACCOUNT_REQUIRED = "account_required"
    RATED_COOLDOWN = "rated_cooldown"
    RATED_NOT_AGREED = "rated_not_agreed"
    TOO_MANY_BLOCKS = "too_many_blocks"
    TOO_MANY_BLOCK_REQUESTS = "too_many_block_requests"
    TOO_MANY_REPORTS = "too_many_reports"
    FRIEND_REQUEST_REFUSED = "friend_request_refused"
    TOO_MANY_FRIEND_REQUESTS = "too_many_friend_requests"
    TOO_MANY_OPEN_FRIEND_REQUESTS = "too_many_open_friend_requests"
    TOO_MANY_FRIENDS = "too_many_friends"
    NO_FRIEND_REQUEST = "no_friend_request"
    CHALLENGE_REFUSED = "challenge_refused"
    TOO_MANY_CHALLENGES = "too_many_challenges"
    TOO_MANY_CHALLENGE_REQUESTS = "too_many_challenge_requests"
    NO_CHALLENGE = "no_challenge"
    CHALLENGE_TIMED_OUT = "challenge_timed_out"
    BANNED = "banned"
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


@dataclass(frozen=True, slots=True)
class Check:
    """The rule of one field, declared once beside it (``Annotated[type, Check]``): ``run``
    takes a wire value and returns it (normalised) or raises :class:`ProtocolError`; ``ts`` is
    the field's TypeScript type in the web client (``protocol.typescript`` writes it out)."""

    run: Callable[[Any], Any]
    ts: str


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

    return Check(check, "number")


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise _bad(f"expected a boolean, got {_type_name(value)}")
    return value


_FLAG: Final = Check(_flag, "boolean")


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

    return Check(check, "string")


def _one_of(*choices: str, ts: str | None = None) -> Check:
    """One of ``choices``; its TypeScript type is their union (or the alias named ``ts``)."""

    def check(value: object) -> str:
        if type(value) is str and value in choices:  # the common case, in short
            return value
        if not isinstance(value, str):
            raise _bad(f"expected a string, got {_type_name(value)}")
        if value not in choices:
            raise _invalid(f"must be one of {', '.join(choices)}, got {value!r}")
        return str.__str__(value)

    return Check(check, ts or " | ".join(f'"{choice}"' for choice in choices))


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


def _opaque(ts: str) -> Check:
    """A plain-data map whose inside is the business of the code that makes it (the codec
    checks it is plain data); ``ts`` names its hand-written TypeScript type."""
    return Check(_plain_map, ts)


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
_REQUEST_ID: Final = Check(_request_id, "RequestId")
_NULLABLE_REQUEST_ID: Final = Check(_nullable_request_id, "RequestId | null")
_ROOM: Final = _text(1, 64, pattern=_ID)
_WATCH_TOKEN: Final = _text(1, 64, pattern=_ID)
_NAME: Final = _text(1, 32, printable=True, strip=True)
_SEQ: Final = _integer(0, MAX_SEQ)
_SEAT: Final = _integer(0, 1)
_HAND: Final = _text(1, 64, pattern=_ID)
_MESSAGE_TEXT: Final = _text(1, 1024)
_VERSION_TEXT: Final = Check(_version, "string")
_CARD: Final = Check(_card, "string")
_CODE_TEXT: Final = Check(_error_code, "string")
_EVENTS: Final = Check(_events, "GameEvent[]")
_LEVEL: Final = _one_of(*get_args(AILevel), ts="AILevel")


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

    return Check(check, cls.__name__)


# -- one schema per class, read from its declaration once --------------------------------------


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a message or nested map, as its declaration says."""

    name: str
    check: Check
    optional: bool
    """Declared with the default ``None``: absent (or nil) on the wire, left out when ``None``."""


@dataclass(frozen=True, slots=True)
class Schema:
    """What checking, building and writing out a class takes, read once from its dataclass
    fields and their ``Annotated`` checks (:func:`_declare`); ``cls._schema`` holds it."""

    tag: str | None
    """The type tag ``t`` of a message; ``None`` for a nested map."""
    fields: tuple[Field, ...]
    names: frozenset[str]
    """The keys a map of the class may hold: its fields, and ``t`` for a message."""
    steps: tuple[tuple[str, Check, bool], ...]
    """Each field as (name, check, optional), in declaration order (the hot loop's form)."""
    required: tuple[str, ...]
    rules: bool
    """Whether the class has rules across fields (overrides ``_check``)."""
    build: Callable[[Mapping[Any, object]], Any]
    """A map → an instance, checked: the function :func:`_builder` writes for the class."""

    @classmethod
    def of(cls, declared: type[Any]) -> Schema:
        # ``_build`` makes instances without ``__init__`` (it does the work of ``__init__`` and
        # ``__post_init__``): the class must be a plain dataclass whose optional fields are None
        for base in declared.__mro__:
            if base not in (_Checked, object) and {"__new__", "__post_init__"} & vars(base).keys():
                raise TypeError(f"{declared.__name__} has a __new__ or __post_init__ of its own")
        hints = get_type_hints(declared, include_extras=True)
        fields = []
        for field in dataclasses.fields(declared):
            if not field.init or field.default not in (None, dataclasses.MISSING):
                name = f"{declared.__name__}.{field.name}"
                raise TypeError(f"{name}: optional fields default to None")
            check = hints[field.name].__metadata__[0]
            if not isinstance(check, Check):
                raise TypeError(f"{declared.__name__}.{field.name}: Annotated[type, Check]")
            fields.append(Field(field.name, check, field.default is not dataclasses.MISSING))
        tag = vars(declared).get("t")
        names = frozenset({f.name for f in fields} | ({"t"} if isinstance(tag, str) else set()))
        rules = declared._check is not _Checked._check
        return cls(
            tag=tag if isinstance(tag, str) else None,
            fields=tuple(fields),
            names=names,
            steps=tuple((field.name, field.check, field.optional) for field in fields),
            required=tuple(field.name for field in fields if not field.optional),
            rules=rules,
            build=_builder(declared, tuple(fields), names, rules),
        )


def _builder(
    declared: type[Any], fields: tuple[Field, ...], names: frozenset[str], rules: bool
) -> Callable[[Mapping[Any, object]], Any]:
    """The function that builds a ``declared`` from a map, written out for its fields: refuse
    unknown fields, then the first missing one, then check each field in order (an optional
    one only when not nil) and set it through its slot, then the rules across fields; what
    ``__init__`` and ``__post_init__`` do, at once, with no loop over the fields."""
    env: dict[str, Any] = {
        "cls": declared,
        "new": object.__new__,
        "names": names,
        "ProtocolError": ProtocolError,
        "unknown": _unknown_fields,
        "missing": _missing_field,
    }
    lines = ["def build(data):"]
    lines += [
        "    for key in data:",
        "        if key not in names:",
        "            unknown(data, names)",
    ]
    for field in fields:
        if not field.optional:
            lines += [f"    if {field.name!r} not in data:", f"        missing({field.name!r})"]
    lines.append("    instance = new(cls)")
    for index, field in enumerate(fields):
        slot = vars(declared).get(field.name)
        if not isinstance(slot, MemberDescriptorType):
            raise TypeError(f"{declared.__name__}.{field.name}: declared with slots=True")
        env[f"check_{index}"], env[f"set_{index}"] = field.check.run, slot.__set__
        indent = "        " if field.optional else "    "
        lines.append(f"    value = data.get({field.name!r})")
        if field.optional:
            lines.append("    if value is not None:")
        lines += [
            f"{indent}try:",
            f"{indent}    value = check_{index}(value)",
            f"{indent}except ProtocolError as error:",
            f"{indent}    raise error.at({field.name!r}) from None",
            f"    set_{index}(instance, value)",
        ]
    if rules:
        lines.append("    instance._check()")
    lines.append("    return instance")
    exec("\n".join(lines), env)  # the source is made of field names only, checked above
    built: Callable[[Mapping[Any, object]], Any] = env["build"]
    return built


def _unknown_fields(data: Mapping[Any, object], names: frozenset[str]) -> None:
    unknown = sorted(repr(key) for key in data if key not in names)
    raise _bad(f"unknown field(s) {', '.join(unknown)}")


def _missing_field(name: str) -> None:
    raise _bad("missing required field").at(name)


class _Checked:
    """Base of every message and nested map: validates (and normalises) fields on creation."""

    __slots__ = ()
    _schema: ClassVar[Schema]

    def __post_init__(self) -> None:
        for name, check, optional in self._schema.steps:
            value = getattr(self, name)
            if value is None and optional:
                continue
            try:
                checked = check.run(value)
            except ProtocolError as error:
                raise error.at(name) from None
            if checked is not value:
                object.__setattr__(self, name, checked)
        if self._schema.rules:
            self._check()

    def _check(self) -> None:
        """Rules across fields; overridden where a message has some."""


def _declare(*classes: type[_Checked]) -> None:
    """Read each class's schema from its declaration, at import: a mistake fails loudly, once."""
    for cls in classes:
        cls._schema = Schema.of(cls)


def schema(cls: type[Any]) -> Schema:
    """The schema of a message class or nested map (``Rules``, ``Action``)."""
    found: Schema = cls._schema
    return found


def _build(cls: type[Any], data: Mapping[Any, object]) -> Any:
    """``cls(**fields of data)``, checked as the constructor would check it (``Schema.build``)."""
    return cls._schema.build(data)


def _fields_to_wire(obj: _Checked) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, _, optional in obj._schema.steps:
        value = getattr(obj, name)
        if value is None and optional:
            continue
        if isinstance(value, _Checked):
            value = _fields_to_wire(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


# -- nested maps ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rules(_Checked):
    """Match rules of a new room; an absent field takes the server default."""

    target: Annotated[int | None, _integer(1, 10_000)] = None
    game_bonus: Annotated[bool | None, _FLAG] = None
    box_bonus: Annotated[bool | None, _FLAG] = None
    shutout_bonus: Annotated[bool | None, _FLAG] = None


@dataclass(frozen=True, slots=True)
class Action(_Checked):
    """A move: ``kind``, and ``card`` for ``discard``, ``knock`` and ``gin`` only."""

    kind: Annotated[ActionKind, _one_of(*ACTION_KINDS, ts="ActionKind")]
    card: Annotated[str | None, _CARD] = None

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
    version: Annotated[str, _VERSION_TEXT]
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
    mode: Annotated[RoomMode, _one_of(*get_args(RoomMode), ts="RoomMode")]
    level: Annotated[AILevel | None, _LEVEL] = None
    rules: Annotated[Rules | None, _nested(Rules)] = None
    turn_seconds: Annotated[int | None, _integer(0, 3600)] = None
    stand_in: Annotated[bool | None, _FLAG] = None
    public: Annotated[bool | None, _FLAG] = None
    turn_bank: Annotated[int | None, _integer(0, 3600)] = None
    rated: Annotated[bool | None, _FLAG] = None
    ai_pace: Annotated[AIPace | None, _one_of(*get_args(AIPace), ts="AIPace")] = None
    tutorial: Annotated[bool | None, _FLAG] = None

    def _check(self) -> None:
        if self.tutorial and (self.mode != "ai" or self.level != "easy"):
            raise _invalid("the guided first hand is played against the easy AI").at("tutorial")
        if self.ai_pace is not None and self.mode != "ai":
            raise _invalid("only a room against the AI has an AI pace").at("ai_pace")
        if self.rated and self.mode != "private":
            raise _invalid("only a private room between account holders is made rated").at("rated")
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
    #: The joiner agrees that the match is rated: a rated private room's free seat is taken
    #: only with it (else ``rated_not_agreed``, nobody seated); a casual room ignores it.
    rated: Annotated[bool | None, _FLAG] = None

    def _check(self) -> None:
        if (self.room is None) == (self.invite is None):
            raise _invalid("give exactly one of room and invite")
        if self.seat is not None and self.room is None:
            raise _invalid("a seat is taken by room id, not by invite").at("seat")


@dataclass(frozen=True, slots=True)
class InviteInfo(_Checked):
    """What an invite code leads to, read before taking the seat: who invites, and to what
    (the greeting of an invite link). Takes nothing and names no room."""

    t: ClassVar[str] = "invite_info"
    id: Annotated[RequestId, _REQUEST_ID]
    invite: Annotated[str, _text(1, 64, pattern=_ID)]


@dataclass(frozen=True, slots=True)
class QuickMatch(_Checked):
    """Wait for an opponent: casual (anyone), or ``rated`` (account holders, paired by
    rating; ``docs/ratings.md``)."""

    t: ClassVar[str] = "quick_match"
    id: Annotated[RequestId, _REQUEST_ID]
    rated: Annotated[bool | None, _FLAG] = None


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
class CloseResult(_Checked):
    """The player closed the result of hand ``hand``: a turn of theirs that waited for them
    to look at it starts its clock now."""

    t: ClassVar[str] = "close_result"
    id: Annotated[RequestId, _REQUEST_ID]
    room: Annotated[str, _ROOM]
    hand: Annotated[int, _integer(1, MAX_SEQ)]


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


@dataclass(frozen=True, slots=True)
class ReviewHand(_Checked):
    """Ask for the review of a finished hand (``docs/review.md``): by either player once the
    hand is over, by anyone else once its match is over. The ack tells where it stands."""

    t: ClassVar[str] = "review_hand"
    id: Annotated[RequestId, _REQUEST_ID]
    hand: Annotated[str, _HAND]


@dataclass(frozen=True, slots=True)
class ReviewTake(_Checked):
    """A review worker (``hello`` with ``worker_key``) asks for the next review due: the ack
    holds ``hand`` and its ``record``, or no ``hand`` when none is due."""

    t: ClassVar[str] = "review_take"
    id: Annotated[RequestId, _REQUEST_ID]


@dataclass(frozen=True, slots=True)
class ReviewProgress(_Checked):
    """A review worker judged ``done`` of the ``total`` decisions of ``hand`` (renews its
    lease)."""

    t: ClassVar[str] = "review_progress"
    id: Annotated[RequestId, _REQUEST_ID]
    hand: Annotated[str, _HAND]
    done: Annotated[int, _integer(0, 10_000)]
    total: Annotated[int, _integer(0, 10_000)]

    def _check(self) -> None:
        if self.done > self.total:
            raise _invalid("done cannot exceed total").at("done")


@dataclass(frozen=True, slots=True)
class ReviewDone(_Checked):
    """A review worker's finished review of ``hand``."""

    t: ClassVar[str] = "review_done"
    id: Annotated[RequestId, _REQUEST_ID]
    hand: Annotated[str, _HAND]
    review: Annotated[PlainMap, _opaque("Record<string, unknown>")]


# -- server → client --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ack(_Checked):
    """The success answer to request ``id``; ``result`` depends on the request."""

    t: ClassVar[str] = "ack"
    id: Annotated[RequestId, _REQUEST_ID]
    result: Annotated[PlainMap, _opaque("Record<string, unknown>")]


@dataclass(frozen=True, slots=True)
class Error(_Checked):
    """The failure answer to request ``id`` (nil when the request's id could not be read)."""

    t: ClassVar[str] = "error"
    id: Annotated[RequestId | None, _NULLABLE_REQUEST_ID]
    code: Annotated[str, _CODE_TEXT]
    message: Annotated[str, _MESSAGE_TEXT]
    detail: Annotated[PlainMap | None, _opaque("Record<string, unknown>")] = None


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
    events: Annotated[Sequence[PlainMap], _EVENTS]
    view: Annotated[PlainMap | None, _opaque("RoomView")] = None


@dataclass(frozen=True, slots=True)
class Snapshot(_Checked):
    """The recipient's whole view of a room at ``seq`` (after ``watch``, or a long gap)."""

    t: ClassVar[str] = "snapshot"
    room: Annotated[str, _ROOM]
    seq: Annotated[int, _SEQ]
    view: Annotated[PlainMap, _opaque("RoomView")]


@dataclass(frozen=True, slots=True)
class AiSeat(_Checked):
    """To an AI worker: take seat ``seat`` of ``room`` (``join_room``) and play it at ``level``."""

    t: ClassVar[str] = "ai_seat"
    room: Annotated[str, _ROOM]
    seat: Annotated[int, _SEAT]
    level: Annotated[AILevel, _LEVEL]


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
class Nudge(_Checked):
    """Something of the player's changed on the server: read it again now (``about``:
    ``challenges``, ``GET /api/challenges``). It carries nothing else; the reading it prompts
    is the answer, so a nudge that is lost costs only the wait for the client's next reading.
    To the player's connections whose protocol knows it (1.2), on every process."""

    t: ClassVar[str] = "nudge"
    about: Annotated[str, _one_of(*NUDGE_ABOUT)]


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
    code: Annotated[str, _CODE_TEXT]
    message: Annotated[str, _MESSAGE_TEXT]


ClientMessage: TypeAlias = (
    Hello
    | Ping
    | SetName
    | CreateRoom
    | JoinRoom
    | InviteInfo
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
    | CloseResult
    | CallStandIn
    | Say
    | ReviewHand
    | ReviewTake
    | ReviewProgress
    | ReviewDone
)
ServerMessage: TypeAlias = (
    Ack | Error | Pong | Update | Snapshot | RoomAssigned | AiSeat | Said | Nudge | Reconnect | Bye
)
Message: TypeAlias = ClientMessage | ServerMessage

#: The classes of each union, in its order (the unions above are the one list of them).
_CLIENT_CLASSES: tuple[type[ClientMessage], ...] = get_args(ClientMessage)
_SERVER_CLASSES: tuple[type[ServerMessage], ...] = get_args(ServerMessage)
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

_declare(Rules, Action, *MESSAGES.values())


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
