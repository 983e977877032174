"""The direct connection on a Redis Cluster: one pipelined connection per master.

``ClusterConnection.run(commands)`` sends commands of one hash slot to the master that serves
it, on that master's ``DirectConnection`` (so a move still costs one command on a hiredis
connection, with no redis-py code in between). The slot table comes from ``CLUSTER SLOTS``,
asked of any node it knows (the startup nodes of the URL, then every node seen since). It
follows the cluster by itself:

- ``MOVED`` (the slot has another master: a failover, a resharding) updates the slot and
  sends the commands again to its new master (moved once more: the whole table is read again);
- ``ASK`` (a slot in migration) sends them once to the node named, after ``ASKING``
  (``TRYAGAIN`` there, while a script's keys are split between the two nodes: later);
- a lost connection, ``CLUSTERDOWN`` or ``TRYAGAIN`` (a master died and its replica is not
  promoted yet), ``LOADING`` (a restarted master reading its data) reads the table again and
  retries, with backoff, for up to ``StoreConfig.failover_seconds``: requests wait through a
  failover instead of failing.

Commands are retried whole (``DirectConnection.run``), so a script that was sent but whose
reply was lost runs again: the room scripts are compare-and-set with request ids, a retry
is answered ``stale`` or ``duplicate``, never applied twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import Any

from redis.asyncio.connection import parse_url
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server import keys
from server.store.config import StoreConfig
from server.store.direct import DirectConnection
from server.store.resp import Endpoint, redact, tls_context
from server.store.slots import Arg, Command, CrossSlotError, slot_of

__all__ = ["Address", "ClusterConnection", "node_url", "startup_nodes"]

log = logging.getLogger(__name__)

Address = tuple[str, int]

_RETRY_LATER = ("CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "LOADING")


def startup_nodes(url: str) -> list[Address]:
    """The nodes a cluster URL names: ``redis://HOST:PORT[,HOST:PORT...]/0`` (``rediss://``
    for TLS)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("redis", "rediss"):
        raise ValueError(
            f"a cluster URL is redis://HOST:PORT[,HOST:PORT...]/0 or rediss://..., "
            f"got {redact(url)!r}"
        )
    authority = rest.partition("/")[0]
    hosts = authority.rpartition("@")[2]
    nodes: list[Address] = []
    for host_port in hosts.split(","):
        options = parse_url(f"redis://{host_port}")
        nodes.append((str(options.get("host", "127.0.0.1")), int(options.get("port", 6379))))
    return nodes


def node_url(url: str, address: Address) -> str:
    """``url`` (with its credentials and database) pointed at one node."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    credentials, at, _hosts = authority.rpartition("@")
    host, port = address
    return f"{scheme}://{credentials}{at}{host}:{port}{slash}{path}"


class ClusterConnection:
    """Pipelined connections to every master of a cluster (see the module doc)."""

    def __init__(self, url: str, config: StoreConfig) -> None:
        self._url = url
        self._seeds = startup_nodes(url)
        self._config = config
        # Node connections do not retry by themselves: a retry may have to go elsewhere.
        self._node_config = dataclasses.replace(config, retries=0)
        #: One TLS context for every node (``rediss://``): the CA is read once.
        self._tls = tls_context(config) if url.startswith("rediss://") else None
        self._nodes: dict[Address, DirectConnection] = {}
        self._owners: list[Address | None] = [None] * keys.SLOTS
        self._known: list[Address] = list(self._seeds)
        self._refreshing: asyncio.Future[None] | None = None
        self._backoff = ExponentialWithJitterBackoff(base=0.05, cap=0.5)
        self._closed = False

    # -- the slot table ----------------------------------------------------------------------

    @property
    def masters(self) -> frozenset[Address]:
        """The masters of the slot table as last read."""
        return frozenset(owner for owner in self._owners if owner is not None)

    @property
    def covered(self) -> bool:
        """True when the table names a master for every slot."""
        return all(owner is not None for owner in self._owners)

    def owner(self, slot: int) -> Address | None:
        return self._owners[slot]

    async def refresh(self) -> None:
        """Read the slot table again (one read at a time; callers share it)."""
        if self._refreshing is None:
            self._refreshing = asyncio.ensure_future(self._read_slots())
        refreshing = self._refreshing
        try:
            await asyncio.shield(refreshing)
        finally:
            if refreshing.done() and self._refreshing is refreshing:
                self._refreshing = None

    async def _read_slots(self) -> None:
        errors: list[str] = []
        candidates = list(dict.fromkeys([*self.masters, *self._known, *self._seeds]))
        for address in candidates:
            try:
                reply = await self._node(address).execute("CLUSTER", "SLOTS")
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                errors.append(f"{address[0]}:{address[1]}: {error}")
                continue
            if isinstance(reply, ResponseError):
                errors.append(f"{address[0]}:{address[1]}: {reply}")
                continue
            self._apply_slots(reply, address)
            return
        raise RedisConnectionError("no cluster node answered CLUSTER SLOTS: " + "; ".join(errors))

    def _apply_slots(self, reply: Any, asked: Address) -> None:
        owners: list[Address | None] = [None] * keys.SLOTS
        seen: list[Address] = []
        for entry in reply:
            start, end = int(entry[0]), int(entry[1])
            nodes = [_address(node[0], node[1], asked) for node in entry[2:]]
            seen += nodes
            owners[start : end + 1] = [nodes[0]] * (end - start + 1)  # the master comes first
        self._owners = owners
        self._known = list(dict.fromkeys([*seen, *self._known]))
        for address in list(self._nodes):
            if address not in self.masters and address not in self._seeds:
                self._nodes.pop(address).close()

    def _node(self, address: Address) -> DirectConnection:
        node = self._nodes.get(address)
        if node is None:
            node = DirectConnection(self.endpoint(address), self._node_config)
            self._nodes[address] = node
        return node

    def endpoint(self, address: Address) -> Endpoint:
        """The endpoint of one node: the URL's credentials, its TLS context."""
        return Endpoint.of(node_url(self._url, address), self._config, self._tls)

    # -- commands ----------------------------------------------------------------------------

    async def execute(self, *args: Arg, written: Callable[[], None] | None = None) -> Any:
        """One command, sent to the master of its key's slot."""
        return (await self.run((args,), written))[0]

    async def run(
        self, commands: Sequence[Command], written: Callable[[], None] | None = None
    ) -> list[Any]:
        """Commands of one slot, sent together to its master, replies in order (error
        replies as ``ResponseError``); CrossSlotError before sending if they span slots.
        ``written`` runs once, right after the first write that sends them (a redirected or
        retried send does not run it again; see ``DirectConnection.run``)."""
        slot = slot_of(commands, each_key=False)
        if slot is None:
            raise CrossSlotError("commands without a key have no slot to go to")
        once = _Once(written) if written is not None else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._config.failover_seconds
        failures = 0
        while True:
            if self._closed:
                raise RedisConnectionError("the store is closed")
            try:
                address = self._owners[slot]
                if address is None:
                    await self.refresh()
                    address = self._owners[slot]
                    if address is None:
                        raise RedisConnectionError(f"no master serves slot {slot}")
                replies = await self._node(address).run(commands, once)
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                failures += 1
                if loop.time() >= deadline:
                    if isinstance(error, RedisConnectionError | RedisTimeoutError):
                        raise
                    raise RedisConnectionError(f"cannot reach the cluster: {error}") from error
                await asyncio.sleep(self._backoff.compute(failures))
                await self._refresh_quietly()
                continue
            redirect = _redirect(replies)
            if redirect is not None and redirect[0] == "ASK":
                asked = await self._node(redirect[1]).run((("ASKING",), *commands), once)
                replies = asked[1:]
                redirect = _redirect(replies)  # TRYAGAIN: keys of the slot on both nodes
            if redirect is None:
                return replies
            kind, target = redirect
            failures += 1
            if kind == "MOVED":
                self._owners[slot] = target
                if failures > 1:  # moved again: the whole table is out of date
                    await self._refresh_quietly()
            elif loop.time() >= deadline:
                return replies
            else:  # CLUSTERDOWN / TRYAGAIN: the cluster is failing over
                await asyncio.sleep(self._backoff.compute(failures))
                await self._refresh_quietly()

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh()
        except RedisConnectionError as error:
            log.info("cluster slot table not refreshed: %s", error)

    async def ping_masters(self) -> bool:
        """True if the table covers every slot and each master answers that it serves
        (``cluster_state:ok``: a master just back from a crash refuses commands until it has
        heard from the others)."""
        try:
            await self.refresh()
        except RedisConnectionError:
            return False
        if not self.covered:
            return False
        replies = await asyncio.gather(
            *(self._node(address).execute("CLUSTER", "INFO") for address in self.masters),
            return_exceptions=True,
        )
        return all(isinstance(reply, bytes) and b"cluster_state:ok" in reply for reply in replies)

    def close(self) -> None:
        self._closed = True
        for node in self._nodes.values():
            node.close()
        self._nodes.clear()


class _Once:
    """A function that runs the first time it is called only (a send tried again on another
    node or connection must not run the caller's work after its write twice)."""

    __slots__ = ("_then",)

    def __init__(self, then: Callable[[], None]) -> None:
        self._then: Callable[[], None] | None = then

    def __call__(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            then()


def _address(host: object, port: object, asked: Address) -> Address:
    """A node's address as Redis names it (an empty host: the host that was asked)."""
    name = host.decode() if isinstance(host, bytes) else str(host)
    return (name or asked[0], int(str(port)))


def _redirect(replies: Sequence[Any]) -> tuple[str, Address] | None:
    for reply in replies:
        if not isinstance(reply, ResponseError):
            continue
        text = str(reply)
        kind = text.split(" ", 1)[0]
        if kind in ("MOVED", "ASK"):
            host, _, port = text.split(" ")[2].rpartition(":")
            return kind, (host, int(port))
        if kind in _RETRY_LATER:
            return kind, ("", 0)
    return None
