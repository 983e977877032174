"""What a request handler gives back: its ``Reply`` (the ack's result and what follows the
ack), or a ``RequestFailed`` naming the error code."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from protocol.messages import ErrorCode

#: Work that follows a request's ack on its connection (an update, a catch-up, a snapshot).
Then = Callable[[], Awaitable[object]]


class Reply(NamedTuple):
    """The ack's ``result``, and ``then``: what to send right after the ack, if anything."""

    result: dict[str, Any]
    then: Then | None = None


class RequestFailed(Exception):
    """Answer the request with this error code and message."""

    def __init__(self, code: ErrorCode, message: str, detail: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail
