"""``bench.load --redis-cluster`` runs end to end, at a tiny size: the cluster's passes (with
and without WAIT) are measured and printed beside the single node's, with the targets. Only
the plumbing: the figures of a tiny run mean nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from bench.load.processes import ROOT


def test_a_tiny_run_with_the_cluster_prints_its_figures_beside_the_single_node() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--rooms", "2", "--seconds", "0.5", "--warmup",
         "0", "--idle", "0", "--rate", "20", "--redis-cluster"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for phase in ("cluster game", "cluster floor", "cluster+WAIT game", "cluster+WAIT floor"):
        for mode in ("saturated", "paced"):
            line = next((row for row in out.splitlines() if row.startswith(f"{phase}, {mode}")), "")
            assert line, f"no {phase}, {mode} row:\n{out}"
            done_per_second = re.split(r"\s{2,}", line)[1]
            assert done_per_second not in ("0", "-"), line
    table = out[out.index("Redis Cluster ") :]
    assert "game: server CPU per move, saturated" in table
    assert "cluster <= 1.3x one Redis" in table and "cluster <= one Redis + 0.5 ms" in table
    assert "game: WAIT 1's cost" in table and "floor: replicas' CPU per move" in table
