"""RULES.md, "The match": points add up, 100 wins, bonuses off by default."""

import pytest

from protocol.scoring import MatchRules, final_scores
from server.engine import Action, GameState, MatchOver, Phase, apply, legal_actions
from server.engine.actions import ACTION_KINDS, CARD_KINDS
from tests.server.engine.hands import DEFENDER_1, DEFENDER_79, KNOCK_AT_10
from tests.server.engine.helpers import DEFAULT_RULES, act, act_with_events, position

RULES_WITH_BONUSES = MatchRules(game_bonus=True, box_bonus=True, shutout_bonus=True)


def knocking(
    results: list[tuple[str, int | None, int]],
    defender: str = DEFENDER_79,
    rules: MatchRules = DEFAULT_RULES,
) -> GameState:
    return position(
        KNOCK_AT_10, defender, phase=Phase.DISCARD, turn=0, results=results, rules=rules
    )


def test_points_add_up_over_hands() -> None:
    state = act(knocking([("knock", 0, 10), ("dead", None, 0), ("gin", 1, 30)]), 0, "knock", "KD")
    assert state.scores == (10 + 69, 30)
    assert [r.points for r in state.results] == [10, 0, 30, 69]
    assert state.hand_number == 4


def test_the_match_ends_when_a_seat_reaches_100() -> None:
    state, events = act_with_events(knocking([("knock", 0, 31)]), 0, "knock", "KD")
    assert state.scores == (100, 0)
    assert state.phase is Phase.MATCH_OVER
    assert state.turn is None
    assert state.winner == 0
    assert [event["type"] for event in events] == ["knock", "hand_over", "match_over"]
    assert events[2] == {
        "type": "match_over",
        "winner": 0,
        "points": [100, 0],
        "game_bonus": [0, 0],
        "box_bonus": [0, 0],
        "shutout": False,
        "totals": [100, 0],
    }


def test_99_points_do_not_end_the_match() -> None:
    state = act(knocking([("knock", 0, 30)]), 0, "knock", "KD")
    assert state.scores == (99, 0)
    assert state.phase is Phase.HAND_OVER
    assert state.winner is None
    assert state.totals is None


def test_an_undercut_can_win_the_match_for_the_defender() -> None:
    state = act(knocking([("knock", 1, 70)], defender=DEFENDER_1), 0, "knock", "KD")
    assert state.scores == (0, 104)
    assert state.winner == 1


def test_no_action_is_possible_after_the_match_is_over() -> None:
    state = act(knocking([("knock", 0, 31)]), 0, "knock", "KD")
    before = state.to_dict()
    for seat in (0, 1):
        assert legal_actions(state, seat) == []
        for kind in sorted(ACTION_KINDS):
            card = "AS" if kind in CARD_KINDS else None
            with pytest.raises(MatchOver, match="match is over"):
                apply(state, seat, Action(kind, card))
    assert state.to_dict() == before


def test_match_bonuses_are_off_by_default() -> None:
    state = act(knocking([("knock", 0, 31)]), 0, "knock", "KD")
    assert state.totals is not None
    assert state.totals.totals == (100, 0)


def test_configured_match_bonuses_are_in_the_final_totals() -> None:
    results: list[tuple[str, int | None, int]] = [("knock", 0, 31)]
    state, events = act_with_events(knocking(results, rules=RULES_WITH_BONUSES), 0, "knock", "KD")
    totals = state.totals
    assert totals is not None
    # 100 points + 100 game bonus + 2 hands won x 25, doubled by the shutout.
    assert totals.totals == (500, 0)
    assert totals == final_scores([(0, 31), (0, 69)], RULES_WITH_BONUSES)
    assert events[-1]["totals"] == [500, 0]
    assert events[-1]["shutout"] is True


def test_next_hand_is_open_to_both_seats_and_the_first_one_applies() -> None:
    over = act(knocking([]), 0, "knock", "KD")
    assert legal_actions(over, 0) == legal_actions(over, 1) == [Action("next_hand")]
    dealt, events = act_with_events(over, 1, "next_hand")
    assert dealt == act(over, 0, "next_hand")
    assert events[0]["type"] == "deal"
    assert dealt.history == ()
    assert dealt.scores == over.scores
    with pytest.raises(ValueError):
        apply(dealt, 0, Action("next_hand"))
