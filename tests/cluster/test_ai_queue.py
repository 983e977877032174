"""The AI seat queue on a Redis Cluster (issue 27 item 2): the scenes of
``tests/e2e/test_ai_queue.py`` with two server processes in cluster mode. The queue and its
offers share the ``{ai}`` slot (one script takes and marks seats); the seats in use, the
leases, the stream and the rooms live in slots of their own."""

from __future__ import annotations

from pathlib import Path

from client.session import Session
from tests.cluster.conftest import CLUSTER_ENV
from tests.e2e.test_ai_queue import metrics_of_every_process, places_and_the_oldest_first
from tests.support.fixtures import ServerFactory

ENV = {**CLUSTER_ENV, "GIN_AI_LEASE_SECONDS": "1"}


async def test_places_and_the_oldest_first_on_a_cluster(
    server_factory: ServerFactory, sessions: list[Session]
) -> None:
    await places_and_the_oldest_first(server_factory, sessions, ENV)


async def test_metrics_of_every_process_on_a_cluster(
    server_factory: ServerFactory, sessions: list[Session], tmp_path: Path
) -> None:
    await metrics_of_every_process(server_factory, sessions, tmp_path, ENV)
