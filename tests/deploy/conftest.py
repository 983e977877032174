"""The deployment tests start processes of their own; a hang dumps the stacks."""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator

import pytest

#: A test still running after this many seconds dumps every thread's stack (it is not
#: stopped: the dump says where it hangs).
WATCHDOG_SECONDS = 240


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS)
    yield
    faulthandler.cancel_dump_traceback_later()
