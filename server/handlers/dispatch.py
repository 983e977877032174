"""Which handler answers which request, read from the handlers themselves.

A handler is a public coroutine method ``async def name(self, conn: Connection, message:
m.SomeRequest) -> Reply`` of one of the handler objects: the annotation of its ``message``
parameter is the request it answers, so the declaration of a message (``protocol.messages``)
and the handler's signature are the only places that name it. :func:`dispatch_table` finds
them all, and refuses a request with no handler or with two.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any, get_type_hints

from protocol import messages as m
from server.connection import Connection
from server.requests import Reply

__all__ = ["ANSWERED_BY_TRANSPORT", "Handler", "dispatch_table"]

Handler = Callable[[Connection, Any], Awaitable[Reply]]

#: Requests the websocket layer answers itself (``server.ws``): ``ping`` gets its ``pong``
#: before any handler, metered by a bucket of its own.
ANSWERED_BY_TRANSPORT: frozenset[type[m.Message]] = frozenset({m.Ping})


def dispatch_table(*handlers: object) -> Mapping[type[m.Message], Handler]:
    """Request class → the bound method of ``handlers`` that answers it.

    A ``TypeError`` when two methods answer the same request, or when a client message other
    than those of :data:`ANSWERED_BY_TRANSPORT` has none: a server that could not answer one
    of its requests does not start.
    """
    requests: set[type[m.Message]] = set(m.CLIENT_MESSAGES.values())
    table: dict[type[m.Message], Handler] = {}
    for owner in handlers:
        for name, method in inspect.getmembers(owner, inspect.iscoroutinefunction):
            request = _request_of(method) if not name.startswith("_") else None
            if request is None or request not in requests:
                continue
            if request in table:
                raise TypeError(
                    f"two handlers answer {request.t!r}: {_name(table[request])} and"
                    f" {_name(method)}"
                )
            table[request] = method
    missing = requests - table.keys() - ANSWERED_BY_TRANSPORT
    if missing:
        tags = ", ".join(sorted(cls.t for cls in missing))
        raise TypeError(f"no handler answers {tags}")
    return MappingProxyType(table)


def _request_of(method: Callable[..., object]) -> type[Any] | None:
    """The class annotated on the ``message`` parameter (the second, after ``conn``; any
    others are keyword-only with defaults)."""
    parameters = inspect.signature(method).parameters.values()
    positional = [p.name for p in parameters if p.kind is not p.KEYWORD_ONLY]
    if positional != ["conn", "message"]:
        return None
    if any(p.kind is p.KEYWORD_ONLY and p.default is p.empty for p in parameters):
        return None
    hint = get_type_hints(method).get("message")
    return hint if isinstance(hint, type) else None


def _name(method: Callable[..., object]) -> str:
    return getattr(method, "__qualname__", repr(method))
