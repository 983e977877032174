"""The dispatch of requests is read from the handlers' signatures (``server.handlers.dispatch``):
every client message but ``ping`` has exactly one handler, and a gap or a clash stops the
server from starting rather than answering ``unknown_type`` at run time."""

from __future__ import annotations

import pytest

from protocol import messages as m
from server.connection import Connection
from server.handlers.dispatch import ANSWERED_BY_TRANSPORT, dispatch_table
from server.handlers.play import Play
from server.handlers.players import Players
from server.handlers.reviews import Reviews
from server.handlers.rooms import Rooms
from server.handlers.talk import Talk
from server.handlers.workers import Workers
from server.requests import Reply

HANDLER_CLASSES = (Players, Rooms, Play, Talk, Workers, Reviews)


def handler_objects() -> list[object]:
    """The service's handler objects, unwired: dispatch only reads their methods."""
    return [object.__new__(cls) for cls in HANDLER_CLASSES]


def test_every_client_message_but_ping_has_one_handler() -> None:
    table = dispatch_table(*handler_objects())
    assert set(table) == set(m.CLIENT_MESSAGES.values()) - {m.Ping}
    assert set(ANSWERED_BY_TRANSPORT) == {m.Ping}
    names = {cls.t: handler.__name__ for cls, handler in table.items()}
    assert names["act"] == "act"
    assert names["stand_in"] == "call_stand_in"
    assert names["ai_subscribe"] == "ai_subscribe"
    assert names["join_room"] == "join_room"  # a keyword-only extra (``paired``) is allowed
    assert "_created_before" not in names.values()  # private helpers never answer a request


class SecondLobby:
    async def lobby_again(self, conn: Connection, message: m.Lobby) -> Reply:
        raise AssertionError("never called")


def test_two_handlers_for_one_request_are_refused() -> None:
    with pytest.raises(TypeError, match="two handlers answer 'lobby'"):
        dispatch_table(*handler_objects(), SecondLobby())


def test_a_request_without_handler_is_refused() -> None:
    objects = [obj for obj in handler_objects() if not isinstance(obj, Talk)]
    with pytest.raises(TypeError, match=r"no handler answers say$"):
        dispatch_table(*objects)


class NotHandlers:
    async def helper(self, conn: Connection) -> None:
        raise AssertionError("never called")

    async def with_required_option(self, conn: Connection, message: m.Say, *, how: int) -> Reply:
        raise AssertionError("never called")

    async def server_message(self, conn: Connection, message: m.Pong) -> Reply:
        raise AssertionError("never called")


def test_methods_that_are_not_request_handlers_are_left_out() -> None:
    table = dispatch_table(*handler_objects(), NotHandlers())
    assert all(not isinstance(getattr(h, "__self__", None), NotHandlers) for h in table.values())
