"""Scripted players shared by the suites that run real servers (e2e, abuse, chaos, cluster,
deploy, bench): playing a seat, view checks, ground truth and replays."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as redis

from client.session import ConnectionLost, RequestError, Session, View
from protocol import messages as m
from protocol.cards import DECK, to_mask
from protocol.melds import best_arrangement_mask, best_discards, min_deadwood
from server import keys
from server.blobs import decode_change
from server.store import Store
from tests.support.server_process import WORKER_KEY

CARD = re.compile(r"[A2-9TJQK][CDHS]")
ALL_CARDS = frozenset(DECK)
PLAYING = frozenset({"first_offer", "second_offer", "first_draw", "draw", "discard"})
OVER = frozenset({"hand_over", "match_over"})
MOVE_EVENTS = frozenset({"take_upcard", "pass", "draw", "discard", "knock", "gin"})


# --- choosing moves -------------------------------------------------------------------------------


def choose(view: View, rng: random.Random, *, greedy: float = 0.8) -> dict[str, Any]:
    """A random legal action of the view, seeded; with probability ``greedy`` it plays like a
    beginner (takes the top discard when it lowers its deadwood, gins or knocks when it can,
    discards the card that leaves the least deadwood), so that hands end by knocks rather
    than by an exhausted stock."""
    game = view["game"]
    legal: list[dict[str, Any]] = game["legal_actions"]
    kinds = {action["kind"] for action in legal}
    if rng.random() >= greedy:
        return dict(rng.choice(legal))
    if kinds & {"take_upcard", "draw_discard"}:
        top = game["discard_pile"][-1]
        better = min_deadwood([*game["cards"], top]) < game["deadwood_points"]
        take = "take_upcard" if "take_upcard" in kinds else "draw_discard"
        other = "pass" if take == "take_upcard" else "draw_stock"
        return {"kind": take if better else other}
    if game["phase"] != "discard":
        return dict(rng.choice(legal))
    for kind in ("gin", "knock"):
        options = [action for action in legal if action["kind"] == kind]
        if options:
            return dict(options[0])
    taken = game.get("taken_card")
    for discard in best_discards(game["cards"]):
        if discard.card != taken:
            return {"kind": "discard", "card": discard.card}
    return dict(rng.choice(legal))


@dataclass
class PlayerLog:
    """What a scripted player did: every action acked (with the seq it made), every action
    whose answer was lost with the connection, and the errors it got."""

    acked: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    lost: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    views_checked: int = 0


async def play(
    session: Session,
    room: str,
    rng: random.Random,
    *,
    greedy: float = 0.8,
    check: bool = False,
    timeout: float = 60.0,
    max_actions: int = 5000,
    until_seq: int | None = None,
) -> PlayerLog:
    """Play the session's seat in ``room`` until the match is over (or the room finished, or
    its number reached ``until_seq``).

    Never acts twice on one sequence number: after an action it waits for a newer view. A
    ``stale_sequence`` (the other seat's ``next_hand`` came first) or a lost connection just
    makes it look again once the session has caught up.
    """
    record = PlayerLog()
    state = session.room(room)
    acted_on = -2
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(record.acked) < max_actions:
        floor = acted_on

        def ready(view: View, floor: int = floor) -> bool:
            if view["status"] == "finished" or (until_seq is not None and state.seq >= until_seq):
                return True
            game = view.get("game")
            return state.seq > floor and bool(game and game["legal_actions"])

        view = await session.wait_for(room, ready, timeout=deadline - loop.time())
        if check:
            check_view(view)
            record.views_checked += 1
        if view["status"] == "finished" or (until_seq is not None and state.seq >= until_seq):
            return record
        action = choose(view, rng, greedy=greedy)
        seq = state.seq
        acted_on = seq
        try:
            ack = await session.act(room, action["kind"], action.get("card"), seq=seq)
        except RequestError as error:
            if error.code != "stale_sequence":
                raise
            record.errors.append(error.code)
            continue
        except ConnectionLost:
            # applied or not: the resume after the reconnect tells; decide again from there
            record.lost.append((seq, action))
            await session.wait_connected(timeout=deadline - loop.time())
            acted_on = -2
            continue
        record.acked.append((int(ack.result["seq"]), action))
    raise AssertionError(f"no end after {max_actions} actions")


async def unless_failed(awaitable: Any, tasks: Sequence[asyncio.Task[Any]]) -> Any:
    """Await ``awaitable``, but raise at once the error of any of ``tasks`` that fails first
    (a player that crashed would otherwise show up as a mere timeout)."""
    waiter = asyncio.ensure_future(awaitable)
    try:
        while True:
            await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                if task.done() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            if waiter.done():
                return waiter.result()
            tasks = [task for task in tasks if not task.done()]
    finally:
        if not waiter.done():
            waiter.cancel()


async def play_match(
    sessions: Sequence[Session], room: str, seed: int, **options: Any
) -> list[PlayerLog]:
    logs = await asyncio.gather(
        *(
            play(session, room, random.Random(f"{seed}/{index}"), **options)
            for index, session in enumerate(sessions)
        )
    )
    return list(logs)


async def private_match(
    url_a: str,
    url_b: str,
    *,
    target: int = 10,
    record: bool = False,
    public: bool = False,
    **hello: Any,
) -> tuple[Session, Session, str]:
    """Two new players, a private room of ``a`` joined by ``b`` with the invite code (a
    ``public`` one: its hands listed, anyone may watch it)."""
    a = await Session.connect(url_a, name="Ada", record=record, **hello)
    b = await Session.connect(url_b, name="Bob", record=record, **hello)
    options: dict[str, Any] = {"public": True} if public else {}
    created = await a.request("create_room", mode="private", rules={"target": target}, **options)
    room = created.result["room"]
    await b.request("join_room", invite=created.result["invite"])
    await a.wait_for(room, lambda view: view["game"] is not None)
    await b.wait_for(room, lambda view: view["game"] is not None)
    return a, b, room


async def close_all(*sessions: Session) -> None:
    await asyncio.gather(*(session.close() for session in sessions))


# --- what a view must satisfy -----------------------------------------------------------------


def check_view(view: View) -> None:
    """The invariants of one player's (or a spectator's) view, against the rules."""
    game = view["game"]
    if game is None:
        return
    seat = view["seat"]
    phase = game["phase"]
    turn = game["turn"]
    expected = [10, 10]
    if phase == "discard":
        assert turn in (0, 1), view
        expected[turn] = 11
    assert game["hand_sizes"] == expected, (phase, turn, game["hand_sizes"])
    pile = game["discard_pile"]
    assert game["stock_size"] + sum(game["hand_sizes"]) + len(pile) == 52, game
    assert len(set(pile)) == len(pile) and all(CARD.fullmatch(card) for card in pile)
    if phase in PLAYING:
        assert turn in (0, 1)
    else:
        assert turn is None
    # scores are the sum of the hand results
    totals = [0, 0]
    for result in game["results"]:
        if result["winner"] is not None:
            totals[result["winner"]] += result["points"]
    assert game["scores"] == totals, (game["scores"], game["results"])
    target = game["rules"]["target"]
    if phase == "match_over":
        winner = game["match"]["winner"]
        assert game["scores"][winner] >= target > game["scores"][1 - winner], game["scores"]
    else:
        assert max(game["scores"]) < target, game["scores"]
    if seat is None:
        assert "cards" not in game and game["legal_actions"] == []
        return
    cards = game["cards"]
    assert len(cards) == expected[seat], (phase, turn, seat, cards)
    assert len(set(cards)) == len(cards) and not set(cards) & set(pile)
    arrangement = best_arrangement_mask(to_mask(cards))
    assert game["deadwood_points"] == arrangement.deadwood_points, (cards, game)
    melded = [card for meld in game["melds"] for card in meld]
    assert sorted(melded + game["deadwood"]) == sorted(cards)
    legal = game["legal_actions"]
    if phase == "hand_over":
        assert legal == [{"kind": "next_hand"}]
    elif phase in PLAYING and turn == seat:
        assert legal, view
        for action in legal:
            if "card" in action:
                assert action["card"] in cards and action["card"] != game["taken_card"]
    else:
        assert legal == [], view


# --- ground truth from Redis ------------------------------------------------------------------


async def truth(store: Store, room: str) -> list[tuple[int, int | None, list[dict[str, Any]]]]:
    """The room's full-information change stream: (seq, actor, events) for every number."""
    from protocol import codec  # noqa: PLC0415

    changes = await store.changes_since(room, -1)
    assert changes is not None, f"room {room}: the stream lost its history"
    out = []
    for seq, blob in changes:
        data: Any = codec.unpack(blob) if blob else {"actor": None}
        out.append((seq, data.get("actor"), decode_change(blob)))
    return out


def visible_cards(
    changes: Iterable[tuple[int, int | None, list[dict[str, Any]]]], seat: int | None
) -> dict[int, frozenset[str]]:
    """For every seq, the cards ``seat`` (None: a spectator) may have seen by then: its own
    hand and every card shown face up in the current hand; all 52 once the hand is over."""
    allowed: set[str] = set()
    out: dict[int, frozenset[str]] = {}
    for seq, _actor, events in changes:
        for event in events:
            kind = event["type"]
            if kind == "deal":
                allowed = {event["upcard"]}
                if seat is not None:
                    allowed |= set(event["hands"][seat])
            elif kind == "draw":
                if event["source"] == "discard" or event["seat"] == seat:
                    allowed.add(event["card"])
            elif kind in ("take_upcard", "discard", "knock", "gin"):
                allowed.add(event["card"])
            elif kind in ("hand_over", "match_over"):
                allowed = set(ALL_CARDS)
        out[seq] = frozenset(allowed)
    return out


#: Every string ``CARD`` matches: looked up, not matched, in ``cards_in``.
_CARD_STRINGS = frozenset(rank + suit for rank in "A23456789TJQK" for suit in "CDHS")


def cards_in(value: object) -> set[str]:
    """Every string in a (nested) value that is a card.

    The leak test runs this on every frame of two hundred matches: the set lookup and the
    checks against the concrete types ``to_wire`` gives come before the slower one against
    ``Mapping`` (an ABC), which any other mapping still meets."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in _CARD_STRINGS:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
    return found


def leaks(
    frames: Iterable[m.ServerMessage],
    allowed: Mapping[str, Mapping[int, frozenset[str]]],
) -> list[str]:
    """Descriptions of every frame that shows a card its recipient may not see then.
    ``allowed[room][seq]`` is what the recipient may see (see ``visible_cards``)."""
    found = []
    for frame in frames:
        shown = cards_in(m.to_wire(frame))
        if not shown:
            continue
        if isinstance(frame, m.Update | m.Snapshot) and frame.room in allowed:
            extra = shown - allowed[frame.room][frame.seq]
        else:
            extra = shown
        if extra:
            found.append(
                f"{frame.t} {getattr(frame, 'room', '')}@{getattr(frame, 'seq', '')}: "
                f"{sorted(extra)}"
            )
    return found


def redacted(event: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
    from server.engine.views import event_for  # noqa: PLC0415

    return event_for(dict(event), seat)


def seqs(session: Session, room: str) -> list[int]:
    return [applied.seq for applied in session.room(room).log]


def assert_gap_free(session: Session, room: str, *, start: int = 0) -> None:
    log = session.room(room).log
    numbers = [applied.seq for applied in log]
    assert numbers == list(range(start, start + len(numbers))), numbers
    assert not any(applied.snapshot for applied in log)


# --- replays ----------------------------------------------------------------------------------


def replay_hands(events: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Rebuild both final hands of a finished hand from its deal and moves."""
    deal = events[0]
    assert deal["type"] == "deal", deal
    hands = [set(deal["hands"][0]), set(deal["hands"][1])]
    stock = list(deal["stock"])
    pile = [deal["upcard"]]
    for event in events[1:]:
        kind = event["type"]
        if kind == "take_upcard":
            assert pile.pop() == event["card"]
            hands[event["seat"]].add(event["card"])
        elif kind == "draw":
            source = stock if event["source"] == "stock" else pile
            assert source.pop() == event["card"], event
            hands[event["seat"]].add(event["card"])
        elif kind in ("discard", "knock", "gin"):
            hands[event["seat"]].remove(event["card"])
            pile.append(event["card"])
    return [sorted(hand, key=DECK.index) for hand in hands]


async def expect_error(code: str | Iterable[str], awaitable: Any) -> RequestError:
    codes = {code} if isinstance(code, str) else set(code)
    try:
        await awaitable
    except RequestError as error:
        assert error.code in codes, f"expected {sorted(codes)}, got {error.code}: {error.message}"
        return error
    raise AssertionError(f"expected an error {sorted(codes)}, got an ack")


def action_matches(action: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``events`` (full information) are what ``action`` makes."""
    kind = action["kind"]
    if kind == "next_hand":
        return any(event["type"] == "deal" for event in events)
    if kind in ("draw_stock", "draw_discard"):
        source = "stock" if kind == "draw_stock" else "discard"
        return any(e["type"] == "draw" and e["source"] == source for e in events)
    card = action.get("card")
    kinds = {"gin", "knock"} if kind == "knock" else {kind}  # a knock with 0 deadwood is gin
    return any(e["type"] in kinds and (card is None or e.get("card") == card) for e in events)


# --- an AI room with a scripted worker ------------------------------------------------------------


async def ai_room_with_worker(
    url: str, worker_class: type[Session] = Session
) -> tuple[Session, Session, str, int]:
    """A person's AI room, dealt, and a scripted worker (a ``worker_class`` session) that took
    its AI seat after the deal; with the sequence number the person saw before the binding."""
    person = await Session.connect(url, name="Ada")
    worker = await worker_class.connect(
        url, worker_key=WORKER_KEY, client="ai-worker/test", reconnect=False
    )
    created = await person.request(
        "create_room", mode="ai", level="easy", rules={"target": 30}, stand_in=False
    )
    room: str = created.result["room"]
    await person.wait_for(room, lambda view: view["status"] == "playing", timeout=10)
    seen = person.room(room).seq
    await worker.request("ai_subscribe", capacity=1)
    await worker.next_message(
        lambda msg: isinstance(msg, m.AiSeat) and msg.room == room, timeout=10
    )
    assert (await worker.request("join_room", room=room)).result["seat"] == 1
    await person.wait_seq(room, seen + 1, timeout=10)  # the binding's placeholder
    return person, worker, room, seen


# --- AI seat requests ---------------------------------------------------------------------


async def pending_ai_requests(redis_url: str) -> int:
    """AI seat requests handed out and not settled (acknowledged) yet."""
    client = redis.Redis.from_url(redis_url)
    try:
        summary = await client.xpending(keys.ai_requests(), keys.AI_WORKERS_GROUP)
        return int(summary["pending"])
    finally:
        await client.aclose()


# --- AI rooms a person plays ----------------------------------------------------------------


def persons_turn(view: View) -> bool:
    """The person (seat 0) has a move to make, or the match is over."""
    game = view.get("game")
    return view["status"] == "finished" or bool(game and game["legal_actions"])


async def ai_rooms_at_the_persons_turn(person: Session, count: int, target: int = 10) -> list[str]:
    """``count`` public AI rooms of ``person``, each dealt and waiting for the person's move
    (the AI made its first move when it was to begin)."""
    rooms = []
    for _ in range(count):
        ack = await person.request(
            "create_room", mode="ai", level="easy", rules={"target": target}, public=True
        )
        rooms.append(ack.result["room"])
    await asyncio.gather(*(person.wait_for(room, persons_turn, timeout=60) for room in rooms))
    return rooms


async def first_ai_move(person: Session, room: str, seconds: float, after: int = 0) -> float | None:
    """The person plays ``room`` (at once) until the AI (seat 1) has made a move (past the first
    ``after`` moves of the hand's history): the seconds that took, or None if it has not
    within ``seconds``."""
    rng = random.Random(room)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        async with asyncio.timeout(seconds):
            while True:
                view = await person.wait_for(room, persons_turn, timeout=seconds)
                if view["status"] == "finished":
                    return loop.time() - started
                if any(move["seat"] == 1 for move in view["game"]["history"][after:]):
                    return loop.time() - started
                await play(person, room, rng, until_seq=person.room(room).seq + 1)
    except TimeoutError:
        return None
