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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import ResponseError

from server import keys
from server.store._base import StoreBase, as_text

_ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_RECLAIM_ROUNDS = 10


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
    ) -> str:
        """Ask the AI workers for a player of ``level`` in ``seat``; returns the entry id.
        The seat's lease is held until ``hold_until_ms`` (unix ms), the time a worker has to
        take the seat before it is asked for again (None: the lease is left as it is).
        ``rank``: the AI seats the asking player holds already (``AiSeatRequest.rank``)."""
        member = _lease_member(room_id, seat)
        keys.check_id(level, "AI level")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise ValueError(f"rank must be an int >= 0, got {rank!r}")
        ask = secrets.token_hex(8)
        if hold_until_ms is not None:
            _check_ms(hold_until_ms)
        # Three slot groups, in this order: the lease is held and the token is there before
        # the request can be read (whoever reads it finds its token, or a newer one, wanted).
        if hold_until_ms is not None:
            await self._redis.zadd(keys.ai_leases(), {member: hold_until_ms})
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
        # Two slot groups: the seat's other requests are superseded first, then the offered
        # one is acknowledged (if the second step fails, the request is reclaimed and found
        # superseded: acknowledged without an offer).
        await self._redis.hdel(keys.ai_wanted(), member)
        if entry_id is not None:
            await self._redis.xack(keys.ai_requests(), keys.AI_WORKERS_GROUP, entry_id)

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
        # Two slot groups, each step idempotent: the requests are superseded, then the lease
        # ends (a lease without a wanted token is harmless: its claim finds the seat played).
        await self._redis.hdel(keys.ai_wanted(), member)
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
