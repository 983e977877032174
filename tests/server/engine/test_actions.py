import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.cards import DECK
from server.engine import ACTION_KINDS, CARD_KINDS, Action, MalformedAction, UnknownAction

actions = st.one_of(
    st.sampled_from(sorted(ACTION_KINDS - CARD_KINDS)).map(Action),
    st.builds(Action, st.sampled_from(sorted(CARD_KINDS)), st.sampled_from(DECK)),
)


@given(actions)
def test_action_dict_round_trip(action: Action) -> None:
    assert Action.from_dict(action.to_dict()) == action


def test_action_dict_form() -> None:
    assert Action("pass").to_dict() == {"kind": "pass"}
    assert Action("discard", "QS").to_dict() == {"kind": "discard", "card": "QS"}
    assert str(Action("knock", "7H")) == "knock 7H"


def test_from_dict_refuses_an_unknown_kind() -> None:
    with pytest.raises(UnknownAction, match="unknown action 'big_gin'"):
        Action.from_dict({"kind": "big_gin"})


@pytest.mark.parametrize("kind", sorted(CARD_KINDS))
def test_from_dict_refuses_a_missing_card(kind: str) -> None:
    with pytest.raises(MalformedAction, match="needs a card"):
        Action.from_dict({"kind": kind})


@pytest.mark.parametrize("kind", sorted(ACTION_KINDS - CARD_KINDS))
def test_from_dict_refuses_an_extra_card(kind: str) -> None:
    with pytest.raises(MalformedAction, match="takes no card"):
        Action.from_dict({"kind": kind, "card": "AS"})


@pytest.mark.parametrize("card", ["1S", "AX", "ASS", "", 7, None, "as"])
def test_from_dict_refuses_a_malformed_card(card: object) -> None:
    with pytest.raises(ValueError):
        Action.from_dict({"kind": "discard", "card": card})


@pytest.mark.parametrize(
    "data", [{"kind": "pass", "seat": 0}, {"card": "AS"}, {"kind": 3}, ["pass"], "pass"]
)
def test_from_dict_refuses_malformed_maps(data: object) -> None:
    with pytest.raises(ValueError):
        Action.from_dict(data)  # type: ignore[arg-type]


def test_malformed_actions_are_value_errors() -> None:
    assert issubclass(UnknownAction, ValueError)
    assert issubclass(MalformedAction, ValueError)
