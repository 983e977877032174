"""Hard: a probability model of the opponent's hand, and decisions by estimated value.

- The opponent model (``opponent.py``) gives, for every unseen card, the probability that the
  opponent holds it, from the public history: what it took, threw and passed on.
- Discards are scored by the expected least deadwood after our next draw (each unseen card
  weighted by its chance to be in the stock), plus the danger of feeding the opponent: the
  probability that the card melds with its hand, times ``FEED_COST``.
- Drawing (and the first-turn upcard): take the card when the best hand keeping it is worth
  more, by the same measure, than the average hand after a stock draw.
- Knocking: when a knock is possible, opponent hands consistent with the history are sampled
  (with a bias towards low deadwood: a player keeps its best cards); the knock is scored on
  each of them -- layoffs and undercuts included -- and compared with playing on: the same
  hands, with the rest of the unseen cards shuffled as the stock, played out to the end of the
  hand with a quick policy for both players. Gin is always declared.

Every random choice comes from the ``rng`` given, so a decision is a function of the view and
the generator's state.
"""

from __future__ import annotations

import functools
import math
import random

from client.ai import knowledge, opponent, playout
from client.ai.common import (
    ActionDict,
    Options,
    View,
    discardable,
    fallback,
    finish,
    hand_mask,
    meld_outs,
    options,
    top_discard,
)
from protocol.cards import INDEX_VALUES, iter_indices
from protocol.melds import min_deadwood_after_discard_mask, min_deadwood_mask

#: Deadwood points charged per unit of probability that a discard completes a meld for the
#: opponent.
FEED_COST = 5.0
#: The upcard or discard is taken only when it beats a stock draw by this many points.
TAKE_MARGIN = 0.5
#: Opponent hands sampled for a knock decision.
KNOCK_SAMPLES = 48
#: Sampled opponent hands are resampled with weights ``exp(-beta * deadwood)``, beta growing by
#: ``OPP_BETA_PER_TURN`` per opponent draw up to ``OPP_BETA_MAX``, from a pool ``OPP_POOL``
#: times larger than needed.
OPP_BETA_PER_TURN = 0.08
OPP_BETA_MAX = 0.2
OPP_POOL = 4
#: Hands whose least deadwood after the best discard is remembered (a pure function of the
#: hand; play-outs meet the same hands again and again).
SOLVER_CACHE = 1 << 16

_after_discard = functools.lru_cache(maxsize=SOLVER_CACHE)(min_deadwood_after_discard_mask)
_deadwood = functools.lru_cache(maxsize=SOLVER_CACHE)(min_deadwood_mask)


class _Evaluator:
    """The value measure shared by discards and draws, with per-decision caches."""

    def __init__(self, model: opponent.OpponentModel) -> None:
        self.model = model
        total = sum(model.stock_prob(c) for c in model.unseen) or 1.0
        #: (card, its bit, probability that it is the next stock card)
        self.draws = [(c, 1 << c, model.stock_prob(c) / total) for c in model.unseen]
        #: The same with each card's points in place of the card (``value``'s loop).
        self._draw_points = [(bit, q, INDEX_VALUES[c]) for c, bit, q in self.draws]
        self._after: dict[int, int] = {}
        self._value: dict[int, float] = {}

    def value(self, hand: int) -> float:
        """Expected least deadwood of a 10-card hand after the next stock draw and the best
        discard (lower is better).

        Only a card that can meld with the hand needs the solver: any other card drawn is
        either thrown back (deadwood unchanged) or kept in place of the hand's best discard.
        """
        cached = self._value.get(hand)
        if cached is None:
            now = _deadwood(hand)
            shed = _after_discard(hand)
            outs = meld_outs(hand)
            after = self._after
            cached = 0.0
            for bit, q, points in self._draw_points:  # the hot loop of the hard policy
                if outs & bit:
                    eleven = hand | bit
                    least = after.get(eleven)
                    if least is None:
                        least = after[eleven] = _after_discard(eleven)
                    cached += q * least
                else:
                    kept = shed + points
                    cached += q * (kept if kept < now else now)
            self._value[hand] = cached
        return cached

    def feed(self, card: int) -> float:
        """Probability that the card melds with the opponent's hand (cards taken as
        independent): two more of its rank, or two neighbours making a run with it."""
        prob = self.model.prob
        rank = card % 13
        a, b, c = (prob[s * 13 + rank] for s in range(4) if s * 13 + rank != card)
        p_set = a * b + a * c + b * c - 2 * a * b * c
        base = card - rank

        def held(r: int) -> float:
            return prob[base + r] if 0 <= r < 13 else 0.0

        m2, m1, p1, p2 = held(rank - 2), held(rank - 1), held(rank + 1), held(rank + 2)
        no_run = (1 - m2 * m1) * (1 - m1 * p1) * (1 - p1 * p2)
        return 1 - (1 - p_set) * no_run

    def discard_score(self, hand11: int, card: int) -> float:
        return self.value(hand11 ^ (1 << card)) + FEED_COST * self.feed(card)


def _best_discard(ev: _Evaluator, hand: int, choices: list[int]) -> int:
    """The discard with the best score (ties: the higher card, then the lower index)."""
    return min(choices, key=lambda c: (round(ev.discard_score(hand, c), 9), -INDEX_VALUES[c]))


def ranked_discards(view: View) -> list[int]:
    """The cards the view may discard, best first by the score the hard policy discards by
    (the review's candidates, ``client.review``)."""
    opts = options(view)
    know = knowledge.read(view)
    sizes = view.get("hand_sizes") or [10, 10]
    ev = _Evaluator(opponent.build(know, int(sizes[know.opponent])))
    hand = hand_mask(view)
    return sorted(
        discardable(opts),
        key=lambda c: (round(ev.discard_score(hand, c), 9), -INDEX_VALUES[c], c),
    )


def _least_deadwood_discard(hand: int) -> int:
    """The discard leaving the least deadwood (ties: the higher card)."""
    return min(
        iter_indices(hand),
        key=lambda c: (_deadwood(hand ^ (1 << c)), -INDEX_VALUES[c]),
    )


def _draw(view: View, opts: Options, ev: _Evaluator, rng: random.Random) -> ActionDict:
    hand = hand_mask(view)
    top = top_discard(view)
    if opts.take is None or top is None:
        return dict(opts.decline) if opts.decline is not None else fallback(view, rng)
    if opts.decline is None:
        return dict(opts.take)
    with_top = hand | (1 << top)
    take = min(ev.value(with_top ^ (1 << c)) for c in iter_indices(hand))
    # A stock draw: a card that cannot meld is kept only in place of the hand's best discard.
    now = _deadwood(hand)
    shed_card = _least_deadwood_discard(hand)
    shed = _deadwood(hand ^ (1 << shed_card))
    outs = meld_outs(hand)
    stock = 0.0
    for card, bit, q in ev.draws:
        if outs & bit:
            eleven = hand | bit
            kept = eleven ^ (1 << _least_deadwood_discard(eleven))
        elif shed + INDEX_VALUES[card] < now:
            kept = (hand | bit) ^ (1 << shed_card)
        else:
            kept = hand
        stock += q * ev.value(kept)
    return dict(opts.take) if take < stock - TAKE_MARGIN else dict(opts.decline)


def opponent_hands(
    model: opponent.OpponentModel, know: knowledge.Knowledge, rng: random.Random, count: int
) -> list[int]:
    """``count`` opponent hands drawn from the model, then resampled with weights
    ``exp(-beta * deadwood)``.

    A player keeps its best cards, so its hand is better than a random draw from the unseen
    cards, the more so the more turns it played: beta grows with its draws. Measured in our
    tournaments, beta near 0.03 per draw (up to 0.08) makes the sampled deadwood match real
    opponents' on average; the stronger bias used here plays better (it makes the knock
    decision wary of undercuts and keen on undercutting): see ``bench/tournament.py``.
    """
    turns = know.opp_stock_draws + len(know.opp_picked_order)
    beta = min(OPP_BETA_MAX, OPP_BETA_PER_TURN * turns)
    if beta <= 0 or model.unknown == 0:
        return [model.sample(rng) for _ in range(count)]
    pool = [model.sample(rng) for _ in range(OPP_POOL * count)]
    weights = [math.exp(-beta * _deadwood(hand)) for hand in pool]
    return rng.choices(pool, weights=weights, k=count)


def knock_values(
    hand: int,
    knock_card: int,
    play_card: int,
    hands: list[int],
    model: opponent.OpponentModel,
    rng: random.Random,
) -> tuple[float, float]:
    """Mean points of knocking (discarding ``knock_card``) and of playing on (discarding
    ``play_card``), over the given opponent hands."""
    kept = hand ^ (1 << knock_card)
    melds = playout.meld_masks(kept)
    on = hand ^ (1 << play_card)
    knock_total = play_total = 0.0
    for opp in hands:
        knock_total += playout.knock_points(kept, opp, melds)
        stock = [c for c in model.unseen if not opp >> c & 1]
        rng.shuffle(stock)
        play_total += playout.play_out(on, opp, stock, play_card)
    return knock_total / len(hands), play_total / len(hands)


def _discard(
    view: View,
    opts: Options,
    know: knowledge.Knowledge,
    ev: _Evaluator,
    rng: random.Random,
    knock_samples: int,
) -> ActionDict:
    hand = hand_mask(view)
    if opts.gin:
        return finish(opts, min(opts.gin), knock=True)
    play_card = _best_discard(ev, hand, discardable(opts))
    if not opts.knock:
        return finish(opts, play_card, knock=False)
    knock_card = min(opts.knock, key=lambda c: (_deadwood(hand ^ (1 << c)), -INDEX_VALUES[c]))
    hands = opponent_hands(ev.model, know, rng, knock_samples)
    knock, play_on = knock_values(hand, knock_card, play_card, hands, ev.model, rng)
    if knock >= play_on:
        return finish(opts, knock_card, knock=True)
    return finish(opts, play_card, knock=False)


def choose(view: View, rng: random.Random) -> ActionDict:
    return decide(view, rng)


def decide(view: View, rng: random.Random, knock_samples: int = KNOCK_SAMPLES) -> ActionDict:
    """``choose``, with the number of opponent hands its knock decision samples: the review's
    play-outs (``client.review``) use fewer, to play many hands out quickly."""
    opts = options(view)
    if not (opts.drawing or opts.discarding):
        return fallback(view, rng)
    know = knowledge.read(view)
    sizes = view.get("hand_sizes") or [10, 10]
    model = opponent.build(know, int(sizes[know.opponent]))
    ev = _Evaluator(model)
    if opts.drawing:
        return _draw(view, opts, ev, rng)
    return _discard(view, opts, know, ev, rng, knock_samples)
