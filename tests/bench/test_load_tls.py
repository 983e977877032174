"""``bench.load --tls`` runs end to end, at a tiny size: the game and the floor on a Redis
reached over TLS only are measured and printed beside plain TCP. Only the plumbing: the
figures of a tiny run mean nothing."""

from __future__ import annotations

from tests.bench.tiny_load import assert_measured, tiny_load_run


def test_a_tiny_run_over_tls_prints_its_figures_beside_plain_tcp() -> None:
    out = tiny_load_run("--tls")
    assert_measured(out, ("tls game", "tls floor"))
    table = out[out.index("TLS to Redis ") :]
    assert "game: server CPU per move, saturated" in table
    assert "floor: moves/s, saturated" in table and "TLS / TCP" in table
