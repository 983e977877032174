"""``python -m server``: run one server process (settings from the environment, see README).

On SIGTERM or SIGINT the process first tells every client to reconnect (they resume on
another process with nothing lost: the state is in Redis), lets those frames go out, and only
then lets uvicorn stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from types import FrameType
from typing import Any

import uvicorn
from starlette.applications import Starlette

from server.app import create_app, drain
from server.heap_trace import install as install_heap_trace

DRAIN_SECONDS = 3.0
#: uvicorn's options for a server process (with host, port and lifespan); the benchmark's
#: baseline servers take the same, so that only the application differs.
UVICORN_OPTIONS: dict[str, Any] = {
    "log_level": "warning",
    "ws_max_size": 1 << 20,
    "ws_ping_interval": 20.0,
    "ws_ping_timeout": 20.0,
    "timeout_graceful_shutdown": 5,
    # The client's address is the socket's; X-Forwarded-For is read by the app, and only from
    # GIN_TRUSTED_PROXIES (uvicorn's own reading believes any proxy on 127.0.0.1).
    "proxy_headers": False,
}


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: Starlette) -> None:
        super().__init__(config)
        self._app = app
        self._draining: asyncio.Task[None] | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._draining is not None or self.should_exit:
            super().handle_exit(sig, frame)
            return
        loop = asyncio.get_running_loop()

        async def drain_then_exit() -> None:
            # Stop anyway if draining fails: the clients notice the socket closing.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(drain(self._app), DRAIN_SECONDS)
            super(GracefulServer, self).handle_exit(sig, frame)

        self._draining = loop.create_task(drain_then_exit())


def main() -> None:
    install_heap_trace(os.environ)  # GIN_TRACEMALLOC: off unless set
    app = create_app()
    config = uvicorn.Config(
        app,
        host=os.environ.get("GIN_HOST", "127.0.0.1"),
        port=int(os.environ.get("GIN_PORT", "8000")),
        lifespan="on",
        **UVICORN_OPTIONS,
    )
    GracefulServer(config, app).run()


if __name__ == "__main__":
    main()
