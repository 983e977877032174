"""Playing whole matches through a deployment, and checking their scores end to end.

``play_to_end`` plays one seat like a person (the moves of ``tests.support.players.choose``) at
the default rate limits of a deployment; ``check_match`` then holds everything that was
played against the ground truth: the room's change stream in Redis (every hand replayed card
by card and scored again with the rules library), each player's final view, the replay
records served by the HTTP API, and the players' statistics.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from client.session import ConnectionLost, RequestError, Session, View
from protocol.cards import DECK
from protocol.scoring import score_hand
from server.store import Store
from tests.support.players import check_view, choose, replay_hands, truth
from tests.support.server_process import http_get

#: Answers after which the player just looks at the room again and decides anew.
LOOK_AGAIN = frozenset({"stale_sequence", "duplicate_request"})


@dataclass
class Played:
    """What one seat did: its final view and how many of its moves were applied."""

    room: str
    seat: int
    final: View
    moves: int
    rate_limited: int


async def play_to_end(
    session: Session,
    room: str,
    rng: random.Random,
    *,
    timeout: float = 60.0,
    think: float = 0.0,
    before_move: Callable[[View, int], Awaitable[None]] | None = None,
) -> Played:
    """Play the session's seat until the match is over, ``think`` seconds before each move.
    ``before_move(view, moves)`` is awaited before each decision (the other seat waits for
    this one meanwhile). Every view is checked against the rules."""
    state = session.room(room)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    floor = -2
    moves = limited = 0
    while True:

        def ready(view: View, floor: int = floor) -> bool:
            if view["status"] == "finished":
                return True
            game = view.get("game")
            return state.seq > floor and bool(game and game["legal_actions"])

        view = await session.wait_for(room, ready, timeout=max(0.1, deadline - loop.time()))
        check_view(view)
        if view["status"] == "finished":
            return Played(room, view["seat"], view, moves, limited)
        if before_move is not None:
            await before_move(view, moves)
        # decided on this view's number: if the room moves on meanwhile, the act is stale
        seq = state.seq
        action = choose(view, rng)
        if think:
            await asyncio.sleep(think)
        try:
            await session.act(room, action["kind"], action.get("card"), seq=seq)
        except RequestError as error:
            if error.code == "rate_limited":  # refused before anything was done: slow down
                limited += 1
                await asyncio.sleep(0.5)
                continue
            if error.code not in LOOK_AGAIN:
                raise
        except ConnectionLost:
            await session.wait_connected(timeout=max(0.1, deadline - loop.time()))
            continue  # applied or not, the resumed view tells
        else:
            moves += 1
        floor = seq


def _hands_of(
    changes: Sequence[tuple[int, int | None, list[dict[str, Any]]]],
) -> tuple[list[list[dict[str, Any]]], dict[str, Any] | None]:
    hands: list[list[dict[str, Any]]] = []
    match_over = None
    for _seq, _actor, events in changes:
        for event in events:
            if event["type"] == "deal":
                hands.append([event])
            elif event["type"] == "match_over":
                match_over = event
            elif hands:
                hands[-1].append(event)
    return hands, match_over


def _rescore(end: Mapping[str, Any], final: list[list[str]]) -> tuple[str | None, int | None, int]:
    """(kind, winner, points) of a finished hand by the rules library."""
    knocker = end["knocker"]
    if knocker is None:
        return end["kind"], None, 0
    result = score_hand(final[knocker], final[1 - knocker])
    return result.kind, knocker if result.winner == "knocker" else 1 - knocker, result.points


async def check_match(
    store: Store,
    room: str,
    played: Sequence[Played],
    target: int,
    api: str,
) -> dict[str, Any]:
    """Every check of one finished match (see the module doc). ``api`` is the base URL of a
    server replica whose ``/api/hands`` serves the replays. Returns what was checked."""
    changes = await truth(store, room)
    assert [seq for seq, _, _ in changes] == list(range(len(changes))), f"{room}: stream gaps"
    hands, match_over = _hands_of(changes)
    scores = [0, 0]
    records = 0
    for number, events in enumerate(hands, start=1):
        ends = [event for event in events if event["type"] == "hand_over"]
        assert len(ends) == 1, f"{room}: hand {number} did not end once: {ends}"
        end = ends[0]
        assert events[0]["scores"] == scores, (room, number, events[0]["scores"], scores)
        final = replay_hands(events)
        assert [sorted(h, key=DECK.index) for h in end["hands"]] == final, (room, number)
        kind, winner, points = _rescore(end, final)
        assert (end["kind"], end["winner"], end["points"]) == (kind, winner, points), end
        if winner is not None:
            scores[winner] += points
        assert end["scores"] == scores, (room, number, end["scores"], scores)
        # the replay record served by a replica: the same hand, card for card
        status, body = await asyncio.to_thread(http_get, f"{api}/api/hands/{room}-{number}")
        assert status == 200, f"{room}-{number}: GET /api/hands -> {status} {body[:200]!r}"
        record = json.loads(body)
        assert record["room"] == room and record["hand"] == number, record
        assert replay_hands(record["events"]) == final, f"{room}-{number}: replay differs"
        result = record["result"]
        assert (result["kind"], result["winner"], result["points"]) == (kind, winner, points)
        records += 1
    assert match_over is not None, f"{room}: the match did not end"
    assert match_over["points"] == scores, (match_over, scores)
    winner = match_over["winner"]
    assert scores[winner] >= target > scores[1 - winner], (scores, target)
    for seat in played:
        final_view = seat.final
        assert final_view["status"] == "finished" and final_view["forfeit"] is None, final_view
        assert final_view["game"]["scores"] == scores, (final_view["game"]["scores"], scores)
        assert final_view["game"]["match"]["winner"] == winner
    return {"hands": len(hands), "scores": scores, "changes": len(changes), "records": records}


async def stats_agree(session: Session, matches: Sequence[Mapping[str, Any]], seat: int) -> None:
    """A person's statistics (``stats``) count the matches and hands they played."""
    stats = (await session.request("stats")).result
    assert stats["matches"] == len(matches), stats
    assert stats["hands"] == sum(match["hands"] for match in matches), (stats, matches)
    wins = sum(1 for match in matches if match["scores"][seat] > match["scores"][1 - seat])
    assert stats["wins"] == wins, (stats, matches)
    assert stats["points"] == sum(match["scores"][seat] for match in matches), (stats, matches)
