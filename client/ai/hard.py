"""Hard: a probability model of the opponent's hand, and decisions by estimated value.

- The opponent model (``opponent.py``) gives, for every unseen card, the probability that the
  opponent holds it, from the public history: what it took, threw and passed on.
- Discards are scored by the expected least deadwood after our next draw (the draw weighted
  by the chance that each unseen card is in the stock), plus the danger of feeding the
  opponent: the probability that the card melds with its hand, times ``FEED_COST``.
- Drawing: take the upcard or discard when the best hand keeping it is worth more (same
  measure) than the average hand after a stock draw.
- Knocking: when a knock is possible, opponent hands consistent with the history are sampled;
  the knock is scored on each (layoffs and undercuts included) and compared with playing on:
  the same samples, with a shuffled stock, played out to the end with a quick policy.
"""

from __future__ import annotations

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
#: A discard or upcard is taken only when it beats a stock draw by this much.
TAKE_MARGIN = 0.5
#: Opponent hands sampled for the knock decision.
KNOCK_SAMPLES = 48
#: How a 10-card hand is valued: "e1" expected least deadwood after the next draw; "outs"
#: deadwood minus OUTS_WEIGHT per live card (weighted by its chance to be in the stock) that
#: would join a meld.
VALUE_MODE = "e1"
#: Deadwood bias of the sampled opponent hands (see ``_opponent_hands``).
OPP_BETA_PER_TURN = 0.0
OPP_BETA_MAX = 0.08
OPP_POOL = 3
PROB_SAMPLES = 0
GIN_UNTIL = 99
OUTS_WEIGHT = 0.5
KNOCK_MODE = "rollout"


class _Evaluator:
    """Per-decision caches and the value measure shared by discards and draws."""

    def __init__(self, model: opponent.OpponentModel) -> None:
        self.model = model
        total = sum(model.stock_prob(c) for c in model.unseen) or 1.0
        self.draws = [(c, 1 << c, model.stock_prob(c) / total) for c in model.unseen]
        self._after: dict[int, int] = {}
        self.model_unseen = sum(1 << c for c in model.unseen)
        self.stock_prob = [1.0 - p for p in model.prob]
        self._value: dict[int, float] = {}

    def after_discard(self, mask: int) -> int:
        cached = self._after.get(mask)
        if cached is None:
            cached = min_deadwood_after_discard_mask(mask)
            self._after[mask] = cached
        return cached

    def value(self, hand: int) -> float:
        """Expected least deadwood after the next stock draw (and the best discard).

        Only a card that can meld with the hand needs the solver: any other card drawn is
        either thrown back (deadwood unchanged) or kept in place of the hand's best discard.
        """
        cached = self._value.get(hand)
        if cached is None:
            if VALUE_MODE == "e1":
                now = min_deadwood_mask(hand)
                shed = min_deadwood_after_discard_mask(hand)
                outs = meld_outs(hand)
                total = 0.0
                for card, bit, q in self.draws:
                    if outs & bit:
                        total += q * self.after_discard(hand | bit)
                    else:
                        total += q * min(now, shed + INDEX_VALUES[card])
                cached = total
            else:
                outs = meld_outs(hand) & self.model_unseen
                stock = self.stock_prob
                cached = min_deadwood_mask(hand) - OUTS_WEIGHT * sum(
                    stock[c] for c in iter_indices(outs)
                )
            self._value[hand] = cached
        return cached

    def feed(self, card: int) -> float:
        """Probability that the card would meld with the opponent's hand."""
        prob = self.model.prob
        rank = card % 13
        same = [prob[s * 13 + rank] for s in range(4) if s * 13 + rank != card]
        a, b, c = same
        p_set = a * b + a * c + b * c - 2 * a * b * c
        suit_base = card - rank

        def p(r: int) -> float:
            return prob[suit_base + r] if 0 <= r < 13 else 0.0

        m2, m1, p1, p2 = p(rank - 2), p(rank - 1), p(rank + 1), p(rank + 2)
        miss = (1 - m2 * m1) * (1 - m1 * p1) * (1 - p1 * p2)
        return 1 - (1 - p_set) * miss

    def discard_score(self, hand11: int, card: int) -> float:
        return self.value(hand11 ^ (1 << card)) + FEED_COST * self.feed(card)


def _best_discard(ev: _Evaluator, hand: int, choices: list[int]) -> tuple[int, float]:
    best_card, best = choices[0], float("inf")
    for card in choices:
        score = ev.discard_score(hand, card)
        if score < best - 1e-9 or (
            abs(score - best) <= 1e-9 and INDEX_VALUES[card] > INDEX_VALUES[best_card]
        ):
            best_card, best = card, score
    return best_card, best


def _least_deadwood_discard(hand: int, taken: int) -> int:
    """The discard leaving the least deadwood (ties: the higher card)."""
    best_card, best_key = -1, (1 << 30, 0)
    for card in iter_indices(hand):
        if card != taken:
            key = (min_deadwood_mask(hand ^ (1 << card)), -INDEX_VALUES[card])
            if key < best_key:
                best_card, best_key = card, key
    return best_card


def _draw(view: View, opts: Options, ev: _Evaluator, rng: random.Random) -> ActionDict:
    hand = hand_mask(view)
    top = top_discard(view)
    if opts.take is None or top is None:
        return dict(opts.decline) if opts.decline is not None else fallback(view, rng)
    if opts.decline is None:
        return dict(opts.take)
    with_top = hand | (1 << top)
    take = min(ev.value(with_top ^ (1 << c)) for c in iter_indices(hand))
    stock = 0.0
    now = min_deadwood_mask(hand)
    shed_card = _least_deadwood_discard(hand, -1)
    shed = min_deadwood_mask(hand ^ (1 << shed_card))
    outs = meld_outs(hand)
    for card, bit, q in ev.draws:
        if outs & bit:
            eleven = hand | bit
            kept = eleven ^ (1 << _least_deadwood_discard(eleven, -1))
        elif shed + INDEX_VALUES[card] < now:
            kept = (hand | bit) ^ (1 << shed_card)
        else:
            kept = hand
        stock += q * ev.value(kept)
    if take < stock - TAKE_MARGIN:
        return dict(opts.take)
    return dict(opts.decline)


def _opponent_hands(
    model: opponent.OpponentModel, know: knowledge.Knowledge, rng: random.Random
) -> list[int]:
    """``KNOCK_SAMPLES`` opponent hands: drawn from the model, then resampled with weights
    ``exp(-beta * deadwood)``. A player keeps its best cards, so its hand is better than a
    random draw from the unseen cards, the more so the more turns it played; beta grows with
    its draws (``OPP_BETA_PER_TURN``, up to ``OPP_BETA_MAX``), which makes the sampled
    deadwood match, on average, that of real opponents in our tournaments."""
    turns = know.opp_stock_draws + len(know.opp_picked_order)
    beta = min(OPP_BETA_MAX, OPP_BETA_PER_TURN * turns)
    if beta <= 0 or model.unknown == 0:
        return [model.sample(rng) for _ in range(KNOCK_SAMPLES)]
    pool = [model.sample(rng) for _ in range(OPP_POOL * KNOCK_SAMPLES)]
    weights = [math.exp(-beta * min_deadwood_mask(h)) for h in pool]
    return rng.choices(pool, weights=weights, k=KNOCK_SAMPLES)


def _weighted_probs(
    model: opponent.OpponentModel, know: knowledge.Knowledge, rng: random.Random
) -> list[float]:
    turns = know.opp_stock_draws + len(know.opp_picked_order)
    beta = min(OPP_BETA_MAX, OPP_BETA_PER_TURN * turns)
    prob = list(model.prob)
    if beta <= 0:
        return prob
    totals = [0.0] * 52
    weight_sum = 0.0
    for _ in range(PROB_SAMPLES):
        hand = model.sample(rng)
        w = math.exp(-beta * min_deadwood_mask(hand))
        weight_sum += w
        for c in model.unseen:
            if hand >> c & 1:
                totals[c] += w
    for c in model.unseen:
        prob[c] = totals[c] / weight_sum
    return prob


def _knock_or_not(
    view: View,
    opts: Options,
    ev: _Evaluator,
    hand: int,
    knock_card: int,
    play_card: int,
    rng: random.Random,
) -> bool:
    """Whether knocking (discarding ``knock_card``) beats playing on (discarding ``play_card``)
    on opponent hands sampled from the model."""
    model = ev.model
    kept = hand ^ (1 << knock_card)
    melds = playout.meld_masks(kept)
    on = hand ^ (1 << play_card)
    knock_total = 0.0
    play_total = 0.0
    gin_total = -1e9 if GIN_UNTIL >= 99 else 0.0
    for opp in _opponent_hands(model, knowledge.read(view), rng):
        knock_total += playout.knock_points(kept, opp, melds)
        stock = [c for c in model.unseen if not opp >> c & 1]
        rng.shuffle(stock)
        if GIN_UNTIL < 99:
            gin_total += playout.play_out(on, opp, list(stock), play_card, gin_until=GIN_UNTIL)
        play_total += playout.play_out(on, opp, stock, play_card)
    return knock_total >= max(play_total, gin_total)


def _discard_phase(view: View, opts: Options, ev: _Evaluator, rng: random.Random) -> ActionDict:
    hand = hand_mask(view)
    choices = discardable(opts)
    if opts.gin:
        return finish(opts, min(opts.gin), knock=True)
    play_card, _ = _best_discard(ev, hand, choices)
    if not opts.knock:
        return finish(opts, play_card, knock=False)
    knock_card = min(
        opts.knock, key=lambda c: (min_deadwood_mask(hand ^ (1 << c)), -INDEX_VALUES[c])
    )
    if KNOCK_MODE == "asap" or _knock_or_not(view, opts, ev, hand, knock_card, play_card, rng):
        return finish(opts, knock_card, knock=True)
    return finish(opts, play_card, knock=False)


def choose(view: View, rng: random.Random) -> ActionDict:
    opts = options(view)
    if not (opts.drawing or opts.discarding):
        return fallback(view, rng)
    know = knowledge.read(view)
    sizes = view.get("hand_sizes") or [10, 10]
    model = opponent.build(know, int(sizes[know.opponent]))
    if PROB_SAMPLES and model.unknown:
        model.prob = _weighted_probs(model, know, rng)
    ev = _Evaluator(model)
    if opts.drawing:
        return _draw(view, opts, ev, rng)
    return _discard_phase(view, opts, ev, rng)
