"""What a run found, and the tables it prints."""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, field
from functools import partial

from bench.load.stats import Stats
from bench.load.targets import (
    TARGET_CLUSTER_CPU_RATIO,
    TARGET_CLUSTER_P50_ADDED_MS,
    TARGET_CPU_RATIO,
    TARGET_IDLE_BYTES,
    TARGET_IDLE_CONNECTIONS,
    TARGET_P99_RATE,
    TARGET_P99_RATIO,
    TARGET_P99_ROOMS,
)


@dataclass
class Memory:
    label: str
    connections: int
    before: int
    after: int
    extra: str = ""

    @property
    def per_connection(self) -> float:
        return (self.after - self.before) / self.connections if self.connections else math.nan


@dataclass
class Report:
    args: argparse.Namespace
    client_note: str = ""
    phases: list[Stats] = field(default_factory=list)
    memory: list[Memory] = field(default_factory=list)
    idle: Memory | None = None
    idle_seconds: float = 0.0
    matches: int = 0
    stalled: int = 0
    unanswered: int = 0
    rate: float = 0.0
    notes: list[str] = field(default_factory=list)
    profile: list[str] = field(default_factory=list)
    engine_us: float = 0.0


def _mib(n: float) -> str:
    return f"{n / (1 << 20):,.1f} MiB"


def _kib(n: float) -> str:
    return "-" if math.isnan(n) else f"{n / 1024:,.1f} KiB"


def _ms(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def format_table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        parts = [
            str(cell).rjust(width) if i in right else str(cell).ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [line(headers), rule, *(line(row) for row in rows)]


def _phase_row(phase: Stats) -> list[str]:
    errors = ", ".join(f"{k} {v}" for k, v in sorted(phase.errors.items())) or "0"
    top = max(phase.latencies) * 1000 if phase.latencies else math.nan
    cpu = phase.cpu
    return [
        phase.name,
        f"{phase.rate:,.0f}",
        _ms(phase.percentile(50)),
        _ms(phase.percentile(90)),
        _ms(phase.percentile(99)),
        _ms(top),
        f"{len(phase.latencies):,}",
        f"{cpu.get('server', 0):.0f}%",
        f"{_cpu_per_op(phase):,.0f} us" if phase.rate else "-",
        f"{cpu['redis']:.0f}%" if "redis" in cpu else "-",
        f"{cpu['replicas']:.0f}%" if "replicas" in cpu else "-",
        f"{cpu.get('client', 0):.0f}%",
        f"{cpu.get('others', 0):.0f}%",
        errors,
    ]


def _ratio_rows(phases: dict[str, Stats]) -> list[list[str]]:
    rows = []
    for first, second in (("game", "echo"), ("floor", "echo"), ("game", "floor")):
        for mode in ("paced", "saturated"):
            a, b = phases.get(f"{first} {mode}"), phases.get(f"{second} {mode}")
            if a is None or b is None:
                continue
            for q in (50, 99):
                x, y = a.percentile(q), b.percentile(q)
                target = ""
                if (first, second, mode, q) == ("game", "floor", "paced", 99):
                    target = (f"<= {TARGET_P99_RATIO:g}x at {TARGET_P99_ROOMS:,} rooms,"
                              f" {TARGET_P99_RATE:,}/s")  # fmt: skip
                rows.append(
                    [f"{mode} latency p{q}: {first} / {second}", f"{x / y:.1f}x" if y else "-",
                     f"{_ms(x)} / {_ms(y)} ms", target]
                )  # fmt: skip
        a, b = phases.get(f"{first} saturated"), phases.get(f"{second} saturated")
        if a is not None and b is not None:
            rows.append(
                [f"saturated throughput: {first} / {second}",
                 f"{a.rate / b.rate:.3f}x" if b.rate else "-",
                 f"{a.rate:,.0f} / {b.rate:,.0f} per s", ""]
            )  # fmt: skip
    for mode in ("saturated", "paced"):
        game, floor = phases.get(f"game {mode}"), phases.get(f"floor {mode}")
        if game is not None and floor is not None and game.rate and floor.rate:
            g, f = _cpu_per_op(game), _cpu_per_op(floor)
            if mode == "saturated":
                rows.append(
                    [f"{mode} CPU/op: game / floor", _times(g, f),
                     f"{g:,.0f} / {f:,.0f} us", f"<= {TARGET_CPU_RATIO:g}x"]
                )  # fmt: skip
            rows.append(
                [f"{mode} CPU/op: game - floor (the game code)", f"{g - f:,.0f} us",
                 f"{g:,.0f} - {f:,.0f} us", ""]
            )  # fmt: skip
    return rows


def _times(a: float, b: float) -> str:
    """``a / b`` as a ratio, or "-" where there is none (a run too short for its CPU clock's
    10 ms ticks can measure 0 s for a phase)."""
    return f"{a / b:.2f}x" if b and not math.isnan(b) and not math.isnan(a) else "-"


def _cpu_per_op(phase: Stats, process: str = "server") -> float:
    """A process's CPU time per done operation, in microseconds (nan without it)."""
    if not phase.rate or process not in phase.cpu:
        return math.nan
    return phase.cpu[process] * 10_000 / phase.rate


def _cluster_rows(phases: dict[str, Stats], rate: float) -> list[list[str]]:
    """One Redis, the cluster and the cluster with WAIT 1, side by side, with the targets."""
    if "cluster game saturated" not in phases:
        return []
    rows: list[list[str]] = []
    passes = ("", "cluster ", "cluster+WAIT ")
    for kind in ("game", "floor"):
        saturated = [phases.get(f"{p}{kind} saturated") for p in passes]
        paced = [phases.get(f"{p}{kind} paced") for p in passes]
        row = partial(_row, kind)

        cpu = [_cpu_per_op(p) if p else math.nan for p in saturated]
        target = ""
        if kind == "game":
            ratio = cpu[1] / cpu[0] if cpu[0] else math.nan
            target = (f"cluster <= {TARGET_CLUSTER_CPU_RATIO:g}x one Redis: {ratio:.2f}x"
                      f" ({_verdict(ratio <= TARGET_CLUSTER_CPU_RATIO)})")  # fmt: skip
        rows.append(row("server CPU per move, saturated", cpu, "us", target))
        rows.append(
            row("Redis CPU per move (masters), saturated",
                [_cpu_per_op(p, "redis") if p else math.nan for p in saturated], "us")
        )  # fmt: skip
        rows.append(
            row("replicas' CPU per move, saturated",
                [_cpu_per_op(p, "replicas") if p else math.nan for p in saturated], "us")
        )  # fmt: skip
        rows.append(
            row("moves/s, saturated", [p.rate if p else math.nan for p in saturated], ",.0f")
        )
        p50 = [p.percentile(50) if p else math.nan for p in paced]
        target = ""
        if kind == "game":
            added = p50[1] - p50[0]
            target = (f"cluster <= one Redis + {TARGET_CLUSTER_P50_ADDED_MS:g} ms: {added:+.2f} ms"
                      f" ({_verdict(added <= TARGET_CLUSTER_P50_ADDED_MS)})")  # fmt: skip
        at = f" at ~{rate:,.0f}/s"
        rows.append(row(f"paced p50 ms{at}", p50, ".2f", target))
        p99 = [p.percentile(99) if p else math.nan for p in paced]
        rows.append(row(f"paced p99 ms{at}", p99, ".2f"))
        others = [p.cpu.get("others", math.nan) if p else math.nan for p in paced]
        spread = max(others) - min(others)
        rows.append(
            row("other CPU % (the rest of the machine), paced", others, ".0f",
                f"! {spread:.0f} points apart: the latencies do not compare" if spread > 25 else "")
        )  # fmt: skip
        if not math.isnan(p50[2]):
            rows.append(
                [f"{kind}: WAIT 1's cost", "", "", f"{p50[2] - p50[1]:+.2f} ms p50",
                 f"p99 {p99[2] - p99[1]:+.2f} ms; server CPU/move {cpu[2] - cpu[1]:+,.0f} us;"
                 f" moves/s saturated x{_ratio(saturated[2], saturated[1])}"]
            )  # fmt: skip
    return rows


def _tls_rows(phases: dict[str, Stats], rate: float) -> list[list[str]]:
    """Plain TCP and TLS to Redis side by side (``--tls``), with their ratio."""
    if "tls game saturated" not in phases:
        return []
    rows: list[list[str]] = []
    for kind in ("game", "floor"):
        saturated = [phases.get(f"{p}{kind} saturated") for p in ("", "tls ")]
        paced = [phases.get(f"{p}{kind} paced") for p in ("", "tls ")]
        figures: list[tuple[str, list[float], str]] = [
            ("server CPU per move, saturated",
             [_cpu_per_op(p) if p else math.nan for p in saturated], "us"),
            ("Redis CPU per move, saturated",
             [_cpu_per_op(p, "redis") if p else math.nan for p in saturated], "us"),
            ("moves/s, saturated", [p.rate if p else math.nan for p in saturated], ",.0f"),
            (f"paced p50 ms at ~{rate:,.0f}/s",
             [p.percentile(50) if p else math.nan for p in paced], ".2f"),
            (f"paced p99 ms at ~{rate:,.0f}/s",
             [p.percentile(99) if p else math.nan for p in paced], ".2f"),
        ]  # fmt: skip
        for what, cells, unit in figures:
            ratio = cells[1] / cells[0] if cells[0] else math.nan
            rows.append(_row(kind, what, cells, unit, f"TLS / TCP {ratio:.2f}x"))
    return rows


def _row(kind: str, what: str, cells: list[float], unit: str, target: str = "") -> list[str]:
    """A row of the cluster table: ``unit`` "us" or a format spec of the figures."""
    shown = [
        "-" if math.isnan(x) else (f"{x:,.0f} us" if unit == "us" else f"{x:{unit}}") for x in cells
    ]
    return [f"{kind}: {what}", *shown, target]


def _ratio(a: Stats | None, b: Stats | None) -> str:
    return f"{a.rate / b.rate:.2f}" if a and b and b.rate else "-"


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _memory_rows(report: Report) -> list[list[str]]:
    rows = [
        [m.label, f"{m.connections:,}", _mib(m.before), _mib(m.after), _kib(m.per_connection),
         m.extra]
        for m in report.memory
    ]  # fmt: skip
    idle = report.idle
    if idle is not None:
        speed = idle.connections / max(report.idle_seconds, 1e-9)
        rows.append(
            [idle.label, f"{idle.connections:,}", _mib(idle.before), _mib(idle.after),
             _kib(idle.per_connection),
             f"opened in {report.idle_seconds:.1f} s ({speed:,.0f}/s); {idle.extra}"]
        )  # fmt: skip
        total = report.args.idle
        what, rss = "measured", float(idle.after)
        if total != TARGET_IDLE_CONNECTIONS:
            what, rss = "projected", idle.before + idle.per_connection * TARGET_IDLE_CONNECTIONS
        verdict = "met" if rss < TARGET_IDLE_BYTES else "NOT met"
        rows.append(
            [f"{TARGET_IDLE_CONNECTIONS:,} idle: server RSS ({what})", "", "", _mib(rss), "",
             f"target < {_mib(TARGET_IDLE_BYTES)}: {verdict}"]
        )  # fmt: skip
    return rows


def render(report: Report) -> str:
    args = report.args
    phases = {phase.key: phase for phase in report.phases}
    out = [
        "",
        f"Gin Rummy server load bench: {args.rooms} rooms ({2 * args.rooms} connections), "
        f"{args.seconds:g} s per phase after {args.warmup:g} s of warm-up",
        f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; "
        f"clients: {report.client_note}; one game server process",
        f"machine speed now: the pure game code of a move (bench.engine_moves: act, stored blob,"
        f" both update frames) takes {report.engine_us:.1f} us, best of 3 in this run",
        "",
    ]
    headers = ["phase", "done/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "samples",
               "server CPU", "CPU/op", "redis CPU", "replica CPU", "client CPU", "other CPU",
               "errors"]  # fmt: skip
    out += format_table(headers, [_phase_row(p) for p in report.phases], set(range(1, 13)))
    out.append(
        "  game: done/s = applied actions (acks); latency = act sent -> the update with the new"
        " seq held by BOTH seats"
    )
    out.append("  echo: done/s = echoed frames; latency = round trip of one act-sized frame")
    out.append(
        "  floor: the game server's I/O of a move with no game (bench/floor_server.py): done/s ="
        " moves; latency as the game's"
    )
    out.append(
        "  CPU/op = server CPU time per applied action (per echo): 1 s / CPU/op is what one"
        " server process could do with a whole core to itself"
    )
    if args.redis_cluster:
        out.append(
            "  cluster: the same game and floor on a Redis Cluster (3 masters, 3 replicas) at the"
            " same paced rate; redis CPU = the three masters together, replica CPU = the three"
            " replicas; cluster+WAIT: each commit waits for one replica (GIN_REDIS_WAIT_REPLICAS=1)"
        )
    if "game paced" in phases:
        source = "--rate" if args.rate else f"{args.load_factor:.0%} of the saturated rate"
        out.append(
            f"  paced: each seat waits an exponential think time (mean"
            f" {args.rooms / report.rate * 1000:,.0f} ms) before acting, so that the bench"
            f" offers ~{report.rate:,.0f} actions/s ({source})"
        )
    out.append(
        f"  matches finished (a new room each): {report.matches}; tables with no update during the"
        f" saturated window: {report.stalled}; acts unanswered after 5 s at the end:"
        f" {report.unanswered}"
    )
    busy_client = [p.name for p in report.phases if p.cpu.get("client", 0) > 85]
    if busy_client:
        out.append(
            "  ! the client process was near one full core in: "
            + "; ".join(busy_client)
            + " (those figures may be limited by the load generator)"
        )
    crowded = [p.name for p in report.phases if p.cpu.get("others", 0) > 25]
    if crowded:
        out.append("  ! other work on the machine competed for the CPUs in: " + "; ".join(crowded))
    out.append("")
    ratio_rows = _ratio_rows(phases)
    if ratio_rows:
        out += format_table(["ratio", "value", "figures", "target"], ratio_rows, {1})
        out.append("")
    tls_rows = _tls_rows(phases, report.rate)
    if tls_rows:
        out += format_table(["TLS to Redis", "plain TCP", "TLS", "ratio"], tls_rows, {1, 2})
        out.append(
            "  TLS: the same game and floor with REDIS_URL=rediss://... (the same hiredis"
            " connections over asyncio's TLS transport) at the same paced rate"
        )
        out.append("")
    cluster_rows = _cluster_rows(phases, report.rate)
    if cluster_rows:
        headers = ["Redis Cluster", "one Redis", "cluster", "cluster+WAIT", "target"]
        out += format_table(headers, cluster_rows, {1, 2, 3})
        out.append(
            "  per move = CPU time over the saturated window / applied moves; WAIT: each commit"
            " followed by WAIT 1 on its connection, acknowledged once a replica holds it"
        )
        out.append("")
    memory_rows = _memory_rows(report)
    if memory_rows:
        headers = ["server memory", "connections", "RSS before", "RSS after", "per conn", "notes"]
        out += format_table(headers, memory_rows, {1, 2, 3, 4})
        out.append(
            "  RSS before = after opening the first few connections (one-off costs excluded);"
            " per conn = (after - before) / connections"
        )
    for note in report.notes:
        out.append(f"  note: {note}")
    if report.profile:
        out.append("")
        when = "whole run, under cProfile" if args.cprofile else "saturated phase"
        out.append(f"where the game server spends its time ({when}):")
        out += ["  " + line for line in report.profile]
    return "\n".join(out)
