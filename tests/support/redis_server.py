"""A redis-server of our own for tests: free port, temporary data folder, AOF on.

It never touches another Redis (the machine's on 6379 included): it only ever talks to the
port of the process it started, and refuses FLUSHALL when that process is not running.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from tests.support.ports import free_port

__all__ = ["RedisServer", "RedisServerError", "redis_server_binary"]

_START_TIMEOUT = 10.0
_STOP_TIMEOUT = 10.0


class RedisServerError(RuntimeError):
    """The redis-server could not be started, or is not ours to talk to."""


def redis_server_binary() -> str | None:
    """The path of ``redis-server`` on PATH, or None."""
    return shutil.which("redis-server")


def _command(port: int, *args: str, timeout: float = 2.0) -> bytes:
    """Send one command to 127.0.0.1:port (RESP) and return the first line of the reply."""
    request = b"*%d\r\n" % len(args)
    for arg in args:
        data = arg.encode()
        request += b"$%d\r\n%s\r\n" % (len(data), data)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        reply = b""
        while not reply.endswith(b"\r\n"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
    return reply.split(b"\r\n", 1)[0]


class RedisServer:
    """``redis-server --port N --bind 127.0.0.1 --dir TMP --appendonly yes --save ''``, also
    listening on the Unix socket ``TMP/redis.sock`` (``unix_url``).

    ``start()`` waits until it answers PING; ``stop()`` shuts it down cleanly (SIGTERM: the
    AOF is flushed), ``kill()`` SIGKILLs it (a crash), ``pause()`` / ``resume()`` freeze and
    thaw it (SIGSTOP / SIGCONT), ``restart()`` starts it again on the
    same port and folder, so the AOF is replayed. ``close()`` stops it and removes the folder.
    ``appendfsync="always"`` makes every acknowledged write survive ``kill()``.
    """

    def __init__(
        self,
        *,
        appendfsync: str = "everysec",
        binary: str | None = None,
        extra_args: tuple[str, ...] = (),
        pick_port: Callable[[], int] | None = None,
        port_args: Callable[[int], tuple[str, ...]] | None = None,
    ) -> None:
        found = binary or redis_server_binary()
        if found is None:
            raise RedisServerError(
                "redis-server is not installed: run scripts/ensure-redis.sh (make test does)"
            )
        self.binary = found
        self.appendfsync = appendfsync
        self.extra_args = extra_args
        self._pick_port = pick_port or free_port
        #: Arguments that name other ports beside the chosen one (a TLS port): chosen with it,
        #: so that a retry on another port moves them too.
        self._port_args = port_args
        self.port: int | None = None
        self.dir = Path(tempfile.mkdtemp(prefix="gin-redis-"))
        self.log_path = self.dir / "redis.log"
        self._proc: subprocess.Popen[bytes] | None = None

    # -- state -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self.port is None:
            raise RedisServerError("the server was never started")
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def unix_url(self) -> str:
        """The same server through its Unix socket (``unix://PATH?db=0``)."""
        if self.port is None:
            raise RedisServerError("the server was never started")
        return f"unix://{self.socket_path}?db=0"

    @property
    def socket_path(self) -> Path:
        return self.dir / "redis.sock"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id while it runs (for CPU readings and signals), else None."""
        return self._proc.pid if self.running and self._proc is not None else None

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> RedisServer:
        """Start on a free port (first time) or on the same port again; wait for PING."""
        if self.running:
            return self
        if self.port is not None:
            self._spawn(self.port)
            return self
        for _attempt in range(5):
            port = self._pick_port()
            try:
                self._spawn(port)
            except RedisServerError:
                if "Address already in use" in self.log_tail():
                    continue  # someone took the port between probe and bind: try another
                raise
            self.port = port
            return self
        raise RedisServerError("no free port for redis-server after 5 attempts")

    def _spawn(self, port: int) -> None:
        args = [
            self.binary,
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(self.dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--loglevel", "warning",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            *self.extra_args,
            *(self._port_args(port) if self._port_args is not None else ()),
        ]  # fmt: skip
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._proc = None
                raise RedisServerError(f"redis-server exited at start:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                if _command(port, "PING", timeout=0.5) == b"+PONG":
                    return
            time.sleep(0.02)
        self.kill()
        raise RedisServerError(f"redis-server did not answer PING:\n{self.log_tail()}")

    def stop(self) -> None:
        """Shut down cleanly (SIGTERM: Redis flushes the AOF and exits)."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL the server, as a crash would."""
        self._end(signal.SIGKILL)

    def _end(self, sig: signal.Signals) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(_STOP_TIMEOUT)

    def pause(self) -> None:
        """SIGSTOP: the server stops answering anyone (its master and clients included), as
        a machine that froze would; ``resume()`` lets it go on where it stopped."""
        if self._proc is not None and self.running:
            self._proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self._proc is not None and self.running:
            self._proc.send_signal(signal.SIGCONT)

    def restart(self, *, crash: bool = False) -> None:
        """Stop (or, with ``crash=True``, SIGKILL) and start again on the same port and
        folder: the data comes back from the AOF."""
        if crash:
            self.kill()
        else:
            self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server and delete its data folder."""
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- commands on OUR server only ---------------------------------------------------------

    def flushall(self) -> None:
        """Empty every database of this server (refused unless we started it and it runs)."""
        if not self.running or self.port is None:
            raise RedisServerError("refusing FLUSHALL: this server is not running")
        reply = _command(self.port, "FLUSHALL")
        if reply != b"+OK":
            raise RedisServerError(f"FLUSHALL failed: {reply!r}")
