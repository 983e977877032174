"""Where the game server spends its time: py-spy's samples or cProfile's statistics."""

from __future__ import annotations

import collections
import io
import pstats
import shutil
import subprocess
from pathlib import Path

from bench.load.processes import PYTHON, die_with_parent


def start_py_spy(pid: int, path: Path, seconds: float) -> subprocess.Popen[bytes] | None:
    # Blocking sampling (py-spy pauses the server for each sample, 100 times a second): the
    # non-blocking mode reads the stacks while they change and cut many of them short.
    binary = Path(PYTHON).parent / "py-spy"
    found = str(binary) if binary.exists() else shutil.which("py-spy")
    if found is None:
        print("  ! py-spy is not installed (pip install py-spy into the venv); no profile")
        return None
    args = [found, "record", "--pid", str(pid), "--duration", str(max(1, int(seconds))),
            "--rate", "100", "--format", "raw", "--output", str(path)]  # fmt: skip
    return subprocess.Popen(
        args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,  # noqa: PLW1509 (no threads here)
    )


def summarize_py_spy(path: Path, top: int = 20) -> list[str]:
    """Where the sampled time went, from py-spy's collapsed stacks (active samples only)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return ["(no py-spy output)"]
    own: collections.Counter[str] = collections.Counter()
    by_file: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in lines:
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_frame(text) for text in stack.split(";")]
        total += count
        name, where = frames[-1]
        own[f"{name} ({where})"] += count
        by_file[where] += count
        for name, where in {f for f in frames if f[1].startswith(("server/", "protocol/"))}:
            inclusive[f"{name} ({where})"] += count
    if not total:
        return ["(no samples)"]

    def listing(counter: collections.Counter[str], n: int) -> list[str]:
        return [f"  {count / total:6.1%}  {name}" for name, count in counter.most_common(n)]

    return [
        f"py-spy, {total:,} samples of the server while busy",
        "self time by file:",
        *listing(by_file, 12),
        "self time by function:",
        *listing(own, top),
        "inclusive time of the project's functions (with what they call):",
        *listing(inclusive, top),
    ]


def _frame(text: str) -> tuple[str, str]:
    """``func (path/file.py:12)`` -> (``func``, ``path/file.py``)."""
    name, _, where = text.partition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def summarize_cprofile(path: Path, top: int = 30) -> list[str]:
    if not path.exists():
        return ["(no cProfile output)"]
    stream = io.StringIO()
    stats = pstats.Stats(str(path), stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return stream.getvalue().splitlines()
