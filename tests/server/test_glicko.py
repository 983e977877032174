"""Glicko-2 (``server.glicko``): Glickman's worked example and the server's practice."""

from __future__ import annotations

import pytest

from server import glicko
from server.glicko import Parameters, Rating, Result

#: The paper's example: tau = 0.5, one rating period, no RD limits.
PAPER = Parameters(tau=0.5, initial_volatility=0.06, initial_rd=350.0)


def test_the_papers_worked_example() -> None:
    player = Rating(1500, 200, 0.06)
    results = [
        Result(Rating(1400, 30, 0.06), 1),
        Result(Rating(1550, 100, 0.06), 0),
        Result(Rating(1700, 300, 0.06), 0),
    ]
    after = glicko.update(player, results, params=PAPER, clamp=False)
    # The paper prints its Glicko-2 scale results to four places (mu' = -0.2069, phi' =
    # 0.8722) and converts those rounded figures back: 1464.06 and 151.52. Unrounded, the
    # rating is 1464.0507, within the paper's last printed place.
    mu, phi = (after.rating - 1500) / glicko.SCALE, after.rd / glicko.SCALE
    assert (round(mu, 4), round(phi, 4)) == (-0.2069, 0.8722)
    assert round(glicko.SCALE * round(mu, 4) + 1500, 2) == 1464.06
    assert round(glicko.SCALE * round(phi, 4), 2) == 151.52
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.rd, 2) == 151.52
    # sigma' = 0.0599960: the paper prints its first five places (0.05999).
    assert int(after.volatility * 100_000) / 100_000 == 0.05999


def test_a_win_raises_and_a_loss_lowers_by_the_same_for_equals() -> None:
    a = b = glicko.initial()
    win = glicko.update(a, [Result(b, 1)], periods=0)
    loss = glicko.update(b, [Result(a, 0)], periods=0)
    assert win.rating > 1500 > loss.rating
    assert win.rating - 1500 == pytest.approx(1500 - loss.rating)
    assert win.rd < 500 and loss.rd < 500


def test_inactivity_grows_the_deviation() -> None:
    settled = Rating(1700, 60, 0.06)
    opponent = Rating(1700, 60, 0.06)
    at_once = glicko.update(settled, [Result(opponent, 1)], periods=0)
    after_a_year = glicko.update(settled, [Result(opponent, 1)], periods=365 * 0.21436)
    assert after_a_year.rd > at_once.rd
    assert after_a_year.rating > at_once.rating  # a less certain rating moves further
    assert glicko.grown_rd(settled, 365) > glicko.grown_rd(settled, 30) > 60


def test_the_deviation_stays_in_its_limits() -> None:
    player = Rating(1500, 46, 0.01)
    for _ in range(50):
        player = glicko.update(player, [Result(Rating(1500, 45, 0.01), 0.5)], periods=0)
    assert player.rd == 45
    assert glicko.grown_rd(glicko.initial(), 10_000) == 500


def test_provisional_while_the_deviation_is_110_or_more() -> None:
    assert glicko.shown(1500.4, 500) == "1500?"
    assert glicko.shown(1512.6, 110) == "1513?"
    assert glicko.shown(1512.6, 109.9) == "1513"


def test_days_until_provisional_matches_the_grown_deviation() -> None:
    player = Rating(1600, 90, 0.06)
    days = glicko.days_until_provisional(player)
    assert days > 0
    assert glicko.grown_rd(player, days) == pytest.approx(110)
    assert glicko.days_until_provisional(Rating(1600, 120, 0.06)) == 0


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        glicko.update(glicko.initial(), [Result(glicko.initial(), 2)])
    with pytest.raises(ValueError):
        glicko.update(glicko.initial(), [], periods=-1)
