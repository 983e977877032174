"""Every Redis key and channel name, in one place.

All keys of a room share the hash tag ``{room:ID}``, so a room's keys live in one slot and
its Lua scripts run unchanged on Redis Cluster. The quick-match keys share ``{quickmatch}``
for the same reason (one script touches both), and the AI seat queue's keys share ``{ai}``
(one script takes the queue's head and marks it offered).

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
                                                         ``stat:NAME`` (rated matches counted
                                                         again as ``stat:rated_NAME``);
                                                         ``banned`` (JSON ``by``, ``reason``,
                                                         ``at``: server.moderation);
                                                         an account's ``handle``
                                                         (display form), ``handle_at`` (ms),
                                                         ``password`` (argon2id hash),
                                                         ``session:HASH`` (a token's SHA-256 ->
                                                         ms), ``device:HASH`` (a known device's
                                                         secret's SHA-256 -> ms),
                                                         ``passkey:CREDID`` (JSON)
``{handles}:DIGEST``       ``{handles}``     string      a handle's gist (``server.handles``,
                                                         a SHA-256 digest) -> ``PLAYERID MS``:
                                                         the account holding it since when
``signin-account:ID``      own               string      failed sign-ins of an account in the
                                                         current window, with a TTL
``signin-address:ADDR``    own               string      sign-in attempts from one client
                                                         address (a digest) in the window, TTL
``webauthn:DIGEST``        own               string      a WebAuthn challenge (SHA-256 digest of
                                                         it) -> its purpose and player, JSON;
                                                         used once (GETDEL), with a TTL
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
                                                         ``public``; with a TTL; its review
                                                         (``docs/review.md``): ``review_state``
                                                         (``queued``, ``running``, ``done``),
                                                         ``review_done``, ``review_total``,
                                                         ``review`` (the blob), so it lives and
                                                         expires with the hand
``reviews:queue``          own               sorted set  hand ids whose review is asked for and
                                                         not done, scored by when a worker may
                                                         take them (ms): now when asked, the end
                                                         of its lease while a worker reviews it
``review-requests:ID``     own               string      reviews one player asked for in the
                                                         current hour, with a TTL
``hands:recent``           own               sorted set  hand ids of public rooms, scored by finish
                                                         time (unix seconds)
``hands:player:ID``        own               sorted set  a person's own hand ids (any room), scored
                                                         by finish time; capped, with the hands' TTL
``matches:player:ID``      own               sorted set  a person's finished matches: JSON ``room``,
                                                         ``seat``, ``winner``, ``scores``,
                                                         ``public``, ``opponent`` (player id),
                                                         ``opponent_ai``, ``rated`` (only when
                                                         true); scored by finish time;
                                                         capped, with the hands' TTL
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
``{ai}:queue``             ``{ai}``          sorted set  seats ``ROOM:SEAT`` waiting for an AI
                                                         player, scored by their turn: ``rank x
                                                         10^13 +`` when first asked for (ms); a
                                                         seat asked for again keeps its place
``{ai}:offers``            ``{ai}``          sorted set  waiting seats offered to a worker, scored
                                                         by when the offer lapses (ms): no other
                                                         process offers them meanwhile
``{ai}:in-use``            ``{ai}``          hash        ``PROCESS:LEVEL`` -> ``COUNT:UNTIL``: the
                                                         AI seats that the workers connected to a
                                                         process play, by level, until when (ms)
                                                         unless renewed
``accounts:signed-out``    own               pub/sub     player ids signed out everywhere: every
                                                         process cuts their connections
``players:nudged:ABOUT``   own               pub/sub     player ids whose ABOUT (``challenges``)
                                                         changed: every process sends a
                                                         ``nudge`` to their connections
``{rating:ID}:rating``     ``{rating:ID}``   hash        a player's Glicko-2 rating: ``rating``,
                                                         ``rd``, ``volatility``, ``at`` (unix s
                                                         of the last rated match), ``n`` (rated
                                                         matches applied: the compare-and-set)
``{rating:ID}:history``    ``{rating:ID}``   sorted set  the player's rated rooms, scored by when
                                                         rated (ms); the newest 1000
``{rating:ID}:entries``    ``{rating:ID}``   hash        rated room -> its entry (JSON: opponent,
                                                         score, before, after, rd, shown, delta,
                                                         at): a room in it is never rated again
                                                         (exactly once); the profile's history
                                                         and each listed match's change
``{leaderboard}:ratings``  ``{leaderboard}`` sorted set  non-provisional players, scored by rating
``{leaderboard}:until``    ``{leaderboard}`` sorted set  the same players, scored by when they
                                                         leave the board (ms): 30 days after
                                                         their last rated match, or sooner when
                                                         their deviation grows provisional
``{leaderboard}:n``        ``{leaderboard}`` hash        player -> the ``n`` of the rating on the
                                                         board (an older one never replaces it)
``{ratedqueue}:waiting``   ``{ratedqueue}``  hash        waiting account holder -> JSON ``room``,
                                                         ``rating``, ``rd``, ``at`` (ms), ``name``
``{ratedqueue}:last``      ``{ratedqueue}``  hash        player -> their last rated quick-match
                                                         opponent
``{ratedqueue}:pending``   ``{ratedqueue}``  hash        paired guest -> JSON: the host's room
                                                         they are being seated in, until seated
``{playban:ID}:abandons``  ``{playban:ID}``  sorted set  rated rooms the player walked out of,
                                                         scored by when (ms); TTL one week
``{playban:ID}:ban``       ``{playban:ID}``  hash        ``bans`` (cooldowns so far), ``until``
                                                         (ms): the rated queue's cooldown; TTL
                                                         one week
``blocks:ID``              own               hash        players this player blocked: player id ->
                                                         when (ms); the list they read and undo
``{quickmatch}:blocked``   ``{quickmatch}``  set         ``BLOCKER:BLOCKED`` for every block: what
                                                         ``quick_match.lua`` never pairs
``{ratedqueue}:blocked``   ``{ratedqueue}``  set         the same pairs, for ``rated_pair.lua``
``block-requests:ID``      own               string      block and unblock requests of one player
                                                         in the current window, with a TTL
``reports:all``            own               sorted set  every report (JSON: ``id``, ``at``,
                                                         ``reporter``, ``reported``, ``reason``,
                                                         ``room``), scored by when (ms); newest
                                                         10,000 (``server.moderation``)
``reports:player:ID``      own               sorted set  the reports about one player, alike
``reports:room:ID``        own               sorted set  the reports about one room's match: kept
                                                         with the match's record, alike
``report-requests:ID``     own               string      reports one player sent in the current
                                                         window, with a TTL
``moderation:log``         own               stream      every moderator action: ``action``,
                                                         ``player``, ``handle``, ``by``,
                                                         ``reason``, ``at`` (ms)
``{friends}:of:ID``        ``{friends}``     hash        a player's friends: player id -> since
                                                         when (ms) (``server.friends``)
``{friends}:in:ID``        ``{friends}``     hash        friend requests to the player: sender ->
                                                         when (ms)
``{friends}:out:ID``       ``{friends}``     hash        friend requests the player sent and
                                                         nobody answered yet: target -> when (ms)
``friend-requests:ID``     own               string      friend requests one player sent in the
                                                         current window, with a TTL
``{challenges}:c:ID``      ``{challenges}``  hash        one challenge (``server.challenges``):
                                                         ``sender``, ``target``, ``rated``,
                                                         ``turn_seconds``, ``match_target``
                                                         (points), ``at``, ``deadline``
                                                         (ms), ``state`` (``open``, ``accepted``,
                                                         ``declined``, ``cancelled``, ``failed``),
                                                         ``room`` once accepted; a TTL to a
                                                         minute past its deadline
``{challenges}:open:ID``   ``{challenges}``  sorted set  the player's open challenges, scored by
                                                         deadline (ms): the per-sender cap
``{challenges}:sent:ID``   ``{challenges}``  sorted set  the challenges the player sent, scored by
                                                         when they are forgotten (ms): their
                                                         outcomes, read by the sender's page
``{challenges}:in:ID``     ``{challenges}``  sorted set  the open challenges to the player, scored
                                                         by deadline (ms): their inbox
``challenge-requests:ID``  own               string      challenges one player sent in the
                                                         current window, with a TTL
``presence:ID``            own               hash        server process id -> ``UNTIL ROOM``: the
                                                         player is connected there until when
                                                         (ms) unless renewed, seated in ROOM
                                                         (``-``: in none); with a TTL
                                                         (``server.presence``; the time last seen
                                                         is ``seen`` in ``player:ID``)
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
always exists); a review is claimed in its ``hand:ID`` (once) before its hand is queued in
``reviews:queue`` (every later request queues a review not done again, so a claim whose
queueing failed is queued by the next request); an AI request's ``ai:wanted`` token is
written before its stream entry (whoever reads the request finds its token, or a newer one);
``records:pending`` is noted before the commit it is about and cleared after the records it
names. A rated match's end
(``server.ratings``) changes each player's ``{rating:ID}`` group on its own, once (its room in
``entries`` says it is done), then the ``{leaderboard}`` (an older ``n`` never replaces a
newer), then the room (the ratings before and after): each step idempotent, the whole redone by
the records sweep until ``records:pending`` is cleared. Rated quick match notes a pair in
``{ratedqueue}:pending`` in the same script that takes it off the queue; the seating (the guest
joins the host's room, then the guest's room points there) is idempotent and redone by the
matcher until the note is cleared.

A block (``server.blocking``) is written to both queues' ``blocked`` sets first, then to the
blocker's ``blocks:ID``; undone in the opposite order: a step cut short leaves a pair that the
queues still keep apart (never one listed as blocked that they may pair), and blocking or
unblocking again finishes it (each step idempotent). Each pairing script reads its own group's
set in the same step that takes the pair off its queue, so no pair is ever made between two
players of whom one blocks the other.

Friendship (``server.friends``) is one group, ``{friends}``: a request, its acceptance, two
requests that cross (each asked the other: they become friends) and a removal are each one
script (``lua/friends.lua``) over both players' keys, so no half-made friendship is ever read.
Friendship changes are rare (a few per player, not per move), so one slot is no hot spot. A
block removes a friendship and its requests after the block is written (a step cut short
leaves friends who block each other; the friends list never shows them to each other, and
blocking again finishes it).

Challenges (``server.challenges``) are one group, ``{challenges}``, like friendship: sending
one (the sender's cap checked, the challenge and both players' lists written) and answering
one (accept, decline, cancel: the state changed once, taken off both open lists) are each one
script (``lua/challenges.lua``), so two answers never both win. An accepted challenge names
its room before the room is made (``room``); the room is then created and both seated, and a
failure marks the challenge ``failed``. Who may challenge a player is the ``challenges`` field
of ``player:ID`` (``friends``, ``everyone`` or ``nobody``; absent: ``friends``).

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
    "abandons",
    "ai_in_use",
    "ai_leases",
    "ai_offers",
    "ai_queue",
    "ai_requests",
    "ai_wanted",
    "ban",
    "block_pair",
    "block_requests",
    "blocks",
    "challenge",
    "challenge_requests",
    "challenges_in",
    "challenges_open",
    "challenges_sent",
    "check_id",
    "feed_channel",
    "friend_requests",
    "friends_in",
    "friends_of",
    "friends_out",
    "hand",
    "handle",
    "hands_recent",
    "hash_slot",
    "invite",
    "leaderboard_n",
    "leaderboard_ratings",
    "leaderboard_until",
    "moderation_log",
    "new_players",
    "nudges_channel",
    "player",
    "player_created_rooms",
    "player_hands",
    "player_matches",
    "player_rooms",
    "presence",
    "quickmatch_blocked",
    "quickmatch_queue",
    "quickmatch_rooms",
    "rated_blocked",
    "rated_last",
    "rated_pending",
    "rated_waiting",
    "rating",
    "rating_entries",
    "rating_history",
    "records_pending",
    "report_requests",
    "reports_all",
    "reports_player",
    "reports_room",
    "review_requests",
    "reviews_queue",
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
    "signin_account",
    "signin_address",
    "signouts_channel",
    "stat_field",
    "stat_name",
    "webauthn_challenge",
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


def handle(digest: str) -> str:
    """``{handles}:DIGEST``: the account holding a handle's gist (DIGEST: its SHA-256, hex)."""
    return "{handles}:" + check_id(digest, "handle digest")


def signin_account(player_id: str) -> str:
    """``signin-account:ID``: failed sign-ins of one account in the current window."""
    return "signin-account:" + check_id(player_id, "player id")


def signin_address(address_digest: str) -> str:
    """``signin-address:ADDR``: sign-in attempts from one client address in the window."""
    return "signin-address:" + check_id(address_digest, "address digest")


def webauthn_challenge(digest: str) -> str:
    """``webauthn:DIGEST``: a WebAuthn challenge not used yet (DIGEST: its SHA-256, hex)."""
    return "webauthn:" + check_id(digest, "challenge digest")


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


def player_matches(player_id: str) -> str:
    """``matches:player:ID``: one person's finished matches (JSON), scored by finish time."""
    return "matches:player:" + check_id(player_id, "player id")


def records_pending() -> str:
    """``records:pending``: ``ROOM:HAND`` or ``ROOM:match`` whose bookkeeping may be owed."""
    return "records:pending"


def reviews_queue() -> str:
    """``reviews:queue``: hand ids whose review waits for a worker, scored by when (ms)."""
    return "reviews:queue"


def review_requests(player_id: str) -> str:
    """``review-requests:ID``: the reviews one player asked for this hour."""
    return "review-requests:" + check_id(player_id, "player id")


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


def ai_queue() -> str:
    """``{ai}:queue``: seats ``ROOM:SEAT`` waiting for an AI player, in the order served."""
    return "{ai}:queue"


def ai_offers() -> str:
    """``{ai}:offers``: waiting seats offered to a worker, scored by when the offer lapses."""
    return "{ai}:offers"


def ai_in_use() -> str:
    """``{ai}:in-use``: ``PROCESS:LEVEL`` -> ``COUNT:UNTIL``, the AI seats played by level."""
    return "{ai}:in-use"


# -- ratings (server.ratings) ------------------------------------------------------------------


def _rating_tag(player_id: str) -> str:
    return "{rating:" + check_id(player_id, "player id") + "}"


def rating(player_id: str) -> str:
    """``{rating:ID}:rating``: the player's Glicko-2 rating."""
    return _rating_tag(player_id) + ":rating"


def rating_history(player_id: str) -> str:
    """``{rating:ID}:history``: the player's rated rooms by when they were rated."""
    return _rating_tag(player_id) + ":history"


def rating_entries(player_id: str) -> str:
    """``{rating:ID}:entries``: rated room -> the entry of its rating change."""
    return _rating_tag(player_id) + ":entries"


def leaderboard_ratings() -> str:
    """``{leaderboard}:ratings``: the players on the leaderboard, by rating."""
    return "{leaderboard}:ratings"


def leaderboard_until() -> str:
    """``{leaderboard}:until``: the players on the leaderboard, by when they leave it (ms)."""
    return "{leaderboard}:until"


def leaderboard_n() -> str:
    """``{leaderboard}:n``: player -> the ``n`` of their rating on the board."""
    return "{leaderboard}:n"


def rated_waiting() -> str:
    """``{ratedqueue}:waiting``: account holders waiting for a rated quick match."""
    return "{ratedqueue}:waiting"


def rated_last() -> str:
    """``{ratedqueue}:last``: player -> their last rated quick-match opponent."""
    return "{ratedqueue}:last"


def rated_pending() -> str:
    """``{ratedqueue}:pending``: paired guests not yet seated in their host's room."""
    return "{ratedqueue}:pending"


def _playban_tag(player_id: str) -> str:
    return "{playban:" + check_id(player_id, "player id") + "}"


def abandons(player_id: str) -> str:
    """``{playban:ID}:abandons``: rated rooms the player walked out of, by when (ms)."""
    return _playban_tag(player_id) + ":abandons"


def ban(player_id: str) -> str:
    """``{playban:ID}:ban``: the player's rated-queue cooldown (``bans``, ``until`` ms)."""
    return _playban_tag(player_id) + ":ban"


# -- feeds ---------------------------------------------------------------------------------


def feed_channel(feed_id: str) -> str:
    """``feed:ID``: a room feed's own channel."""
    return "feed:" + check_id(feed_id, "feed id")


def signouts_channel() -> str:
    """``accounts:signed-out``: player ids whose every token was revoked (all processes)."""
    return "accounts:signed-out"


def nudges_channel(about: str) -> str:
    """``players:nudged:ABOUT``: player ids whose clients should read ABOUT (``challenges``)
    again (all processes)."""
    return "players:nudged:" + check_id(about, "nudge subject")


# -- blocking (server.blocking) ---------------------------------------------------------------


def blocks(player_id: str) -> str:
    """``blocks:ID``: the players this player blocked -> when (ms)."""
    return "blocks:" + check_id(player_id, "player id")


def block_pair(blocker: str, blocked: str) -> str:
    """A member of the queues' ``blocked`` sets: ``BLOCKER:BLOCKED``."""
    return check_id(blocker, "player id") + ":" + check_id(blocked, "player id")


def quickmatch_blocked() -> str:
    """``{quickmatch}:blocked``: ``BLOCKER:BLOCKED`` pairs casual quick match never pairs."""
    return "{quickmatch}:blocked"


def rated_blocked() -> str:
    """``{ratedqueue}:blocked``: ``BLOCKER:BLOCKED`` pairs rated quick match never pairs."""
    return "{ratedqueue}:blocked"


def block_requests(player_id: str) -> str:
    """``block-requests:ID``: one player's block and unblock requests in the current window."""
    return "block-requests:" + check_id(player_id, "player id")


# -- reports and moderation (server.moderation) ------------------------------------------------


def reports_all() -> str:
    """``reports:all``: every report (JSON), scored by when (ms)."""
    return "reports:all"


def reports_player(player_id: str) -> str:
    """``reports:player:ID``: the reports about one player."""
    return "reports:player:" + check_id(player_id, "player id")


def reports_room(room_id: str) -> str:
    """``reports:room:ID``: the reports about one room's match."""
    return "reports:room:" + check_id(room_id, "room id")


def report_requests(player_id: str) -> str:
    """``report-requests:ID``: the reports one player sent in the current window."""
    return "report-requests:" + check_id(player_id, "player id")


def moderation_log() -> str:
    """``moderation:log``: every moderator action (a stream)."""
    return "moderation:log"


# -- friends and presence (server.friends, server.presence) ----------------------------------


def friends_of(player_id: str) -> str:
    """``{friends}:of:ID``: the player's friends -> since when (ms)."""
    return "{friends}:of:" + check_id(player_id, "player id")


def friends_in(player_id: str) -> str:
    """``{friends}:in:ID``: friend requests to the player, sender -> when (ms)."""
    return "{friends}:in:" + check_id(player_id, "player id")


def friends_out(player_id: str) -> str:
    """``{friends}:out:ID``: the player's unanswered friend requests, target -> when (ms)."""
    return "{friends}:out:" + check_id(player_id, "player id")


def friend_requests(player_id: str) -> str:
    """``friend-requests:ID``: the friend requests one player sent in the current window."""
    return "friend-requests:" + check_id(player_id, "player id")


def presence(player_id: str) -> str:
    """``presence:ID``: server process id -> ``UNTIL ROOM`` of the player's connections."""
    return "presence:" + check_id(player_id, "player id")


# -- challenges (server.challenges) ------------------------------------------------------------


def challenge(challenge_id: str) -> str:
    """``{challenges}:c:ID``: one challenge (a hash)."""
    return "{challenges}:c:" + check_id(challenge_id, "challenge id")


def challenges_open(player_id: str) -> str:
    """``{challenges}:open:ID``: the player's open challenges -> deadline (ms)."""
    return "{challenges}:open:" + check_id(player_id, "player id")


def challenges_sent(player_id: str) -> str:
    """``{challenges}:sent:ID``: the challenges the player sent -> forgotten at (ms)."""
    return "{challenges}:sent:" + check_id(player_id, "player id")


def challenges_in(player_id: str) -> str:
    """``{challenges}:in:ID``: the open challenges to the player -> deadline (ms)."""
    return "{challenges}:in:" + check_id(player_id, "player id")


def challenge_requests(player_id: str) -> str:
    """``challenge-requests:ID``: the challenges one player sent in the current window."""
    return "challenge-requests:" + check_id(player_id, "player id")
