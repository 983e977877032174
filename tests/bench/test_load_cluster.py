"""``bench.load --redis-cluster`` runs end to end, at a tiny size: the cluster's passes (with
and without WAIT) are measured and printed beside the single node's, with the targets. Only
the plumbing: the figures of a tiny run mean nothing."""

from __future__ import annotations

from tests.bench.tiny_load import assert_measured, tiny_load_run


def test_a_tiny_run_with_the_cluster_prints_its_figures_beside_the_single_node() -> None:
    out = tiny_load_run("--redis-cluster")
    assert_measured(
        out, ("cluster game", "cluster floor", "cluster+WAIT game", "cluster+WAIT floor")
    )
    table = out[out.index("Redis Cluster ") :]
    assert "game: server CPU per move, saturated" in table
    assert "cluster <= 1.3x one Redis" in table and "cluster <= one Redis + 0.5 ms" in table
    assert "game: WAIT 1's cost" in table and "floor: replicas' CPU per move" in table
