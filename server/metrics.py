"""Prometheus metrics of one server process (served at ``/metrics``)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, GCCollector, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

REGISTRY = CollectorRegistry(auto_describe=True)
#: python_gc_collections_total and python_gc_objects_collected_total, by generation: the
#: full collections (generation 2) and the cycles they freed (server/collector.py).
GCCollector(registry=REGISTRY)

CONNECTIONS = Gauge(
    "gin_connections", "Open websocket connections on this process", registry=REGISTRY
)
ROOMS = Gauge("gin_rooms_active", "Rooms in play (all processes, from Redis)", registry=REGISTRY)
ACTIONS = Counter("gin_actions_total", "Game actions applied, by kind", ["kind"], registry=REGISTRY)
ERRORS = Counter(
    "gin_errors_total", "Error replies sent, by error code", ["code"], registry=REGISTRY
)
QUICK_MESSAGES = Counter(
    "gin_quick_messages_total", "Quick messages (say) sent to the other seat", registry=REGISTRY
)


class FrameCounts:
    """Frames received and sent, counted with plain additions (a ``Counter`` takes a lock on
    every ``inc``: a visible cost at several frames per move) and read at each scrape."""

    def __init__(self) -> None:
        self.received = 0
        self.sent = 0

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily("gin_frames_in", "Websocket frames received", value=self.received)
        yield CounterMetricFamily("gin_frames_out", "Websocket frames sent", value=self.sent)


FRAMES = FrameCounts()
REGISTRY.register(FRAMES)


class AiSeatFigures:
    """The AI seats of every process, read from Redis at each scrape (``read``): the seats the
    workers play, by level; the seats waiting for a worker; how long the oldest has waited."""

    def __init__(self) -> None:
        self.in_use: dict[str, int] = {}
        self.waiting = 0
        self.oldest_wait = 0.0

    def read(self, in_use: dict[str, int], waiting: int, oldest_wait: float) -> None:
        self.in_use, self.waiting, self.oldest_wait = dict(in_use), waiting, oldest_wait

    def collect(self) -> Iterator[GaugeMetricFamily]:
        in_use = GaugeMetricFamily(
            "gin_ai_seats_in_use",
            "AI seats played by the workers now, by level (all processes, from Redis)",
            labels=["level"],
        )
        for level, count in sorted(self.in_use.items()):
            in_use.add_metric([level], count)
        yield in_use
        yield GaugeMetricFamily(
            "gin_ai_seats_waiting",
            "Seats waiting for an AI worker to take them (all processes, from Redis)",
            value=self.waiting,
        )
        yield GaugeMetricFamily(
            "gin_ai_oldest_wait_seconds",
            "How long the oldest seat waiting for an AI worker has waited (0: none waits)",
            value=self.oldest_wait,
        )


AI_SEATS = AiSeatFigures()
REGISTRY.register(AI_SEATS)
ACTION_LATENCY = Histogram(
    "gin_action_latency_seconds",
    "From receiving an act frame to its commit in Redis and the ack being sent",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)

_ACTIONS_BY_KIND: dict[str, Counter] = {}
_ERRORS_BY_CODE: dict[str, Counter] = {}


def count_action(kind: str) -> None:
    """``ACTIONS.labels(kind=kind).inc()``, with the labelled child looked up once."""
    child = _ACTIONS_BY_KIND.get(kind)
    if child is None:
        child = _ACTIONS_BY_KIND[kind] = ACTIONS.labels(kind=kind)
    child.inc()


def count_error(code: str) -> None:
    """``ERRORS.labels(code=code).inc()``, with the labelled child looked up once."""
    child = _ERRORS_BY_CODE.get(code)
    if child is None:
        child = _ERRORS_BY_CODE[code] = ERRORS.labels(code=code)
    child.inc()
