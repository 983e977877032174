"""Where a connection comes from: the client's address (the socket's peer, or what a trusted
proxy forwarded in ``X-Forwarded-For``), and how many connections each address holds."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(items: Iterable[str]) -> tuple[Network, ...]:
    """IP addresses or CIDR blocks (``10.0.0.0/8``); ``ValueError`` names a bad one."""
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {item!r}") from None
    return tuple(networks)


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` is believed. Each proxy appends the address it
    got the request from, so the header is read from the right: the right-most address that
    is not itself a trusted proxy is the client (anything left of it, the client wrote)."""

    __slots__ = ("_networks",)

    def __init__(self, networks: Iterable[Network]) -> None:
        self._networks = tuple(networks)

    def __contains__(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._networks)

    def client_address(self, peer: str, forwarded_for: str | None) -> str:
        """The client's address: ``peer`` (the socket's), unless ``peer`` is a trusted proxy
        that forwarded one."""
        if forwarded_for is None or peer not in self:
            return peer
        hops = [hop.strip() for hop in forwarded_for.split(",")]
        for hop in reversed(hops):
            if hop not in self:
                return _valid_ip(hop) or peer
        return _valid_ip(hops[0]) or peer


def _valid_ip(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


class AddressCounter:
    """Open connections per client address in this process, at most ``limit`` each (0: no
    limit)."""

    __slots__ = ("_counts", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counts: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        """Count one more connection of ``address``; False (nothing counted) at the limit."""
        held = self._counts.get(address, 0)
        if self.limit and held >= self.limit:
            return False
        self._counts[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self._counts.get(address, 0) - 1
        if held > 0:
            self._counts[address] = held
        else:
            self._counts.pop(address, None)

    def held(self, address: str) -> int:
        return self._counts.get(address, 0)
