"""Real worker processes of ``client/`` for the tests (the AI worker, the review worker), with
their settings in the environment, as the compose file and ``make run`` start them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar, Self

from tests.support.server_process import ROOT, WORKER_KEY

__all__ = ["ClientProcess", "WorkerProcess"]

#: The state column of an established connection in ``/proc/net/tcp``.
_ESTABLISHED = "01"


class ClientProcess:
    """``python -m MODULE``, a worker of ``client/``, with its settings in the environment;
    ``kill()`` is a crash, ``terminate()`` a SIGTERM (drain). Subclasses name the module and
    the settings every test wants (``settings``); ``env`` adds or overrides some."""

    module: ClassVar[str]
    settings: ClassVar[Mapping[str, str]]

    def __init__(
        self, url: str, log_dir: Path, name: str, env: Mapping[str, str] | None = None
    ) -> None:
        self.url = url
        self.name = name
        self.log_path = log_dir / f"{self.module.rsplit('.', 1)[-1]}-{name}.log"
        self.extra_env = dict(env or {})
        self._proc: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("GIN_", "REDIS_")) and key != "PYTHONPATH"
        }
        env.update(
            {
                "PYTHONPATH": str(ROOT),
                "PYTHONUNBUFFERED": "1",
                "GIN_SERVER_URL": self.url,
                "GIN_AI_WORKER_KEY": WORKER_KEY,
                "GIN_LOG_LEVEL": "INFO",
                **self.settings,
                **self.extra_env,
            }
        )
        return env

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc is not None else None

    def start(self) -> Self:
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", self.module],
                cwd=ROOT,
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its process pool dies with it (kill())
            )
        return self

    def kill(self) -> None:
        """SIGKILL the worker and anything it started (its process group)."""
        if self._proc is None or self._proc.returncode is not None:
            return  # never started, or already reaped: its group id may be reused
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait(10)

    def local_ports(self) -> set[int]:
        """The local ports of the worker's established TCP connections (Linux ``/proc``):
        with ``Proxy.routes`` they say which server each of its websockets goes to."""
        if not self.running or self._proc is None:
            return set()
        inodes: set[str] = set()
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{self._proc.pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[len("socket:[") : -1])
        ports: set[int] = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with contextlib.suppress(OSError):
                for line in Path(table).read_text().splitlines()[1:]:
                    fields = line.split()
                    if fields[9] in inodes and fields[3] == _ESTABLISHED:
                        ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        return ports

    def terminate(self) -> None:
        """SIGTERM: the worker stops taking seats and drains (does not wait)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)

    async def wait(self, timeout: float) -> int:
        """The exit code; TimeoutError if still running after ``timeout``."""
        assert self._proc is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._proc.poll() is None:
            if loop.time() > deadline:
                raise TimeoutError(f"{self.module} {self.name} still running after {timeout} s")
            await asyncio.sleep(0.05)
        return self._proc.returncode

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])


class WorkerProcess(ClientProcess):
    """An AI worker, ``python -m client.ai``: it moves at once (no pause for human eyes), its
    seats' decisions in its event loop."""

    module: ClassVar[str] = "client.ai"
    settings: ClassVar[Mapping[str, str]] = {
        "GIN_AI_THINK_SECONDS": "0",
        "GIN_AI_PROCESSES": "0",
    }
