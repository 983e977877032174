"""Every Redis key and channel name, in one place.

All keys of a room share the hash tag ``{room:ID}``, so a room's keys live in one slot and
its Lua scripts run unchanged on Redis Cluster. The quick-match keys share ``{quickmatch}``
for the same reason (one script touches both).

Slot groups (the ``group`` column): the keys that one atomic step (a script, a MULTI, a
batch of commands sent together) may touch together. On Redis Cluster each group lives in
one hash slot; a step that spans two groups is written as ordered, idempotent steps instead
(``tests/server/store/test_slots.py`` refuses any other). ``own`` means the key is a group
of its own (it shares a slot with nothing on purpose).

=========================  ================  ==========  ===========================================
key                        group             type        holds
=========================  ================  ==========  ===========================================
``{room:ID}:room``         ``{room:ID}``     string      the room blob (encoded by the caller)
``{room:ID}:version``      ``{room:ID}``     string      the room's version = its last sequence
                                                         number
``{room:ID}:events``       ``{room:ID}``     stream      one entry per sequence number: ``seq``,
                                                         ``change``; entry id ``<seq>-1``; once
                                                         the match is over, kept only
                                                         ``GIN_FINISHED_HISTORY``
``{room:ID}:requests``     ``{room:ID}``     sorted set  request keys already applied, scored by
                                                         expiry (ms), rising: the newest 128, for
                                                         10 minutes
``{room:ID}:channel``      ``{room:ID}``     pub/sub     one message per commit (see
                                                         ``server.store.feed``); sharded pub/sub
                                                         (``SPUBLISH``) on a cluster; also
                                                         carries quick messages (``said:``)
``{room:ID}:talk:SEAT``    ``{room:ID}``     hash        the seat's quick-message allowance
                                                         (``tokens``, ``at`` ms), with a TTL
``player:ID``              own               hash        ``token_hash``, ``name``, ``created``,
                                                         ``stat:NAME``
``player-rooms:ID``        own               hash        the player's unfinished rooms: room id ->
                                                         ``ai`` or ``people`` (see
                                                         ``server.limits``)
``created-rooms:ID``       own               hash        the player's ``create_room`` request ids ->
                                                         the room each made (a retry gets the same
                                                         room); with a TTL
``new-players:ADDR``       own               string      players created from one client address
                                                         (a digest) this minute, with a TTL
``invite:CODE``            own               string      room id, with a TTL
``{quickmatch}:queue``     ``{quickmatch}``  sorted set  waiting player ids, scored by join time
                                                         (ms)
``{quickmatch}:rooms``     ``{quickmatch}``  hash        waiting player id -> the room they wait in
``rooms:active``           own               sorted set  room ids not finished, scored by creation,
                                                         then by when the sweep looks at them next
                                                         (ms); the sweep cleans it
``{room:ID}:watchers``     ``{room:ID}``     hash        server process id -> ``COUNT:UNTIL``: how
                                                         many spectators follow the room there,
                                                         until when (ms) unless renewed; with a TTL
``rooms:live``             own               sorted set  public rooms in play, scored by when a
                                                         process that follows them last saw them
                                                         (ms): the lobby's "Live now"
``rooms:watched``          own               sorted set  rooms with spectators on some process,
                                                         scored by when the latest of those counts
                                                         lapses (ms): whose ``watchers`` to read
``hand:ID``                own               hash        ``room``, ``finished``, ``blob``,
                                                         ``public``; with a TTL
``hands:recent``           own               sorted set  hand ids of public rooms, scored by finish
                                                         time (unix seconds)
``hands:player:ID``        own               sorted set  a person's own hand ids (any room), scored
                                                         by finish time; capped, with the hands' TTL
``records:pending``        own               sorted set  ``ROOM:HAND`` / ``ROOM:match``: bookkeeping
                                                         (replay record, statistics) a change is
                                                         about to owe, scored by when (ms); removed
                                                         once done
``ai:requests``            own               stream      AI seat requests: ``room``, ``seat``,
                                                         ``level``, ``ask``, ``rank``; consumer
                                                         group ``ai-workers``
``ai:leases``              own               sorted set  AI-played seats ``ROOM:SEAT``, scored by
                                                         the end of their lease (ms): renewed while
                                                         a worker plays them
``ai:wanted``              own               hash        ``ROOM:SEAT`` -> the ``ask`` token of the
                                                         seat's newest AI request, until a worker
                                                         takes the seat (older requests for it are
                                                         superseded)
``feed:ID``                own               pub/sub     a feed's own channel (keeps its connection
                                                         busy; one Redis only)
=========================  ================  ==========  ===========================================

Steps across groups, and why each is safe in its order: a room is counted in
``player-rooms:ID`` before it is created (a claim whose room was never made is released by
the failed request, or dropped as closed by the player's next claim that hits a limit); a
room is created, then listed in ``rooms:active`` (a listed room always exists); the sweep
reads and mends the rooms' TTLs before it scores or removes their ``rooms:active`` entries
(each step idempotent, a room finished meanwhile stays out: ``ZADD XX``); a hand record is
written, then listed in ``hands:recent`` and each player's ``hands:player:ID`` (a listed hand
always exists); an AI request's ``ai:wanted`` token is written before its stream entry
(whoever reads the request finds its token, or a newer one); ``records:pending`` is noted
before the commit it is about and cleared after the records it names.

Every id is checked before it becomes part of a key: 1 to 64 characters among ``A-Z a-z 0-9
_ -``. No braces, colons, spaces or glob characters can reach a key name, so an id can neither
escape its hash tag nor name another key.
"""

from __future__ import annotations

import binascii
import functools
import re
from typing import NamedTuple

__all__ = [
    "AI_WORKERS_GROUP",
    "ID_MAX_LENGTH",
    "SLOTS",
    "InvalidId",
    "RoomKeys",
    "ai_leases",
    "ai_requests",
    "ai_wanted",
    "check_id",
    "feed_channel",
    "hand",
    "hands_recent",
    "hash_slot",
    "invite",
    "new_players",
    "player",
    "player_created_rooms",
    "player_hands",
    "player_rooms",
    "quickmatch_queue",
    "quickmatch_rooms",
    "records_pending",
    "room",
    "room_channel",
    "room_events",
    "room_id_from_channel",
    "room_keys",
    "room_requests",
    "room_talk",
    "room_version",
    "room_watchers",
    "rooms_active",
    "rooms_live",
    "rooms_watched",
    "stat_field",
    "stat_name",
]

ID_MAX_LENGTH = 64
AI_WORKERS_GROUP = "ai-workers"
"""Consumer group of the ``ai:requests`` stream."""

_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{ID_MAX_LENGTH}}}")
_STAT = re.compile(r"[a-z][a-z0-9_]{0,31}")
_STAT_PREFIX = "stat:"
_ROOM_CHANNEL = re.compile(rf"\{{room:([A-Za-z0-9_-]{{1,{ID_MAX_LENGTH}}})\}}:channel")


SLOTS = 16384
"""Hash slots of a Redis Cluster."""


def hash_slot(key: str | bytes) -> int:
    """The Redis Cluster hash slot of ``key``: CRC16 (XMODEM) of its hash tag (the part
    between the first ``{`` and the next ``}``, when not empty) or of the whole key."""
    data = key.encode() if isinstance(key, str) else key
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    return binascii.crc_hqx(data, 0) % SLOTS


class InvalidId(ValueError):
    """An id that may not become part of a Redis key."""


def check_id(value: object, what: str = "id") -> str:
    """Return ``value`` if it is a valid id (1-64 of ``A-Z a-z 0-9 _ -``), else raise InvalidId."""
    if not isinstance(value, str) or _ID.fullmatch(value) is None:
        raise InvalidId(f"invalid {what}: {value!r} (1-{ID_MAX_LENGTH} of A-Z a-z 0-9 _ -)")
    return value


# -- rooms ---------------------------------------------------------------------------------


def _room_tag(room_id: str) -> str:
    return "{room:" + check_id(room_id, "room id") + "}"


def room(room_id: str) -> str:
    """``{room:ID}:room``: the room blob."""
    return _room_tag(room_id) + ":room"


def room_version(room_id: str) -> str:
    """``{room:ID}:version``: the room's version (= last sequence number)."""
    return _room_tag(room_id) + ":version"


def room_events(room_id: str) -> str:
    """``{room:ID}:events``: the room's change stream."""
    return _room_tag(room_id) + ":events"


def room_requests(room_id: str) -> str:
    """``{room:ID}:requests``: request keys already applied (dedupe)."""
    return _room_tag(room_id) + ":requests"


def room_channel(room_id: str) -> str:
    """``{room:ID}:channel``: the room's pub/sub channel."""
    return _room_tag(room_id) + ":channel"


def room_talk(room_id: str, seat: int) -> str:
    """``{room:ID}:talk:SEAT``: the quick messages a seat may still send (``lua/say.lua``)."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise InvalidId(f"invalid seat: {seat!r} (0 or 1)")
    return _room_tag(room_id) + f":talk:{seat}"


def room_id_from_channel(channel: str | bytes) -> str | None:
    """The room id of a room channel name, or None if ``channel`` is not one."""
    if isinstance(channel, bytes):
        try:
            channel = channel.decode("ascii")
        except UnicodeDecodeError:
            return None
    match = _ROOM_CHANNEL.fullmatch(channel)
    return match.group(1) if match else None


class RoomKeys(NamedTuple):
    """All keys of one room, in the order the room scripts take them as KEYS."""

    room: str
    version: str
    events: str
    requests: str
    channel: str


def room_keys(room_id: str) -> RoomKeys:
    """Every key of a room (one hash tag); remembered for the rooms in play (every move asks)."""
    if type(room_id) is not str:
        raise InvalidId(f"invalid room id: {room_id!r} (a string)")
    return _room_keys(room_id)


@functools.lru_cache(maxsize=20_000)
def _room_keys(room_id: str) -> RoomKeys:
    tag = _room_tag(room_id)
    return RoomKeys(
        room=tag + ":room",
        version=tag + ":version",
        events=tag + ":events",
        requests=tag + ":requests",
        channel=tag + ":channel",
    )


def room_watchers(room_id: str) -> str:
    """Hash: each server process's count of the room's spectators (``COUNT:UNTIL_MS``)."""
    return _room_tag(room_id) + ":watchers"


def rooms_live() -> str:
    """Sorted set: public rooms in play, scored by when they were last seen in play (ms)."""
    return "rooms:live"


def rooms_watched() -> str:
    """Sorted set: rooms that some process counts spectators of, scored by when the latest
    of those counts lapses (ms)."""
    return "rooms:watched"


def rooms_active() -> str:
    """``rooms:active``: ids of rooms not finished, scored by when the sweep looks next."""
    return "rooms:active"


# -- players -------------------------------------------------------------------------------


def player(player_id: str) -> str:
    """``player:ID``: the player hash."""
    return "player:" + check_id(player_id, "player id")


def player_rooms(player_id: str) -> str:
    """``player-rooms:ID``: the player's unfinished rooms, room id -> ``ai`` / ``people``."""
    return "player-rooms:" + check_id(player_id, "player id")


def player_created_rooms(player_id: str) -> str:
    """``created-rooms:ID``: the player's ``create_room`` request ids -> the room each made."""
    return "created-rooms:" + check_id(player_id, "player id")


def new_players(address_digest: str) -> str:
    """``new-players:ADDR``: players created from one address this minute (ADDR: a digest of
    the address, which itself may hold characters no key may)."""
    return "new-players:" + check_id(address_digest, "address digest")


def stat_field(name: str) -> str:
    """The player-hash field of the stat ``name`` (``stat:NAME``; NAME is ``[a-z][a-z0-9_]*``)."""
    if not isinstance(name, str) or _STAT.fullmatch(name) is None:
        raise InvalidId(f"invalid stat name: {name!r} ([a-z][a-z0-9_]{{0,31}})")
    return _STAT_PREFIX + name


def stat_name(field: str) -> str | None:
    """The stat name of a player-hash field, or None if the field is not a stat."""
    if field.startswith(_STAT_PREFIX):
        return field[len(_STAT_PREFIX) :]
    return None


# -- lobby ---------------------------------------------------------------------------------


def invite(code: str) -> str:
    """``invite:CODE``: the room id an invite code leads to."""
    return "invite:" + check_id(code, "invite code")


def quickmatch_queue() -> str:
    """``{quickmatch}:queue``: waiting players, scored by join time (ms)."""
    return "{quickmatch}:queue"


def quickmatch_rooms() -> str:
    """``{quickmatch}:rooms``: waiting player -> the room they wait in."""
    return "{quickmatch}:rooms"


# -- finished hands ------------------------------------------------------------------------


def hand(hand_id: str) -> str:
    """``hand:ID``: a finished hand record."""
    return "hand:" + check_id(hand_id, "hand id")


def hands_recent() -> str:
    """``hands:recent``: finished hand ids, scored by finish time."""
    return "hands:recent"


# -- privacy: a player's own hands ----------------------------------------------------------


def player_hands(player_id: str) -> str:
    """``hands:player:ID``: the hand ids of one person's finished hands, scored by finish time."""
    return "hands:player:" + check_id(player_id, "player id")


def records_pending() -> str:
    """``records:pending``: ``ROOM:HAND`` or ``ROOM:match`` whose bookkeeping may be owed."""
    return "records:pending"


# -- AI seats ------------------------------------------------------------------------------


def ai_requests() -> str:
    """``ai:requests``: the AI seat request stream (consumer group ``ai-workers``)."""
    return "ai:requests"


def ai_leases() -> str:
    """``ai:leases``: AI-played seats ``ROOM:SEAT``, scored by the end of their lease (ms)."""
    return "ai:leases"


def ai_wanted() -> str:
    """``ai:wanted``: ``ROOM:SEAT`` -> the ``ask`` token of the seat's newest AI request."""
    return "ai:wanted"


# -- feeds ---------------------------------------------------------------------------------


def feed_channel(feed_id: str) -> str:
    """``feed:ID``: a room feed's own channel."""
    return "feed:" + check_id(feed_id, "feed id")
