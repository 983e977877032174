"""Operator commands: ``python -m server.admin backup DIR`` and ``restore DIR``; the
moderator's ``reports``, ``player``, ``ban`` and ``unban`` (``server.moderator_cli``,
``docs/moderation.md``).

Both read the server's own settings (``REDIS_URL``, ``GIN_REDIS_CLUSTER``, ``GIN_REDIS_CA``,
``GIN_REDIS_CERT``, ``GIN_REDIS_KEY``), so they run with the environment a server process has;
``--url`` and ``--cluster`` / ``--single`` override them. What they do and how consistent a
backup is: ``server.store.backup`` and ``docs/operations.md`` ("Backups and restores").

Exit status 0 on success; 2 with one line on stderr when it cannot be done (no traceback, no
password).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from server import moderator_cli
from server.moderation import ModerationError
from server.settings import Settings
from server.store import StoreConfig, redact
from server.store.backup import BackupError, backup, restore

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server.admin", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("backup", help="snapshot the Redis (every master) into DIR")
    made.add_argument("folder", type=Path, metavar="DIR", help="a new or empty folder")
    back = commands.add_parser("restore", help="write the backup in DIR into the Redis")
    back.add_argument("folder", type=Path, metavar="DIR", help="a folder made by backup")
    back.add_argument(
        "--replace",
        action="store_true",
        help="overwrite keys the target has (default: refuse a target that is not empty)",
    )
    for sub in (made, back, *moderator_cli.add_commands(commands)):
        sub.add_argument("--url", help="the Redis URL (default: REDIS_URL)")
        kind = sub.add_mutually_exclusive_group()
        kind.add_argument("--cluster", action="store_true", help="a Redis Cluster")
        kind.add_argument("--single", action="store_true", help="one Redis, not a cluster")
    return parser


async def _run(args: argparse.Namespace, settings: Settings) -> str:
    if args.command in moderator_cli.COMMANDS:
        return await moderator_cli.run(args, settings)
    url = args.url or settings.redis_url
    cluster = (settings.redis_cluster or args.cluster) and not args.single
    config = StoreConfig(
        cluster=cluster,
        tls_ca=settings.redis_ca,
        tls_cert=settings.redis_cert,
        tls_key=settings.redis_key,
        socket_timeout=30.0,
        block_chunk_ms=2000,
    )
    if args.command == "backup":
        manifest = await backup(url, config, args.folder)
        size = sum(node["bytes"] for node in manifest["nodes"])
        return (
            f"backed up {redact(url)} ({manifest['kind']}, {len(manifest['nodes'])} "
            f"snapshot(s), {size:,} bytes) into {args.folder}"
        )
    counts = await restore(args.folder, url, config, replace=args.replace)
    return (
        f"restored {counts['restored']:,} keys into {redact(url)} from {args.folder} "
        f"({counts['expired']:,} expired since the backup, skipped)"
    )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        print(asyncio.run(_run(args, settings)))
    except (BackupError, ModerationError, ValueError, OSError) as error:
        print(f"server.admin {args.command}: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a Redis error: its message, never the URL's password
        print(f"server.admin {args.command}: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
