"""``GameState.to_dict`` / ``from_dict``: plain data, lossless, and validated on the way in."""

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.scoring import MatchRules
from server.engine import GameState, Phase, new_match
from server.engine.notation import from_text, to_text
from server.engine.state import move_of
from tests.server.engine.hands import DEFENDER_79, KNOCK_AT_10
from tests.server.engine.helpers import act, position
from tests.support.seeds import seed_of

PLAIN = (dict, list, str, int, bool, type(None))


def assert_plain(value: object) -> None:
    assert isinstance(value, PLAIN), f"{value!r} is not plain data"
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str)
            assert_plain(item)
    if isinstance(value, list):
        for item in value:
            assert_plain(item)


def sample_states() -> list[GameState]:
    start = new_match(seed_of(3), MatchRules(target=150, box_bonus=True))
    taken = act(start, start.non_dealer, "take_upcard")
    discarding = position(KNOCK_AT_10, DEFENDER_79, phase=Phase.DISCARD, turn=0)
    over = act(
        position(KNOCK_AT_10, DEFENDER_79, phase=Phase.DISCARD, turn=0, results=[("knock", 0, 10)]),
        0,
        "knock",
        "KD",
    )
    finished = act(
        position(KNOCK_AT_10, DEFENDER_79, phase=Phase.DISCARD, turn=0, results=[("gin", 0, 40)]),
        0,
        "knock",
        "KD",
    )
    return [start, taken, discarding, over, finished, act(over, 1, "next_hand")]


@pytest.mark.parametrize("state", sample_states())
def test_to_dict_is_plain_data_and_round_trips(state: GameState) -> None:
    data = state.to_dict()
    assert_plain(data)
    assert GameState.from_dict(data) == state
    assert GameState.from_dict(data).to_dict() == data


def test_to_dict_form() -> None:
    state = act(new_match(seed_of(3)), new_match(seed_of(3)).non_dealer, "pass")
    data = state.to_dict()
    assert data["format"] == 2
    assert "seed" not in data and "rng" not in data
    assert data["phase"] == "second_offer"
    assert data["rules"] == {
        "target": 100,
        "game_bonus": False,
        "box_bonus": False,
        "shutout_bonus": False,
    }
    assert data["history"] == [{"seat": state.non_dealer, "kind": "pass"}]
    assert data["taken_card"] is None


def test_a_format_1_state_is_read_without_its_seed_and_generator() -> None:
    """A match stored before: it continues, and its next hand is dealt from a fresh seed."""
    state = act(new_match(seed_of(3)), new_match(seed_of(3)).non_dealer, "pass")
    old = {**state.to_dict(), "format": 1, "seed": 12345, "rng": 987654321}
    assert GameState.from_dict(old) == state


def broken(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = new_match(seed_of(3)).to_dict()
    change(data)
    return data


def _duplicate(data: dict[str, Any]) -> None:
    data["stock"][0] = data["hands"][0][0]


def _drop_stock_card(data: dict[str, Any]) -> None:
    data["stock"].pop()


def _add_to_hand(data: dict[str, Any]) -> None:
    data["hands"][0].append(data["stock"].pop())


REJECTED = {
    "duplicated card": (_duplicate, "duplicated"),
    "missing card": (_drop_stock_card, "missing"),
    "11 cards while drawing": (_add_to_hand, "hands hold"),
    "unknown card": (lambda d: d["stock"].__setitem__(0, "1S"), "bad rank"),
    "unknown phase": (lambda d: d.__setitem__("phase", "bidding"), "unknown phase"),
    "unknown field": (lambda d: d.__setitem__("extra", 1), "unknown field extra"),
    "missing field": (lambda d: d.pop("stock"), "lacks stock"),
    "format": (lambda d: d.__setitem__("format", 3), "format"),
    "a seed in format 2": (lambda d: d.__setitem__("seed", 1), "unknown field seed"),
    "bool as seat": (lambda d: d.__setitem__("dealer", True), "dealer"),
    "wrong turn": (lambda d: d.__setitem__("turn", d["dealer"]), "turn"),
    "scores not the sum": (lambda d: d.__setitem__("scores", [5, 0]), "not the sum"),
    "bad result": (
        lambda d: d["results"].append({"kind": "bonus", "winner": 0, "points": 3}),
        "kind",
    ),
    "locked variant": (lambda d: d["rules"].__setitem__("big_gin", True), "locked variant"),
    "taken card outside discard": (
        lambda d: d.__setitem__("taken_card", d["hands"][0][0]),
        "taken",
    ),
    "bad history": (
        lambda d: d["history"].append({"seat": 0, "kind": "draw_stock", "card": "AS"}),
        "no card",
    ),
    "hand number": (lambda d: d.__setitem__("hand_number", 2), "finished hands"),
    "hands not a pair": (lambda d: d["hands"].append([]), "one list per seat"),
}


@pytest.mark.parametrize(("change", "message"), REJECTED.values(), ids=REJECTED.keys())
def test_from_dict_rejects_a_broken_state(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        GameState.from_dict(broken(change))


def test_from_dict_rejects_a_state_where_nobody_reached_the_target_but_the_match_is_over() -> None:
    data = sample_states()[3].to_dict()
    assert data["phase"] == "hand_over"
    data["phase"] = "match_over"
    with pytest.raises(ValueError, match="target"):
        GameState.from_dict(data)


def test_from_dict_rejects_a_first_turn_history_that_is_not_the_passes() -> None:
    data = new_match(seed_of(3)).to_dict()
    data["history"] = [{"seat": data["turn"], "kind": "pass"}]
    with pytest.raises(ValueError, match="passes only"):
        GameState.from_dict(data)


def test_from_dict_rejects_a_finished_hand_whose_history_does_not_end_it() -> None:
    data = sample_states()[3].to_dict()
    assert data["history"][-1]["kind"] == "knock"
    data["history"][-1]["kind"] = "discard"
    with pytest.raises(ValueError, match="does not end with the knock"):
        GameState.from_dict(data)
    data["history"][-1]["kind"] = "knock"
    data["history"][-1]["seat"] = 1
    with pytest.raises(ValueError, match="does not end with the knock"):
        GameState.from_dict(data)


def test_from_dict_accepts_a_hand_in_any_order() -> None:
    state = new_match(seed_of(3))
    data = state.to_dict()
    data["hands"][0].reverse()
    assert GameState.from_dict(data) == state


def _paths(data: object, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=4),
    st.sampled_from(["AS", "draw", "knock", "hand_over"]),
    st.lists(st.sampled_from(["AS", 1, None]), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.data(), JUNK)
def test_from_dict_raises_only_value_error_on_junk(data: st.DataObject, junk: object) -> None:
    state = data.draw(st.sampled_from(sample_states()), label="state")
    broken = state.to_dict()
    path = data.draw(st.sampled_from(_paths(broken)), label="path")
    target: Any = broken
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = junk
    try:
        loaded = GameState.from_dict(broken)
    except ValueError:
        return
    assert GameState.from_dict(loaded.to_dict()) == loaded


def test_moves_are_shared_instances_made_once() -> None:
    """A history holds the module's moves, not new objects: whether played, decoded or
    parsed, the same event is the same instance."""
    state = play_to_the_discard_phase()
    again = GameState.from_dict(state.to_dict())
    parsed = from_text(to_text(state))
    assert len(state.history) == 4
    for played, decoded, read in zip(state.history, again.history, parsed.history, strict=True):
        assert played is decoded is read is move_of(played.seat, played.kind, played.card)


def test_move_of_refuses_a_move_that_cannot_exist() -> None:
    with pytest.raises(KeyError):
        move_of(0, "discard")
    with pytest.raises(KeyError):
        move_of(2, "pass")
    with pytest.raises(KeyError):
        move_of(0, "next_hand")


def play_to_the_discard_phase() -> GameState:
    state = new_match(seed_of(11))
    state = act(state, state.non_dealer, "pass")
    state = act(state, state.dealer, "pass")
    state = act(state, state.non_dealer, "draw_stock")
    return act(state, state.non_dealer, "discard", state.hands[state.non_dealer][0])
