"""Issue 24, a first match that teaches: the guided first hand is a fixed, friendly deal against
the easy AI. Its deal is public, so nothing else may ever be dealt from it: no room between
people, no other level, no rated room, no rematch and no later hand."""

from __future__ import annotations

import pytest

from server.engine import Action, Phase
from server.room import RoomError, act, create_room, rematch_room, room_view
from server.tutorial import TUTORIAL_SEED
from tests.server.test_room import ALICE, BOB, T0, game_of
from tests.support.seeds import next_hand_seed, seed_of

PERSON = ["2C", "4C", "5C", "6C", "6S", "7C", "7D", "7S", "AC", "QS"]


def test_the_guided_hand_deals_its_fixed_friendly_deal_whatever_seed_is_drawn() -> None:
    for seed in (seed_of(1), seed_of(2)):
        room, _ = create_room(
            room_id="RT", mode="ai", creator=ALICE, seed=seed, now=T0, level="easy", tutorial=True
        )
        game = game_of(room)
        assert room.tutorial and room.seed == TUTORIAL_SEED
        assert sorted(game.hands[0]) == sorted(PERSON)
        assert game.discard_pile == ("3C",)
        assert game.phase is Phase.FIRST_OFFER and game.turn == 0  # the person is offered it
        assert room_view(room, 0)["tutorial"] is True
    # the person takes the upcard and may knock at once, throwing the queen
    room, _ = act(room, 0, Action("take_upcard"), T0)
    room, _ = act(room, 0, Action("knock", "QS"), T0)
    assert game_of(room).phase is Phase.HAND_OVER
    result = game_of(room).results[-1]
    assert result.kind == "knock" and result.winner == 0
    # the next hand is dealt from the seed drawn for it, not from the fixed one
    nxt, _ = act(room, 0, Action("next_hand"), T0, next_hand_seed(game_of(room)))
    assert sorted(game_of(nxt).hands[0]) != sorted(PERSON)


@pytest.mark.parametrize(
    "kw",
    [
        {"mode": "private", "invite": "inv-1"},
        {"mode": "quick", "opponent": BOB},
        {"mode": "ai", "level": "normal"},
        {"mode": "ai", "level": "hard"},
    ],
)
def test_no_room_but_one_against_the_easy_ai_is_dealt_the_known_deal(kw: dict[str, object]) -> None:
    with pytest.raises(RoomError, match="guided first hand"):
        create_room(
            room_id="RX",
            creator=ALICE,
            seed=seed_of(1),
            now=T0,
            tutorial=True,
            **kw,  # type: ignore[arg-type]
        )


def test_a_rated_room_is_never_the_guided_one() -> None:
    with pytest.raises(RoomError):
        create_room(
            room_id="RX",
            mode="private",
            creator=ALICE,
            seed=seed_of(1),
            now=T0,
            invite="inv-1",
            rated=True,
            tutorial=True,
        )


def test_a_rematch_of_the_guided_hand_is_a_fair_deal() -> None:
    room, _ = create_room(
        room_id="RT", mode="ai", creator=ALICE, seed=seed_of(1), now=T0, level="easy", tutorial=True
    )
    again, _ = rematch_room(room, "RT2", seed_of(9), T0)
    assert not again.tutorial and again.seed == seed_of(9)
    assert sorted(game_of(again).hands[0]) != sorted(PERSON)
