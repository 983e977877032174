"""The one-line text form: ``to_text`` / ``from_text``."""

import pytest

from protocol.scoring import MatchRules
from server.engine import GameState, Phase, from_text, new_match, to_text
from tests.server.engine.hands import DEFENDER_79
from tests.server.engine.helpers import position
from tests.server.engine.test_serialization import sample_states
from tests.support.seeds import seed_of


@pytest.mark.parametrize("state", sample_states())
def test_text_round_trip(state: GameState) -> None:
    text = to_text(state)
    assert "\n" not in text
    assert from_text(text) == state
    assert to_text(from_text(text)) == text


OLD_LINE = (
    "GR1 seed=99 rng=2344b9addb2134a7 rules=150,game,shutout hand=1 dealer=1 phase=discard "
    "turn=1 scores=0,0 results=- hands=AC,JC,3D,4D,JD,7H,9H,JH,QH,8S|"
    "5C,9C,9D,KD,AH,TH,KH,7S,9S,QS,KS stock=3C,8H,5S,3H,KC,2C,TC,6H,7C,8D,5H,AD,6C,2H,TD,QC,"
    "JS,AS,4S,4H,2D,6D,QD,3S,TS,4C,7D,5D,8C,2S pile=6S taken=KS draws=1 "
    "history=0p,1p,0s,0xKS,1dKS"
)


def test_text_form_in_the_middle_of_a_hand() -> None:
    state = from_text(OLD_LINE)  # a line of the first form: its seed and generator are dropped
    assert to_text(state) == (
        "GR2 rules=150,game,shutout hand=1 dealer=1 phase=discard "
        "turn=1 scores=0,0 results=- hands=AC,JC,3D,4D,JD,7H,9H,JH,QH,8S|"
        "5C,9C,9D,KD,AH,TH,KH,7S,9S,QS,KS stock=3C,8H,5S,3H,KC,2C,TC,6H,7C,8D,5H,AD,6C,2H,TD,QC,"
        "JS,AS,4S,4H,2D,6D,QD,3S,TS,4C,7D,5D,8C,2S pile=6S taken=KS draws=1 "
        "history=0p,1p,0s,0xKS,1dKS"
    )
    assert state.rules == MatchRules(target=150, game_bonus=True, shutout_bonus=True)
    assert from_text(to_text(state)) == state
    assert "seed" not in to_text(state)


def test_results_in_the_text_form() -> None:
    state = position(
        "AC 2C 3C 4C 4D 5D 6D 7H 7S 7C",
        DEFENDER_79,
        pile="QS",
        results=[("dead", None, 0), ("gin", 1, 42), ("undercut", 0, 27)],
    )
    assert " hand=4 " in to_text(state)
    assert " scores=27,42 results=dead,gin:1:42,undercut:0:27 " in to_text(state)
    assert from_text(to_text(state)) == state


BAD_TEXTS = {
    "wrong tag": ("GR3" + to_text(new_match(seed_of(1)))[3:], "starts with"),
    "seed in the new form": (to_text(new_match(seed_of(1))) + " seed=1", "unknown field"),
    "missing field": (
        to_text(new_match(seed_of(1))).replace(" draws=0", ""),
        "missing field: draws",
    ),
    "repeated field": (to_text(new_match(seed_of(1))) + " draws=0", "twice"),
    "unknown field": (to_text(new_match(seed_of(1))) + " colour=red", "unknown field"),
    "bad card": (to_text(new_match(seed_of(1))).replace("pile=", "pile=ZZ,", 1), "bad rank"),
    "old form without its seed": (OLD_LINE.replace("seed=99 ", ""), "missing field: seed"),
    "bad history": (
        to_text(new_match(seed_of(1))).replace("history=-", "history=0q"),
        "history entry",
    ),
    "bad rules": (
        to_text(new_match(seed_of(1))).replace("rules=100", "rules=100,oklahoma"),
        "rules",
    ),
    "bad phase": (
        to_text(new_match(seed_of(1))).replace("first_offer", "bidding"),
        "unknown phase",
    ),
    "extra card": (to_text(new_match(seed_of(1))).replace("pile=", "pile=AS,", 1), "duplicated AS"),
}


@pytest.mark.parametrize(("text", "message"), BAD_TEXTS.values(), ids=BAD_TEXTS.keys())
def test_from_text_rejects_malformed_text(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_text(text)


def test_text_of_a_finished_match() -> None:
    state = sample_states()[4]
    assert state.phase is Phase.MATCH_OVER
    assert " phase=match_over turn=- " in to_text(state)
    assert from_text(to_text(state)).winner == 0
