"""Server processes shared by the tests of one worker process (the ``shared_server`` mark).

Starting ``python -m server`` and waiting for ``/readyz`` costs a second or two; most
end-to-end tests only talk to a server. ``SharedServers`` keeps, for one pytest process (one
xdist worker), the servers that the tests of one module use: ``use(module)`` says whose
servers are wanted (another module's are killed, and its Redis with them), ``get(env, n)``
is then the n-th server with the settings ``env``, started on first use (and again if it
died), all on one redis-server of the module's own that is never flushed. What one test
leaves there is seen by the next test of the same module, and only by those: which tests
may share is decided module by module (see ``tests/support/fixtures.py``). ``close()``
kills them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tests.support.redis_server import RedisServer
from tests.support.server_process import ServerProcess

__all__ = ["SharedServers"]

#: A server's settings as a dict key.
_Key = tuple[tuple[str, str], ...]


class SharedServers:
    """See the module docstring."""

    def __init__(self, log_dir: Path) -> None:
        self._log_dir = log_dir
        self._module: str | None = None
        self._redis: RedisServer | None = None
        self._servers: dict[_Key, list[ServerProcess]] = {}

    def use(self, module: str) -> None:
        """From now on the servers are ``module``'s (those of another module are killed)."""
        if module != self._module:
            self.close()
            self._module = module

    @property
    def redis_url(self) -> str:
        """The shared servers' Redis (started on first use)."""
        return self._running_redis().url

    def _running_redis(self) -> RedisServer:
        if self._redis is None:
            self._redis = RedisServer()
        if not self._redis.running:  # first use, or a test took it down: same port again
            self._redis.start()
        return self._redis

    def get(self, env: Mapping[str, str], nth: int = 0) -> ServerProcess:
        """The ``nth`` server with settings ``env``, running."""
        servers = self._servers.setdefault(tuple(sorted(env.items())), [])
        while len(servers) <= nth:
            servers.append(ServerProcess(self.redis_url, env=env, log_dir=self._log_dir))
        server = servers[nth]
        if not server.running:
            self._running_redis()
            server.start()
        return server

    def started(self) -> list[ServerProcess]:
        """Every server made so far."""
        return [server for servers in self._servers.values() for server in servers]

    def close(self) -> None:
        for server in self.started():
            server.kill()
        self._servers.clear()
        if self._redis is not None:
            self._redis.close()
            self._redis = None
