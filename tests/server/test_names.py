"""The name policy (``server/names.py``): what a person may be called, and how look-alike
seats are told apart."""

from __future__ import annotations

import pytest

from server.identity import new_player_id
from server.names import (
    MAX_MARKS,
    BadName,
    clean_name,
    confusable,
    default_name,
    kept_name,
    shown_names,
    skeleton,
)

ACCEPTED = {
    "Ada": "Ada",
    "  Bob   Smith ": "Bob Smith",
    "ＡＤＡ": "ADA",  # fullwidth: NFKC
    "محمد": "محمد",
    "مُحَمَّد": "مُحَمَّد",  # vowel marks, two in a row at most
    "გიორგი": "გიორგი",
    "Ёлка": "Ёлка",
    "Ömer": "Ömer",
    "Aisha": "Aisha",
    "R2-D2": "R2-D2",
}

REFUSED = {
    "": "empty",
    "   ": "empty",
    "\u3164": "invisible",  # Hangul filler
    "\u2800": "invisible",  # blank Braille pattern
    "\u115f\u1160": "invisible",
    "\uffa0": "invisible",
    "Ada\u200b": "invisible",  # zero width space
    "Ada\u200d": "invisible",  # zero width joiner
    "\u202eadA": "invisible",  # right-to-left override
    "Ada\ufe0f": "invisible",  # variation selector
    "Ada\U000e0041": "invisible",  # tag character
    "Ada\ue000": "invisible",  # private use
    "Ada\u0378": "invisible",  # unassigned
    "Ada\u2028": "invisible",  # line separator
    "Ada\u1680Lovelace": "space",
    "Z" + "\u0301" * 30: "combining marks",
    "q\u0300\u0301\u0302": "combining marks",  # (an a with a grave is one letter)
    "".join("q\u0300" for _ in range(MAX_MARKS + 1)): "combining marks",
    "...": "letter or a digit",
    "AI": "AI seats",
    "ai": "AI seats",
    "A.I.": "AI seats",
    "AI (hard)": "AI seats",
    "AI (easy)": "AI seats",
    "ai(normal)": "AI seats",
    "ΑΙ (hard)": "AI seats",  # Greek capitals
    "АI (hard)": "AI seats",  # Cyrillic A
    "ＡＩ": "AI seats",
    "Al": "AI seats",  # a lower-case L reads as I
    "ИИ · Сложный": "AI seats",
    "ذكاء اصطناعي · صعب": "AI seats",
    "AI · რთული": "AI seats",
    "Yapay zekâ · Zor": "AI seats",
    "Yapay zeka": "AI seats",
}


@pytest.mark.parametrize(("raw", "kept"), ACCEPTED.items())
def test_a_good_name_is_kept_normalised(raw: str, kept: str) -> None:
    assert clean_name(raw) == kept


@pytest.mark.parametrize(("raw", "why"), REFUSED.items())
def test_a_bad_name_is_refused_with_the_reason(raw: str, why: str) -> None:
    with pytest.raises(BadName, match=why):
        clean_name(raw)


def test_an_ai_worker_may_take_the_ai_names_but_no_invisible_one() -> None:
    assert clean_name("AI", ai_worker=True) == "AI"
    assert clean_name("AI (hard)", ai_worker=True) == "AI (hard)"
    with pytest.raises(BadName, match="invisible"):
        clean_name("\u3164", ai_worker=True)


def test_default_names_pass_the_policy() -> None:
    for _ in range(2000):
        player_id = new_player_id()
        assert clean_name(default_name(player_id)) == default_name(player_id)


def test_a_name_stored_before_the_policy_falls_back_to_the_default() -> None:
    assert kept_name("Ada", "pABCDEFG") == "Ada"
    assert kept_name("AI (hard)", "pABCDEFG") == default_name("pABCDEFG")
    assert kept_name("\u3164", "pABCDEFG") == default_name("pABCDEFG")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ada", "Аda"),  # Cyrillic А
        ("paypal", "раураl"),  # Cyrillic р, а, у
        ("Ivan", "lvan"),
        ("Ada", "ADA"),
        ("Ada", "Ada"),
        ("Ada Lovelace", "Ada.Lovelace"),
        ("corn", "com"),  # rn reads as m
        ("Bob", "B\u043eb"),  # Cyrillic о
    ],
)
def test_look_alikes_are_confusable(a: str, b: str) -> None:
    assert confusable(a, b)
    assert confusable(b, a)


@pytest.mark.parametrize(("a", "b"), [("Ada", "Bob"), ("Ada", "Adam"), ("Ёлка", "Елена")])
def test_different_names_are_not(a: str, b: str) -> None:
    assert not confusable(a, b)


def test_the_skeleton_maps_look_alikes_to_one_prototype() -> None:
    assert skeleton("\u0410") == skeleton("A")  # Cyrillic and Latin capital A
    assert skeleton("\u0391") == skeleton("A")  # Greek capital Alpha
    assert skeleton("Ada") == "Ada"


def test_the_second_of_two_look_alike_seats_is_marked() -> None:
    assert shown_names(["Ada", "Аda"]) == ["Ada", "Аda #2"]
    assert shown_names(["Ada", "Ada"]) == ["Ada", "Ada #2"]
    assert shown_names(["Ada", "Ada #2"]) == ["Ada", "Ada #2"]  # told apart already
    assert shown_names(["Ada #2", "Ada"]) == ["Ada #2", "Ada"]
    assert shown_names(["Ada", "Bob"]) == ["Ada", "Bob"]
    assert shown_names(["Ada", None]) == ["Ada", None]
