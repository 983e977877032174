"""A probability model of the opponent's hand, from the public history only.

The opponent holds the cards it took from the discard pile and has not discarded since (known
for sure), plus ``hand_sizes[opponent] - known`` cards among the *unseen* ones: the 52 cards
minus our own hand, the discard pile and its known cards. Not all unseen cards are equally
likely:

- a card next to (same rank as, or same suit within 2 ranks of) one the opponent took from the
  pile is more likely: a player takes a discard to meld it;
- a card next to one the opponent discarded, or passed on (an upcard declined, a discard left
  for a stock draw), is less likely: a player keeps what melds with its cards.

Each unseen card gets a weight from these rules; ``prob[c]`` is the probability that the
opponent holds ``c`` (weights scaled so that they sum to the number of unknown cards, capped
at 1), and ``sample`` draws whole hands with the weights (successive sampling without
replacement), which is what the knock and the play-on estimates use.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from client.ai.knowledge import Knowledge
from protocol.cards import iter_indices, rank_of

#: Weight factors for an unseen card near a card the opponent took (close: same rank or
#: suit-adjacent; far: same suit, 2 ranks away), and near one it threw or passed on.
PICKED_CLOSE = 3.0
PICKED_FAR = 1.6
THROWN_CLOSE = 0.55
THROWN_FAR = 0.8
_RANK_BITS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))


def _close(card: int) -> int:
    rank = rank_of(card)
    mask = _RANK_BITS[rank]
    if rank > 0:
        mask |= 1 << (card - 1)
    if rank < 12:
        mask |= 1 << (card + 1)
    return mask & ~(1 << card)


def _far(card: int) -> int:
    rank = rank_of(card)
    mask = 0
    if rank > 1:
        mask |= 1 << (card - 2)
    if rank < 11:
        mask |= 1 << (card + 2)
    return mask


CLOSE: tuple[int, ...] = tuple(_close(card) for card in range(52))
FAR: tuple[int, ...] = tuple(_far(card) for card in range(52))


@dataclass(slots=True)
class OpponentModel:
    known: int
    """Cards the opponent surely holds."""
    unseen: tuple[int, ...]
    """Cards that are in the stock or the opponent's hand."""
    weights: dict[int, float]
    unknown: int
    """How many of the opponent's cards are among the unseen."""
    prob: list[float]
    """Probability, per card index, that the opponent holds it (1 for known cards)."""

    def sample(self, rng: random.Random) -> int:
        """A hand for the opponent (mask), drawn with the weights."""
        if self.unknown <= 0:
            return self.known
        # Efraimidis-Spirakis: the k largest u ** (1 / w).
        keyed = sorted(
            ((rng.random() ** (1.0 / self.weights[c]), c) for c in self.unseen), reverse=True
        )
        hand = self.known
        for _, card in keyed[: self.unknown]:
            hand |= 1 << card
        return hand

    def stock_prob(self, card: int) -> float:
        """Probability that an unseen card is in the stock."""
        return 1.0 - self.prob[card]


def build(know: Knowledge, opponent_cards: int) -> OpponentModel:
    unseen_mask = know.unseen
    unseen = tuple(iter_indices(unseen_mask))
    weights = dict.fromkeys(unseen, 1.0)
    for card in iter_indices(know.opp_picked):
        for other in iter_indices(CLOSE[card] & unseen_mask):
            weights[other] *= PICKED_CLOSE
        for other in iter_indices(FAR[card] & unseen_mask):
            weights[other] *= PICKED_FAR
    for card in iter_indices((know.opp_discarded | know.opp_declined) & ~know.opp_picked):
        for other in iter_indices(CLOSE[card] & unseen_mask):
            weights[other] *= THROWN_CLOSE
        for other in iter_indices(FAR[card] & unseen_mask):
            weights[other] *= THROWN_FAR
    unknown = max(0, min(len(unseen), opponent_cards - know.opp_known.bit_count()))
    prob = [0.0] * 52
    for card in iter_indices(know.opp_known):
        prob[card] = 1.0
    if unknown and unseen:
        # Scale the weights to sum to ``unknown``, capping each probability at 1.
        free = list(unseen)
        left = float(unknown)
        while free:
            total = sum(weights[c] for c in free)
            scale = left / total
            over = [c for c in free if weights[c] * scale >= 1.0]
            if not over:
                for c in free:
                    prob[c] = weights[c] * scale
                break
            for c in over:
                prob[c] = 1.0
            left -= len(over)
            free = [c for c in free if c not in over]
    return OpponentModel(
        known=know.opp_known, unseen=unseen, weights=weights, unknown=unknown, prob=prob
    )
