"""The codec's cost on the golden fixtures, as a ratio to msgpack alone in the same run.

Run: ``PYTHONPATH=. .venv/bin/python -m bench.codec [--rounds N]``

Each round decodes every fixture of ``protocol/fixtures`` (each in its direction) with
``codec.decode`` and encodes the messages back with ``codec.encode``, and, alternated with it,
does the same with bare ``msgpack.unpackb`` / ``msgpack.packb`` of the same frames and maps
(the floor: the bytes parsed, nothing checked). It prints the median over the rounds of each,
per pass over the fixtures and per frame, and the ratios: what validation costs beyond
parsing, measured on the same machine at the same moment (the machine's speed cancels out).
The client frames are given apart: they are what the server decodes on every request.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import msgpack

from protocol import codec
from protocol.fixtures import FIXTURES_DIR, load_manifest
from protocol.messages import CLIENT_MESSAGES, Direction, Message, to_wire

PASSES = 20


def _frames() -> list[tuple[bytes, Direction]]:
    manifest = load_manifest()
    return [
        (
            (FIXTURES_DIR / name).read_bytes(),
            "client" if value["t"] in CLIENT_MESSAGES else "server",
        )
        for name, value in manifest.items()
    ]


def _timed(work: Callable[[], object]) -> float:
    """Seconds per pass of ``work`` (``PASSES`` passes)."""
    start = time.perf_counter()
    for _ in range(PASSES):
        work()
    return (time.perf_counter() - start) / PASSES


def measure(rounds: int) -> dict[str, tuple[float, float, int]]:
    """What → (median seconds per pass for the codec, for msgpack alone, frames per pass)."""
    frames = _frames()
    client = [frame for frame in frames if frame[1] == "client"]
    messages: list[Message] = [codec.decode(data, direction=d) for data, d in frames]
    maps = [to_wire(message) for message in messages]

    def decode(batch: list[tuple[bytes, Direction]]) -> Callable[[], object]:
        return lambda: [codec.decode(data, direction=d) for data, d in batch]

    def parse(batch: list[tuple[bytes, Direction]]) -> Callable[[], object]:
        return lambda: [msgpack.unpackb(data) for data, _ in batch]

    cases = {
        "decode, every fixture": (decode(frames), parse(frames), len(frames)),
        "decode, client frames": (decode(client), parse(client), len(client)),
        "encode, every fixture": (
            lambda: [codec.encode(message) for message in messages],
            lambda: [msgpack.packb(wire) for wire in maps],
            len(frames),
        ),
    }
    out = {}
    for what, (ours, floor, count) in cases.items():
        mine, base = [], []
        for _ in range(rounds):  # alternated: a slow moment of the machine hits both
            mine.append(_timed(ours))
            base.append(_timed(floor))
        out[what] = (statistics.median(mine), statistics.median(base), count)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.codec", description=__doc__)
    parser.add_argument("--rounds", type=int, default=25, help="alternated rounds (median)")
    args = parser.parse_args(argv)
    print(f"{'':24} {'codec µs/frame':>15} {'msgpack µs/frame':>17} {'ratio':>7}")
    for what, (mine, base, count) in measure(args.rounds).items():
        per, floor = mine / count * 1e6, base / count * 1e6
        print(f"{what:24} {per:15.2f} {floor:17.2f} {mine / base:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
