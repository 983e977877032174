"""``python -m server``: run one server process (settings from the environment, see README)."""

from __future__ import annotations

import os

import uvicorn

from server.app import create_app


def main() -> None:
    host = os.environ.get("GIN_HOST", "127.0.0.1")
    port = int(os.environ.get("GIN_PORT", "8000"))
    uvicorn.run(
        create_app(),
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=1 << 20,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
        lifespan="on",
    )


if __name__ == "__main__":
    main()
