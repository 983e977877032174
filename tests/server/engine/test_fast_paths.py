"""The engine's fast paths against the straightforward code they replaced (kept here as the
reference), on every state of seeded random matches: the legal actions and their view maps,
the hand parts and public parts of the views, and the states built without ``replace``."""

from __future__ import annotations

import random
from dataclasses import fields, replace
from itertools import pairwise
from typing import Any

import pytest

from protocol.cards import card_index, sort_cards, to_mask
from protocol.melds import (
    KNOCK_LIMIT,
    best_arrangement,
    min_deadwood_mask,
)
from protocol.scoring import MatchRules
from server.engine import (
    Action,
    GameState,
    HandRecord,
    Move,
    NoSuchSeat,
    Phase,
    hand_over_event,
    legal_actions,
    new_match,
    views,
)
from server.engine import rules as engine_rules
from server.engine.state import rules_dict
from server.engine.views import hand_parts, legal_action_dicts, public_game_parts
from tests.protocol.test_melds_fast_paths import ref_best_arrangement, ref_from_mask
from tests.server.engine.playing import random_step
from tests.support.seeds import seed_of

RULE_SETS = (
    MatchRules(),
    MatchRules(target=50, game_bonus=True, box_bonus=True, shutout_bonus=True),
)


def ref_legal_actions(state: GameState, seat: int) -> list[Action]:
    if state.phase is Phase.HAND_OVER:
        return [Action("next_hand")]
    if state.turn != seat or state.phase is Phase.MATCH_OVER:
        return []
    if state.phase in (Phase.FIRST_OFFER, Phase.SECOND_OFFER):
        return [Action("take_upcard"), Action("pass")]
    if state.phase is Phase.FIRST_DRAW:
        return [Action("draw_stock")]
    if state.phase is Phase.DRAW:
        return [Action("draw_stock"), Action("draw_discard")]
    hand = state.hands[seat]
    choices = [card for card in hand if card != state.taken_card]
    mask = to_mask(hand)
    left = [(card, min_deadwood_mask(mask ^ (1 << card_index(card)))) for card in choices]
    return [
        *(Action("discard", card) for card in choices),
        *(Action("knock", card) for card, points in left if points <= KNOCK_LIMIT),
        *(Action("gin", card) for card, points in left if points == 0),
    ]


def ref_hand_parts(hand: tuple[str, ...]) -> tuple[Any, ...]:
    mask = to_mask(hand)
    arrangement = ref_best_arrangement(mask)
    assert len(hand) == 11 or arrangement == best_arrangement(hand)
    return ref_from_mask(mask), arrangement.melds, arrangement.deadwood, arrangement.deadwood_points


def ref_public_game_parts(state: GameState) -> tuple[dict[str, Any], ...]:
    head = {
        "hand": state.hand_number,
        "dealer": state.dealer,
        "phase": state.phase.value,
        "turn": state.turn,
    }
    table = {
        "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
        "stock_size": len(state.stock),
        "discard_pile": list(state.discard_pile),
        "taken_card": state.taken_card,
        "discard_draws": state.discard_draws,
    }
    record = {
        "scores": list(state.scores),
        "results": [result.to_dict() for result in state.results],
        "rules": state.rules.to_dict(),
    }
    tail: dict[str, Any] = {}
    if state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER) and state.results:
        tail["last_hand"] = hand_over_event(state)
    totals = state.totals
    if totals is not None:
        tail["match"] = {
            "winner": totals.winner,
            "points": list(totals.points),
            "game_bonus": list(totals.game_bonus),
            "box_bonus": list(totals.box_bonus),
            "shutout": totals.shutout,
            "totals": list(totals.totals),
        }
    return head, table, record, tail


def ordered(value: Any) -> Any:
    """A value with its maps' key order made visible (the encoding depends on it)."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list | tuple):
        return [ordered(item) for item in value]
    return value


def match_states(seed: int, rules: MatchRules) -> list[GameState]:
    rnd = random.Random(seed)
    state = new_match(seed_of(seed), rules)
    states = [state]
    while state.phase is not Phase.MATCH_OVER:
        state, _, _, _ = random_step(state, rnd)
        states.append(state)
    return states


@pytest.mark.parametrize("seed", range(16))
def test_every_state_of_a_match_matches_the_reference(seed: int) -> None:
    for state in match_states(seed, RULE_SETS[seed % len(RULE_SETS)]):
        for seat in (0, 1):
            actions = legal_actions(state, seat)
            assert actions == ref_legal_actions(state, seat)
            assert legal_action_dicts(state, seat) == [action.to_dict() for action in actions]
            assert hand_parts(state.hands[seat]) == ref_hand_parts(state.hands[seat])
        head, table, tail = public_game_parts(state)
        parts = (head, table, views.record_part(state), tail)
        assert ordered(parts) == ordered(ref_public_game_parts(state))


def test_knock_positions_list_knocks_and_gins_as_the_reference() -> None:
    """Hands that can knock are rare in play: deal many meld-rich 11-card hands (only the
    hand, the phase, the turn and the taken card matter to the legal actions)."""
    rnd = random.Random(99)
    state = new_match(seed_of(1))
    knocks = gins = 0
    for _ in range(600):
        low = rnd.randint(0, 8)
        suits = rnd.sample("CDHS", rnd.randint(2, 4))
        pool = [rank + suit for suit in suits for rank in "A23456789TJQK"[low : low + 5]]
        hand = sort_cards(rnd.sample(pool, 11) if len(pool) >= 11 else pool)
        if len(hand) != 11:
            continue
        taken = rnd.choice([None, hand[rnd.randrange(11)]])
        position = replace(state, phase=Phase.DISCARD, turn=0, hands=(hand, ()), taken_card=taken)
        actions = legal_actions(position, 0)
        assert actions == ref_legal_actions(position, 0)
        assert legal_action_dicts(position, 0) == [action.to_dict() for action in actions]
        knocks += any(action.kind == "knock" for action in actions)
        gins += any(action.kind == "gin" for action in actions)
    assert knocks > 50
    assert gins > 5


@pytest.mark.parametrize("seat", [2, -1, True, None])
def test_legal_action_dicts_refuses_a_bad_seat_as_legal_actions(seat: Any) -> None:
    state = new_match(seed_of(3))
    with pytest.raises(NoSuchSeat):
        legal_actions(state, seat)
    with pytest.raises(NoSuchSeat):
        legal_action_dicts(state, seat)


def test_evolve_is_replace() -> None:
    """``_evolve`` fills in every field of the frozen dataclass, as ``replace`` would."""
    state = match_states(5, MatchRules())[30]
    changes: dict[str, Any] = {
        "phase": Phase.HAND_OVER,
        "turn": None,
        "hands": (state.hands[1], state.hands[0]),
        "stock": state.stock[:-1],
        "discard_pile": (*state.discard_pile, "XX"),
        "taken_card": "QS",
        "discard_draws": 41,
        "scores": (7, 9),
        "results": (HandRecord("knock", 0, 7),),
        "history": (Move(0, "pass"),),
    }
    built = engine_rules._evolve(state, **changes)
    assert type(built) is GameState
    assert built == replace(state, **changes)
    kept = {field.name for field in fields(GameState)} - set(changes)
    assert kept == {"rules", "hand_number", "dealer"}
    for name in kept:
        assert getattr(built, name) is getattr(state, name)
    with pytest.raises(AttributeError):
        built.phase = Phase.DRAW  # type: ignore[misc]
    assert hash(built) == hash(replace(state, **changes))


def test_without_card_removes_exactly_that_card() -> None:
    hand = ("AC", "5C", "KD", "2H", "JS")
    for card in hand:
        assert engine_rules._without_card(hand, card) == tuple(c for c in hand if c != card)


def test_a_move_keeps_the_record_of_the_hand_that_the_encoders_reuse() -> None:
    """``FrameParts`` and ``RoomBlobs`` reuse a hand's encoded record while the state's
    results, scores and rules are the very same objects: a move within a hand keeps them."""
    states = match_states(2, MatchRules())
    first, second = next(pair for pair in pairwise(states) if pair[0].hand_number == 2)
    assert second.hand_number == 2 and len(first.results) == 1
    assert first.results is second.results
    assert first.scores is second.scores
    assert first.rules is second.rules


def test_a_view_owns_its_lists_and_shares_the_rules_map() -> None:
    state = next(state for state in match_states(2, MatchRules()) if state.results)
    view = views.game_view(state, 0)
    view["scores"].append(99)
    view["results"].append({"kind": "dead"})
    again = views.game_view(state, 0)
    assert again["scores"] == list(state.scores)
    assert again["results"] == [result.to_dict() for result in state.results]
    assert again["rules"] is rules_dict(state.rules)
    assert views.record_part(state)["scores"] == list(state.scores)


def test_hand_parts_refuses_what_is_not_a_hand() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        hand_parts(("AS", "AS"))
    with pytest.raises(ValueError, match="a card must be"):
        hand_parts((["AS"],))  # type: ignore[arg-type]
    assert hand_parts(["AS", "2S", "3S"]) == hand_parts(("AS", "2S", "3S"))  # type: ignore[arg-type]
