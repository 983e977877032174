"""The Redis wire of the store's own connections: where to connect, how, and RESP on top.

The direct connection of a move's commands (``server.store.direct``), the room feed's pub/sub
connection (``server.store.subscriber``), the cluster's per-master connections
(``server.store.cluster``) and the backups (``server.admin``) all connect through here:

- ``Endpoint.of(url, config)`` reads ``redis://``, ``rediss://`` (TLS) and ``unix://`` URLs
  with their user, password and database, and builds the TLS context once per endpoint:
  the CA from ``StoreConfig.tls_ca`` (else the system's, which honours ``SSL_CERT_FILE``),
  a client certificate from ``tls_cert`` / ``tls_key`` when the server asks for one, and
  the host name checked against the server's certificate;
- ``open_wire`` opens the transport (TCP with keepalive, TLS over it, or a Unix socket) for
  an ``asyncio.Protocol``; ``setup_commands`` are the AUTH and SELECT it sends first;
- ``RespProtocol`` is the part both protocols share: the transport, a hiredis reader whose
  error replies are redis-py's ``ResponseError``, keepalive, and one way to fail (a lost
  connection, a protocol error) that ends in the subclass's ``_fail``.

TLS costs nothing per command on top of plain TCP here but the encryption itself: asyncio's
(or uvloop's) TLS transport hands the protocol the same decrypted bytes.

A URL's password never appears in an exception or a log line: ``redact`` replaces it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.store.config import StoreConfig
from server.store.slots import Command

__all__ = [
    "SCHEMES",
    "Endpoint",
    "RespProtocol",
    "keep_alive",
    "open_wire",
    "pack",
    "redact",
    "setup_commands",
    "supports",
    "tls_context",
]

SCHEMES = ("redis://", "rediss://", "unix://")
"""The URLs the store's connections serve: plain TCP, TLS over TCP, a Unix socket."""

_CREDENTIALS = re.compile(r"^([a-z]+://)([^@/]*)@")

P = TypeVar("P", bound=asyncio.Protocol)


def supports(url: str) -> bool:
    """True for the URLs the store's own connections serve (``SCHEMES``)."""
    return url.startswith(SCHEMES)


def redact(url: str) -> str:
    """``url`` with its password (or its only credential, a password) as ``***``."""
    match = _CREDENTIALS.match(url)
    if match is None:
        return url
    user, sep, _password = match.group(2).partition(":")
    hidden = f"{user}:***" if sep else "***"
    return f"{match.group(1)}{hidden}@{url[match.end() :]}"


def pack(args: Command) -> bytes:
    """One command in RESP (hiredis)."""
    packed: bytes = hiredis.pack_command(cast(Any, args))  # the stub types a 1-tuple
    return packed


def keep_alive(transport: asyncio.BaseTransport) -> None:
    """TCP keepalive on a Redis connection (a dead peer is noticed even when idle)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # a socket that refuses keepalive still works
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)


def tls_context(config: StoreConfig) -> ssl.SSLContext:
    """The client TLS context of ``config``: server certificate and host name checked
    against ``tls_ca`` (or the system's CAs, ``SSL_CERT_FILE``), ``tls_cert`` / ``tls_key``
    presented when the server asks for a client certificate."""
    context = ssl.create_default_context(cafile=config.tls_ca)
    if config.tls_cert is not None:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    return context


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one connection goes and what it says first (see ``Endpoint.of``)."""

    host: str
    port: int
    path: str | None
    db: int
    username: str | None
    password: str | None
    tls: ssl.SSLContext | None

    @classmethod
    def of(cls, url: str, config: StoreConfig, tls: ssl.SSLContext | None = None) -> Endpoint:
        """The endpoint of ``url``; a ``rediss://`` URL uses ``tls`` (a shared context) or
        one made from ``config``. ValueError for another scheme (the password redacted)."""
        if not supports(url):
            raise ValueError(f"unsupported Redis URL: {redact(url)} (redis://, rediss://, unix://)")
        options = parse_url(url)
        secure = url.startswith("rediss://")
        return cls(
            host=str(options.get("host", "127.0.0.1")),
            port=int(options.get("port", 6379)),
            path=options.get("path"),
            db=int(options.get("db", 0) or 0),
            username=options.get("username"),
            password=options.get("password"),
            tls=(tls or tls_context(config)) if secure else None,
        )

    def __repr__(self) -> str:  # never the password
        where = self.path or f"{self.host}:{self.port}"
        return f"Endpoint({where}, db={self.db}, tls={self.tls is not None})"


def setup_commands(endpoint: Endpoint, *, select: bool = True) -> list[Command]:
    """AUTH (the URL's user and password) and SELECT (its database, unless 0 or not
    ``select``: a cluster has database 0 only), to send before anything else."""
    commands: list[Command] = []
    if endpoint.password is not None:
        if endpoint.username:
            commands.append(("AUTH", endpoint.username, endpoint.password))
        else:
            commands.append(("AUTH", endpoint.password))
    if endpoint.db and select:
        commands.append(("SELECT", endpoint.db))
    return commands


async def open_wire(endpoint: Endpoint, factory: Callable[[], P], timeout: float) -> P:
    """Connect ``factory()``'s protocol to ``endpoint`` (TLS handshake included) within
    ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    if endpoint.path is not None:
        connecting = loop.create_unix_connection(factory, endpoint.path)
    elif endpoint.tls is not None:
        connecting = loop.create_connection(
            factory,
            endpoint.host,
            endpoint.port,
            ssl=endpoint.tls,
            server_hostname=endpoint.host,
            ssl_handshake_timeout=timeout,
        )
    else:
        connecting = loop.create_connection(factory, endpoint.host, endpoint.port)
    try:
        _transport, protocol = await asyncio.wait_for(connecting, timeout)
    except ssl.SSLError as error:  # a refused certificate: the reason, as a connection error
        raise RedisConnectionError(f"TLS to Redis at {endpoint!r} failed: {error}") from error
    return protocol


class RespProtocol(asyncio.Protocol):
    """What the store's protocols share: the transport (keepalive on), a hiredis reader, and
    failure: a lost connection ends in ``_fail`` (the subclass's) with redis-py's
    ``ConnectionError``, which aborts the transport."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader(replyError=ResponseError)
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        keep_alive(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"connection to Redis lost: {exc or 'closed'}"))

    def _fail(self, error: BaseException) -> None:
        """End the connection for ``error``; subclasses fail their waiters, then call this."""
        if self._transport is not None:
            self._transport.abort()

    def _protocol_error(self, error: hiredis.ProtocolError) -> None:
        self._fail(RedisConnectionError(f"bad reply from Redis: {error}"))

    def close(self) -> None:
        self._fail(RedisConnectionError("connection closed"))
