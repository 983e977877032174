"""Free ports of 127.0.0.1 for the servers a test or a benchmark starts.

A port is drawn at random below the kernel's range of ephemeral ports
(``net.ipv4.ip_local_port_range``), and kept only if it can be bound. A port the kernel hands
out for a bind to port 0 is an ephemeral one: between that choice and the server's own bind,
any outgoing connection of the machine (the tests' websockets and the servers' Redis
connections are thousands) can take it as its local port, and the server fails to start with
"address already in use" (seen in CI on 53051). Below the ephemeral range only another
listener can take it.

Each pytest-xdist worker (and what it runs) draws from a share of that range of its own: two
workers that drew the same port in the same instant both found it free, and the second
server's bind failed while the first one answered its readiness check (seen in CI on 22428:
a test then talked to another test's server).
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from pathlib import Path

__all__ = ["free_port"]

#: The lowest port drawn: above the well-known and registered services' usual ports.
LOWEST = 10_000
_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_DRAWS = 2_000
#: The workers' shares repeat every this many ports (a multiple of a cluster bus's offset).
_STRIDE = 10_000


def free_port(*, also: tuple[int, ...] = ()) -> int:
    """A port ``p`` of 127.0.0.1 that can be bound now, with ``p + offset`` free too for each
    offset of ``also`` (a cluster node's bus port, ``+ 10000``; a second replica, ``+ 1``)."""
    highest = _first_ephemeral() - max(also, default=0)
    if highest - LOWEST < 1_000:  # a machine whose ephemeral range starts low: the kernel's
        return _kernel_port(also)
    mine = _share()
    for _ in range(_DRAWS):
        port = LOWEST + secrets.randbelow(highest - LOWEST)
        ports = [port + offset for offset in (0, *also)]
        if all(mine(each) for each in ports) and all(_bindable(each) for each in ports):
            return port
    raise RuntimeError(f"no free port between {LOWEST} and {highest} on 127.0.0.1")


def _share() -> Callable[[int], bool]:
    """Whether a port is this pytest-xdist worker's to draw (every port outside xdist).

    The workers share the ports by their place in each run of ``_STRIDE`` ports, so that a port
    and the ports beside it (``+ 1``) or a stride away (a cluster bus, ``+ 10000``) belong to the
    same worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit()):
        return lambda port: True
    parts = max(1, int(count))
    index = min(int(worker[2:]), parts - 1)
    return lambda port: (port - LOWEST) % _STRIDE * parts // _STRIDE == index


def _first_ephemeral() -> int:
    try:
        return int(_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


def _bindable(port: int) -> bool:
    if port > 65_535:
        return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _kernel_port(also: tuple[int, ...]) -> int:
    for _ in range(_DRAWS):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port != 6379 and all(_bindable(port + offset) for offset in also):
            return port
    raise RuntimeError("no free port on 127.0.0.1")
