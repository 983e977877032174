"""RULES.md, "Dead hand" and the 50-draw safety cap."""

from server.engine import DISCARD_DRAW_CAP, GameState, Phase, legal_actions
from server.engine.actions import Action
from tests.server.engine.hands import DEFENDER_79
from tests.server.engine.helpers import act, act_with_events, cards_of, position

NINE = "AH 2S 3H 4S 4D 5D 6D 7H 7S 7C"  # KNOCK_AT_10 without the KD


def drawing(stock_size: int, discard_draws: int = 0, stock: str = "") -> GameState:
    return position(
        NINE,
        DEFENDER_79,
        pile="QS",
        stock=stock,
        stock_size=stock_size,
        discard_draws=discard_draws,
        turn=0,
        results=[("knock", 1, 12)],
    )


def test_dead_hand_when_a_discard_leaves_2_cards_in_the_stock() -> None:
    state = act(drawing(stock_size=3), 0, "draw_stock")
    assert len(state.stock) == 2
    state, events = act_with_events(state, 0, "discard", "AH")
    assert state.phase is Phase.HAND_OVER
    assert state.turn is None
    assert state.results[-1].to_dict() == {"kind": "dead", "winner": None, "points": 0}
    assert state.scores == (0, 12)
    assert events[0] == {"type": "discard", "seat": 0, "card": "AH"}
    over = events[1]
    assert (over["type"], over["kind"], over["winner"], over["points"]) == (
        "hand_over",
        "dead",
        None,
        0,
    )
    assert over["knocker"] is None
    assert over["layoffs"] == []
    assert legal_actions(state, 0) == legal_actions(state, 1) == [Action("next_hand")]


def test_play_goes_on_when_a_discard_leaves_3_cards_in_the_stock() -> None:
    state = act(act(drawing(stock_size=4), 0, "draw_stock"), 0, "discard", "AH")
    assert len(state.stock) == 3
    assert state.phase is Phase.DRAW
    assert state.turn == 1


def test_a_draw_from_the_discard_pile_with_3_in_the_stock_does_not_end_the_hand() -> None:
    state = act(act(drawing(stock_size=3), 0, "draw_discard"), 0, "discard", "AH")
    assert state.phase is Phase.DRAW
    assert len(state.stock) == 3


def test_the_player_who_drew_the_third_to_last_card_may_knock() -> None:
    state = act(drawing(stock_size=3, stock="KD"), 0, "draw_stock")
    assert len(state.stock) == 2
    assert cards_of(legal_actions(state, 0), "knock") == ["KD"]
    state = act(state, 0, "knock", "KD")
    assert state.phase is Phase.HAND_OVER
    assert state.results[-1].to_dict() == {"kind": "knock", "winner": 0, "points": 69}


def test_the_safety_cap_ends_the_hand_on_the_discard_after_the_50th_discard_draw() -> None:
    assert DISCARD_DRAW_CAP == 50
    state = act(drawing(stock_size=20, discard_draws=49), 0, "draw_discard")
    assert state.discard_draws == 50
    state, events = act_with_events(state, 0, "discard", "AH")
    assert state.phase is Phase.HAND_OVER
    assert state.results[-1].kind == "dead"
    assert events[-1]["kind"] == "dead"


def test_the_safety_cap_also_ends_the_hand_after_a_stock_draw_once_50_were_taken() -> None:
    state = act(act(drawing(stock_size=20, discard_draws=50), 0, "draw_stock"), 0, "discard", "AH")
    assert state.results[-1].kind == "dead"


def test_the_49th_discard_draw_does_not_end_the_hand() -> None:
    state = act(
        act(drawing(stock_size=20, discard_draws=48), 0, "draw_discard"), 0, "discard", "AH"
    )
    assert state.discard_draws == 49
    assert state.phase is Phase.DRAW


def test_a_knock_is_still_allowed_after_the_50th_discard_draw() -> None:
    state = position(NINE, DEFENDER_79, pile="QS 3D", stock_size=20, discard_draws=49, turn=0)
    state = act(state, 0, "draw_discard")
    assert state.discard_draws == 50
    assert "4S" in cards_of(legal_actions(state, 0), "knock")
    state = act(state, 0, "knock", "4S")
    assert state.results[-1].kind == "knock"
    assert state.results[-1].winner == 0
