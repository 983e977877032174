"""The processes a run starts: their logs, RSS and CPU time from /proc, a clean stop."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def die_with_parent() -> None:
    """In the child, before exec: get SIGKILL when the bench dies (Linux prctl)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Child:
    """A process we started: its log, RSS and CPU time from /proc, and a clean stop."""

    def __init__(
        self,
        name: str,
        args: list[str],
        log_dir: Path,
        env: dict[str, str] | None = None,
        stop_signal: int = signal.SIGTERM,
        children: Children | None = None,
    ) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self.stop_signal = stop_signal
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                args,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=die_with_parent,  # noqa: PLW1509 (no threads here)
            )
        self.children = children
        if children is not None:
            children.add(self)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss(self) -> int:
        return rss_of(self.pid)

    def cpu(self) -> float:
        return cpu_of(self.pid)

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        if self.children is not None:
            self.children.discard(self)


class Children:
    """The processes of a run not stopped yet: stopped on the way out, whichever way it is."""

    def __init__(self) -> None:
        self._running: list[Child] = []
        self._cleanups: list[Callable[[], None]] = []

    def on_stop(self, cleanup: Callable[[], None]) -> None:
        """Also run ``cleanup`` on the way out (processes started by other code: a cluster)."""
        self._cleanups.append(cleanup)

    def add(self, child: Child) -> None:
        self._running.append(child)

    def discard(self, child: Child) -> None:
        if child in self._running:
            self._running.remove(child)

    def __iter__(self) -> Iterator[Child]:
        return iter(list(self._running))

    def stop_all(self) -> None:
        for child in reversed(list(self._running)):
            with contextlib.suppress(Exception):
                child.stop()
        for cleanup in reversed(self._cleanups):
            with contextlib.suppress(Exception):
                cleanup()


def rss_of(pid: int) -> int:
    """Resident set size in bytes (VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int | str) -> float:
    """User + system CPU seconds of a process (all its threads)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS
