"""The test servers' ports are never ones an outgoing connection can take meanwhile."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support.ports import LOWEST, free_port
from tests.support.redis_server import RedisServer
from tests.support.tls import make_certificates, redis_tls_args


def _ephemeral_range() -> tuple[int, int]:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as source:
        low, high = (int(part) for part in source.read().split())
    return low, high


def test_a_free_port_is_below_the_ephemeral_range_and_can_be_bound() -> None:
    low, _ = _ephemeral_range()
    for _ in range(50):
        port = free_port()
        assert 1024 < port < low, port
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_the_ports_asked_for_beside_it_are_free_and_below_the_range_too() -> None:
    low, _ = _ephemeral_range()
    port = free_port(also=(1, 10_000))
    assert port + 10_000 < low
    for offset in (0, 1, 10_000):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port + offset))


def test_a_port_in_use_is_not_chosen() -> None:
    listeners = []
    try:
        taken = set()
        for _ in range(20):
            sock = socket.socket()
            sock.bind(("127.0.0.1", free_port()))
            sock.listen()
            listeners.append(sock)
            taken.add(sock.getsockname()[1])
        assert all(free_port() not in taken for _ in range(200))
    finally:
        for sock in listeners:
            sock.close()


def test_a_redis_whose_tls_port_was_taken_starts_on_the_next_ports_chosen_together(
    tmp_path: Path,
) -> None:
    """A TLS port chosen ahead of the start could be taken by then, and every retry on another
    plain port failed the same way (seen in CI: 'no free port for redis-server after 5
    attempts'). Chosen with the plain port, each attempt moves both."""
    files = make_certificates(tmp_path)
    first, second = free_port(also=(1,)), free_port(also=(1,))
    picks = iter((first, second))
    server = RedisServer(
        pick_port=lambda: next(picks),
        port_args=lambda port: redis_tls_args(files, port + 1),
    )
    with socket.socket() as taken:  # the first attempt's TLS port: someone else's now
        taken.bind(("127.0.0.1", first + 1))
        taken.listen()
        try:
            server.start()
            assert server.port == second
            with socket.create_connection(("127.0.0.1", second + 1), timeout=5):
                pass  # its TLS port moved with it
        finally:
            server.close()


def test_two_xdist_workers_never_draw_the_same_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers that drew one port in the same instant both found it free; the second
    server could not bind it while the first answered the second's readiness check (seen in
    CI on 22428). Each worker draws from a share of its own, the ports beside a port and a
    cluster bus's included."""
    drawn: dict[str, set[int]] = {}
    for worker in ("gw0", "gw1", "gw2"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
        ports = {free_port() for _ in range(300)}
        for _ in range(50):
            port = free_port(also=(1, 10_000))
            ports |= {port, port + 1, port + 10_000}
        drawn[worker] = ports
    assert not drawn["gw0"] & drawn["gw1"]
    assert not drawn["gw0"] & drawn["gw2"]
    assert not drawn["gw1"] & drawn["gw2"]
    # each worker's share lies all over the range (every run of 10,000 ports has a part)
    for ports in drawn.values():
        assert max(ports) - min(ports) > 10_000
        assert min(ports) >= LOWEST
