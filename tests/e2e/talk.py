"""Shared by the quick-message tests (one Redis and a Redis Cluster): two players on two server
processes and a watcher on each, every frame recorded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from client.session import Session
from protocol import messages as m
from tests.support.players import close_all, private_match


@dataclass
class Table:
    ada: Session
    bob: Session
    watchers: list[Session]
    room: str

    async def close(self) -> None:
        await close_all(self.ada, self.bob, *self.watchers)


async def table(url_a: str, url_b: str, **hello: Any) -> Table:
    """Ada (seat 0) on the first process, Bob (seat 1) on the second, and a watcher on each,
    all recording every frame they get."""
    ada, bob, room = await private_match(url_a, url_b, record=True, **hello)
    token = (await ada.wait_for(room))["watch_token"]
    watchers = []
    for url, name in ((url_a, "Sam"), (url_b, "Sue")):
        watcher = await Session.connect(url, name=name, record=True)
        await watcher.request("watch", room=room, watch_token=token)
        await watcher.wait_for(room, lambda view: view["game"] is not None)
        watchers.append(watcher)
    return Table(ada, bob, watchers, room)


async def said_to(session: Session, room: str) -> m.Said:
    message = await session.next_message(lambda frame: isinstance(frame, m.Said))
    assert isinstance(message, m.Said) and message.room == room
    return message


def saids(session: Session) -> list[m.Said]:
    assert session.frames is not None
    return [frame for frame in session.frames if isinstance(frame, m.Said)]


async def barrier(players: Table, *followers: Session) -> int:
    """A move by whoever is to play, seen by every follower: a quick message published before
    it has been handled by every process before its update goes out (one channel, in order)."""
    room = players.room
    view = await players.ada.wait_for(room)
    mover = players.ada if view["game"]["turn"] == 0 else players.bob
    action = (await mover.wait_for(room))["game"]["legal_actions"][0]
    seq = int((await mover.act(room, action["kind"], action.get("card"))).result["seq"])
    for follower in followers:
        await follower.wait_seq(room, seq)
    return seq
