"""Views and event copies never show a recipient a card it may not see."""

import random
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.cards import DECK
from server.engine import GameState, Phase, apply, deal_event, legal_actions, new_match
from server.engine.views import event_for, game_view
from tests.support.seeds import next_hand_seed, seed_of

CARDS = frozenset(DECK)


def cards_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value in CARDS:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from cards_in(item)


def visible_to(state: GameState, seat: int | None, seen: set[str]) -> set[str]:
    """Cards the recipient may know of right now: its own hand, every card that was ever face
    up in this hand, and everything once the hand is over."""
    if state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
        return set(CARDS)
    allowed = set(seen) | set(state.discard_pile)
    if seat is not None:
        allowed |= set(state.hands[seat])
    return allowed


def play(seed: int, steps: int) -> Iterator[tuple[GameState, int, list[dict[str, Any]]]]:
    rng = random.Random(seed)
    state = new_match(seed_of(seed))
    for _ in range(steps):
        if state.phase is Phase.MATCH_OVER:
            return
        seat = next(s for s in (0, 1) if legal_actions(state, s))
        state, events = apply(
            state, seat, rng.choice(legal_actions(state, seat)), next_hand_seed(state)
        )
        yield state, seat, events


@pytest.mark.parametrize("seed", range(25))
def test_no_view_or_event_shows_a_card_its_recipient_may_not_see(seed: int) -> None:
    seen: dict[int | None, set[str]] = {0: set(), 1: set(), None: set()}
    hand = 1
    for state, actor, events in play(seed, 600):
        if state.hand_number != hand:
            hand = state.hand_number
            seen = {0: set(), 1: set(), None: set()}
        for recipient in (0, 1, None):
            for event in events:
                if event.get("type") in ("take_upcard", "discard", "knock", "gin"):
                    seen[recipient].add(event["card"])
                if event.get("type") == "draw" and event["source"] == "discard":
                    seen[recipient].add(event["card"])
            allowed = visible_to(state, recipient, seen[recipient])
            frames = [game_view(state, recipient), *(event_for(e, recipient) for e in events)]
            leaked = set(cards_in(frames)) - allowed
            # The drawer's own stock draw is in its hand, hence allowed; nothing else may leak.
            assert not leaked, (seed, recipient, actor, leaked)


def test_spectator_view_has_no_hand_and_no_actions() -> None:
    view = game_view(new_match(seed_of(3)), None)
    assert "cards" not in view and view["legal_actions"] == []
    assert set(cards_in(view)) == set(new_match(seed_of(3)).discard_pile)


def test_player_view_has_own_hand_arrangement_and_legal_actions() -> None:
    state = new_match(seed_of(3))
    seat = state.non_dealer
    view = game_view(state, seat)
    assert sorted(view["cards"]) == sorted(state.hands[seat])
    assert view["deadwood_points"] >= 0
    assert {a["kind"] for a in view["legal_actions"]} == {"take_upcard", "pass"}
    assert view["hand_sizes"] == [10, 10] and view["stock_size"] == 31


def test_deal_event_gives_each_seat_only_its_own_cards() -> None:
    state = new_match(seed_of(11))
    event = deal_event(state)
    for seat in (0, 1):
        copy = event_for(event, seat)
        assert copy["cards"] == list(state.hands[seat])
        assert "stock" not in copy and "hands" not in copy
    assert "cards" not in event_for(event, None)


def test_stock_draw_card_goes_to_the_drawer_only() -> None:
    event = {"type": "draw", "seat": 1, "source": "stock", "card": "QS"}
    assert event_for(event, 1)["card"] == "QS"
    assert "card" not in event_for(event, 0)
    assert "card" not in event_for(event, None)


def test_unknown_event_types_are_hidden() -> None:
    assert event_for({"type": "secret", "card": "AS"}, 0) == {"type": "hidden"}


def test_hand_over_view_shows_both_hands() -> None:
    for state, _, _ in play(7, 2000):
        if state.phase is Phase.HAND_OVER:
            view = game_view(state, None)
            hands = view["last_hand"]["hands"]
            assert sorted(hands[0]) == sorted(state.hands[0])
            assert sorted(hands[1]) == sorted(state.hands[1])
            return
    pytest.fail("no hand ended in 2000 random moves")
