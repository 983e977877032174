"""The web client's hand-written view types (``client/web/src/view-types.ts``) say what the
server sends: every entry of every room view, game view, seat, move, hand result and rating
that a real match's frames carry is declared there, and every entry declared without ``?`` is
in each of them (issue #28: a field added to the server's views without its type fails here).

The views are read off real servers' frames to both players and a watcher of a rated private
match played to its end, so the entries the frames add to the room's own fields
(``connected``, ``invite``, ``watchers``, ...) are checked with the rest. Its first hand is
scripted to end in a knock the other player lays off against (``tests.browser.scripted``)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from client.session import Session
from protocol import messages as m
from tests.browser.scripted import LAYOFF_DEAL, LAYOFF_KNOCK, script_first_deal
from tests.support.accounts import make_account_holder
from tests.support.fixtures import ServerFactory
from tests.support.players import close_all, play_match

VIEW_TYPES = Path(__file__).resolve().parents[2] / "client" / "web" / "src" / "view-types.ts"

#: Where a view holds another declared type: (type, entry) → (the inner type, a list of them).
INNER: dict[tuple[str, str], tuple[str, bool]] = {
    ("RoomView", "seats"): ("SeatInfo", True),
    ("RoomView", "game"): ("GameView", False),
    ("RoomView", "ratings"): ("SeatRating", True),
    ("GameView", "history"): ("Move", True),
    ("GameView", "rules"): ("GameRules", False),
    ("GameView", "last_hand"): ("HandOver", False),
    ("GameView", "match"): ("MatchTotals", False),
    ("HandOver", "layoffs"): ("Layoff", True),
}


def declared(name: str) -> dict[str, bool]:
    """Entry → whether it is optional, of ``export interface NAME`` in view-types.ts."""
    text = VIEW_TYPES.read_text(encoding="utf-8")
    body = re.search(rf"^export interface {name} {{\n(.*?)\n}}", text, re.S | re.M)
    assert body is not None, f"no interface {name} in {VIEW_TYPES.name}"
    entries = re.findall(r"^  (\w+)(\??): ", body.group(1), re.M)
    return {entry: bool(optional) for entry, optional in entries}


def typed_parts(name: str, value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(type, mapping) of ``value`` read as a ``name`` and of every declared type inside it."""
    if not isinstance(value, dict):
        return
    yield name, value
    for (outer, entry), (inner, is_list) in INNER.items():
        if outer != name or value.get(entry) is None:
            continue
        for item in value[entry] if is_list else [value[entry]]:
            yield from typed_parts(inner, item)


def views_in(frames: list[m.ServerMessage]) -> Iterator[dict[str, Any]]:
    for frame in frames:
        if isinstance(frame, m.Update | m.Snapshot) and frame.view is not None:
            yield dict(frame.view)


async def test_every_entry_of_a_matchs_views_is_declared_in_the_web_clients_types(
    server_factory: ServerFactory, redis_url: str
) -> None:
    # the joiner's process has never held the room: it deals from the scripted seed in Redis
    host_server, join_server = server_factory(), server_factory()
    a = await Session.connect(host_server.ws_url, name="Ada", record=True)
    b = await Session.connect(join_server.ws_url, name="Bob", record=True)
    watcher = await Session.connect(join_server.ws_url, name="Cleo", record=True)
    try:
        for session, handle in ((a, "ada_types"), (b, "bob_types")):
            await make_account_holder(session, handle)
        created = await a.request("create_room", mode="private", rated=True, rules={"target": 10})
        room = created.result["room"]
        script_first_deal(redis_url, room, LAYOFF_DEAL)
        await b.request("join_room", invite=created.result["invite"], rated=True)
        await watcher.request("watch", room=room, watch_token=created.result["watch_token"])
        await b.wait_for(room, lambda view: view["game"] is not None)
        await b.act(room, "take_upcard", seq=b.room(room).seq)
        await b.wait_for(room, lambda view: view["game"]["phase"] == "discard")
        await b.act(room, "knock", LAYOFF_KNOCK, seq=b.room(room).seq)
        await play_match([a, b], room, seed=28)
        await watcher.wait_for(room, lambda view: view["status"] == "finished")
    finally:
        await close_all(a, b, watcher)

    seen: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for session in (a, b, watcher):
        assert session.frames is not None
        for view in views_in(session.frames):
            for name, part in typed_parts("RoomView", view):
                seen[name].append(part)
    # the match went through every part the types name: a hand's result, the match's, a rating
    assert set(seen) == {inner for inner, _ in INNER.values()} | {"RoomView"}, sorted(seen)

    for name, parts in sorted(seen.items()):
        entries = declared(name)
        sent = {entry for part in parts for entry in part}
        assert sent - set(entries) == set(), f"{name}: sent but not declared in view-types.ts"
        for entry, optional in entries.items():
            if not optional:
                missing = sum(entry not in part for part in parts)
                assert missing == 0, f"{name}.{entry} is declared required, missing {missing} times"
