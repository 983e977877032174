"""A benchmark command run from the tests (``bench_run``), and ``bench.load`` at a tiny size
for the tests of its plumbing (its figures mean nothing): the command's output, and the
phases it must have measured."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from bench.load.processes import ROOT


def bench_run(module: str, *args: str, timeout: float) -> str:
    """``python -m MODULE ARGS`` from the project's root; its standard output, once it
    exited 0 (else the test fails with both of its outputs)."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def tiny_load_run(*flags: str) -> str:
    """``python -m bench.load`` on 2 rooms for half a second a phase, with ``flags``; its
    standard output, once it exited 0."""
    return bench_run(
        "bench.load", "--rooms", "2", "--seconds", "0.5", "--warmup", "0", "--idle", "0",
        "--rate", "20", *flags, timeout=300,
    )  # fmt: skip


def assert_measured(out: str, phases: tuple[str, ...]) -> None:
    """Each phase has a saturated and a paced row, each with something done per second."""
    for phase in phases:
        for mode in ("saturated", "paced"):
            line = next((row for row in out.splitlines() if row.startswith(f"{phase}, {mode}")), "")
            assert line, f"no {phase}, {mode} row:\n{out}"
            done_per_second = re.split(r"\s{2,}", line)[1]
            assert done_per_second not in ("0", "-"), line
