"""``docker compose up`` without Docker: the compose file's services as local processes.

Each service runs its own ``command`` with its own ``environment`` (interpolated from a host
environment, as compose does), from the runtime image's file tree (laid out as the Dockerfile
COPYs it) with the image's ``ENV``. Only what a container network changes is changed:

- the service names become local addresses (``redis:6379`` -> the test's redis-server,
  ``server:8000`` -> a replica's free port), in the environment and in the proxy's config;
- a service listening on ``0.0.0.0:8000`` listens on 127.0.0.1 on a free port of its own;
- a healthcheck's ``127.0.0.1:8000`` is the replica's port.

Processes run in sessions of their own (a container each): ``stop()`` is ``docker compose
stop`` (SIGTERM, then SIGKILL after the service's ``stop_grace_period``) and ``kill()`` ends
the process group, as the end of a container would.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.deploy.compose import (
    ROOT,
    duration_seconds,
    environment,
    load_compose,
    load_dockerfile,
    resolve,
    runtime_stage,
    stage_image_tree,
)
from tests.support.polling import wait_until
from tests.support.ports import free_port
from tests.support.server_process import http_get

#: Inside the containers: where the server listens, and the services' names.
CONTAINER_PORT = "8000"


class Process:
    """One service's command, running locally."""

    def __init__(
        self, name: str, argv: list[str], env: Mapping[str, str], cwd: Path, log: Path
    ) -> None:
        self.name = name
        self.argv = argv
        self.log_path = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=dict(env),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a container of its own: see kill()
            )

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, grace: float) -> tuple[int | None, float]:
        """SIGTERM, as ``docker compose stop``; SIGKILL after ``grace`` as Docker would.
        Returns (exit code, or None when it had to be killed; seconds taken)."""
        started = time.monotonic()
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            code: int | None = self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()  # the container ends with its main process
        return code, time.monotonic() - started

    def kill(self) -> None:
        """SIGKILL the process and everything it started (its process group)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


class LocalCompose:
    """The services of ``docker-compose.yml`` run as local processes; see the module doc."""

    def __init__(self, folder: Path, host_env: Mapping[str, str]) -> None:
        self.folder = folder
        self.host_env = dict(host_env)
        self.services: dict[str, Any] = load_compose()["services"]
        stage = runtime_stage(load_dockerfile())
        self.image = stage_image_tree(stage, folder / "image")
        # the process environment of a container of the image: no GIN_*/REDIS_* of the host
        self.image_env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GIN_", "REDIS_"))},
            **stage.env,
            "PYTHONPATH": str(self.image),
        }
        self.redis_port: int | None = None
        self.server_ports: dict[str, int] = {}
        self.processes: list[Process] = []

    # -- the file ------------------------------------------------------------------------------

    def command(self, service: str) -> list[str]:
        return [str(part) for part in resolve(self.services[service]["command"], self.host_env)]

    def environment(self, service: str) -> dict[str, str]:
        """The service's environment as compose hands it to the container."""
        return environment(self.services[service], self.host_env)

    def grace(self, service: str) -> float:
        return duration_seconds(self.services[service].get("stop_grace_period", "10s"))

    def replicas(self, service: str) -> int:
        deploy = self.services[service].get("deploy") or {}
        return int(resolve(deploy.get("replicas", 1), self.host_env))

    def _localize(self, value: str, server: str | None = None) -> str:
        """Service addresses -> local ones (``redis:6379``; ``server:8000`` -> a replica)."""
        if self.redis_port is not None:
            value = value.replace("redis:6379", f"127.0.0.1:{self.redis_port}")
        if server is not None:
            value = value.replace(
                f"server:{CONTAINER_PORT}", f"127.0.0.1:{self.server_ports[server]}"
            )
        return value

    def _python(self, argv: list[str]) -> list[str]:
        assert argv[0] == "python", f"not a python command: {argv}"
        return [sys.executable, *argv[1:]]

    def _start(self, name: str, argv: list[str], env: Mapping[str, str], cwd: Path) -> Process:
        process = Process(name, argv, env, cwd, self.folder / f"{name}.log")
        self.processes.append(process)
        return process

    # -- the services --------------------------------------------------------------------------

    def start_redis(self, data: Path) -> Process:
        """The redis service's command; its ``/data`` volume is ``data``."""
        if self.redis_port is None:
            self.redis_port = free_port()
        data.mkdir(parents=True, exist_ok=True)
        argv = self.command("redis")
        assert argv[0] == "redis-server", argv
        redis_server = shutil.which("redis-server")
        assert redis_server is not None, "redis-server is not installed"
        argv = [redis_server, *argv[1:]]
        argv += ["--port", str(self.redis_port), "--bind", "127.0.0.1", "--dir", str(data)]
        process = self._start("redis", argv, dict(os.environ), self.folder)
        wait_until(lambda: self.healthcheck("redis") == 0, 10, "the redis healthcheck")
        return process

    def use_redis(self, port: int) -> None:
        """``redis:6379`` is a redis-server started elsewhere (a ``RedisServer``)."""
        self.redis_port = port

    def start_server(self, name: str, extra: Mapping[str, str] | None = None) -> Process:
        """One replica of the server service, on a free port, waited for by its healthcheck."""
        port = self.server_ports.setdefault(name, free_port())
        env = {
            **self.image_env,
            **{k: self._localize(v) for k, v in self.environment("server").items()},
        }
        assert env["GIN_HOST"] == "0.0.0.0" and env["GIN_PORT"] == CONTAINER_PORT, env
        env.update({"GIN_HOST": "127.0.0.1", "GIN_PORT": str(port), **(extra or {})})
        process = self._start(name, self._python(self.command("server")), env, self.image)
        wait_until(
            lambda: process.running and self.healthcheck("server", name) == 0,
            30,
            f"the healthcheck of {name}",
        )
        return process

    def start_worker(
        self, name: str, server: str, extra: Mapping[str, str] | None = None
    ) -> Process:
        """The ai-worker service's command, its ``server`` being the replica ``server``."""
        env = {
            **self.image_env,
            **{k: self._localize(v, server) for k, v in self.environment("ai-worker").items()},
            **(extra or {}),
        }
        return self._start(name, self._python(self.command("ai-worker")), env, self.image)

    def start_proxy(self, server: str) -> tuple[Process, int] | None:
        """The proxy service (nginx with the mounted config) in front of the replica
        ``server``, or None when nginx is not installed. Returns it and its port."""
        nginx = shutil.which("nginx")
        if nginx is None:
            return None
        mounts = [str(volume) for volume in self.services["proxy"]["volumes"]]
        source, target = mounts[0].split(":")[:2]
        assert target == "/etc/nginx/conf.d/default.conf", mounts
        port = free_port()
        config = (ROOT / source).read_text()
        # the container's port 80 and Docker's DNS name of the replicas -> local addresses
        assert "listen 80;" in config, config
        config = config.replace("listen 80;", f"listen 127.0.0.1:{port};")
        config = self._localize(config, server)
        run = self.folder / "nginx"
        run.mkdir(exist_ok=True)
        site = run / "default.conf"
        site.write_text(config)
        main = run / "nginx.conf"
        # nginx's own nginx.conf of the image: an http block that includes conf.d/*.conf
        main.write_text(
            f"daemon off;\npid {run}/nginx.pid;\nerror_log {run}/error.log info;\n"
            "events {}\n"
            f"http {{\n  access_log {run}/access.log;\n  client_body_temp_path {run};\n"
            f"  proxy_temp_path {run};\n  include {site};\n}}\n"
        )
        check = subprocess.run(
            [nginx, "-t", "-p", str(run), "-c", str(main)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, f"nginx refuses the config:\n{check.stderr}\n{config}"
        process = self._start("proxy", [nginx, "-p", str(run), "-c", str(main)], {}, run)
        wait_until(
            lambda: _http_status(f"http://127.0.0.1:{port}/healthz") == 200,
            10,
            "the proxy",
        )
        return process, port

    def healthcheck(self, service: str, replica: str | None = None) -> int:
        """Run the service's healthcheck (``CMD`` form) locally; its exit code."""
        test = [str(part) for part in resolve(self.services[service]["healthcheck"]["test"], {})]
        assert test[0] == "CMD", test
        argv = test[1:]
        env = dict(self.image_env)
        if service == "redis":
            assert argv[0] == "redis-cli", argv
            argv = [argv[0], "-p", str(self.redis_port), *argv[1:]]
            return subprocess.run(argv, capture_output=True, timeout=10, check=False).returncode
        assert replica is not None
        argv = [
            part.replace(f"127.0.0.1:{CONTAINER_PORT}", f"127.0.0.1:{self.server_ports[replica]}")
            for part in self._python(argv)
        ]
        return subprocess.run(
            argv, env=env, capture_output=True, timeout=10, check=False
        ).returncode

    def logs(self, tail: int = 2000) -> str:
        return "\n".join(f"--- {p.name}\n{p.log()[-tail:]}" for p in self.processes)

    def kill_all(self) -> None:
        for process in reversed(self.processes):
            process.kill()


def _http_status(url: str) -> int:
    try:
        return http_get(url, timeout=1.0)[0]
    except OSError:
        return 0
