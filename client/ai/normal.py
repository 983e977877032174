"""Normal: the optimal arrangement, and no feeding the opponent what it visibly collects.

- Draws the upcard or the top discard when keeping it lowers its least deadwood after the best
  discard: by at least ``TAKE_GAIN`` points, or at all when the card is melded in that
  arrangement; else draws from the stock.
- Discards by score: the least deadwood left, plus ``DANGER`` for a card useful to the
  opponent: same rank as, or same suit within 2 ranks of, a card the opponent took from the
  discard pile and still holds. Among equals: the higher card, then at random. (It does not
  count the cards still live that would join its melds: that, and a model of the opponent's
  hand, is hard's.)
- Knocks as soon as it can, with the discard that leaves the least deadwood (gin at 0).
"""

from __future__ import annotations

import random

from client.ai.common import (
    ActionDict,
    View,
    discardable,
    fallback,
    finish,
    hand_mask,
    in_best_melds,
    lowers_deadwood,
    options,
    tie_break,
    top_discard,
)
from client.ai.knowledge import Knowledge, neighbours, read
from protocol.cards import INDEX_VALUES, iter_indices
from protocol.melds import KNOCK_LIMIT, min_deadwood_mask

#: Least deadwood points a taken card must save when it does not meld.
TAKE_GAIN = 6
#: Extra points charged for discarding a card next to one the opponent picked up.
DANGER = 3


def danger_mask(know: Knowledge) -> int:
    """Cards useful to the opponent: near a card it took from the pile and still holds."""
    mask = 0
    for card in iter_indices(know.opp_known):
        mask |= neighbours(card)
    return mask


def choose(view: View, rng: random.Random) -> ActionDict:
    opts = options(view)
    mask = hand_mask(view)
    if opts.drawing:
        top = top_discard(view)
        if opts.take is not None and top is not None:
            now, after = lowers_deadwood(mask, top)
            if after <= now - TAKE_GAIN or (after < now and in_best_melds(mask, top)):
                return dict(opts.take)
        if opts.decline is not None:
            return dict(opts.decline)
        return fallback(view, rng)
    if not opts.discarding:
        return fallback(view, rng)
    choices = discardable(opts)
    left = {card: min_deadwood_mask(mask ^ (1 << card)) for card in choices}
    least = min(left.values())
    if least <= KNOCK_LIMIT:
        card = tie_break([c for c in choices if left[c] == least], rng)
        return finish(opts, card, knock=True)
    risky = danger_mask(read(view))
    score = {card: left[card] + (DANGER if risky >> card & 1 else 0) for card in choices}
    best = min(score.values())
    tied = [c for c in score if score[c] <= best + 1e-9]
    high = max(INDEX_VALUES[c] for c in tied)
    return finish(opts, tie_break([c for c in tied if INDEX_VALUES[c] == high], rng), knock=False)
