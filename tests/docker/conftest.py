"""The Docker suite's phase times: each phase's seconds, printed at the end of the run.

The suite is one deployment driven through its phases in order, so it runs in one process
(``make test-docker``, ``pytest -n 0 tests/docker``); a pytest-xdist run (``make test``'s) leaves
it out, as ``make test`` does with ``--ignore=tests/docker``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    collect_ignore_glob = ["test_*.py"]

#: (name, seconds, depth): depth 1 for a phase inside another (counted in its parent).
PHASES = pytest.StashKey[list[tuple[str, float, int]]]()


class Phases:
    """``with phases("name"):`` times one phase of the run."""

    def __init__(self, record: list[tuple[str, float, int]]) -> None:
        self.record = record
        self.depth = 0

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        depth = self.depth
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            seconds = time.monotonic() - started
            self.record.append((name, seconds, depth))
            print(f"\n[docker phase] {name}: {seconds:.1f} s", flush=True)


@pytest.fixture(scope="session")
def phases(request: pytest.FixtureRequest) -> Phases:
    return Phases(request.config.stash.setdefault(PHASES, []))


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    record = config.stash.get(PHASES, [])
    if not record:
        return
    terminalreporter.section("docker phases")
    for name, seconds, depth in record:
        terminalreporter.write_line(f"{seconds:7.1f} s  {'  (within) ' * depth}{name}")
    total = sum(seconds for _, seconds, depth in record if depth == 0)
    terminalreporter.write_line(f"{total:7.1f} s  in all")
