"""Easy: keeps the melds it has made and discards its highest-value deadwood card, and often
misses a meld waiting in the discard pile.

- Takes the upcard or the top discard only when it completes a meld with its cards, and then
  only with the chance ``NOTICE``: the other times it does not see it and draws from the stock
  (or passes).
- Discards the highest-value deadwood card of its arrangement of the 11 cards (random
  tie-break); when all 11 cards are melded, the card whose loss leaves the least deadwood.
- Knocks when it can: whenever its discard leaves 10 deadwood points or fewer (gin at 0).
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
    options,
    take_if_it_melds,
    tie_break,
)
from protocol.cards import INDEX_VALUES, card_index
from protocol.melds import best_arrangement_mask, min_deadwood_mask

#: The chance that easy sees that the upcard or the top discard completes one of its melds.
NOTICE = 0.4


def choose(view: View, rng: random.Random) -> ActionDict:
    opts = options(view)
    mask = hand_mask(view)
    if opts.drawing:
        action = take_if_it_melds(view, opts, mask, rng)
        if action == opts.take and opts.decline is not None and rng.random() >= NOTICE:
            return dict(opts.decline)
        return action
    if not opts.discarding:
        return fallback(view, rng)
    choices = discardable(opts)
    deadwood = [
        card_index(card)
        for card in best_arrangement_mask(mask).deadwood
        if card_index(card) in choices
    ]
    if deadwood:
        high = max(INDEX_VALUES[card] for card in deadwood)
        card = tie_break([c for c in deadwood if INDEX_VALUES[c] == high], rng)
    else:
        left = {c: min_deadwood_mask(mask ^ (1 << c)) for c in choices}
        least = min(left.values())
        card = tie_break([c for c in choices if left[c] == least], rng)
    if opts.knock and card not in opts.knock and card not in opts.gin:
        # Another discard allows a knock (not seen in play; kept for "knocks when it can").
        card = min(opts.knock, key=lambda c: (min_deadwood_mask(mask ^ (1 << c)), c))
    return finish(opts, card, knock=True)
