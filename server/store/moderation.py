"""Reports and moderator actions: the reports (``reports:all``, ``reports:player:ID``,
``reports:room:ID``), a player's ban (the ``banned`` field of ``player:ID``), the action log
(``moderation:log``), and taking a player off the leaderboard (``{leaderboard}``)."""

from __future__ import annotations

import json
from typing import Any

from server import keys
from server.store._base import StoreBase, as_text, check_positive

__all__ = ["REPORTS_KEPT", "ModerationOps"]

#: The newest reports kept in each list; the action log keeps about as many actions.
REPORTS_KEPT = 10_000
BANNED = "banned"


class ModerationOps(StoreBase):
    async def add_report(self, report: dict[str, Any]) -> None:
        """Keep a report (its ``at`` ms is its score) in the lists of all reports, of the
        player reported and, when it names one, of the room: one step each (own groups)."""
        entry = json.dumps(report, separators=(",", ":"), sort_keys=True)
        lists = [keys.reports_all(), keys.reports_player(report["reported"])]
        if report.get("room"):
            lists.append(keys.reports_room(report["room"]))
        for key in lists:
            await self._together(
                ("ZADD", key, int(report["at"]), entry),
                ("ZREMRANGEBYRANK", key, 0, -REPORTS_KEPT - 1),
            )

    async def reports(self, limit: int, player_id: str | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` reports (about ``player_id`` only, when given), newest first."""
        key = keys.reports_player(player_id) if player_id else keys.reports_all()
        raw = await self._redis.zrevrange(key, 0, int(check_positive(limit, "limit")) - 1)
        return [json.loads(as_text(entry)) for entry in raw]

    async def count_report(self, player_id: str, limit: int, window_seconds: int) -> bool:
        """Count one report sent: False, counting nothing, past ``limit`` in the window
        (``lua/count_new_player.lua``, the same counter)."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [keys.report_requests(player_id)],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "window"))],
        )
        return int(reply) == 1

    async def set_ban(self, player_id: str, record: dict[str, Any] | None) -> None:
        """Ban the player (``record``: who, why, when) or lift the ban (None)."""
        key = keys.player(player_id)
        if record is None:
            await self._redis.hdel(key, BANNED)
        else:
            await self._redis.hset(key, BANNED, json.dumps(record, sort_keys=True))

    async def ban_of(self, player_id: str) -> dict[str, Any] | None:
        """The player's ban (who, why, when), or None."""
        raw = await self._redis.hget(keys.player(player_id), BANNED)
        return None if raw is None else dict(json.loads(as_text(raw)))

    async def log_action(self, action: dict[str, str]) -> None:
        """Append a moderator action to ``moderation:log`` (about the newest 10,000 kept)."""
        fields: dict[Any, Any] = dict(action)
        await self._redis.xadd(keys.moderation_log(), fields, maxlen=REPORTS_KEPT, approximate=True)

    async def actions(self, limit: int) -> list[dict[str, str]]:
        """The newest ``limit`` moderator actions, newest first."""
        raw = await self._redis.xrevrange(keys.moderation_log(), count=limit) or []
        return [{as_text(k): as_text(v) for k, v in (fields or {}).items()} for _, fields in raw]

    async def leave_leaderboard(self, player_id: str) -> None:
        """Take the player off the leaderboard (all three of its keys, one step)."""
        keys.check_id(player_id, "player id")
        await self._together(
            ("ZREM", keys.leaderboard_ratings(), player_id),
            ("ZREM", keys.leaderboard_until(), player_id),
            ("HDEL", keys.leaderboard_n(), player_id),
        )
