"""Shared by every suite: the fixtures of ``tests.support``, and a watchdog that dumps every
thread's stack when a test hangs."""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator

import pytest

pytest_plugins = ["tests.support.fixtures"]

#: A test still running after this many seconds dumps every thread's stack (it is not
#: stopped: the dump says where it hangs).
WATCHDOG_SECONDS = 240


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS)
    yield
    faulthandler.cancel_dump_traceback_later()
