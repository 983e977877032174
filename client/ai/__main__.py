"""``python -m client.ai``: run one AI worker (settings from the environment, see README)."""

from __future__ import annotations

import asyncio
import logging
import os

from client.ai.worker import WorkerSettings, serve


def main() -> None:
    logging.basicConfig(
        level=os.environ.get("GIN_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    asyncio.run(serve(WorkerSettings.from_env(os.environ)))


if __name__ == "__main__":
    main()
