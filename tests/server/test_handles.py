"""The handle policy (``server/handles.py``): what an account may be called, and which
handles are one handle (case, look-alikes across scripts)."""

from __future__ import annotations

import re

import pytest

from server.handles import BadHandle, clean_handle, handle_digests

ACCEPTED = ["Ada", "محمد", "مُحَمَّد", "გიორგი", "Ёлка", "Ömer", "R2-D2", "snake_case", "ユキコ", "123"]
REFUSED = {
    "ab": "3 to 20",
    "a" * 21: "3 to 20",
    "Ada Lovelace": "U+0020",
    "Ada!": "U+0021",
    "x\u200by": "U+200B",  # zero width space
    "Ada\u202e": "U+202E",  # right-to-left override
    "___": "letter or a digit",
    "\u0301abc": "combining mark",
    "Admin": "reserved",
    "аdmin": "reserved",  # Cyrillic а
    "guest": "reserved",
    "ИИ_ИИ": "",  # passes the characters; only its uniqueness is tested elsewhere
}


@pytest.mark.parametrize("handle", ACCEPTED)
def test_handles_of_any_script_are_accepted(handle: str) -> None:
    assert clean_handle(handle) == handle


@pytest.mark.parametrize(("handle", "why"), [(k, v) for k, v in REFUSED.items() if v])
def test_bad_handles_are_refused_with_the_reason(handle: str, why: str) -> None:
    with pytest.raises(BadHandle, match=re.escape(why)):
        clean_handle(handle)


@pytest.mark.parametrize("value", [None, 5, ["Ada"], {"h": 1}, "x" * 10_000])
def test_a_handle_that_is_not_a_short_string_is_refused(value: object) -> None:
    with pytest.raises(BadHandle):
        clean_handle(value)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ada", "ada"),
        ("Ada", "ADA"),
        ("Ada", "Аda"),  # Cyrillic А
        ("Pavel", "Рavel"),  # Cyrillic Р
        ("Cocoa", "Сосоа"),  # all Cyrillic
        ("Ömer", "ömer"),
        ("Ömer", "O\u0308mer"),  # decomposed
        ("Ελένη", "ΕΛΈΝΗ"),  # Greek final sigma aside, case
        ("Il1", "lI1"),  # I and l read alike
        ("r2-d2", "r2d2"),
    ],
)
def test_look_alikes_and_cases_are_one_handle(a: str, b: str) -> None:
    assert set(handle_digests(clean_handle(a))) & set(handle_digests(clean_handle(b)))


@pytest.mark.parametrize(("a", "b"), [("Ada", "Adam"), ("Ivan", "Iван"), ("محمد", "احمد")])
def test_different_handles_are_different(a: str, b: str) -> None:
    assert not set(handle_digests(clean_handle(a))) & set(handle_digests(clean_handle(b)))


def test_the_ai_names_are_refused() -> None:
    with pytest.raises(BadHandle):
        clean_handle("ИИ-ИИ".replace("-ИИ", ""))
    for word in ("Yapay_zekâ", "easy", "Hard"):
        with pytest.raises(BadHandle):
            clean_handle(word)


def test_digests_are_key_safe() -> None:
    for handle in ACCEPTED:
        for digest in handle_digests(clean_handle(handle)):
            assert digest.isalnum() and digest.isascii() and len(digest) == 40
