"""RULES.md, "A normal turn" 3 (knock, gin) and "Scoring a hand"."""

import pytest

from protocol.melds import min_deadwood
from protocol.scoring import score_hand
from server.engine import (
    GameState,
    KnockTooHigh,
    MalformedAction,
    NotGin,
    Phase,
    apply,
    hand_over_event,
    legal_actions,
)
from server.engine.actions import Action
from tests.server.engine.hands import (
    DEFENDER_1,
    DEFENDER_10,
    DEFENDER_79,
    GIN,
    KNOCK_AT_10,
    KNOCK_AT_11,
)
from tests.server.engine.helpers import act, act_with_events, cards_of, position


def discarding(hand: str, defender: str = DEFENDER_79) -> GameState:
    return position(hand, defender, phase=Phase.DISCARD, turn=0)


def test_the_test_hands_have_the_deadwood_they_claim() -> None:
    assert min_deadwood(KNOCK_AT_10.split()) == 10
    assert min_deadwood(KNOCK_AT_11.split()) == 11
    assert min_deadwood(GIN.split()) == 0
    assert min_deadwood(DEFENDER_79.split()) == 79


def test_knock_is_allowed_with_exactly_10_deadwood() -> None:
    state = discarding(KNOCK_AT_10)
    assert cards_of(legal_actions(state, 0), "knock") == ["KD"]
    assert cards_of(legal_actions(state, 0), "gin") == []
    state, events = act_with_events(state, 0, "knock", "KD")
    assert events[0] == {"type": "knock", "seat": 0, "card": "KD"}
    assert state.phase is Phase.HAND_OVER
    assert state.discard_pile[-1] == "KD"


def test_knock_is_refused_with_11_deadwood() -> None:
    state = discarding(KNOCK_AT_11)
    assert cards_of(legal_actions(state, 0), "knock") == []
    with pytest.raises(KnockTooHigh, match=r"11 deadwood points.*limit is 10"):
        apply(state, 0, Action("knock", "KD"))


def test_knock_scores_the_difference_for_the_knocker() -> None:
    state, events = act_with_events(discarding(KNOCK_AT_10), 0, "knock", "KD")
    assert state.results[-1].to_dict() == {"kind": "knock", "winner": 0, "points": 69}
    assert state.scores == (69, 0)
    over = events[1]
    assert over["type"] == "hand_over"
    assert (over["kind"], over["winner"], over["points"], over["knocker"]) == ("knock", 0, 69, 0)
    assert over["deadwood_points"] == [10, 79]
    assert over["scores"] == [69, 0]


def test_gin_is_declared_with_no_deadwood_after_the_discard() -> None:
    state = discarding(GIN)
    assert cards_of(legal_actions(state, 0), "gin") == ["KD"]
    state, events = act_with_events(state, 0, "gin", "KD")
    assert events[0] == {"type": "gin", "seat": 0, "card": "KD"}
    assert state.results[-1].to_dict() == {"kind": "gin", "winner": 0, "points": 25 + 79}
    assert events[1]["layoffs"] == []


def test_gin_is_refused_with_deadwood() -> None:
    with pytest.raises(NotGin, match="10 deadwood points"):
        apply(discarding(KNOCK_AT_10), 0, Action("gin", "KD"))


def test_knock_with_no_deadwood_is_gin() -> None:
    state = discarding(GIN)
    assert Action("knock", "KD") in legal_actions(state, 0)
    state, events = act_with_events(state, 0, "knock", "KD")
    assert events[0]["type"] == "gin"
    assert state.results[-1].kind == "gin"
    assert state.results[-1].points == 25 + 79
    assert state.history[-1].kind == "gin"


def test_gin_bars_layoffs() -> None:
    # 5C would extend the AC-4C run, 3D and 7D the 4D-6D run: none may be laid off on gin.
    defender = "5C 3D 7D 8H 9S TC JC QH KS 6S"
    state, events = act_with_events(discarding(GIN, defender), 0, "gin", "KD")
    assert events[1]["layoffs"] == []
    assert state.results[-1].points == 25 + min_deadwood(defender.split())


def test_the_defender_lays_off_against_a_knock() -> None:
    defender = "3D 7D 8H 9S TC JC QH KS 6S 9C"
    state, events = act_with_events(discarding(KNOCK_AT_10, defender), 0, "knock", "KD")
    expected = score_hand(KNOCK_AT_10.replace(" KD", "").split(), defender.split())
    assert {layoff["card"] for layoff in events[1]["layoffs"]} == {"3D", "7D"}
    assert events[1]["deadwood_points"] == [10, expected.defender_deadwood]
    assert state.results[-1].points == expected.points


def test_undercut_scores_the_difference_plus_25_for_the_defender() -> None:
    state = act(discarding(KNOCK_AT_10, DEFENDER_1), 0, "knock", "KD")
    assert state.results[-1].to_dict() == {"kind": "undercut", "winner": 1, "points": 25 + 9}
    assert state.scores == (0, 34)


def test_a_tie_is_an_undercut_worth_25() -> None:
    state = act(discarding(KNOCK_AT_10, DEFENDER_10), 0, "knock", "KD")
    assert state.results[-1].to_dict() == {"kind": "undercut", "winner": 1, "points": 25}


def test_there_is_no_big_gin_eleven_cards_must_discard_first() -> None:
    melded = "AC 2C 3C 4C 4D 5D 6D 7H 7S 7C"
    state = position(melded, DEFENDER_79, pile="QS", stock="3D", turn=0)
    assert min_deadwood(melded.split()) == 0
    assert legal_actions(state, 0) == [Action("draw_stock"), Action("draw_discard")]
    state = act(state, 0, "draw_stock")
    assert len(state.hands[0]) == 11
    actions = legal_actions(state, 0)
    assert all(action.card is not None for action in actions)
    assert cards_of(actions, "gin") == ["AC", "4C", "3D", "6D"]
    with pytest.raises(MalformedAction, match="gin needs a card"):
        apply(state, 0, Action("gin"))


def test_hand_over_event_can_be_rebuilt_from_the_state() -> None:
    for hand, defender in [
        (KNOCK_AT_10, DEFENDER_79),
        (GIN, DEFENDER_79),
        (KNOCK_AT_10, DEFENDER_1),
    ]:
        state, events = act_with_events(discarding(hand, defender), 0, "knock", "KD")
        assert hand_over_event(state) == events[1]


def test_hand_over_event_shows_both_hands_melds_and_deadwood() -> None:
    state, events = act_with_events(discarding(KNOCK_AT_10), 0, "knock", "KD")
    assert events[1] == {
        "type": "hand_over",
        "hand": 1,
        "kind": "knock",
        "winner": 0,
        "points": 69,
        "knocker": 0,
        "hands": [list(state.hands[0]), list(state.hands[1])],
        "melds": [[["7C", "7H", "7S"], ["4D", "5D", "6D"]], []],
        "deadwood": [
            ["AH", "3H", "2S", "4S"],
            ["5C", "9C", "JC", "2D", "TD", "8H", "QH", "6S", "9S", "KS"],
        ],
        "deadwood_points": [10, 79],
        "layoffs": [],
        "scores": [69, 0],
    }
