"""Real server processes for end-to-end tests: ``python -m server`` on a free port.

``ServerProcess(redis_url, env={...}).start()`` spawns the server with its settings in the
environment (``REDIS_URL``, ``GIN_PORT``, ``GIN_AI_WORKER_KEY``, ``GIN_LOG_FORMAT=json``, no cap
of connections per address...), writes its output to a log file and waits until ``/readyz``
answers 200. ``kill()`` SIGKILLs it (a crash), ``stop()`` SIGTERMs it (a deploy: clients
are told to reconnect), ``start()`` again brings it back on the same port. ``log_tail()`` is
shown when a test fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.ports import free_port

__all__ = ["WORKER_KEY", "ServerProcess", "ServerProcessError", "http_get"]

ROOT = Path(__file__).resolve().parents[2]
WORKER_KEY = "test-worker-key"
_START_TIMEOUT = 20.0
_STOP_TIMEOUT = 10.0


TEST_LIMITS = {
    "GIN_MAX_OPEN_ROOMS": "1000",
    "GIN_MAX_AI_ROOMS": "1000",
    "GIN_NEW_PLAYERS_PER_MINUTE": "100000",
    "GIN_LOOKUP_FAILURES_PER_MINUTE": "100000",
    # The cap's own tests set it (tests/abuse/test_limits.py).
    "GIN_MAX_CONNECTIONS_PER_ADDRESS": "0",
}
"""Resource limits of a test server unless its test sets its own."""


class ServerProcessError(RuntimeError):
    """The server process did not start, or died."""


#: No proxy, whatever the environment says: the servers are on 127.0.0.1.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    """GET ``url``: (status, body); errors with a status are returned, not raised."""
    request = urllib.request.Request(url, headers={"Accept": "*/*"})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), bytes(error.read())


class ServerProcess:
    """One ``python -m server`` process; see the module docstring."""

    def __init__(
        self,
        redis_url: str,
        *,
        env: Mapping[str, str] | None = None,
        port: int | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.port = port or free_port()
        self.extra_env = dict(env or {})
        folder = log_dir or Path(tempfile.mkdtemp(prefix="gin-server-"))
        self.log_path = folder / f"server-{self.port}.log"
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | None = None

    # -- addresses ---------------------------------------------------------------------------

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("GIN_", "REDIS_")) and key not in ("PYTHONPATH",)
        }
        env.update(
            {
                "PYTHONPATH": str(ROOT),
                "PYTHONUNBUFFERED": "1",
                "REDIS_URL": self.redis_url,
                "GIN_HOST": "127.0.0.1",
                "GIN_PORT": str(self.port),
                "GIN_AI_WORKER_KEY": WORKER_KEY,
                "GIN_LOG_FORMAT": "json",
                "GIN_LOG_LEVEL": "INFO",
                # Every test connects from 127.0.0.1: per-player and per-address limits that
                # a person never meets are met by a suite. The abuse tests set small ones.
                **TEST_LIMITS,
            }
        )
        env.update(self.extra_env)
        return env

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> ServerProcess:
        """Spawn the process (on the same port when restarted) and wait for /readyz."""
        if self.running:
            return self
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"--- start #{self.starts} on port {self.port}\n".encode())
            log.flush()
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "server"],
                cwd=ROOT,
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = _START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                raise ServerProcessError(f"the server exited at start:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                status, _ = http_get(f"{self.http_url}/readyz", timeout=1.0)
                if status == 200:
                    return
            time.sleep(0.05)
        raise ServerProcessError(f"the server was not ready in {timeout} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is flushed, no client is told."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM: a graceful shutdown (clients get ``reconnect``)."""
        self._end(signal.SIGTERM)

    def restart(self, *, crash: bool = True) -> None:
        if crash:
            self.kill()
        else:
            self.stop()
        self.start()

    async def astart(self) -> None:
        await asyncio.to_thread(self.start)

    async def akill(self) -> None:
        await asyncio.to_thread(self.kill)

    async def astop(self) -> None:
        await asyncio.to_thread(self.stop)

    def _end(self, sig: signal.Signals) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(_STOP_TIMEOUT)
        with self.log_path.open("ab") as log:
            log.write(f"--- exited with {proc.returncode} ({sig.name})\n".encode())

    # -- looking inside ----------------------------------------------------------------------

    def log_text(self, since: int = 0) -> str:
        """The log, from byte ``since`` on (a ``log_size()`` read earlier)."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(since)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def log_size(self) -> int:
        """The log's length in bytes now (0 before the first start)."""
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def log_tail(self, lines: int = 60, *, since: int = 0) -> str:
        return "\n".join(self.log_text(since).splitlines()[-lines:])

    def log_records(self) -> list[dict[str, Any]]:
        """The JSON log lines (others, like the start markers, are skipped)."""
        records = []
        for line in self.log_text().splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    records.append(record)
        return records

    def get(self, path: str, timeout: float = 5.0) -> tuple[int, bytes]:
        return http_get(f"{self.http_url}{path}", timeout)

    def get_json(self, path: str) -> tuple[int, Any]:
        status, body = self.get(path)
        return status, json.loads(body)

    async def aget(self, path: str) -> tuple[int, bytes]:
        return await asyncio.to_thread(self.get, path)

    async def aget_json(self, path: str) -> tuple[int, Any]:
        return await asyncio.to_thread(self.get_json, path)
