"""Fixtures of the browser tests: Debian's Chromium driven by Playwright, against a real server
process and Redis (``gin_server`` from ``tests.support.fixtures``), with scripted opponents.

The tests need the built web client (``client/web/dist``, from ``npm run build``), the
``playwright`` package and ``/usr/bin/chromium`` (``make test`` provides all three); a missing
piece fails the tests with what to install.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, ConsoleWatch
from tests.support.fixtures import ServerFactory
from tests.support.server_process import WORKER_KEY, ServerProcess

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "client" / "web" / "dist" / "index.html"


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install playwright)"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    if not DIST.exists():
        return "the web client is not built (cd client/web && npm ci && npm run build)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    missing = _missing()
    if missing is not None:
        pytest.fail(missing, pytrace=False)
    sync_api = importlib.import_module("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def console(server_factory: ServerFactory) -> Iterator[ConsoleWatch]:
    """Console errors of every page of the test; any one fails the test.

    It asks for ``server_factory`` so that the test's servers are set up before its pages
    and stopped after them (fixtures end in the reverse order): a page whose server stopped
    first logs the refused connections of its last requests (a replay asking for its
    review's progress, seen in CI)."""
    watch = ConsoleWatch()
    yield watch
    assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)


NewPage = Callable[..., "Page"]


@pytest.fixture
def new_page(browser: Browser, console: ConsoleWatch) -> Iterator[NewPage]:
    """``new_page(locale="en-US", width=1200, height=860, context=None)``: a page in a fresh
    browser context (its own localStorage: another person), or in ``context``."""
    contexts: list[BrowserContext] = []

    def make(
        locale: str = "en-US",
        width: int = 1200,
        height: int = 860,
        context: BrowserContext | None = None,
        **options: Any,
    ) -> Page:
        if context is None:
            context = browser.new_context(
                locale=locale,
                viewport={"width": width, "height": height},
                reduced_motion="reduce",
                **options,
            )
            context.set_default_timeout(15_000)
            contexts.append(context)
        return console.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()


def _until_connected(server: ServerProcess, worker: subprocess.Popen[bytes], log: Path) -> None:
    """Until the worker's websocket is open (``gin_connections``): a page that asked for the AI
    before a slow start of the worker waited past its 5 s for the table (CI, once)."""
    deadline = time.monotonic() + 30
    while True:
        assert worker.poll() is None, "the AI worker died:\n" + log.read_text()[-3000:]
        status, body = server.get("/metrics")
        found = re.search(rb"^gin_connections (\S+)$", body, re.M) if status == 200 else None
        if found and float(found.group(1)) >= 1:
            return
        assert time.monotonic() < deadline, "the AI worker never connected:\n" + log.read_text()
        time.sleep(0.05)


@pytest.fixture
def ai_seats(gin_server: ServerProcess, tmp_path: Path) -> Iterator[None]:
    """The real AI worker (``python -m client.ai``) plays the AI seats."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIN_")}
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "GIN_SERVER_URL": gin_server.ws_url,
            "GIN_AI_WORKER_KEY": WORKER_KEY,
            "GIN_AI_THINK_SECONDS": "0.15",
            "GIN_AI_DRAIN_SECONDS": "1",
        }
    )
    log_path = tmp_path / "ai-worker.log"
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "client.ai"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its process pool goes with it
        )
    try:
        _until_connected(gin_server, worker, log_path)
        yield None
        assert worker.poll() is None, "the AI worker died:\n" + log_path.read_text()[-3000:]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)
