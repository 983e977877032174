"""Every line of ``tests/data/arrangements.txt`` and ``tests/data/layoffs.txt`` as a test.

The files hold hand-worked cases (the reasoning is on each line); the format is described at the
top of each file. The line id is the pytest id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from protocol.cards import card_value
from protocol.melds import all_best_arrangements, best_arrangement, best_discards, min_deadwood
from protocol.scoring import score_hand

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class ArrangementCase:
    id: str
    cards: tuple[str, ...]
    points: int
    melds: frozenset[frozenset[str]] | None
    arrangements: int | None
    discards: frozenset[str] | None


@dataclass(frozen=True)
class LayoffCase:
    id: str
    knocker: tuple[str, ...]
    defender: tuple[str, ...]
    kind: str
    points: int | None
    knocker_deadwood: int | None
    defender_deadwood: int | None
    laid_off: frozenset[str] | None


def _lines(name: str) -> list[tuple[int, list[str]]]:
    """(line number, fields) of every case line: ``#`` starts a comment, fields split on ``;``."""
    rows = []
    for number, line in enumerate((DATA / name).read_text().splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            rows.append((number, [field.strip() for field in text.split(";")]))
    return rows


def _parse_melds(text: str) -> frozenset[frozenset[str]]:
    if text == "-":
        return frozenset()
    return frozenset(frozenset(meld.split()) for meld in text.split("|"))


def load_arrangements() -> list[ArrangementCase]:
    cases = []
    for number, fields in _lines("arrangements.txt"):
        assert len(fields) >= 3, f"arrangements.txt:{number}: id; cards; points[; key: value]"
        extra: dict[str, str] = {}
        for field in fields[3:]:
            key, sep, value = field.partition(":")
            assert sep and key in {"melds", "arrangements", "discards"}, f"line {number}: {field}"
            extra[key] = value.strip()
        cases.append(
            ArrangementCase(
                id=fields[0],
                cards=tuple(fields[1].split()),
                points=int(fields[2]),
                melds=_parse_melds(extra["melds"]) if "melds" in extra else None,
                arrangements=int(extra["arrangements"]) if "arrangements" in extra else None,
                discards=frozenset(extra["discards"].split()) if "discards" in extra else None,
            )
        )
    return cases


def _optional_int(text: str) -> int | None:
    return None if text == "-" else int(text)


def load_layoffs() -> list[LayoffCase]:
    cases = []
    for number, fields in _lines("layoffs.txt"):
        assert len(fields) == 8, f"layoffs.txt:{number}: expected 8 fields, got {len(fields)}"
        cases.append(
            LayoffCase(
                id=fields[0],
                knocker=tuple(fields[1].split()),
                defender=tuple(fields[2].split()),
                kind=fields[3],
                points=_optional_int(fields[4]),
                knocker_deadwood=_optional_int(fields[5]),
                defender_deadwood=_optional_int(fields[6]),
                laid_off=None if fields[7] == "-" else frozenset(fields[7].split()),
            )
        )
    return cases


ARRANGEMENTS = load_arrangements()
LAYOFFS = load_layoffs()


def test_the_data_files_hold_the_cases() -> None:
    ids = [case.id for case in ARRANGEMENTS] + [case.id for case in LAYOFFS]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(ARRANGEMENTS) >= 40
    assert len(LAYOFFS) >= 12
    assert sum(len(case.cards) == 11 for case in ARRANGEMENTS) >= 5


@pytest.mark.parametrize("case", ARRANGEMENTS, ids=[case.id for case in ARRANGEMENTS])
def test_arrangement_case(case: ArrangementCase) -> None:
    assert min_deadwood(case.cards) == case.points
    if len(case.cards) == 11:
        assert case.melds is None and case.arrangements is None
        discards = best_discards(case.cards)
        assert discards[0].deadwood_points == case.points
        if case.discards is not None:
            assert {d.card for d in discards if d.deadwood_points == case.points} == case.discards
        return
    assert case.discards is None
    arrangement = best_arrangement(case.cards)
    assert arrangement.deadwood_points == case.points
    found = [
        frozenset(frozenset(meld) for meld in a.melds) for a in all_best_arrangements(case.cards)
    ]
    if case.melds is not None:
        # The expected melds are a partition of some of the cards that leaves the expected points
        # (a check on the data line itself), and one of the solver's optimal arrangements.
        melded = [card for meld in case.melds for card in meld]
        assert len(melded) == len(set(melded)) and set(melded) <= set(case.cards)
        left = sum(card_value(card) for card in case.cards if card not in melded)
        assert left == case.points, "the data line's melds do not leave its points"
        assert case.melds in found
    if case.arrangements is not None:
        assert len(found) == case.arrangements


@pytest.mark.parametrize("case", LAYOFFS, ids=[case.id for case in LAYOFFS])
def test_layoff_case(case: LayoffCase) -> None:
    assert len(case.knocker) == 10 and len(case.defender) == 10
    assert not set(case.knocker) & set(case.defender), "the data line's hands overlap"
    if case.kind == "error":
        with pytest.raises(ValueError, match="cannot knock"):
            score_hand(case.knocker, case.defender)
        return
    result = score_hand(case.knocker, case.defender)
    assert result.kind == case.kind
    assert result.points == case.points
    assert result.knocker_deadwood == case.knocker_deadwood
    assert result.defender_deadwood == case.defender_deadwood
    laid = frozenset(layoff.card for layoff in result.layoffs)
    assert laid == (case.laid_off or frozenset())
