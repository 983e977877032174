"""``bench.load --tls`` runs end to end, at a tiny size: the game and the floor on a Redis
reached over TLS only are measured and printed beside plain TCP. Only the plumbing: the
figures of a tiny run mean nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from bench.load.processes import ROOT


def test_a_tiny_run_over_tls_prints_its_figures_beside_plain_tcp() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--rooms", "2", "--seconds", "0.5", "--warmup",
         "0", "--idle", "0", "--rate", "20", "--tls"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for phase in ("tls game", "tls floor"):
        for mode in ("saturated", "paced"):
            line = next((row for row in out.splitlines() if row.startswith(f"{phase}, {mode}")), "")
            assert line, f"no {phase}, {mode} row:\n{out}"
            done_per_second = re.split(r"\s{2,}", line)[1]
            assert done_per_second not in ("0", "-"), line
    table = out[out.index("TLS to Redis ") :]
    assert "game: server CPU per move, saturated" in table
    assert "floor: moves/s, saturated" in table and "TLS / TCP" in table
