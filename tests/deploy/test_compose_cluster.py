"""The compose file's Redis Cluster profile (``--profile cluster``): six nodes with their
append-only files on volumes of their own, and an init job that makes them one cluster
(a replica per master) once. Read as compose would, then run as local processes: the six
nodes' own commands on free ports, each announced by a name (``localhost`` here), the init
job's own command (twice: the second run finds the cluster made), and a server with the
compose file's environment in cluster mode, ready and serving."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path
from typing import Any

from client.session import Session
from tests.deploy.compose import environment, load_compose, resolve
from tests.support.redis_cluster import RedisCluster
from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess, http_get

HOST_ENV = {"GIN_AI_WORKER_KEY": "a-long-random-secret"}
NODES = [f"redis-node-{index}" for index in range(1, 7)]


def _services() -> dict[str, Any]:
    services: dict[str, Any] = load_compose()["services"]
    return services


def _options(command: list[str]) -> dict[str, str]:
    return dict(zip(command[1::2], command[2::2], strict=False))


def test_six_cluster_nodes_keep_an_append_only_file_each_and_only_in_their_profile() -> None:
    compose = load_compose()
    services = _services()
    for name in NODES:
        node = services[name]
        assert node.get("profiles") == ["cluster"], name
        command = [str(part) for part in resolve(node["command"], HOST_ENV)]
        options = _options(command)
        assert command[0] == "redis-server"
        assert options["--cluster-enabled"] == "yes" and options["--appendonly"] == "yes"
        assert options["--cluster-announce-hostname"] == name  # found by name, not address
        volume = node["volumes"][0].split(":")
        assert volume[1] == "/data" and volume[0] in compose["volumes"], volume
        assert node["healthcheck"]["test"][1:] == ["redis-cli", "ping"]
    init = services["redis-cluster-init"]
    assert init.get("profiles") == ["cluster"] and init.get("restart") == "no"
    assert set(init["depends_on"]) == set(NODES)
    script = init["command"][-1]
    assert "--cluster-replicas 1" in script and all(f"{name}:6379" in script for name in NODES)
    assert "profiles" not in services["redis"]  # today's single Redis stays the default


async def test_the_profile_runs_as_local_processes(tmp_path: Path) -> None:
    services = _services()
    nodes: dict[str, RedisServer] = {}
    try:
        for name in NODES:
            command = [str(part) for part in resolve(services[name]["command"], HOST_ENV)]
            options = _options(command)
            options.pop("--port")
            # each node is announced by a name, as in compose: here every name is localhost
            options["--cluster-announce-hostname"] = "localhost"
            nodes[name] = RedisServer(
                extra_args=tuple(part for pair in options.items() for part in pair),
                pick_port=RedisCluster.pick_port,
            ).start()
        ports = {name: node.port for name, node in nodes.items() if node.port is not None}
        script = services["redis-cluster-init"]["command"][-1]
        first = ports[NODES[0]]
        script = script.replace("-h redis-node-1 ", f"-h localhost -p {first} ")
        for name, port in ports.items():
            script = script.replace(f"{name}:6379", f"localhost:{port}")
        assert not re.search(r"redis-node-\d", script), script
        for _ in range(2):  # the second run finds the cluster made
            done = subprocess.run(
                ["sh", "-c", script], capture_output=True, timeout=60, check=False
            )
            assert done.returncode == 0, done.stdout + done.stderr
            RedisCluster.wait_nodes_ok(list(ports.values()), masters=3)
        slots = subprocess.run(
            ["redis-cli", "-p", str(first), "CLUSTER", "SLOTS"], capture_output=True, check=True
        )
        assert b"localhost" in slots.stdout  # the nodes are known by their names
        env = environment(services["server"], {**HOST_ENV, "GIN_REDIS_CLUSTER": "1"})
        # GIN_REDIS_NODES as the README has it, with the nodes' local names
        url = f"redis://localhost:{first},localhost:{ports[NODES[1]]}/0"
        cluster_env = {"GIN_REDIS_CLUSTER": env["GIN_REDIS_CLUSTER"]}
        server = ServerProcess(url, env=cluster_env, log_dir=tmp_path)
        try:
            await asyncio.to_thread(server.start)
            status, body = await asyncio.to_thread(http_get, f"{server.http_url}/readyz")
            assert status == 200, body
            person = await Session.connect(server.ws_url, name="Ada")
            try:
                for _ in range(6):  # rooms on every shard, reached by the nodes' names
                    created = await person.request("create_room", mode="private")
                    assert created.result["invite"]
            finally:
                await person.close()
        finally:
            server.kill()
    finally:
        for node in nodes.values():
            node.close()
