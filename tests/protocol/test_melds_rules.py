"""One named test for each meld rule of RULES.md."""

import pytest

from protocol.cards import to_mask
from protocol.melds import (
    all_best_arrangements,
    best_arrangement,
    best_discards,
    best_layoffs,
    is_meld,
    min_deadwood,
)


def melds_of(cards: str) -> set[frozenset[str]]:
    return {frozenset(meld) for meld in best_arrangement(cards.split()).melds}


def test_ace_is_low_only_queen_king_ace_is_not_a_run() -> None:
    assert not is_meld(to_mask("QS KS AS"))
    assert best_arrangement(["QS", "KS", "AS"]).deadwood_points == 21


def test_ace_is_low_only_king_ace_two_is_not_a_run() -> None:
    assert not is_meld(to_mask("KS AS 2S"))
    assert best_arrangement(["KS", "AS", "2S"]).deadwood_points == 13


def test_ace_two_three_is_a_run() -> None:
    assert best_arrangement(["AS", "2S", "3S"]).deadwood_points == 0


def test_a_card_belongs_to_at_most_one_meld() -> None:
    # 7S would complete both the set of sevens and the run 5S 6S 7S; it can only serve one.
    arrangement = best_arrangement(["7C", "7D", "7S", "5S", "6S"])
    assert arrangement.deadwood_points == 11
    assert set(arrangement.deadwood) == {"5S", "6S"}


def test_set_of_four() -> None:
    assert melds_of("7C 7D 7H 7S") == {frozenset({"7C", "7D", "7H", "7S"})}


def test_run_of_five_or_more() -> None:
    assert melds_of("3H 4H 5H 6H 7H 8H") == {frozenset({"3H", "4H", "5H", "6H", "7H", "8H"})}


def test_runs_need_one_suit() -> None:
    assert best_arrangement(["3H", "4S", "5H"]).deadwood_points == 12


def test_sets_are_three_or_four_of_a_rank() -> None:
    assert best_arrangement(["9C", "9D"]).deadwood_points == 18


def test_four_of_a_kind_splits_into_a_set_and_a_run_when_better() -> None:
    arrangement = best_arrangement(["7C", "7D", "7H", "7S", "8S", "9S"])
    assert arrangement.deadwood_points == 0
    assert {frozenset(m) for m in arrangement.melds} == {
        frozenset({"7C", "7D", "7H"}),
        frozenset({"7S", "8S", "9S"}),
    }


def test_eleven_card_minimum_is_over_all_discards() -> None:
    # Two arrangements tie at 4 points (twos as a set: AH 3H dead; AH 2H 3H as a run: 2C 2D
    # dead). Dropping the top deadwood card of the run arrangement leaves 2; the exact minimum
    # over the 11 discards is 1 (discard 3H, keep the set, AH is the only deadwood).
    cards = ["2C", "2D", "2H", "AH", "3H", "5S", "6S", "7S", "9D", "TD", "JD"]
    discards = best_discards(cards)
    assert len(discards) == 11
    assert {d.card for d in discards} == set(cards)
    assert (discards[0].card, discards[0].deadwood_points) == ("3H", 1)
    assert min_deadwood(cards) == 1
    by_card = {d.card: d.deadwood_points for d in discards}
    assert (by_card["AH"], by_card["2C"], by_card["5S"]) == (3, 2, 4 + 6 + 7)
    assert [d.deadwood_points for d in discards] == sorted(d.deadwood_points for d in discards)


def test_eleven_cards_all_melded_discard_to_gin() -> None:
    discards = best_discards(["AC", "2C", "3C", "4C", "5D", "6D", "7D", "8D", "KS", "KH", "KD"])
    assert {d.card for d in discards if d.is_gin} == {"AC", "4C", "5D", "8D"}


def test_best_discards_knows_the_card_that_breaks_a_run_is_best() -> None:
    # 11 cards: a run 4C-8C, a set of kings, and 5 low deadwood cards. The minimum after one
    # discard comes from discarding 8C only if that lowers the total; check against each discard.
    cards = ["4C", "5C", "6C", "7C", "8C", "KC", "KD", "KH", "AD", "2H", "9S"]
    by_card = {d.card: d.deadwood_points for d in best_discards(cards)}
    assert by_card["9S"] == 3
    assert min(by_card.values()) == 3
    assert by_card["8C"] == 12


def test_all_best_arrangements_lists_equal_deadwood_alternatives() -> None:
    # 2H fits the set of twos or the run AH 2H 3H: both leave 4 points.
    found = {
        frozenset(frozenset(m) for m in a.melds)
        for a in all_best_arrangements(["2C", "2D", "2H", "AH", "3H"])
    }
    assert found == {
        frozenset({frozenset({"2C", "2D", "2H"})}),
        frozenset({frozenset({"AH", "2H", "3H"})}),
    }


def test_layoffs_chain_onto_a_run() -> None:
    result = best_layoffs(
        [["6S", "7S", "8S"]], ["9S", "TS", "2C", "4C", "6C", "8D", "TD", "QH", "KH", "AD"]
    )
    assert [layoff.card for layoff in result.layoffs] == ["9S", "TS"]
    assert result.deadwood_points == 2 + 4 + 6 + 8 + 10 + 10 + 10 + 1


def test_layoff_completes_a_set_to_four() -> None:
    result = best_layoffs(
        [["QC", "QD", "QH"]], ["QS", "2C", "4C", "6C", "8D", "TD", "3H", "5H", "KH", "AD"]
    )
    assert [layoff.card for layoff in result.layoffs] == ["QS"]


def test_no_layoff_onto_a_four_card_set() -> None:
    result = best_layoffs(
        [["QC", "QD", "QH", "QS"]], ["KS", "2C", "4C", "6C", "8D", "TD", "3H", "5H", "KH", "AD"]
    )
    assert result.layoffs == ()


def test_defender_breaks_a_would_be_meld_when_laying_off_is_better() -> None:
    # Keeping the set 8C 8D 8H strands 7D (7 points); breaking it lays 8C, 8H, and 8D then 7D
    # onto the knocker's runs, leaving only the six unrelated cards.
    knocker_melds = [["5H", "6H", "7H"], ["9C", "TC", "JC"], ["9D", "TD", "JD"]]
    result = best_layoffs(
        knocker_melds, ["8C", "8D", "8H", "7D", "AS", "2C", "4S", "6S", "KC", "QS"]
    )
    assert {layoff.card for layoff in result.layoffs} == {"8C", "8D", "8H", "7D"}
    assert result.arrangement.melds == ()
    assert result.deadwood_points == 1 + 2 + 4 + 6 + 10 + 10


def test_layoff_refuses_cards_that_overlap_the_knockers_melds() -> None:
    with pytest.raises(ValueError, match="overlap"):
        best_layoffs([["5H", "6H", "7H"]], ["5H", "8C"])


def test_layoff_refuses_a_non_meld() -> None:
    with pytest.raises(ValueError, match="not a meld"):
        best_layoffs([["5H", "6H", "8H"]], ["9C"])
