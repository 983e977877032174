"""One named test for each scoring rule of RULES.md."""

import pytest

from protocol.scoring import MatchRules, final_scores, match_winner, score_hand

# A knocker hand of three melds plus chosen deadwood, and a defender with no melds (65 points).
KNOCKER_MELDS = "2C 3C 4C 5S 6S 7S 8S 9D TD JD"
DEFENDER_LOOSE = "AS 3D 5D 7D QH KH 2H 4H 6H 8C"


def hand(melds: str, *extra: str) -> list[str]:
    return melds.split() + list(extra)


def test_knock_scores_the_difference() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "9D", "TD", "JD", "3H"]
    defender = ["AS", "2D", "5D", "7D", "QH", "KH", "6H", "8H", "TC", "QC"]
    result = score_hand(knocker, defender)
    assert result.kind == "knock" and result.winner == "knocker"
    assert result.knocker_deadwood == 3
    # No layoffs: 4S 8S, AC 5C, 8D QD and 2H 4H are all absent from the defender's hand.
    assert result.layoffs == ()
    assert result.defender_deadwood == 1 + 2 + 5 + 7 + 10 + 10 + 6 + 8 + 10 + 10
    assert result.points == result.defender_deadwood - 3


def test_knock_at_exactly_ten_is_allowed() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "9D", "TD", "JD", "KH"]
    defender = ["AS", "2D", "5D", "7D", "QH", "3H", "6H", "8H", "TC", "QC"]
    assert score_hand(knocker, defender).knocker_deadwood == 10


def test_knock_at_eleven_is_refused() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "AH", "3H", "2D", "5D"]
    defender = ["AS", "2S", "5C", "7D", "QH", "KH", "6H", "8H", "TC", "QC"]
    with pytest.raises(ValueError, match="cannot knock with 11 deadwood points"):
        score_hand(knocker, defender)


def test_gin_scores_25_plus_defender_deadwood() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "8S", "9D", "TD", "JD"]
    defender = ["AS", "2D", "5D", "7D", "QH", "KH", "6H", "8H", "TC", "QC"]
    result = score_hand(knocker, defender)
    assert result.kind == "gin" and result.winner == "knocker"
    assert result.points == 25 + result.defender_deadwood
    assert result.defender_deadwood == 1 + 2 + 5 + 7 + 10 + 10 + 6 + 8 + 10 + 10


def test_no_layoffs_against_gin() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "8S", "9D", "TD", "JD"]
    # 5C, 9S, 4S, 8D and QD would all lay off against a knock.
    defender = ["5C", "9S", "4S", "8D", "QD", "KH", "AH", "3H", "7H", "9H"]
    result = score_hand(knocker, defender)
    assert result.kind == "gin"
    assert result.layoffs == ()
    assert result.defender_deadwood == 5 + 9 + 4 + 8 + 10 + 10 + 1 + 3 + 7 + 9


def test_layoffs_count_against_a_knock() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "9D", "TD", "JD", "AH"]
    defender = ["5C", "8S", "9S", "8D", "QD", "KH", "2H", "4H", "7H", "9H"]
    result = score_hand(knocker, defender)
    laid = {layoff.card for layoff in result.layoffs}
    assert laid == {"5C", "8S", "9S", "8D", "QD"}
    assert result.defender_deadwood == 10 + 2 + 4 + 7 + 9
    assert result.points == result.defender_deadwood - 1


def test_undercut_on_a_tie_scores_25() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "9D", "TD", "JD", "5H"]
    defender = ["AS", "AD", "AH", "KC", "KD", "KH", "QC", "QD", "QS", "5D"]
    result = score_hand(knocker, defender)
    assert (result.knocker_deadwood, result.defender_deadwood) == (5, 5)
    assert result.kind == "undercut" and result.winner == "defender"
    assert result.points == 25


def test_undercut_scores_difference_plus_25() -> None:
    knocker = ["2C", "3C", "4C", "5S", "6S", "7S", "9D", "TD", "JD", "8H"]
    defender = ["AS", "AD", "AH", "KC", "KD", "KH", "QC", "QD", "QS", "3D"]
    result = score_hand(knocker, defender)
    assert (result.knocker_deadwood, result.defender_deadwood) == (8, 3)
    assert result.kind == "undercut"
    assert result.points == 25 + 5


def test_knocker_tie_break_takes_the_arrangement_worst_for_the_defender() -> None:
    # 2H joins the twos (leaving AH 3H) or the run AH 2H 3H (leaving 2C 2D): 4 points either
    # way. Against the set the defender lays off 2S; against the run nothing: the run is used.
    knocker = ["2C", "2D", "2H", "AH", "3H", "5S", "6S", "7S", "8S", "9S"]
    defender = ["2S", "4C", "6C", "8C", "TC", "QD", "KH", "3D", "5D", "7D"]
    result = score_hand(knocker, defender)
    assert result.knocker_deadwood == 4
    assert ("AH", "2H", "3H") in result.knocker_melds
    assert result.layoffs == ()
    assert result.defender_deadwood == 65
    assert result.points == 61


def test_scoring_refuses_overlapping_or_wrong_sized_hands() -> None:
    with pytest.raises(ValueError, match="overlap"):
        score_hand(hand(KNOCKER_MELDS), hand("2C", *DEFENDER_LOOSE.split()[1:]))
    with pytest.raises(ValueError, match="two 10-card hands"):
        score_hand(hand(KNOCKER_MELDS), DEFENDER_LOOSE.split()[:9])


def test_match_ends_when_a_player_reaches_100() -> None:
    assert match_winner([99, 40]) is None
    assert match_winner([100, 40]) == 0
    assert match_winner([12, 130]) == 1


def test_bonuses_are_off_by_default() -> None:
    totals = final_scores([(0, 60), (1, 20), (0, 45)])
    assert totals.winner == 0
    assert totals.totals == (105, 20)
    assert totals.game_bonus == (0, 0) and totals.box_bonus == (0, 0) and not totals.shutout


def test_game_bonus_adds_100_to_the_winner() -> None:
    totals = final_scores([(0, 60), (1, 20), (0, 45)], MatchRules(game_bonus=True))
    assert totals.totals == (205, 20)


def test_box_bonus_adds_25_per_hand_won() -> None:
    totals = final_scores([(0, 60), (1, 20), (None, 0), (0, 45)], MatchRules(box_bonus=True))
    assert totals.box_bonus == (50, 25)
    assert totals.totals == (155, 45)


def test_shutout_doubles_the_winner_total_when_the_loser_has_zero() -> None:
    rules = MatchRules(game_bonus=True, shutout_bonus=True)
    assert final_scores([(0, 60), (0, 45)], rules).totals == (410, 0)
    assert final_scores([(0, 60), (1, 5), (0, 45)], rules).totals == (205, 5)


def test_shutout_off_does_not_double() -> None:
    assert final_scores([(0, 60), (0, 45)]).totals == (105, 0)


def test_big_gin_and_oklahoma_are_locked() -> None:
    with pytest.raises(ValueError, match="locked variant"):
        MatchRules.from_dict({"big_gin": True})
    with pytest.raises(ValueError, match="locked variant"):
        MatchRules.from_dict({"oklahoma": True})


def test_match_rules_round_trip_and_validate() -> None:
    rules = MatchRules(target=150, box_bonus=True)
    assert MatchRules.from_dict(rules.to_dict()) == rules
    with pytest.raises(ValueError, match="unknown match rule"):
        MatchRules.from_dict({"speed": 2})
    with pytest.raises(ValueError, match="positive integer"):
        MatchRules(target=0)


def test_final_scores_refuses_an_unfinished_match() -> None:
    with pytest.raises(ValueError, match="not over"):
        final_scores([(0, 60)])
