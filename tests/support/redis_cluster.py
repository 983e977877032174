"""A Redis Cluster of our own for tests: six ``redis-server --cluster-enabled yes`` on free
ports (three masters, three replicas), made into a cluster by ``redis-cli --cluster create``.

Like ``tests.support.redis_server`` it never touches a Redis it did not start: every command
goes to the ports of its own processes. ``kill(node)`` SIGKILLs one node (a crash: its replica
takes over after ``node_timeout_ms``); ``restart(node)`` brings it back (it rejoins as a
replica); ``close()`` stops every node and removes their folders.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from types import TracebackType

from server.keys import hash_slot
from tests.support.ports import free_port
from tests.support.redis_server import RedisServer, RedisServerError, _command
from tests.support.tls import TlsFiles, redis_tls_args

__all__ = ["ClusterNode", "RedisCluster", "redis_cli_binary"]

_READY_TIMEOUT = 30.0


def _cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    return free_port(also=(10_000,))


def _tls_cluster_port() -> int:
    """A free port whose TLS port (port + 1) and that one's cluster bus port are free too."""
    return free_port(also=(1, 10_000, 10_001))


def _node_id(port: int) -> str:
    return _reply(port, "CLUSTER", "MYID").strip()


def _nodes_ok(ports: list[int], masters: int) -> bool:
    for port in ports:
        if "cluster_state:ok" not in _reply(port, "CLUSTER", "INFO"):
            return False
    replication = [_info(port, "replication") for port in ports]
    primaries = [info for info in replication if info.get("role") == "master"]
    replicas = [info for info in replication if info.get("role") == "slave"]
    return len(primaries) == masters and all(
        info.get("master_link_status") == "up" and info.get("master_sync_in_progress") == "0"
        for info in replicas
    )


def _info(port: int, section: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in _reply(port, "INFO", section).splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields[name.strip()] = value.strip()
    return fields


def redis_cli_binary() -> str | None:
    return shutil.which("redis-cli")


@dataclass
class ClusterNode:
    """One node of the test cluster (a ``RedisServer`` started with cluster options)."""

    server: RedisServer
    tls: bool = False
    """In a cluster with ``tls``: the nodes speak TLS among themselves too (``tls-cluster``,
    ``tls-replication``) on ``tls_port``; the plain port stays for the tests' own commands."""

    @property
    def tls_port(self) -> int | None:
        """The node's TLS port (its plain port + 1), in a cluster with ``tls``."""
        return self.port + 1 if self.tls else None

    @property
    def port(self) -> int:
        assert self.server.port is not None
        return self.server.port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def info(self, section: str) -> dict[str, str]:
        return _info(self.port, section)

    def role(self) -> str:
        return self.info("replication").get("role", "")


def _reply(port: int, *args: str) -> str:
    """The whole text of one reply from a redis-cli of ours (bulk replies, e.g. INFO)."""
    cli = redis_cli_binary()
    assert cli is not None
    done = subprocess.run(
        [cli, "-h", "127.0.0.1", "-p", str(port), *args],
        capture_output=True,
        timeout=10,
        check=False,
    )
    return done.stdout.decode(errors="replace")


class RedisCluster:
    """Six nodes, three masters with one replica each (see the module doc)."""

    def __init__(
        self,
        *,
        masters: int = 3,
        node_timeout_ms: int = 1000,
        tls: TlsFiles | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        if redis_cli_binary() is None:
            raise RedisServerError("redis-cli is not installed (Debian's redis-tools)")
        self.node_timeout_ms = node_timeout_ms
        self.nodes = [self._node(node_timeout_ms, tls, extra_args) for _ in range(masters * 2)]
        self._masters = masters

    @staticmethod
    def _node(timeout_ms: int, tls: TlsFiles | None, extra: tuple[str, ...]) -> ClusterNode:
        args = (
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(timeout_ms),
            "--cluster-replica-validity-factor", "0",
            *extra,
        )  # fmt: skip
        if tls is None:
            return ClusterNode(RedisServer(extra_args=args, pick_port=_cluster_port))

        def tls_args(port: int) -> tuple[str, ...]:
            return (
                *redis_tls_args(tls, port + 1),
                "--tls-cluster",
                "yes",
                "--tls-replication",
                "yes",
            )

        # the TLS port is the plain one + 1, its cluster bus that + 10000: chosen together, at
        # each start attempt (one chosen apart, ahead, could be taken by then, every retry failing)
        server = RedisServer(extra_args=args, pick_port=_tls_cluster_port, port_args=tls_args)
        return ClusterNode(server, tls=True)

    def tls_url(self, credentials: str = "") -> str:
        """A startup node's ``rediss://`` URL (``credentials``: ``USER:PASSWORD``)."""
        port = self.nodes[0].tls_port
        if port is None:
            raise RedisServerError("this cluster has no TLS ports")
        return f"rediss://{credentials}{'@' if credentials else ''}127.0.0.1:{port}/0"

    @property
    def url(self) -> str:
        """A startup node's URL (any node leads to the whole cluster)."""
        return f"redis://{self.nodes[0].address}/0"

    @property
    def urls(self) -> list[str]:
        return [f"redis://{node.address}/0" for node in self.nodes]

    def start(self) -> RedisCluster:
        try:
            self._create()
        except BaseException:
            self.close()
            raise
        return self

    def _create(self) -> None:
        for node in self.nodes:
            node.server.start()
        cli = redis_cli_binary()
        assert cli is not None
        addresses = [node.address for node in self.nodes]
        created = subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True,
            timeout=60,
            check=False,
        )
        if created.returncode != 0:
            raise RedisServerError(f"redis-cli --cluster create failed:\n{created.stdout!r}")
        self.wait_ok()

    def wait_ok(self, timeout: float = _READY_TIMEOUT) -> None:
        """Until every running node says ``cluster_state:ok``, there are as many masters as
        shards, and every replica is in sync with its master."""
        self.wait_nodes_ok([node.port for node in self.nodes_running()], self._masters, timeout)

    pick_port = staticmethod(_cluster_port)

    @staticmethod
    def wait_nodes_ok(ports: list[int], masters: int, timeout: float = _READY_TIMEOUT) -> None:
        """Until the nodes on ``ports`` (ours) form a whole cluster of ``masters`` shards."""
        deadline = time.monotonic() + timeout
        while not _nodes_ok(ports, masters):
            if time.monotonic() > deadline:
                raise RedisServerError("the cluster did not become ok in time")
            time.sleep(0.1)

    def masters(self) -> list[ClusterNode]:
        return [node for node in self.nodes if node.server.running and node.role() == "master"]

    def master_of(self, key: str) -> ClusterNode:
        """The running master that serves ``key``'s slot."""
        slot = hash_slot(key)
        for node in self.masters():
            for row in _reply(node.port, "CLUSTER", "NODES").splitlines():
                fields = row.split()
                if "myself" not in fields[2]:
                    continue
                for part in fields[8:]:
                    low, _, high = part.partition("-")
                    if low.isdigit() and int(low) <= slot <= int(high or low):
                        return node
        raise RedisServerError(f"no running master serves slot {slot}")

    def nodes_running(self) -> list[ClusterNode]:
        return [node for node in self.nodes if node.server.running]

    def kill(self, node: ClusterNode) -> None:
        """SIGKILL one node, as a crash would."""
        node.server.kill()

    def fail_over(self, node: ClusterNode, timeout: float = _READY_TIMEOUT) -> ClusterNode:
        """SIGKILL the master ``node``, wait until a replica took over its slots, then start
        it again (it rejoins as the new master's replica, as a supervisor would bring it
        back); returns the new master."""
        key = self._any_key_of(node)
        self.kill(node)
        deadline = time.monotonic() + timeout
        while True:
            try:
                promoted = self.master_of(key)
                break
            except RedisServerError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.restart(node)
        return promoted

    def _any_key_of(self, node: ClusterNode) -> str:
        for row in _reply(node.port, "CLUSTER", "NODES").splitlines():
            fields = row.split()
            if "myself" in fields[2] and len(fields) > 8:
                return _key_for_slot(int(fields[8].partition("-")[0]))
        raise RedisServerError(f"{node.address} serves no slot")

    def start_moving(self, key: str, target: ClusterNode) -> ClusterNode:
        """Begin moving ``key``'s slot to ``target`` (a resharding): the slot is MIGRATING on
        its master and IMPORTING on ``target``, and its keys are migrated (commands for them
        at the old master are answered ``ASK``). Returns the old master."""
        source = self.master_of(key)
        slot = str(hash_slot(key))
        source_id, target_id = _node_id(source.port), _node_id(target.port)
        _reply(target.port, "CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        _reply(source.port, "CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        names = _reply(source.port, "CLUSTER", "GETKEYSINSLOT", slot, "1000").split()
        if names:
            moved = _reply(
                source.port, "MIGRATE", "127.0.0.1", str(target.port), "", "0", "5000",
                "KEYS", *names,
            )  # fmt: skip
            if "OK" not in moved:
                raise RedisServerError(f"MIGRATE failed: {moved}")
        return source

    def finish_moving(self, key: str, target: ClusterNode) -> None:
        """End the move of ``key``'s slot: ``target`` serves it, every master knows."""
        slot = str(hash_slot(key))
        target_id = _node_id(target.port)
        for node in [target, *(node for node in self.masters() if node is not target)]:
            _reply(node.port, "CLUSTER", "SETSLOT", slot, "NODE", target_id)

    def slot_owners(self) -> dict[int, str]:
        """Each running master's port and the slot ranges it says it serves (for a failure
        message)."""
        owners = {}
        for node in self.masters():
            for row in _reply(node.port, "CLUSTER", "NODES").splitlines():
                fields = row.split()
                if "myself" in fields[2]:
                    owners[node.port] = " ".join(fields[8:])
        return owners

    def replicas_of(self, master: ClusterNode) -> list[ClusterNode]:
        return [
            node
            for node in self.nodes_running()
            if node.role() == "slave"
            and node.info("replication").get("master_port") == str(master.port)
        ]

    def restart(self, node: ClusterNode) -> None:
        node.server.start()

    def flushall(self) -> None:
        """Empty every master (the replicas follow); refused on a node we did not start."""
        for node in self.masters():
            reply = _command(node.port, "FLUSHALL")
            if reply != b"+OK":
                raise RedisServerError(f"FLUSHALL failed on {node.address}: {reply!r}")

    def ensure_running(self) -> None:
        """Bring back every node a test killed and wait for a whole cluster again."""
        for node in self.nodes:
            if not node.server.running:
                node.server.start()
        self.wait_ok()

    def close(self) -> None:
        for node in self.nodes:
            node.server.close()

    def __enter__(self) -> RedisCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _key_for_slot(slot: int) -> str:
    """A key of ``slot``."""
    index = 0
    while hash_slot(f"k{index}") != slot:
        index += 1
    return f"k{index}"
