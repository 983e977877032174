"""``python -m bench.presence`` at a tiny size (its figures mean nothing here): two server
processes and Chromium, each kind of presence change and a challenge seen on the page, and
the cost of a reading counted in Redis commands."""

from __future__ import annotations

import re

from tests.bench.tiny_load import bench_run

ROWS = ("connects", "sits at a table", "leaves the table", "closes the page", "all changes")


def test_each_change_and_a_challenge_are_seen_on_the_page_and_a_reading_is_counted() -> None:
    out = bench_run(
        "bench.presence", "--trials", "2", "--challenges", "2", "--listed", "2", timeout=300
    )
    assert "presence on the friend's page (8 changes;" in out, out
    for row in ROWS:
        line = next((line for line in out.splitlines() if line.strip().startswith(row)), "")
        assert re.search(r"p50 \d+\.\d\d s {2}p95 \d+\.\d\d s {2}max \d+\.\d\d s$", line), out
    assert "a challenge on the page of the one challenged (2 challenges)" in out, out
    friends = next(line for line in out.splitlines() if "friends list, 2 friends" in line)
    commands = float(friends.split()[4])
    assert commands >= 2 * 3, friends  # at least three reads a listed player
