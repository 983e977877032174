"""Fuzzing the codec and a real server over the wire: what to send (hypothesis strategies) and
the oracles of what must come back. Shared by ``tests/abuse/test_fuzz.py`` (a few thousand
inputs in ``make test``) and ``bench/fuzz.py`` (100,000 and more).

Frames are arbitrary bytes, arbitrary MessagePack values, message-shaped maps whose fields are
drawn from valid values, invalid values and the ids of real rooms, well-formed requests on the
fuzzer's real rooms, legal moves of the matches the fuzzer plays (so that the handlers and the
game engine run, not just the decoder), mutations of valid frames, text frames and frames
over the 16 KiB limit.

Two oracles:

- :func:`check_decoder` (in-process, no server): ``codec.decode`` returns a message or raises
  ``ProtocolError``, nothing else; a refusal carries one of the codec's codes, can itself be
  sent (encodes) and names the request id exactly when the frame's map held a valid one; an
  accepted frame is well-formed MessagePack by an independent parser (no trailing bytes, string
  keys, no key twice, no ext type, finite floats, safe integers), holds exactly the fields of
  its message, and its message encodes canonically and decodes back to itself.
- :meth:`FuzzClient.check` (a real server): after each frame the client sends a ``ping`` and
  reads up to its ``pong``; what came in between answers the frame, and must be exactly what
  the protocol promises (``docs/protocol.md``): a frame that does not decode gets exactly one
  ``error`` with the codec's code and the request id the codec found; a request that decodes
  gets exactly one ``ack`` or ``error`` with its id (a ``ping`` one ``pong``), never
  ``internal`` and never a code only the codec gives; every frame the server sends decodes;
  the server never closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from client.session import Session
from protocol import codec
from protocol import messages as m
from protocol.cards import DECK
from protocol.talk import QUICK_MESSAGES
from server.store import Store
from tests.chaos.players import SeatPlay, check_room, play_seat
from tests.support.players import truth
from tests.support.server_process import ServerProcess

__all__ = [
    "CODEC_CODES",
    "Context",
    "Frame",
    "FuzzClient",
    "HonestPlay",
    "check_decoder",
    "expectation",
    "frames",
    "logged_failures",
    "open_connections",
    "pack",
]

Frame = bytes | str
SYNC_PREFIX = "~sync-"
#: Codes that only the codec gives (``docs/protocol.md``, "Error codes"): a request that
#: decoded is never answered with one of them.
CODEC_CODES = frozenset({"bad_message", "frame_too_large", "unknown_type"})
#: Every code a decoding failure may carry.
DECODE_CODES = CODEC_CODES | {"invalid_argument"}
_MAX_SAFE = 2**53 - 1


@dataclass(repr=False)
class Context:
    """Real ids the fuzzer mixes into its frames. The lists grow while the fuzzer runs (rooms
    it creates, numbers and legal moves it sees), and the strategies read them when they draw.
    Shared by threads in ``bench/fuzz.py``: only appends and single assignments."""

    rooms: list[str] = field(default_factory=lambda: ["r-none"])
    invites: list[str] = field(default_factory=lambda: ["NOPE"])
    tokens: list[str] = field(default_factory=lambda: ["p-none.secret"])
    seqs: dict[str, int] = field(default_factory=dict)
    #: (room, seat) -> (seq, the seat's legal actions at that number, the player who saw
    #: them), from the seat's views.
    legal: dict[tuple[str, int], tuple[int, list[dict[str, Any]], str]] = field(
        default_factory=dict
    )
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def __repr__(self) -> str:  # short: hypothesis prints it in every strategy's repr
        return f"Context({len(self.rooms)} rooms)"

    def room(self, index: int) -> str:
        return self.rooms[index % len(self.rooms)]

    def invite(self, index: int) -> str:
        return self.invites[index % len(self.invites)]

    def token(self, index: int) -> str:
        return self.tokens[index % len(self.tokens)]

    def seq(self, room: str, offset: int) -> int:
        return max(-1, self.seqs.get(room, 0) + offset)

    def legal_act(self, pick: int, player: str | None = None) -> dict[str, Any]:
        """A legal move of ``player``'s seats (any player's when None) on its room's current
        number, as the server last showed it, with a fresh id (a ``lobby`` request when no
        move is known)."""
        moves = [
            (room, seq, action)
            for (room, _seat), (seq, actions, seen_by) in list(self.legal.items())
            if seq == self.seqs.get(room) and player in (None, seen_by)
            for action in actions
        ]
        request_id = f"mv-{next(self._ids)}"
        if not moves:
            return {"t": "lobby", "id": request_id}
        room, seq, action = moves[pick % len(moves)]
        return {"t": "act", "id": request_id, "room": room, "seq": seq, "action": dict(action)}

    def learn(self, message: m.ServerMessage, player: str = "") -> None:
        """Keep the rooms, numbers and legal moves the server tells ``player`` about."""
        if isinstance(message, m.Update | m.Snapshot):
            self.seqs[message.room] = max(self.seqs.get(message.room, -1), message.seq)
            view = message.view
            game = view.get("game") if isinstance(view, Mapping) else None
            seat = view.get("seat") if isinstance(view, Mapping) else None
            if isinstance(seat, int) and isinstance(game, Mapping):
                actions = [dict(a) for a in game.get("legal_actions") or ()]
                self.legal[(message.room, seat)] = (message.seq, actions, player)
        elif isinstance(message, m.Ack | m.RoomAssigned):
            result = message.result if isinstance(message, m.Ack) else {"room": message.room}
            room = result.get("room")
            if isinstance(room, str) and room not in self.rooms and len(self.rooms) < 200:
                self.rooms.append(room)
            invite = result.get("invite")
            if isinstance(invite, str) and invite not in self.invites:
                self.invites.append(invite)


# --- values ---------------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**64), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8)),
)
plain: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.text(max_size=10), inner, max_size=5),
        st.dictionaries(st.integers(-3, 3), inner, max_size=3),
    ),
    max_leaves=12,
)

_ids = st.one_of(
    st.integers(0, 2**53 - 1),
    st.text(min_size=1, max_size=64).filter(lambda text: not text.startswith(SYNC_PREFIX)),
    st.sampled_from([-1, 2**53, 2**64 - 1, "", "x" * 65, 1.0, True, None, b"id"]),
)


def _field_values(ctx: Context) -> dict[str, st.SearchStrategy[Any]]:
    real_rooms = st.integers(0, 1 << 20).map(ctx.room)
    rooms = st.one_of(
        real_rooms,
        real_rooms,
        st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True),
        st.sampled_from(["", "a room", "x" * 65, "{room:x}", "r*", "../etc"]),
        st.text(max_size=70),
    )
    cards = st.one_of(st.sampled_from(DECK), st.sampled_from(["", "10S", "qs", "ZZ", "AS "]))
    action = st.one_of(
        st.fixed_dictionaries({"kind": st.sampled_from(m.ACTION_KINDS)}, optional={"card": cards}),
        st.dictionaries(st.sampled_from(["kind", "card", "extra"]), plain, max_size=3),
        plain,
    )
    seqs = st.one_of(st.builds(ctx.seq, real_rooms, st.integers(-2, 2)), st.integers(-3, 2**53 + 3))
    return {
        "id": _ids,
        "version": st.one_of(
            st.just(m.PROTOCOL_VERSION),
            st.sampled_from(["1.1", "2.0", "0.9", "1", "01.0", "1.0.0", "", "x"]),
            st.text(max_size=10),
        ),
        "token": st.one_of(
            st.integers(0, 99).map(ctx.token), st.text(min_size=1, max_size=130), st.just("")
        ),
        "worker_key": st.one_of(st.text(min_size=1, max_size=130), st.just("")),
        "name": st.one_of(
            st.text(min_size=1, max_size=32), st.sampled_from(["", "   ", "x" * 33, "a\tb"])
        ),
        "client": st.text(max_size=70),
        "mode": st.sampled_from(["ai", "private", "quick", "solo", ""]),
        "level": st.sampled_from(["easy", "normal", "hard", "expert", ""]),
        "rules": st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "target": st.integers(-5, 20_000),
                    "game_bonus": st.booleans(),
                    "box_bonus": st.booleans(),
                    "shutout_bonus": st.booleans(),
                },
            ),
            plain,
        ),
        "turn_seconds": st.integers(-5, 4000),
        "stand_in": st.booleans(),
        "public": st.one_of(st.booleans(), plain),
        "watch_token": st.one_of(
            st.from_regex(r"[A-Za-z0-9_-]{22}", fullmatch=True), st.text(max_size=70)
        ),
        "room": rooms,
        "invite": st.one_of(st.integers(0, 99).map(ctx.invite), st.text(max_size=70)),
        "seq": seqs,
        "last_seq": seqs,
        "action": action,
        "capacity": st.integers(-3, 20_000),
        "seat": st.one_of(st.integers(-1, 2), plain),
        "phrase": st.one_of(st.sampled_from(QUICK_MESSAGES), st.text(max_size=20), plain),
    }


_FIELDS: dict[str, tuple[str, ...]] = {
    "hello": ("version", "token", "name", "client", "worker_key"),
    "ping": (),
    "set_name": ("name",),
    "create_room": ("mode", "level", "rules", "turn_seconds", "stand_in", "public"),
    "join_room": ("room", "invite", "seat"),
    "quick_match": (),
    "cancel_quick_match": (),
    "watch": ("room", "watch_token"),
    "resume": ("room", "last_seq", "watch_token"),
    "act": ("room", "seq", "action"),
    "leave": ("room",),
    "rematch": ("room",),
    "lobby": (),
    "stats": (),
    "ai_subscribe": ("capacity",),
    "say": ("room", "phrase"),
}
_TAGS = [*m.CLIENT_MESSAGES, *m.CLIENT_MESSAGES, *m.SERVER_MESSAGES, "nope", ""]


def message_maps(ctx: Context) -> st.SearchStrategy[dict[Any, Any]]:
    """Maps tagged like a message: its fields mostly well typed, sometimes a stray one."""
    values = _field_values(ctx)

    def shaped(tag: str) -> st.SearchStrategy[dict[Any, Any]]:
        names = _FIELDS.get(tag, ("room", "seq"))
        optional = {name: values[name] for name in names}
        optional["id"] = values["id"]
        base = st.fixed_dictionaries({"t": st.just(tag)}, optional=optional)
        stray = st.one_of(
            st.just({}),
            st.dictionaries(
                st.one_of(st.sampled_from([*values, "t", "extra"]), st.text(max_size=5)),
                plain,
                max_size=2,
            ),
        )
        return st.builds(lambda a, b: {**a, **b}, base, stray)

    return st.sampled_from(_TAGS).flatmap(shaped)


_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,20}[A-Za-z0-9]", fullmatch=True)
_REQUEST_IDS = st.one_of(
    st.integers(0, 2**53 - 1), st.from_regex(r"[a-z0-9-]{1,20}", fullmatch=True)
)


def requests(ctx: Context, player: str | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Well-formed requests on the fuzzer's real rooms: these reach the handlers (legal moves
    of ``player``'s matches reach the game engine)."""
    room = st.integers(0, 1 << 20).map(ctx.room)

    def act(index: int, offset: int, kind: str, card: str) -> dict[str, Any]:
        name = ctx.room(index)
        action: dict[str, Any] = {"kind": kind}
        if kind in m.CARD_ACTION_KINDS:
            action["card"] = card
        return {"t": "act", "room": name, "seq": ctx.seq(name, offset), "action": action}

    def resume(index: int, offset: int) -> dict[str, Any]:
        name = ctx.room(index)
        return {"t": "resume", "room": name, "last_seq": ctx.seq(name, offset)}

    shapes = st.one_of(
        st.builds(ctx.legal_act, st.integers(0, 1 << 20), st.just(player)),
        st.builds(
            act,
            st.integers(0, 1 << 20),
            st.sampled_from([0, 0, 0, -1, 1]),
            st.sampled_from(m.ACTION_KINDS),
            st.sampled_from(DECK),
        ),
        st.builds(resume, st.integers(0, 1 << 20), st.integers(-3, 1)),
        st.fixed_dictionaries({"t": st.just("watch"), "room": room}),
        st.fixed_dictionaries(
            {"t": st.sampled_from(["leave", "rematch", "rematch", "rematch"]), "room": room}
        ),
        st.fixed_dictionaries(
            {"t": st.just("join_room")},
            optional={
                "room": room,
                "invite": st.integers(0, 99).map(ctx.invite),
                "seat": st.integers(0, 1),
            },
        ),
        st.fixed_dictionaries(
            {"t": st.just("create_room"), "mode": st.sampled_from(["ai", "private"])},
            optional={
                "level": st.sampled_from(["easy", "normal", "hard"]),
                "rules": st.fixed_dictionaries({}, optional={"target": st.integers(1, 200)}),
                "turn_seconds": st.integers(0, 3600),
                "stand_in": st.booleans(),
            },
        ),
        st.fixed_dictionaries(
            {"t": st.just("hello"), "version": st.sampled_from(["1.0", "1.7", "2.0"])},
            optional={"token": st.integers(0, 99).map(ctx.token), "name": _NAMES},
        ),
        st.fixed_dictionaries({"t": st.just("set_name"), "name": _NAMES}),
        st.fixed_dictionaries(
            {
                "t": st.just("say"),
                "room": room,
                "phrase": st.one_of(st.sampled_from(QUICK_MESSAGES), st.just("free text")),
            }
        ),
        st.fixed_dictionaries(
            {"t": st.sampled_from(["lobby", "stats", "quick_match", "cancel_quick_match"])}
        ),
        st.fixed_dictionaries({"t": st.just("ai_subscribe"), "capacity": st.integers(0, 5)}),
    )
    return st.builds(lambda shape, rid: {**shape, "id": rid}, shapes, _REQUEST_IDS)


def pack(value: Any) -> bytes:
    """``value`` as MessagePack (its ``repr`` when msgpack cannot write it)."""
    try:
        return bytes(msgpack.packb(value, use_bin_type=True))
    except (OverflowError, TypeError, ValueError):
        return bytes(msgpack.packb(repr(value), use_bin_type=True))


def _mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    out = bytearray(data)
    for kind, where, byte in edits:
        if not out:
            out.append(byte)
            continue
        index = where % len(out)
        if kind == 0:
            out[index] = byte
        elif kind == 1:
            out.insert(index, byte)
        elif kind == 2:
            del out[index]
        else:
            del out[index:]
    return bytes(out)


def _duplicate_key(tag: str, request_id: int) -> bytes:
    """A map with the key ``t`` twice (msgpack itself would never write one)."""
    return b"\x83" + b"".join(pack(v) for v in ("t", tag, "id", request_id, "t", "ping"))


def _bad_utf8_id(tag: str, junk: bytes) -> bytes:
    """A request whose string id is not valid UTF-8 (the codec must not echo it back)."""
    raw_id = b"\xa2\x00" + bytes([0x80 | (junk[0] & 0x3F) if junk else 0x80])
    return b"\x82" + pack("t") + pack(tag) + pack("id") + raw_id


def frames(ctx: Context, player: str | None = None) -> st.SearchStrategy[Frame]:
    """Every kind of frame (see the module docstring); legal moves are ``player``'s."""
    maps = message_maps(ctx)
    valid = requests(ctx, player)
    legal = st.builds(ctx.legal_act, st.integers(0, 1 << 20), st.just(player)).map(pack)
    return st.one_of(
        legal,
        legal,
        legal,
        valid.map(pack),
        valid.map(pack),
        valid.map(pack),
        valid.map(pack),
        maps.map(pack),
        maps.map(pack),
        st.builds(
            _mutate,
            st.one_of(maps.map(pack), valid.map(pack)),
            st.lists(
                st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 255)),
                min_size=1,
                max_size=4,
            ),
        ),
        plain.map(pack),
        st.binary(max_size=200),
        st.builds(_duplicate_key, st.sampled_from(list(m.CLIENT_MESSAGES)), st.integers(0, 99)),
        st.builds(_bad_utf8_id, st.sampled_from([*m.CLIENT_MESSAGES, "nope"]), st.binary()),
        st.text(max_size=50),
        st.builds(
            lambda size, tag: pack({"t": tag, "id": "big", "name": "x" * size}),
            st.integers(16_000, 40_000),
            st.sampled_from(["set_name", "hello", "ping"]),
        ),
    )


# --- the decoder's oracle -----------------------------------------------------------------------


class _Map(list[tuple[Any, Any]]):
    """A map as the independent parser read it: its pairs, in order, duplicates kept."""


def _reference(frame: bytes) -> tuple[Any, bool] | None:
    """The first value of ``frame`` by plain msgpack (strict UTF-8, ext types kept), and
    whether bytes follow it; None when it is not MessagePack at all."""
    try:
        return (
            msgpack.unpackb(frame, raw=False, strict_map_key=False, object_pairs_hook=_Map),
            False,
        )
    except msgpack.ExtraData as extra:
        return extra.args[0], True  # ExtraData(unpacked, extra)
    except Exception:
        return None


def _valid_id(value: Any) -> bool:
    if type(value) is int:
        return 0 <= value <= _MAX_SAFE
    return type(value) is str and 1 <= len(value) <= 64


def _plain_problem(value: Any, depth: int = 1) -> str | None:
    """Why ``value`` (from the independent parser) is not wire plain data, or None."""
    if value is None or isinstance(value, bool | str):
        return None
    if isinstance(value, int):
        return None if -_MAX_SAFE <= value <= _MAX_SAFE else f"integer {value}"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"float {value}"
    if isinstance(value, bytes):
        return None
    if isinstance(value, msgpack.ExtType):
        return "an ext type"
    if depth > 16:
        return "nested deeper than 16"
    if isinstance(value, _Map):
        keys = [key for key, _ in value]
        if any(type(key) is not str for key in keys):
            return "a non-string key"
        if len(set(keys)) != len(keys):
            return "a key twice"
        items = [item for _, item in value]
    else:
        items = list(value)
    for item in items:
        found = _plain_problem(item, depth + 1)
        if found:
            return found
    return None


def _same(sent: Any, wire: Any, name: str) -> bool:
    """Whether a field as sent is the field as decoded (typed; nil entries of nested maps are
    absent; a name is stripped)."""
    if isinstance(sent, _Map):
        given = {key: item for key, item in sent if item is not None}
        return (
            isinstance(wire, dict)
            and set(given) == set(wire)
            and all(_same(given[key], wire[key], key) for key in given)
        )
    if name == "name" and isinstance(sent, str):
        return bool(sent.strip() == wire)
    return type(sent) is type(wire) and bool(sent == wire)


def check_decoder(frame: Frame) -> tuple[str, list[str]]:
    """Decode ``frame`` as the server does; returns the outcome ("decoded act", "refused
    bad_message"...) and what was wrong (see the module docstring)."""
    try:
        message = codec.decode(frame, direction="client", max_size=max(1, len(frame)) + 1)  # type: ignore[arg-type]
    except m.ProtocolError as error:
        return f"refused {error.code}", _check_refusal(frame, error)
    except Exception as crash:
        return "CRASH", [f"decoder crash {crash!r} on {frame!r:.160}"]
    assert isinstance(frame, bytes)
    return f"decoded {message.t}", _check_accepted(frame, message)


def _check_refusal(frame: Frame, error: m.ProtocolError) -> list[str]:
    problems = []
    if str(error.code) not in DECODE_CODES:
        problems.append(f"the codec refused with {error.code}: {frame!r:.160}")
    try:
        codec.encode(error.to_message())
    except Exception as failure:
        problems.append(f"its error cannot be sent ({failure!r}): {frame!r:.160}")
    if isinstance(frame, bytes):
        parsed = _reference(frame)
        if parsed is not None and isinstance(parsed[0], _Map):
            ids = [value for key, value in parsed[0] if key == "id"]
            expected = ids[0] if ids and _valid_id(ids[0]) else None
            if error.request_id != expected or type(error.request_id) is not type(expected):
                problems.append(
                    f"refused with id {error.request_id!r}, the frame's is {expected!r}: "
                    f"{frame!r:.160}"
                )
    elif error.request_id is not None:
        problems.append(f"a text frame's refusal names id {error.request_id!r}")
    return problems


def _check_accepted(frame: bytes, message: m.Message) -> list[str]:
    where = f"{frame!r:.160} decoded as {message!r:.200}"
    parsed = _reference(frame)
    if parsed is None:
        return [f"accepted, but not valid MessagePack: {where}"]
    value, trailing = parsed
    problems = []
    if trailing:
        problems.append(f"accepted with bytes after the map: {where}")
    if not isinstance(value, _Map):
        return [*problems, f"accepted a frame that is not a map: {where}"]
    found = _plain_problem(value)
    if found:
        problems.append(f"accepted {found}: {where}")
        return problems
    sent = {key: item for key, item in value if item is not None}
    wire = m.to_wire(message)
    if sent.get("t") not in m.CLIENT_MESSAGES or set(sent) != set(wire):
        problems.append(f"fields sent {sorted(sent)}, decoded {sorted(wire)}: {where}")
    elif not all(_same(sent[key], wire[key], key) for key in sent):
        problems.append(f"a field changed in decoding: {where}")
    try:
        encoded = codec.encode(message)
        again = codec.decode(encoded, direction="client")
    except m.ProtocolError as error:
        return [*problems, f"no round trip ({error}): {where}"]
    if again != message or codec.encode(again) != encoded:
        problems.append(f"no round trip: {where} -> {encoded!r:.160}")
    return problems


# --- honest players alongside ---------------------------------------------------------------


class HonestPlay(threading.Thread):
    """Two people playing whole matches (to ``target``, ``think`` seconds before each move) on
    the server, one after the other until ``stop`` is set, in a thread of their own.

    Each finished match is checked (``check_room``: nothing lost, nothing applied twice, every
    frame in order); ``counts`` adds up the checks' counts, ``changes`` keeps each room's true
    stream. Each new room goes into ``secret`` (the rooms the fuzzer has no seat in), then
    into ``rooms`` (those the fuzzer's frames name)."""

    def __init__(
        self,
        server: ServerProcess,
        redis_url: str,
        rooms: list[str],
        secret: set[str],
        *,
        target: int = 10,
        think: float = 0.05,
    ) -> None:
        super().__init__(daemon=True)
        self.target = target
        self.think = think
        self.server = server
        self.redis_url = redis_url
        self.rooms = rooms
        self.secret = secret
        self.stop = threading.Event()
        self.started = threading.Event()
        self.matches = 0
        #: Moves decided so far (``intents``), live, across matches.
        self.progress: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()
        self.changes: dict[str, list[tuple[int, int | None, list[dict[str, Any]]]]] = {}
        self.ended_at = 0.0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as error:
            self.error = error
        finally:
            self.ended_at = time.monotonic()
            self.started.set()

    async def _play(self) -> None:
        think = self.think
        a = await Session.connect(self.server.ws_url, name="Honest A", record=True)
        b = await Session.connect(self.server.ws_url, name="Honest B", record=True)
        store = await Store.connect(self.redis_url)
        try:
            while not self.stop.is_set():
                # public: the fuzzer may watch them by room id (and must see no hidden card)
                created = await a.request(
                    "create_room", mode="private", rules={"target": self.target}, public=True
                )
                room = created.result["room"]
                await b.request("join_room", invite=created.result["invite"])
                self.secret.add(room)
                self.rooms.append(room)
                self.started.set()
                plays = [SeatPlay(a, room, 0), SeatPlay(b, room, 1)]
                finals = await asyncio.gather(
                    *(
                        play_seat(
                            p,
                            random.Random(f"{room}/{p.seat}"),
                            timeout=120,
                            think=think,
                            progress=self.progress,
                        )
                        for p in plays
                    )
                )
                self.counts.update(await check_room(store, room, plays, finals, self.target))
                self.changes[room] = await truth(store, room)
                self.matches += 1
        finally:
            await a.close()
            await b.close()
            await store.close()


# --- the server's oracle ------------------------------------------------------------------------


def expectation(frame: Frame) -> tuple[str, str, m.RequestId | None, str | None]:
    """What must answer ``frame``: (request type, kind, id, code) where kind is "error"
    (exactly that error code), "pong" or "answer" (one ack or error with that id)."""
    if isinstance(frame, str):
        return "text", "error", None, m.ErrorCode.BAD_MESSAGE.value
    if len(frame) > codec.MAX_CLIENT_FRAME:
        return "oversized", "error", None, m.ErrorCode.FRAME_TOO_LARGE.value
    try:
        message = codec.decode(frame, direction="client", max_size=len(frame) + 1)
    except m.ProtocolError as error:
        return "undecodable", "error", error.request_id, str(error.code)
    request_id = getattr(message, "id", None)
    if isinstance(message, m.Ping):
        return "ping", "pong", request_id, None
    return message.t, "answer", request_id, None


class FuzzClient:
    """One synchronous connection that sends a frame and collects what answers it.

    ``counts`` holds ``frames`` and one ``"<request type> -> <answer>"`` per frame; frames of
    the ``secret_rooms`` (rooms this client holds no seat in) are kept in ``secret_frames``,
    to check afterwards that they showed no card a spectator may not see.
    """

    def __init__(
        self,
        url: str,
        name: str = "Fuzz",
        context: Context | None = None,
        hello: bool = True,
        token: str | None = None,
    ) -> None:
        self.url = url
        self.name = name
        self.context = context
        self._stack = contextlib.ExitStack()
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []
        self.secret_rooms: set[str] = set()
        self.secret_frames: list[m.Update | m.Snapshot] = []
        self._sync = itertools.count()
        self.ws: ClientConnection = self._open()
        self.player_id = self.token = ""
        if hello:
            ack = self.request(
                m.Hello(id=self._sync_id(), version=m.PROTOCOL_VERSION, name=name, token=token)
            )
            assert isinstance(ack, m.Ack), ack
            self.player_id = ack.result["player_id"]
            self.token = ack.result["token"]

    def _open(self) -> ClientConnection:
        self._stack.close()
        self._stack = contextlib.ExitStack()
        return self._stack.enter_context(
            connect(
                self.url,
                compression=None,
                proxy=None,
                max_size=codec.MAX_SERVER_FRAME,
                open_timeout=10,
                close_timeout=2,
                ping_interval=None,  # busy anyway; and no random() in a thread of its own
            )
        )

    def _sync_id(self) -> str:
        return f"{SYNC_PREFIX}{next(self._sync)}"

    def request(self, message: m.ClientMessage, timeout: float = 10) -> m.ServerMessage:
        """Send a well-formed request and return its answer (other frames are dropped)."""
        self.ws.send(codec.encode(message))
        request_id = getattr(message, "id", None)
        while True:
            answer = self._receive(timeout)
            if isinstance(answer, m.Ack | m.Error | m.Pong) and answer.id == request_id:
                return answer

    def _receive(self, timeout: float) -> m.ServerMessage:
        data = self.ws.recv(timeout=timeout)
        try:
            message = codec.decode(data, direction="server")  # type: ignore[arg-type]
        except m.ProtocolError as error:
            self.problems.append(f"the server sent an undecodable frame ({error}): {data!r:.80}")
            raise
        if self.context is not None:
            self.context.learn(message, self.player_id)  # type: ignore[arg-type]
        if isinstance(message, m.Update | m.Snapshot) and message.room in self.secret_rooms:
            self.secret_frames.append(message)
        return message  # type: ignore[return-value]

    def exchange(self, frame: Frame, timeout: float = 10) -> list[m.ServerMessage]:
        """Send ``frame``, then a ping; every frame received before its pong."""
        sync = self._sync_id()
        self.ws.send(frame)
        self.ws.send(codec.encode(m.Ping(id=sync)))
        received: list[m.ServerMessage] = []
        while True:
            message = self._receive(timeout)
            if isinstance(message, m.Pong) and message.id == sync:
                return received
            received.append(message)

    def check(self, frame: Frame) -> list[str]:
        """Send one frame and return what was wrong with the server's answer (and with the
        codec's verdict on it, :func:`check_decoder`)."""
        _outcome, problems = check_decoder(frame)
        tag, kind, request_id, code = expectation(frame)
        self.counts["frames"] += 1
        try:
            received = self.exchange(frame)
        except ConnectionClosed as closed:
            self.counts[f"{tag} -> connection closed"] += 1
            problem = f"the server closed the connection ({closed}) after {frame!r:.120}"
            self._reopen()
            return [*problems, problem]
        except TimeoutError:
            self.counts[f"{tag} -> no answer"] += 1
            return [*problems, f"no answer in time to {frame!r:.120}"]
        answers = [msg for msg in received if isinstance(msg, m.Ack | m.Error | m.Pong)]
        labels = [a.t if not isinstance(a, m.Error) else f"error {a.code}" for a in answers]
        self.counts[f"{tag} -> {', '.join(labels) or 'nothing'}"] += 1
        if any(isinstance(msg, m.Bye) for msg in received):
            problems.append(f"bye after {frame!r:.120}")
        if kind == "error":
            errors = [a for a in answers if isinstance(a, m.Error) and a.id == request_id]
            if len(answers) != 1 or len(errors) != 1 or errors[0].code != code:
                problems.append(
                    f"expected one error {code} (id {request_id!r}), got {answers} "
                    f"for {frame!r:.160}"
                )
            return problems
        wanted = [a for a in answers if getattr(a, "id", None) == request_id]
        if len(answers) != 1 or len(wanted) != 1:
            problems.append(f"expected one answer to {request_id!r}, got {answers}")
        elif kind == "pong" and not isinstance(wanted[0], m.Pong):
            problems.append(f"a ping got {wanted[0]}")
        elif isinstance(wanted[0], m.Error) and wanted[0].code == m.ErrorCode.INTERNAL:
            problems.append(f"internal error for {frame!r:.160}")
        elif isinstance(wanted[0], m.Error) and wanted[0].code in CODEC_CODES:
            problems.append(f"a request that decoded got {wanted[0].code}: {frame!r:.160}")
        return problems

    def _reopen(self) -> None:
        self.ws = self._open()
        self.request(m.Hello(id=self._sync_id(), version=m.PROTOCOL_VERSION, token=self.token))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._stack.close()


def logged_failures(log_text: str) -> list[str]:
    """Error records of a server's JSON log, and tracebacks printed outside it (uvicorn logs
    an exception that escapes the websocket handler in plain text)."""
    found = []
    lines = log_text.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("{") and ('"level": "error"' in line or '"level": "critical"' in line):
            found.append(line[:300])
        elif line.startswith("Traceback"):
            last = next((text for text in lines[number + 1 :] if not text.startswith(" ")), "")
            found.append(f"traceback: {last[:200]}")
    return found


def open_connections(metrics_text: str) -> float:
    """The ``gin_connections`` gauge of a server's ``/metrics`` page."""
    for line in metrics_text.splitlines():
        if line.startswith("gin_connections "):
            return float(line.split()[1])
    raise AssertionError("no gin_connections gauge in /metrics")
