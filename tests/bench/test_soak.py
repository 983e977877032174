"""``bench.soak`` runs end to end at a tiny size: the mixed load plays (matches, moves, a
watcher, drops that resume), every row is printed, the abandoned-AI-room case is timed, the
traced server writes its tracemalloc growth, and the totals are sane. Only the plumbing: the
figures of a tiny run mean nothing, and nothing here is timed."""

from __future__ import annotations

import re

from tests.bench.tiny_load import bench_run


def number(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, f"no {pattern!r} in:\n{text}"
    return int(found.group(1))


def test_a_short_soak_plays_the_mixed_load_and_prints_its_rows_and_totals() -> None:
    out = bench_run(
        "bench.soak", "--minutes", "0.3", "--ai-rooms", "2", "--human-rooms", "2", "--split",
        "1", "--watchers", "1", "--drop-every", "4", "--sample-every", "3", "--abandoned", "2",
        "--target", "10", "--think", "0.1", "--grace", "2", timeout=400,
    )  # fmt: skip
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+\.\d(\s+\d+\.\d MiB){4}", line)]
    assert len(rows) >= 6, out  # the first one, then one every 3 s of 18
    moves = number(r"(\d+) matches, (?:\d+) moves", out), number(r"matches, (\d+) moves", out)
    assert moves[0] >= 1 and moves[1] >= 20, out
    assert int(rows[-1].split()[-1]) == moves[0] and int(rows[-1].split()[-2]) == moves[1]
    assert number(r"(\d+) rooms watched", out) >= 1
    assert "errors by code: none" in out
    assert number(r"stalls: (\d+)", out) == 0 and number(r"sequence gaps: (\d+)", out) == 0
    reconnects = number(r"reconnects: (\d+)", out)
    assert reconnects >= 2 and number(r"resumed exactly: (\d+)", out) == reconnects
    assert "server RSS growth over the last" in out and "server-a" in out
    for server in ("server-a", "server-b"):
        assert re.search(rf"{server} collector: full collections \d+; freed by generation "
                         r"0/1/2: \d+/\d+/\d+", out), out  # fmt: skip
    assert re.search(r"AI's first move within 5 s in 2/2 \(median [\d.]+ s", out), out
    assert "AI requests pending after the grace: 0" in out
    assert re.search(r"-- server-b: tracemalloc \d+ .*since the baseline", out), out
    assert "no fault" in out
