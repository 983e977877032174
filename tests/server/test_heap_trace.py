"""``GIN_TRACEMALLOC`` (``server/heap_trace.py``): a baseline on the first SIGUSR2, the lines
that grew most since then on the next ones and at exit; off unless set; a bad value refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.heap_trace import install
from tests.support.server_process import ROOT

GROWER = """
import os, signal
from server.heap_trace import install
install(os.environ)
os.kill(os.getpid(), signal.SIGUSR2)
kept = [bytearray(1000) for _ in range(3000)]  # THE GROWTH
os.kill(os.getpid(), signal.SIGUSR2)
"""


def test_the_second_snapshot_names_the_line_that_grew(tmp_path: Path) -> None:
    dump = tmp_path / "trace.txt"
    done = subprocess.run(
        [sys.executable, "-c", GROWER],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "GIN_TRACEMALLOC": "1",
             "GIN_TRACEMALLOC_FILE": str(dump)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = dump.read_text()
    blocks = [line for line in text.splitlines() if line.startswith("tracemalloc ")]
    assert len(blocks) == 3, text  # the baseline, the second signal, the exit
    assert "baseline" in blocks[0] and "since the baseline" in blocks[1]
    first_growth = text.split(blocks[1], 1)[1].splitlines()[1]
    assert first_growth.endswith("<string>:6"), text
    assert float(first_growth.split()[0]) >= 2900  # KiB: 3,000 buffers of 1,000 bytes


def test_it_is_off_unless_set_and_refuses_a_bad_value() -> None:
    assert install({}) is None and install({"GIN_TRACEMALLOC": "0"}) is None
    for bad in ("yes", "-1"):
        with pytest.raises(ValueError, match="GIN_TRACEMALLOC"):
            install({"GIN_TRACEMALLOC": bad})
