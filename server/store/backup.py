"""Backups and restores of a deployment's Redis: the single node, or every master of a cluster.

**Backup** (``backup(url, config, folder)``): a point-in-time snapshot of each master, taken
over the network with the replication handshake, as ``redis-cli --rdb`` does: the tool asks
``SYNC`` as a replica would (after ``REPLCONF rdb-only 1``: no replication stream after it),
Redis forks and writes an RDB of that instant, and the tool saves it as it arrives. It works
over TLS with an ACL user like every other connection of the store (``server.store.resp``),
needs no access to Redis's disk, and costs Redis a fork (as ``BGSAVE`` does). One master's RDB
is consistent in itself; on a cluster the masters are snapshotted one after another, so two
shards' snapshots are seconds apart. Everything one step changes at once lives in one slot
(``server.keys``: a room's keys share its hash tag), hence in one shard's snapshot; what spans
shards is written as ordered, idempotent steps, which the server already repairs after a crash
(a listed room always exists, a player's room claims are re-checked).

The folder holds ``node-N.rdb`` per master and ``manifest.json``: when, from which kind of
deployment (``single`` / ``cluster``), each node's slots, size and SHA-256, Redis's version.

**Restore** (``restore(folder, url, config)``): each RDB is opened by a ``redis-server`` of the
tool's own (on a Unix socket in a temporary folder, no TCP port), its keys read with ``SCAN``,
``DUMP`` and ``PTTL``, and written into the target with ``RESTORE`` (the remaining time to live
kept; keys already expired are skipped). The target is any deployment: one Redis, or a cluster
of any shape (each key goes to the master of its slot). It must be empty (``DBSIZE`` 0 on every
master), unless ``replace``: then the snapshot's keys overwrite the target's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from server import keys
from server.store.cluster import ClusterConnection
from server.store.config import StoreConfig
from server.store.direct import DirectConnection
from server.store.resp import Endpoint, RespProtocol, open_wire, pack, redact, setup_commands
from server.store.slots import Command

__all__ = ["BackupError", "NodeSnapshot", "backup", "restore"]

MANIFEST = "manifest.json"
FORMAT = 1
"""The backup folder's own format (``manifest.json``'s ``format``)."""

_BATCH = 500
_CHUNK = 1 << 20


class BackupError(RedisError):
    """A backup or restore that cannot be done (the reason says why; no password in it)."""


@dataclass(frozen=True)
class NodeSnapshot:
    """One master's snapshot in a backup folder."""

    file: str
    address: str
    slots: list[list[int]]
    bytes: int
    sha256: str


# -- backup ------------------------------------------------------------------------------------


class _SyncReader(RespProtocol):
    """A connection that reads raw bytes (the RDB of ``SYNC`` is not a RESP reply)."""

    def __init__(self) -> None:
        super().__init__()
        self.stream = asyncio.StreamReader(limit=_CHUNK)
        self._ended = False

    def data_received(self, data: bytes) -> None:
        self.stream.feed_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None and not self._ended:  # Redis closes after an rdb-only SYNC: what
            self._ended = True  # arrived is still read, then the end of the stream
            self.stream.feed_eof()
        super().connection_lost(exc)

    def write(self, data: bytes) -> None:
        if self._transport is not None:
            self._transport.write(data)

    def _fail(self, error: BaseException) -> None:
        if not self._ended:
            self._ended = True
            self.stream.set_exception(
                error if isinstance(error, Exception) else RedisConnectionError(str(error))
            )
        super()._fail(error)


async def _line(stream: asyncio.StreamReader, timeout: float) -> bytes:
    line = await asyncio.wait_for(stream.readuntil(b"\n"), timeout)
    return line.rstrip(b"\r\n")


async def snapshot_node(endpoint: Endpoint, target: Path, config: StoreConfig) -> int:
    """Save ``endpoint``'s RDB (``SYNC``) as ``target``; its size in bytes."""
    timeout = config.socket_timeout
    wire = await open_wire(endpoint, _SyncReader, config.socket_connect_timeout)
    try:
        setup = setup_commands(endpoint, select=False)
        wire.write(b"".join(map(pack, [*setup, ("REPLCONF", "rdb-only", "1")])))
        for _ in setup:  # AUTH, SELECT
            reply = await _line(wire.stream, timeout)
            if reply.startswith(b"-"):
                raise BackupError(f"Redis refused the connection setup: {reply[1:].decode()}")
        await _line(wire.stream, timeout)  # an older Redis refuses rdb-only: same snapshot
        wire.write(pack(("SYNC",)))
        # While Redis forks and writes, it sends bare newlines to keep the link alive.
        header = b""
        while not header:
            header = await _line(wire.stream, max(timeout, 600.0))
        if header.startswith(b"-"):
            raise BackupError(f"Redis refused SYNC: {header[1:].decode()}")
        if not header.startswith(b"$") or header.startswith(b"$EOF:"):
            raise BackupError(f"unexpected SYNC reply from Redis: {header[:40]!r}")
        size = int(header[1:])
        left = size
        with target.open("wb") as out:
            while left:
                chunk = await asyncio.wait_for(wire.stream.read(min(left, _CHUNK)), timeout)
                if not chunk:
                    raise BackupError("Redis closed the connection in the middle of the RDB")
                out.write(chunk)
                left -= len(chunk)
            out.flush()
            os.fsync(out.fileno())
        return size
    finally:
        wire.close()


async def _info_field(direct: DirectConnection, section: str, name: str) -> str:
    reply = await direct.execute("INFO", section)
    text = reply.decode() if isinstance(reply, bytes) else ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return value.strip()
    return ""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


async def backup(url: str, config: StoreConfig, folder: Path) -> dict[str, Any]:
    """Snapshot the Redis of ``url`` (with ``config.cluster``: every master) into ``folder``
    (created; must be empty) and return the manifest written there."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise BackupError(f"the backup folder {folder} is not empty")
    cluster = ClusterConnection(url, config) if config.cluster else None
    try:
        nodes = await _masters(url, config, cluster)
        first = DirectConnection(nodes[0][0], config)
        try:
            version = await _info_field(first, "server", "redis_version")
        finally:
            first.close()
        snapshots: list[NodeSnapshot] = []
        for index, (endpoint, where, slots) in enumerate(nodes):
            name = f"node-{index}.rdb"
            size = await snapshot_node(endpoint, folder / name, config)
            snapshots.append(NodeSnapshot(name, where, slots, size, _sha256(folder / name)))
    finally:
        if cluster is not None:
            cluster.close()
    manifest = {
        "format": FORMAT,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "kind": "cluster" if config.cluster else "single",
        "source": redact(url),
        "db": 0 if config.cluster else Endpoint.of(url, config).db,
        "redis_version": version,
        "nodes": [dataclasses.asdict(snapshot) for snapshot in snapshots],
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


async def _masters(
    url: str, config: StoreConfig, cluster: ClusterConnection | None
) -> list[tuple[Endpoint, str, list[list[int]]]]:
    """The nodes to snapshot: the Redis of ``url``, or every master of the cluster, each
    with where it is and the slots it serves."""
    if cluster is None:
        endpoint = Endpoint.of(url, config)
        return [(endpoint, endpoint.path or f"{endpoint.host}:{endpoint.port}", [[0, 16383]])]
    await cluster.refresh()
    if not cluster.covered:
        raise BackupError("the cluster's slot table does not cover every slot")
    return [
        (
            cluster.endpoint(address),
            f"{address[0]}:{address[1]}",
            _ranges([slot for slot in range(keys.SLOTS) if cluster.owner(slot) == address]),
        )
        for address in sorted(cluster.masters)
    ]


def _ranges(slots: Sequence[int]) -> list[list[int]]:
    ranges: list[list[int]] = []
    for slot in slots:
        if ranges and ranges[-1][1] == slot - 1:
            ranges[-1][1] = slot
        else:
            ranges.append([slot, slot])
    return ranges


# -- restore -----------------------------------------------------------------------------------


def read_manifest(folder: Path) -> dict[str, Any]:
    """The backup's manifest, each snapshot's checksum verified."""
    try:
        manifest: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BackupError(f"{folder} is not a backup ({MANIFEST}: {error})") from error
    if manifest.get("format") != FORMAT:
        raise BackupError(f"unknown backup format {manifest.get('format')!r} (this tool: {FORMAT})")
    for node in manifest["nodes"]:
        path = folder / node["file"]
        if not path.is_file() or _sha256(path) != node["sha256"]:
            raise BackupError(f"{path} is missing or damaged (its SHA-256 differs)")
    return manifest


class _Reader:
    """A ``redis-server`` of the tool's own that opens one snapshot (no TCP port)."""

    def __init__(self, binary: str, rdb: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="gin-restore-"))
        shutil.copyfile(rdb, self.folder / "dump.rdb")
        self.socket = self.folder / "redis.sock"
        self._proc = subprocess.Popen(
            [
                binary, "--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700",
                "--dir", str(self.folder), "--dbfilename", "dump.rdb", "--appendonly", "no",
                "--save", "", "--daemonize", "no", "--loglevel", "warning",
                "--logfile", str(self.folder / "redis.log"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip

    async def connection(self, config: StoreConfig, db: int) -> DirectConnection:
        url = f"unix://{self.socket}?db={db}"
        deadline = time.monotonic() + 120
        while True:
            if self._proc.poll() is not None:
                log = (self.folder / "redis.log").read_text(errors="replace")[-2000:]
                raise BackupError(f"redis-server could not open the snapshot:\n{log}")
            if self.socket.exists():
                direct = DirectConnection(url, dataclasses.replace(config, retries=0))
                with contextlib.suppress(RedisConnectionError, OSError):
                    reply = await direct.execute("PING")
                    if reply == b"PONG":
                        return direct
                direct.close()
            if time.monotonic() > deadline:
                raise BackupError("redis-server did not open the snapshot in 120 s")
            await asyncio.sleep(0.05)

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


class _Target:
    """Where the keys go: one Redis, or the master of each key's slot."""

    def __init__(self, url: str, config: StoreConfig) -> None:
        self.cluster = ClusterConnection(url, config) if config.cluster else None
        self.direct = None if config.cluster else DirectConnection(url, config)

    async def dbsize(self) -> int:
        if self.direct is not None:
            return int(await self.direct.execute("DBSIZE"))
        assert self.cluster is not None
        await self.cluster.refresh()
        total = 0
        for address in self.cluster.masters:
            reply = await self.cluster._node(address).execute("DBSIZE")
            total += int(reply)
        return total

    async def run_each(self, commands: list[Command]) -> list[Any]:
        if self.direct is not None:
            return await self.direct.run(commands)
        assert self.cluster is not None
        cluster = self.cluster
        return list(await asyncio.gather(*(cluster.execute(*command) for command in commands)))

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
        if self.direct is not None:
            self.direct.close()


def redis_server_for_restore() -> str:
    """The ``redis-server`` that opens the snapshots (``GIN_REDIS_SERVER``, else on PATH)."""
    binary = os.environ.get("GIN_REDIS_SERVER") or shutil.which("redis-server")
    if not binary:
        raise BackupError(
            "restoring needs a redis-server (7.0 or later, as new as the one backed up) to "
            "open the snapshots: put it on PATH or name it in GIN_REDIS_SERVER"
        )
    return binary


async def restore(
    folder: Path, url: str, config: StoreConfig, *, replace: bool = False
) -> dict[str, int]:
    """Write the keys of the backup in ``folder`` into the Redis of ``url`` (see the module
    doc); counts of keys ``restored`` and ``expired`` (gone by now, skipped)."""
    manifest = read_manifest(folder)
    binary = redis_server_for_restore()
    target = _Target(url, config)
    counts = {"restored": 0, "expired": 0}
    try:
        if not replace:
            present = await target.dbsize()
            if present:
                raise BackupError(
                    f"the target Redis is not empty ({present} keys): restore into a fresh "
                    "deployment, or pass --replace to overwrite its keys with the backup's"
                )
        for node in manifest["nodes"]:
            reader = _Reader(binary, folder / node["file"])
            try:
                source = await reader.connection(config, int(manifest.get("db", 0)))
                try:
                    await _copy(source, target, replace, counts)
                finally:
                    source.close()
            finally:
                reader.close()
    finally:
        target.close()
    return counts


async def _copy(
    source: DirectConnection, target: _Target, replace: bool, counts: dict[str, int]
) -> None:
    cursor = b"0"
    while True:
        reply = await source.execute("SCAN", cursor, "COUNT", _BATCH)
        cursor, names = reply[0], list(reply[1])
        if names:
            asked: list[Command] = []
            for name in names:
                asked += [("PTTL", name), ("DUMP", name)]
            found = await source.run(asked)
            restores: list[Command] = []
            for index, name in enumerate(names):
                ttl, payload = found[2 * index], found[2 * index + 1]
                if payload is None or ttl in (-2, 0):  # gone, or going this instant
                    counts["expired"] += 1
                    continue
                command: Command = ("RESTORE", name, 0 if ttl == -1 else int(ttl), payload)
                restores.append((*command, "REPLACE") if replace else command)
            for result in await target.run_each(restores):
                if isinstance(result, ResponseError):
                    raise BackupError(f"RESTORE refused: {result}")
            counts["restored"] += len(restores)
        if cursor in (b"0", 0, "0"):
            return
