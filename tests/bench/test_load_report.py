"""bench.load's ratio rows: a phase whose CPU clock measured nothing gives no ratio, not a
crash (a tiny run on a loaded machine: a floor phase of 0.5 s read 0 s of CPU)."""

from __future__ import annotations

from bench.load.report import _ratio_rows
from bench.load.stats import Stats


def _phase(key: str, done: int, cpu: float) -> Stats:
    stats = Stats(key.split(maxsplit=1)[0], key=key, done=done, seconds=1.0, cpu={"server": cpu})
    stats.latencies = [0.001, 0.002]
    return stats


def test_a_floor_that_measured_no_cpu_gives_no_ratio() -> None:
    keys = ("game saturated", "floor saturated", "game paced", "floor paced")
    phases = {key: _phase(key, 100, 0.0 if key.startswith("floor") else 0.02) for key in keys}
    rows = {row[0]: row for row in _ratio_rows(phases)}
    assert rows["saturated CPU/op: game / floor"][1] == "-"


def test_a_measured_floor_gives_the_ratio() -> None:
    keys = ("game saturated", "floor saturated")
    phases = {key: _phase(key, 100, 0.01 if key.startswith("floor") else 0.025) for key in keys}
    rows = {row[0]: row for row in _ratio_rows(phases)}
    assert rows["saturated CPU/op: game / floor"][1] == "2.50x"
