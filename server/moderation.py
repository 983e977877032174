"""Reports and a moderator's actions (``docs/moderation.md``).

A player reports another from the table (room and seat) or their profile (handle, and the room
it concerns) with a reason from ``REASONS`` (``POST /api/reports``, ``Reports``). A moderator
lists the reports, looks a player up, bans and unbans with ``python -m server.admin``
(``Moderation``). A ban is written first (sign-in is refused from then on), then every token
is revoked and every process closes the player's websockets (``accounts:signed-out``), the
player leaves both quick-match queues, their unfinished rated matches end as forfeits and they
leave the leaderboard; every action is logged (``moderation:log`` and a log line) with who
did it and why. Each step is idempotent: a ban cut short is finished by banning again.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from protocol.messages import ErrorCode
from server import keys
from server.accounts import AccountError, Accounts
from server.blobs import decode_room
from server.commits import Commits
from server.profiles import match_seats
from server.room import Room, leave
from server.store import Store
from server.targets import named_player, player_by_handle, room_of

log = logging.getLogger(__name__)

REASONS = ("abuse", "cheating", "stalling", "name", "other")
"""Why a player is reported: offensive quick messages or play, cheating (collusion, a bot),
stalling or walking out, an offensive name or handle, anything else."""
#: Reports one player may send per window, and the window (s).
REPORTS = 10
REPORT_WINDOW_SECONDS = 3600
#: The most characters of a moderator's name and reason.
NOTE_CHARS = 200


def _now_ms() -> int:
    return int(time.time() * 1000)


class Reports:
    def __init__(self, store: Store, accounts: Accounts) -> None:
        self._store = store
        self._accounts = accounts

    async def report(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        me = (await self._accounts.authenticate(token)).player_id
        reason = data.get("reason")
        if reason not in REASONS:
            raise AccountError(
                ErrorCode.INVALID_ARGUMENT,
                "reason: one of " + ", ".join(REASONS),
                detail={"field": "reason", "reasons": list(REASONS)},
            )
        target = await named_player(self._store, me, data)
        if target == me:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "a player cannot report themselves")
        room_id = data.get("room")
        if "handle" in data and room_id is not None:
            room = await room_of(self._store, room_id)
            if room.seat_of(me) is None or room.seat_of(target) is None:
                raise AccountError(ErrorCode.NOT_A_PLAYER, "the room: one you both played in", 403)
        if not await self._store.count_report(me, REPORTS, REPORT_WINDOW_SECONDS):
            raise AccountError(
                ErrorCode.TOO_MANY_REPORTS,
                f"at most {REPORTS} reports an hour",
                429,
                {"retry_after": REPORT_WINDOW_SECONDS, "limit": REPORTS},
            )
        report = {
            "id": secrets.token_hex(8),
            "at": _now_ms(),
            "reporter": me,
            "reported": target,
            "reason": reason,
            "room": room_id if isinstance(room_id, str) else None,
        }
        await self._store.add_report(report)
        log.info("player reported", extra={k: report[k] for k in ("id", "reason", "room")})
        return {"reported": True, "id": report["id"]}


class ModerationError(ValueError):
    """A moderator command that cannot be done (no such player, no reason given...)."""


@dataclass(frozen=True)
class BanOutcome:
    player: str
    handle: str | None
    tokens: int
    forfeits: list[str]


class Moderation:
    """The moderator's commands; ``commits`` ends rooms as a server process would."""

    def __init__(self, store: Store, commits: Commits) -> None:
        self._store = store
        self._commits = commits

    async def find(self, raw: str) -> str:
        """The player id of a handle (or look-alike) or of a player id."""
        try:
            return await player_by_handle(self._store, raw)
        except AccountError:
            pass
        try:
            keys.check_id(raw, "player id")
        except keys.InvalidId:
            raise ModerationError(f"no player has the handle or id {raw!r}") from None
        if await self._store.get_player(raw) is None:
            raise ModerationError(f"no player has the handle or id {raw!r}")
        return raw

    async def player(self, raw: str) -> dict[str, Any]:
        """Handle, name (and the other names seen in their rooms and matches), ban, rooms in
        play, recent matches' rooms, and the reports about them."""
        player_id = await self.find(raw)
        player = await self._store.get_player(player_id)
        assert player is not None
        matches = [entry for entry, _ in await self._store.player_matches(player_id, 20)]
        rooms = sorted(await self._store.player_rooms(player_id))
        return {
            "player": player_id,
            "handle": player.handle,
            "name": player.name,
            "names": await self._names(player_id, player.name, rooms, matches),
            "created": player.created,
            "banned": await self._store.ban_of(player_id),
            "rooms": rooms,
            "matches": matches,
            "reports": await self._store.reports(100, player_id),
        }

    async def _names(
        self, player_id: str, now: str, rooms: list[str], matches: list[str]
    ) -> list[str]:
        """The player's name now, then the other names they sat under in their rooms in play
        and their last matches (as those rooms and records keep them), each once: a name
        changed after the match a report is about is still found."""
        names = [now]
        for room_id in rooms:
            loaded = await self._store.load_room(room_id)
            room = decode_room(loaded[1]) if loaded is not None else None
            seat = room.seat_of(player_id) if room is not None else None
            if room is not None and seat is not None:
                names.append(room.seats[seat].name or "")
        for raw in matches:
            entry = json.loads(raw)
            seats = await match_seats(self._store, entry["room"])
            if seats is not None and entry.get("seat") in (0, 1):
                names.append(str(seats[entry["seat"]].get("name") or ""))
        return list(dict.fromkeys(name for name in names if name))

    async def ban(self, raw: str, by: str, reason: str) -> BanOutcome:
        player_id = await self.find(raw)
        by, reason = _note(by, "--by"), _note(reason, "--reason")
        store = self._store
        await store.set_ban(player_id, {"by": by, "reason": reason, "at": _now_ms()})
        tokens = await store.revoke_sessions(player_id)
        await store.signouts(lambda _: None).publish(player_id)
        waited = [await store.cancel_quick_match(player_id), await store.rated_cancel(player_id)]
        forfeits = await self._end_rooms(player_id, {room for room in waited if room})
        await store.leave_leaderboard(player_id)
        await self._log("ban", player_id, by, reason)
        player = await store.get_player(player_id)
        return BanOutcome(player_id, player.handle if player else None, tokens, forfeits)

    async def unban(self, raw: str, by: str, reason: str) -> str:
        player_id = await self.find(raw)
        by, reason = _note(by, "--by"), _note(reason, "--reason")
        if await self._store.ban_of(player_id) is None:
            raise ModerationError(f"{raw} is not banned")
        await self._store.set_ban(player_id, None)
        await self._log("unban", player_id, by, reason)
        return player_id

    async def _end_rooms(self, player_id: str, waited: set[str]) -> list[str]:
        """End the player's unfinished rated rooms (a match in play: a forfeit) and the rooms
        they waited in for a quick match; the rooms ended."""
        ended = []
        for room_id in sorted(set(await self._store.player_rooms(player_id)) | waited):
            loaded = await self._store.load_room(room_id)
            if loaded is None:
                continue
            room = await room_of(self._store, room_id)
            if room.status == "finished" or room.seat_of(player_id) is None:
                continue
            if not room.rated and room_id not in waited:
                continue

            def walk_out(room: Room, now: float) -> tuple[Room, list[dict[str, Any]]]:
                seat = room.seat_of(player_id)
                return (room, []) if seat is None else leave(room, seat, now)

            await self._commits.change(room_id, walk_out, actor=None)
            ended.append(room_id)
        return ended

    async def _log(self, action: str, player_id: str, by: str, reason: str) -> None:
        player = await self._store.get_player(player_id)
        entry = {
            "action": action,
            "player": player_id,
            "handle": (player.handle if player else None) or "",
            "by": by,
            "reason": reason,
            "at": str(_now_ms()),
        }
        await self._store.log_action(entry)
        log.info("moderator action", extra=entry)


def _note(value: str, what: str) -> str:
    value = value.strip()
    if not value or len(value) > NOTE_CHARS or not value.isprintable():
        raise ModerationError(f"{what}: 1 to {NOTE_CHARS} printable characters")
    return value
