"""AI seat requests: a stream read by AI workers through the consumer group ``ai-workers``.

A server appends a request when a seat needs an AI player; each worker reads new requests with
``claim_ai_requests`` (XREADGROUP), takes the seat over the websocket, and acknowledges the
request. A request that a worker claimed but never acknowledged (the worker died) stays
pending; any worker takes it over with ``reclaim_stale_ai_requests`` (XAUTOCLAIM) once it has
been idle long enough.

Requests alone cannot notice a seat whose player vanished without a word (its server was
killed with the worker's connection, or the worker died while re-attaching): every AI-played
seat also has a lease in ``ai:leases``. Asking for a seat holds its lease for a while; the
server holding the playing worker's connection renews it; a lease that runs out is claimed by
one server (``claim_expired_ai_leases``), which asks for the seat again.

Which waiting seat a free worker gets is told by ``{ai}:queue``, shared by every server
process: each seat asked for waits there, in the order it is served (lowest rank first, then
the oldest), until a worker takes it or it needs no AI player any more. A seat asked for again
keeps its place. A server with a free worker takes the queue's first seats that nobody has
been offered (``take_ai_seats``: one script, which marks them in ``{ai}:offers`` until the
offer lapses), so capacity freed on any process goes to the oldest waiting seat. The stream's
entries then only wake the servers up (and carry requests written before the queue existed).

A seat can so be asked for several times before a worker takes it (its lease ran out again
meanwhile, or its server asked again after a worker left), and only the newest request counts:
each carries a random ``ask`` token that ``ai:wanted`` holds for its seat until a worker takes
it (``settle_ai_seat``). A request whose token is no longer there is superseded
(``superseded_ai_requests``): acknowledged, never offered.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import ResponseError

from server import keys
from server.store._base import StoreBase, as_text

_ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_RECLAIM_ROUNDS = 10
#: A seat's turn in ``{ai}:queue``: ``rank x RANK_SPAN +`` when it was first asked for (ms).
#: Exact in a double up to a rank of 900.
RANK_SPAN = 10**13
MAX_RANK = 899


@dataclass(frozen=True, slots=True)
class QueuedSeat:
    """A seat of ``{ai}:queue``: its place (1: the next served) and when it was first asked
    for (unix ms)."""

    position: int
    asked_ms: int


@dataclass(frozen=True, slots=True)
class AiQueueSummary:
    """The queue as a whole: how many seats wait, and when the oldest was asked for (unix
    ms; None when none waits)."""

    waiting: int
    oldest_ms: int | None


@dataclass(frozen=True, slots=True)
class AiSeatRequest:
    """A request for an AI player of ``level`` in ``seat`` of ``room_id``."""

    entry_id: str
    room_id: str
    seat: int
    level: str
    ask: str | None = field(default=None, compare=False)
    """The request's token in ``ai:wanted`` (None: a request made before tokens existed,
    which counts as wanted)."""
    rank: int = field(default=0, compare=False)
    """How many AI seats the asking player held already (0: their first, or a seat in play
    asked for again): workers short of capacity serve lower ranks first."""


def _check_entry_id(entry_id: str) -> str:
    if not isinstance(entry_id, str) or _ENTRY_ID.fullmatch(entry_id) is None:
        raise ValueError(f"invalid stream entry id: {entry_id!r}")
    return entry_id


def _check_count(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be an int >= 1, got {value!r}")
    return value


def _lease_member(room_id: str, seat: int) -> str:
    keys.check_id(room_id, "room id")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 16:
        raise ValueError(f"seat must be an int in [0, 16), got {seat!r}")
    return f"{room_id}:{seat}"


def _check_ms(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a time in ms must be an int >= 0, got {value!r}")
    return value


def _turn(rank: int, asked_ms: int) -> int:
    return min(rank, MAX_RANK) * RANK_SPAN + asked_ms


def _asked_ms(score: float) -> int:
    return int(score) % RANK_SPAN


def _seat_of(member: object) -> tuple[str, int]:
    room_id, _, seat = as_text(member).rpartition(":")
    return room_id, int(seat)


def _parse(entry_id: object, fields: dict[bytes, bytes]) -> AiSeatRequest:
    return AiSeatRequest(
        entry_id=as_text(entry_id),
        room_id=as_text(fields[b"room"]),
        seat=int(fields[b"seat"]),
        level=as_text(fields[b"level"]),
        ask=as_text(fields[b"ask"]) if b"ask" in fields else None,
        rank=int(fields.get(b"rank", 0)),
    )


class AiOps(StoreBase):
    """The ``ai:requests`` stream and its consumer group ``ai-workers``."""

    async def ensure_ai_group(self) -> None:
        """Create the consumer group (and the stream) if missing. ``Store.connect`` calls it;
        reads call it again if the group vanished (e.g. after FLUSHALL)."""
        try:
            await self._redis.xgroup_create(
                keys.ai_requests(), keys.AI_WORKERS_GROUP, id="0", mkstream=True
            )
        except ResponseError as exc:
            if not str(exc).startswith("BUSYGROUP"):
                raise

    async def request_ai_seat(
        self,
        room_id: str,
        seat: int,
        level: str,
        hold_until_ms: int | None = None,
        *,
        rank: int = 0,
        asked_ms: int | None = None,
    ) -> str:
        """Ask the AI workers for a player of ``level`` in ``seat``; returns the entry id.
        The seat's lease is held until ``hold_until_ms`` (unix ms), the time a worker has to
        take the seat before it is asked for again (None: the lease is left as it is).
        ``rank``: the AI seats the asking player holds already (``AiSeatRequest.rank``);
        ``asked_ms``: the seat's age in the queue (unix ms; None: now), if it is not there."""
        member = _lease_member(room_id, seat)
        keys.check_id(level, "AI level")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise ValueError(f"rank must be an int >= 0, got {rank!r}")
        ask = secrets.token_hex(8)
        if hold_until_ms is not None:
            _check_ms(hold_until_ms)
        # Four slot groups, in this order: the lease is held and the token is there before
        # the request can be read (whoever reads it finds its token, or a newer one, wanted).
        if hold_until_ms is not None:
            await self._redis.zadd(keys.ai_leases(), {member: hold_until_ms})
        # The seat waits in the queue (keeping its place if it waits already) before its
        # token says it is wanted: a seat settled meanwhile leaves both.
        asked = int(time.time() * 1000) if asked_ms is None else _check_ms(asked_ms)
        await self._redis.zadd(keys.ai_queue(), {member: _turn(rank, asked)}, nx=True)
        await self._redis.hset(keys.ai_wanted(), member, ask)
        entry_id = await self._redis.xadd(
            keys.ai_requests(),
            {"room": room_id, "seat": seat, "level": level, "ask": ask, "rank": rank},
            maxlen=self._config.ai_requests_maxlen,
            approximate=True,
        )
        return as_text(entry_id)

    async def superseded_ai_requests(
        self, requests: Iterable[AiSeatRequest]
    ) -> list[AiSeatRequest]:
        """Those of ``requests`` that a newer request for the same seat replaced, or whose
        seat a worker has taken since (``ai:wanted`` no longer holds their token)."""
        tokened = [request for request in requests if request.ask is not None]
        if not tokened:
            return []
        members = [_lease_member(request.room_id, request.seat) for request in tokened]
        current = await self._redis.hmget(keys.ai_wanted(), members)
        return [
            request
            for request, token in zip(tokened, current, strict=True)
            if token is None or as_text(token) != request.ask
        ]

    async def settle_ai_seat(self, room_id: str, seat: int, entry_id: str | None = None) -> None:
        """A worker took the seat, or it needs no AI player any more: acknowledge the request
        offered for it (``entry_id``, if any) and supersede every other request for it."""
        member = _lease_member(room_id, seat)
        if entry_id is not None:
            _check_entry_id(entry_id)
        # Three slot groups: the seat's other requests are superseded first, then it leaves
        # the queue, then the offered request is acknowledged (if a later step fails, the
        # request is reclaimed and found superseded: acknowledged without an offer).
        await self._redis.hdel(keys.ai_wanted(), member)
        await self._leave_queue(member)
        if entry_id is not None:
            await self._redis.xack(keys.ai_requests(), keys.AI_WORKERS_GROUP, entry_id)

    async def _leave_queue(self, member: str) -> None:
        await self._together(("ZREM", keys.ai_queue(), member), ("ZREM", keys.ai_offers(), member))

    async def queue_ai_requests(self, requests: Iterable[AiSeatRequest]) -> None:
        """Put ``requests`` (read from the stream, still wanted) in the queue unless their
        seat waits there already, at the time of their entry: the requests written before
        the queue existed."""
        mapping = {
            _lease_member(request.room_id, request.seat): _turn(
                request.rank, int(request.entry_id.partition("-")[0])
            )
            for request in requests
        }
        if mapping:
            await self._redis.zadd(keys.ai_queue(), mapping, nx=True)

    async def take_ai_seats(
        self, count: int, offer_ms: int, skip: Iterable[tuple[str, int]] = ()
    ) -> list[tuple[str, int]]:
        """The first ``count`` seats of the queue that no worker has been offered (or whose
        offer lapsed), but those of ``skip``; each is marked offered for ``offer_ms`` in the
        same atomic step, so another server does not offer it meanwhile."""
        _check_count(count, "count")
        _check_count(offer_ms, "offer_ms")
        now = int(time.time() * 1000)
        passed = [_lease_member(room_id, seat) for room_id, seat in skip]
        taken = await self._run_script(
            self._scripts.take_ai_seats,
            [keys.ai_queue(), keys.ai_offers()],
            [now, now + offer_ms, count, *passed],
            writes=False,
        )
        return [_seat_of(member) for member in taken[::2]]

    async def release_ai_offer(self, room_id: str, seat: int) -> None:
        """The seat's offer is over before it lapsed (its worker handed it back, or left):
        any server may offer the seat again now."""
        await self._redis.zrem(keys.ai_offers(), _lease_member(room_id, seat))

    async def ai_queue_places(
        self, seats: Iterable[tuple[str, int]]
    ) -> dict[tuple[str, int], QueuedSeat]:
        """Where each of ``seats`` that waits for an AI player stands in the queue."""
        wanted = list(dict.fromkeys(seats))
        if not wanted:
            return {}
        members = [_lease_member(room_id, seat) for room_id, seat in wanted]
        queue = keys.ai_queue()
        scores = await self._redis.zmscore(queue, members)
        queued = [
            (seat, member, float(score))
            for seat, member, score in zip(wanted, members, scores, strict=True)
            if score is not None
        ]
        if not queued:  # the common case: nobody waits
            return {}
        ranks = await self._together(*(("ZRANK", queue, member) for _, member, _ in queued))
        return {
            seat: QueuedSeat(int(rank) + 1, _asked_ms(score))
            for (seat, _, score), rank in zip(queued, ranks, strict=True)
            if rank is not None
        }

    async def ai_queue_summary(self) -> AiQueueSummary:
        """How many seats wait for an AI player, and when the oldest of them was asked for
        (the first of each rank's band: a band is in the order of asking)."""
        queue = keys.ai_queue()
        waiting = int(await self._redis.zcard(queue))
        oldest: int | None = None
        low: float | str = "-inf"
        for _ in range(MAX_RANK + 1):
            head = await self._redis.zrangebyscore(queue, low, "+inf", 0, 1, withscores=True)
            if not head:
                break
            score = float(head[0][1])
            asked = _asked_ms(score)
            oldest = asked if oldest is None else min(oldest, asked)
            low = (int(score) // RANK_SPAN + 1) * RANK_SPAN
        return AiQueueSummary(waiting, oldest)

    async def set_ai_in_use(self, process_id: str, counts: dict[str, int], ttl_ms: int) -> None:
        """The AI seats the workers connected to this process play, by level, valid for
        ``ttl_ms`` unless written again; a level of 0 seats takes its entry out."""
        keys.check_id(process_id, "process id")
        _check_count(ttl_ms, "ttl_ms")
        until = int(time.time() * 1000) + ttl_ms
        fields = {keys.check_id(level, "AI level"): count for level, count in counts.items()}
        held = {
            f"{process_id}:{level}": f"{int(count)}:{until}"
            for level, count in fields.items()
            if count > 0
        }
        gone = [f"{process_id}:{level}" for level, count in fields.items() if count <= 0]
        key = keys.ai_in_use()
        if held:
            await self._together(("HSET", key, *(part for item in held.items() for part in item)))
        if gone:
            await self._redis.hdel(key, *gone)

    async def ai_in_use(self) -> dict[str, int]:
        """The AI seats played now, by level, over every process (entries not renewed in
        time are dropped)."""
        key = keys.ai_in_use()
        now = int(time.time() * 1000)
        totals: dict[str, int] = {}
        lapsed: list[str] = []
        for name, value in (await self._redis.hgetall(key)).items():
            entry = as_text(name)
            count, _, until = as_text(value).partition(":")
            if not until.isdigit() or int(until) <= now:
                lapsed.append(entry)
                continue
            level = entry.partition(":")[2]
            totals[level] = totals.get(level, 0) + int(count)
        if lapsed:
            await self._redis.hdel(key, *lapsed)
        return totals

    async def renew_ai_leases(self, seats: Iterable[tuple[str, int]], until_ms: int) -> int:
        """Extend the leases of ``seats`` (room id, seat) to ``until_ms``; returns how many."""
        mapping = {_lease_member(room_id, seat): _check_ms(until_ms) for room_id, seat in seats}
        if mapping:
            await self._redis.zadd(keys.ai_leases(), mapping)
        return len(mapping)

    async def drop_ai_lease(self, room_id: str, seat: int) -> None:
        """The seat needs no AI player any more (its match ended, its person came back): its
        lease ends, and any request for it still in the stream is superseded."""
        member = _lease_member(room_id, seat)
        # Three slot groups, each step idempotent: the requests are superseded, the seat
        # leaves the queue, then the lease ends (a lease without a wanted token is harmless:
        # its claim finds the seat played).
        await self._redis.hdel(keys.ai_wanted(), member)
        await self._leave_queue(member)
        await self._redis.zrem(keys.ai_leases(), member)

    async def ai_lease_end(self, room_id: str, seat: int) -> int | None:
        """When the seat's lease runs out (unix ms), or None if it has none."""
        score = await self._redis.zscore(keys.ai_leases(), _lease_member(room_id, seat))
        return None if score is None else int(score)

    async def claim_expired_ai_leases(
        self, now_ms: int, hold_until_ms: int, count: int = 100
    ) -> list[tuple[str, int]]:
        """The seats whose lease ran out by ``now_ms`` (at most ``count``), each held again
        until ``hold_until_ms`` in the same atomic step: of several servers calling at once,
        one gets each seat."""
        _check_count(count, "count")
        claimed = await self._run_script(
            self._scripts.claim_ai_leases,
            [keys.ai_leases()],
            [_check_ms(now_ms), _check_ms(hold_until_ms), count],
            writes=False,
        )
        seats: list[tuple[str, int]] = []
        for member in claimed:
            room_id, _, seat = as_text(member).rpartition(":")
            seats.append((room_id, int(seat)))
        return seats

    async def claim_ai_requests(
        self, consumer: str, count: int = 1, block_ms: int | None = None
    ) -> list[AiSeatRequest]:
        """New requests for worker ``consumer`` (XREADGROUP ``>``): each is delivered to one
        worker only and stays pending until acknowledged. ``block_ms`` waits that long for a
        request when there is none (None: do not wait; 0: wait until one comes). The wait is
        made of reads of at most ``StoreConfig.block_chunk_ms`` each."""
        keys.check_id(consumer, "consumer")
        _check_count(count, "count")
        if block_ms is not None and (
            isinstance(block_ms, bool) or not isinstance(block_ms, int) or block_ms < 0
        ):
            raise ValueError(f"block_ms must be None or an int >= 0, got {block_ms!r}")
        if block_ms is None:
            return await self._claim(consumer, count, None)
        loop = asyncio.get_running_loop()
        deadline = None if block_ms == 0 else loop.time() + block_ms / 1000
        while True:
            chunk = self._config.block_chunk_ms
            if deadline is not None:
                chunk = min(chunk, max(1, round((deadline - loop.time()) * 1000)))
            requests = await self._claim(consumer, count, chunk)
            if requests or (deadline is not None and loop.time() >= deadline):
                return requests

    async def _claim(self, consumer: str, count: int, block_ms: int | None) -> list[AiSeatRequest]:
        stream = keys.ai_requests()
        try:
            reply = await self._read_group(consumer, count, block_ms)
        except ResponseError as exc:
            if not str(exc).startswith("NOGROUP"):
                raise
            await self.ensure_ai_group()
            reply = await self._read_group(consumer, count, block_ms)
        requests: list[AiSeatRequest] = []
        for name, entries in reply or []:
            if as_text(name) != stream:
                continue
            for entry_id, fields in entries:
                if fields:  # an entry trimmed away while pending has no fields
                    requests.append(_parse(entry_id, fields))
        return requests

    async def _read_group(self, consumer: str, count: int, block_ms: int | None) -> Any:
        return await self._redis.xreadgroup(
            keys.AI_WORKERS_GROUP,
            consumer,
            {keys.ai_requests(): ">"},
            count=count,
            block=block_ms,
        )

    async def reclaim_stale_ai_requests(
        self, consumer: str, min_idle_ms: int, count: int = 10
    ) -> list[AiSeatRequest]:
        """Take over up to ``count`` requests that other workers claimed and have left
        unacknowledged for at least ``min_idle_ms`` (XAUTOCLAIM): a dead worker's seats go
        to ``consumer``, which must handle and acknowledge them."""
        keys.check_id(consumer, "consumer")
        _check_count(count, "count")
        if isinstance(min_idle_ms, bool) or not isinstance(min_idle_ms, int) or min_idle_ms < 0:
            raise ValueError(f"min_idle_ms must be an int >= 0, got {min_idle_ms!r}")
        claimed: list[AiSeatRequest] = []
        cursor: object = "0-0"
        for _ in range(_RECLAIM_ROUNDS):
            try:
                reply = await self._redis.xautoclaim(
                    keys.ai_requests(),
                    keys.AI_WORKERS_GROUP,
                    consumer,
                    min_idle_ms,
                    start_id=as_text(cursor),
                    count=count - len(claimed),
                )
            except ResponseError as exc:
                if str(exc).startswith("NOGROUP"):
                    await self.ensure_ai_group()
                    return []
                raise
            cursor, entries = reply[0], reply[1]
            for entry_id, fields in entries:
                if fields:
                    claimed.append(_parse(entry_id, fields))
            if as_text(cursor) == "0-0" or len(claimed) >= count:
                break
        return claimed

    async def ack_ai_request(self, entry_id: str) -> bool:
        """Mark a request handled (XACK); False if it was not pending (already acknowledged,
        or never delivered)."""
        reply = await self._redis.xack(
            keys.ai_requests(), keys.AI_WORKERS_GROUP, _check_entry_id(entry_id)
        )
        return int(reply) == 1

    async def pending_ai_requests(self) -> int:
        """How many requests are claimed and not yet acknowledged, for metrics."""
        try:
            summary = await self._redis.xpending(keys.ai_requests(), keys.AI_WORKERS_GROUP)
        except ResponseError as exc:
            if str(exc).startswith("NOGROUP"):
                return 0
            raise
        return int(summary["pending"])
