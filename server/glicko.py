"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013). Pure: no I/O, no clock.

A rating is ``(rating, rd, volatility)`` on the Glicko scale (1500 / 350 / 0.06 in the paper).
``update`` applies one rating period's results to a player; the server calls it once per
finished rated match (lichess's practice: every game is its own period), with the rating
deviation first grown by the rating periods the player was inactive (``periods``, fractional;
lichess counts 0.21436 periods a day).

The parameters the server plays with are in ``PARAMETERS`` (lichess's); the paper's worked
example uses ``tau=0.5`` and one period, and ``tests/server/test_glicko.py`` reproduces it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "PARAMETERS",
    "SCALE",
    "Parameters",
    "Rating",
    "Result",
    "grown_rd",
    "provisional",
    "shown",
    "update",
]

#: Glicko-2's scale factor between the Glicko and the Glicko-2 scales (400 / ln 10).
SCALE = 173.7178


@dataclass(frozen=True, slots=True)
class Parameters:
    """The system's constants. ``tau`` limits how fast volatility changes; ``epsilon`` is the
    convergence tolerance of the volatility iteration; RD stays in ``[min_rd, max_rd]``;
    ``provisional_rd``: a rating whose deviation is at least this is shown provisional."""

    initial_rating: float = 1500.0
    initial_rd: float = 500.0
    initial_volatility: float = 0.09
    tau: float = 0.75
    epsilon: float = 0.000001
    min_rd: float = 45.0
    max_rd: float = 500.0
    periods_per_day: float = 0.21436
    provisional_rd: float = 110.0


#: lichess's parameters (``lila`` ``Glicko``): what the server rates with.
PARAMETERS = Parameters()


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float
    rd: float
    volatility: float


@dataclass(frozen=True, slots=True)
class Result:
    """One game against ``opponent`` (their rating before the period): ``score`` 1 a win,
    0 a loss, 0.5 a draw."""

    opponent: Rating
    score: float


def initial(params: Parameters = PARAMETERS) -> Rating:
    """The rating of a player who has never played a rated match."""
    return Rating(params.initial_rating, params.initial_rd, params.initial_volatility)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, params: Parameters) -> float:
    """Step 5 of the paper: the new volatility, by the Illinois algorithm."""
    tau = params.tau
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        bottom = 2.0 * (phi * phi + v + ex) ** 2
        return top / bottom - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > params.epsilon:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def _clamp_rd(rd: float, params: Parameters) -> float:
    return min(params.max_rd, max(params.min_rd, rd))


def update(
    player: Rating,
    results: Sequence[Result],
    *,
    periods: float = 1.0,
    params: Parameters = PARAMETERS,
    clamp: bool = True,
) -> Rating:
    """The player's rating after one period with ``results``. ``periods``: rating periods
    since the player's last rated game (their deviation grows by that much, step 6). No
    results: only the deviation grows. ``clamp``: keep the RD in ``[min_rd, max_rd]`` (the
    paper's example does not)."""
    if periods < 0:
        raise ValueError(f"periods must not be negative, got {periods}")
    mu = (player.rating - params.initial_rating) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        grown = math.sqrt(phi * phi + periods * sigma * sigma) * SCALE
        return Rating(player.rating, _clamp_rd(grown, params) if clamp else grown, sigma)
    inverse_v = 0.0
    improvement = 0.0
    for result in results:
        if not 0.0 <= result.score <= 1.0:
            raise ValueError(f"a score is 0, 0.5 or 1, got {result.score}")
        mu_j = (result.opponent.rating - params.initial_rating) / SCALE
        g_j = _g(result.opponent.rd / SCALE)
        e_j = _expected(mu, mu_j, g_j)
        inverse_v += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (result.score - e_j)
    v = 1.0 / inverse_v
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, delta, v, params)
    phi_star = math.sqrt(phi * phi + periods * new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    new_rd = new_phi * SCALE
    return Rating(
        new_mu * SCALE + params.initial_rating,
        _clamp_rd(new_rd, params) if clamp else new_rd,
        new_sigma,
    )


def grown_rd(player: Rating, days: float, params: Parameters = PARAMETERS) -> float:
    """The player's deviation after ``days`` without a rated game (what it is shown with)."""
    return update(player, (), periods=max(0.0, days) * params.periods_per_day, params=params).rd


def provisional(rd: float, params: Parameters = PARAMETERS) -> bool:
    """A rating with this deviation is provisional (lichess: RD of 110 or more)."""
    return rd >= params.provisional_rd


def shown(rating: float, rd: float, params: Parameters = PARAMETERS) -> str:
    """How a rating reads: ``"1500"``, or ``"1500?"`` while provisional."""
    return f"{round(rating)}{'?' if provisional(rd, params) else ''}"


def days_until_provisional(player: Rating, params: Parameters = PARAMETERS) -> float:
    """Days without a rated game until the player's deviation reaches ``provisional_rd``
    (0 if it is there already): the leaderboard drops them then."""
    if provisional(player.rd, params):
        return 0.0
    phi = player.rd / SCALE
    limit = params.provisional_rd / SCALE
    per_period = player.volatility * player.volatility
    return (limit * limit - phi * phi) / per_period / params.periods_per_day
