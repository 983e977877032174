"""``python -m client.review``: run one review worker (settings from the environment, see
``docs/review.md``)."""

from __future__ import annotations

import asyncio
import logging
import os

from client.review.worker import ReviewWorkerSettings, serve


def main() -> None:
    logging.basicConfig(
        level=os.environ.get("GIN_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    asyncio.run(serve(ReviewWorkerSettings.from_env(os.environ)))


if __name__ == "__main__":
    main()
