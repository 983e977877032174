"""Events carry full information: a hand can be replayed from them card by card."""

import random

from server.engine import Phase, deal_event, new_match
from server.engine.events import Event
from tests.server.engine.playing import random_step
from tests.support.seeds import seed_of


def replay(events: list[Event]) -> tuple[list[list[str]], list[str], list[str]]:
    """Rebuild both hands, the stock and the discard pile from one hand's events."""
    deal, *moves = events
    assert deal["type"] == "deal"
    hands = [list(deal["hands"][0]), list(deal["hands"][1])]
    stock = list(deal["stock"])
    pile = [deal["upcard"]]
    for event in moves:
        kind = event["type"]
        if kind == "take_upcard":
            assert pile == [event["card"]]
            hands[event["seat"]].append(pile.pop())
        elif kind == "draw":
            source = stock if event["source"] == "stock" else pile
            assert source[-1] == event["card"]
            hands[event["seat"]].append(source.pop())
        elif kind in ("discard", "knock", "gin"):
            hands[event["seat"]].remove(event["card"])
            pile.append(event["card"])
        else:
            assert kind in ("pass", "hand_over", "match_over"), kind
    return hands, stock, pile


def test_a_hand_can_be_replayed_from_its_events() -> None:
    for seed in range(30):
        rnd = random.Random(seed)
        state = new_match(seed_of(seed))
        events = [deal_event(state)]
        while state.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            state, _, _, new_events = random_step(state, rnd)
            events.extend(new_events)
        hands, stock, pile = replay(events)
        assert [sorted(hand) for hand in hands] == [sorted(hand) for hand in state.hands]
        assert stock == list(state.stock)
        assert pile == list(state.discard_pile)
        assert events[-1]["hands"] == [list(hand) for hand in state.hands]


def test_event_examples() -> None:
    state = new_match(seed_of(4))
    event = deal_event(state)
    assert set(event) == {"type", "hand", "dealer", "hands", "upcard", "stock", "scores"}
    rnd = random.Random(1)
    seen: dict[str, Event] = {}
    for _ in range(400):
        state, _, _, events = random_step(state, rnd)
        for event in events:
            seen.setdefault(event["type"], event)
        if state.phase is Phase.MATCH_OVER:
            break
    assert {"deal", "pass", "draw", "discard", "hand_over"} <= set(seen)
    assert set(seen["pass"]) == {"type", "seat"}
    assert set(seen["draw"]) == {"type", "seat", "source", "card"}
    assert set(seen["discard"]) == {"type", "seat", "card"}
    assert set(seen["hand_over"]) == {
        "type",
        "hand",
        "kind",
        "winner",
        "points",
        "knocker",
        "hands",
        "melds",
        "deadwood",
        "deadwood_points",
        "layoffs",
        "scores",
    }
