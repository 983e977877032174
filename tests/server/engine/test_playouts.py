"""Seeded random play-outs: thousands of hands of random legal play, checked at every step."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import DECK
from protocol.scoring import MatchRules, final_scores
from server.engine import (
    Action,
    GameState,
    IllegalAction,
    Phase,
    apply,
    from_text,
    hand_over_event,
    legal_actions,
    new_match,
    to_text,
)
from tests.server.engine.playing import EVERY_ACTION, acting_seat, choose
from tests.support.seeds import next_hand_seed, seed_of

RULE_SETS = (
    MatchRules(),
    MatchRules(target=50, game_bonus=True, box_bonus=True, shutout_bonus=True),
    MatchRules(target=200, box_bonus=True),
)
MIN_HANDS = 2000
MAX_ACTIONS_PER_HAND = 200  # 31 stock draws and 50 discard draws, two actions each, and the offers


def cards_of_state(state: GameState) -> list[str]:
    return [*state.hands[0], *state.hands[1], *state.stock, *state.discard_pile]


def check_state(state: GameState) -> list[list[Action]]:
    """Check the invariants of any state; returns both seats' legal actions."""
    cards = cards_of_state(state)
    assert len(cards) == 52
    assert set(cards) == set(DECK)
    totals = [0, 0]
    for record in state.results:
        if record.winner is not None:
            totals[record.winner] += record.points
    assert list(state.scores) == totals
    playing = state.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER)
    lists = [legal_actions(state, seat) for seat in (0, 1)]
    if playing:
        assert bool(lists[0]) != bool(lists[1]), "exactly one seat acts"
        assert lists[state.turn or 0]
    elif state.phase is Phase.HAND_OVER:
        assert lists == [[Action("next_hand")]] * 2
    else:
        assert lists == [[], []]
    return lists


def check_refusal(
    state: GameState, legal: list[list[Action]], rnd: random.Random, snapshot: bool
) -> None:
    """A random action that is not legal is refused, and the state stays as it was."""
    seat = rnd.randrange(2)
    action = rnd.choice(EVERY_ACTION)
    if action in legal[seat]:
        return
    before = state.to_dict() if snapshot else None
    try:
        apply(state, seat, action, next_hand_seed(state))
    except IllegalAction:
        assert before is None or state.to_dict() == before
    else:
        raise AssertionError(f"{action} by seat {seat} was accepted in {to_text(state)}")


def check_every_action(state: GameState) -> None:
    """Exactly the listed actions are accepted."""
    for seat in (0, 1):
        legal = set(legal_actions(state, seat))
        for action in EVERY_ACTION:
            try:
                apply(state, seat, action, next_hand_seed(state))
            except IllegalAction:
                assert action not in legal, f"{action} listed but refused: {to_text(state)}"
            else:
                assert action in legal, f"{action} accepted but not listed: {to_text(state)}"


def play_match(seed: int, rules: MatchRules, thorough: bool) -> tuple[int, Counter[str]]:
    """Play one match with random legal actions, checking invariants; returns hands played."""
    rnd = random.Random(seed)
    state = new_match(seed_of(seed), rules)
    hand_winners: list[tuple[int | None, int]] = []
    kinds: Counter[str] = Counter()
    actions_in_hand = 0
    step = 0
    while True:
        legal_by_seat = check_state(state)
        check_refusal(state, legal_by_seat, rnd, snapshot=thorough or step % 10 == 0)
        if thorough and step % 10 == 0:
            check_every_action(state)
        if state.phase is Phase.MATCH_OVER:
            break
        seat = acting_seat(state, rnd)
        legal = legal_by_seat[seat]
        action = choose(state, legal, rnd)
        assert action in legal
        new, events = apply(state, seat, action, next_hand_seed(state))
        step += 1
        actions_in_hand += 1
        assert actions_in_hand <= MAX_ACTIONS_PER_HAND, "the hand never ends"
        if new.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            over = next(event for event in events if event["type"] == "hand_over")
            hand_winners.append((over["winner"], over["points"]))
            kinds[over["kind"]] += 1
            assert hand_over_event(new) == over
            assert new.hand_number == len(hand_winners)
            assert [(r.winner, r.points) for r in new.results] == hand_winners
        if action.kind == "next_hand":
            assert new.dealer == 1 - state.dealer
            assert new.hand_number == state.hand_number + 1
            actions_in_hand = 0
        if thorough:
            assert GameState.from_dict(new.to_dict()) == new
            assert from_text(to_text(new)) == new
        state = new
        assert len(hand_winners) < 1000, "the match never ends"
    assert state.totals == final_scores(hand_winners, rules)
    assert events[-1]["type"] == "match_over"
    assert events[-1]["totals"] == list(state.totals.totals)
    return len(hand_winners), kinds


def test_random_playouts_keep_every_invariant() -> None:
    hands = 0
    kinds: Counter[str] = Counter()
    seed = 0
    while hands < MIN_HANDS:
        played, match_kinds = play_match(seed, RULE_SETS[seed % 3], thorough=seed < 2)
        hands += played
        kinds += match_kinds
        seed += 1
    assert hands >= MIN_HANDS
    assert set(kinds) == {"knock", "gin", "undercut", "dead"}, kinds


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**64 - 1), st.data())
def test_random_walks_round_trip_and_accept_exactly_the_legal_actions(
    seed: int, data: st.DataObject
) -> None:
    state = new_match(seed_of(seed))
    for _ in range(data.draw(st.integers(min_value=0, max_value=120), label="steps")):
        if state.phase is Phase.MATCH_OVER:
            break
        seat = state.turn if state.turn is not None else data.draw(st.integers(0, 1))
        legal = legal_actions(state, seat)
        action = data.draw(st.sampled_from(legal))
        state, _ = apply(state, seat, action, next_hand_seed(state))
        assert GameState.from_dict(state.to_dict()) == state
        assert from_text(to_text(state)) == state
    check_state(state)
    check_every_action(state)
