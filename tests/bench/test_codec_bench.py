"""``python -m bench.codec`` measures the codec on every golden fixture against msgpack alone."""

from __future__ import annotations

from bench import codec as bench_codec


def test_the_codec_bench_measures_every_case() -> None:
    figures = bench_codec.measure(rounds=1)
    assert set(figures) == {
        "decode, every fixture",
        "decode, client frames",
        "encode, every fixture",
    }
    for mine, base, count in figures.values():
        assert mine > 0 and base > 0 and count > 10
