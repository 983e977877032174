"""The moderator's commands of ``python -m server.admin`` (``docs/moderation.md``): ``reports``,
``player HANDLE|ID`` (handle, names, rooms, reports), ``ban HANDLE --reason R --by MOD``,
``unban HANDLE --by MOD --reason R``.

They reach Redis with the server's own settings (``REDIS_URL`` and the ``GIN_*`` settings of
its store) and refuse to run without ``REDIS_URL`` (or ``--url``): a moderator who forgot the
server's environment must not ban nobody on a stray local Redis. A ban ends rooms as a server
process would (``Commits``: the same commit script, ratings and records).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from datetime import UTC, datetime
from typing import Any

from server.blobs import RoomBlobs
from server.commits import Commits
from server.frames import FrameParts
from server.hub import Hub
from server.limits import Limits
from server.moderation import Moderation, ModerationError
from server.ratings import Ratings
from server.reuse import Histories
from server.settings import Settings
from server.store import Store
from server.wiring import store_config

COMMANDS = ("reports", "player", "ban", "unban")


def add_commands(commands: Any) -> list[argparse.ArgumentParser]:
    """The moderator's subcommands on the admin tool's parser."""
    reports = commands.add_parser("reports", help="list the newest reports")
    reports.add_argument("--limit", type=int, default=50, help="how many (default 50)")
    player = commands.add_parser("player", help="a player: handle, names, rooms, reports")
    player.add_argument("target", metavar="HANDLE|ID")
    ban = commands.add_parser("ban", help="ban a player (every token revoked, sign-in refused)")
    unban = commands.add_parser("unban", help="lift a player's ban")
    for sub in (ban, unban):
        sub.add_argument("target", metavar="HANDLE|ID")
        sub.add_argument("--reason", required=True, help="why (kept in the moderation log)")
        sub.add_argument("--by", required=True, help="the moderator's name (kept in the log)")
    return [reports, player, ban, unban]


def _when(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


async def _who(store: Store, player_id: str) -> str:
    player = await store.get_player(player_id)
    handle = player.handle if player else None
    return f"@{handle} ({player_id})" if handle else f"guest {player_id}"


def _report_line(report: dict[str, Any], reporter: str, reported: str) -> str:
    room = report.get("room") or "-"
    return f"{_when(report['at'])}  {report['reason']:<8}  room {room}  {reporter} -> {reported}"


async def run(args: argparse.Namespace, settings: Settings) -> str:
    if not (args.url or os.environ.get("REDIS_URL")):
        raise ModerationError(
            "no Redis settings: run with the server's environment (REDIS_URL, and "
            "GIN_REDIS_CLUSTER / GIN_REDIS_CA... if it has them), or pass --url"
        )
    url = args.url or settings.redis_url
    config = store_config(settings)
    if args.cluster or args.single:
        config = dataclasses.replace(config, cluster=bool(args.cluster))
    store = await Store.connect(url, config)
    try:
        return await _command(args, settings, store)
    finally:
        await store.close()


async def _command(args: argparse.Namespace, settings: Settings, store: Store) -> str:
    histories = Histories()
    blobs = RoomBlobs(histories)
    commits = Commits(
        store,
        Hub(store, store.feed(), FrameParts(histories), blobs),
        blobs,
        settings,
        Limits(store, settings),
        Ratings(store),
    )
    moderation = Moderation(store, commits)
    if args.command == "reports":
        lines = []
        for report in await store.reports(max(1, args.limit)):
            reporter = await _who(store, report["reporter"])
            lines.append(_report_line(report, reporter, await _who(store, report["reported"])))
        return "\n".join(lines) if lines else "no reports"
    if args.command == "player":
        found = await moderation.player(args.target)
        banned = found["banned"]
        lines = [
            f"player {found['player']}",
            f"handle: {found['handle'] or '(guest)'}",
            f"name: {found['name']}",
            "names seen in their rooms and last matches: " + ", ".join(found["names"]),
            f"created: {_when(found['created'] * 1000)}",
            "banned: "
            + (
                f"since {_when(banned['at'])} by {banned['by']}: {banned['reason']}"
                if banned
                else "no"
            ),
            "rooms in play: " + (", ".join(found["rooms"]) or "none"),
            "last matches: "
            + (", ".join(json.loads(entry)["room"] for entry in found["matches"]) or "none"),
            f"reports about them: {len(found['reports'])}",
        ]
        for report in found["reports"]:
            lines.append("  " + _report_line(report, await _who(store, report["reporter"]), "them"))
        return "\n".join(lines)
    if args.command == "ban":
        outcome = await moderation.ban(args.target, args.by, args.reason)
        return (
            f"banned {await _who(store, outcome.player)}: {outcome.tokens} token(s) revoked, "
            f"connections closed on every process, rated matches ended as forfeits: "
            f"{', '.join(outcome.forfeits) or 'none'}; off the leaderboard and the queues"
        )
    player_id = await moderation.unban(args.target, args.by, args.reason)
    return f"unbanned {await _who(store, player_id)}"
