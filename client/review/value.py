"""The value of a choice: expected points of the hand, by Monte Carlo over the unseen cards.

From the view of the seat deciding (its own cards and the public history only), worlds are
drawn that are consistent with what it knew: the opponent's hand from the hard policy's
opponent model (the cards it visibly took, weighted by what it took, threw and passed on,
with a bias towards low deadwood), the rest of the unseen cards shuffled as the stock. Each
candidate is played in each world, then the hand is played out to its end with the hard
policy for both seats. The value of a candidate is the mean of the decider's points (positive
when it scores, negative when the opponent does, 0 for a dead hand).

Every candidate meets the same worlds and the same play-out random numbers (common random
numbers), so their differences are much less noisy than their values. The generator is seeded
from the review's seed and the view alone, so two hands that the decider could not tell apart
get the same numbers.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from client.ai import hard, knowledge, opponent
from client.review.table import Table
from protocol.cards import card_index

Action = Mapping[str, Any]


def view_seed(seed: str, view: Mapping[str, Any], salt: str = "") -> int:
    """A seed from the review's seed and what the seat saw (nothing hidden)."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(f"{seed}|{salt}|{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def worlds(view: Mapping[str, Any], rng: random.Random, count: int) -> list[Table]:
    """``count`` tables at the moment of ``view``, the hidden cards drawn from what the seat
    knew."""
    seat = int(view["seat"])
    know = knowledge.read(view)
    sizes = view["hand_sizes"]
    model = opponent.build(know, int(sizes[1 - seat]))
    own = know.hand
    pile = [card_index(card) for card in view["discard_pile"]]
    taken = view.get("taken_card")
    found = []
    for opp in hard.opponent_hands(model, know, rng, count):
        stock = [c for c in model.unseen if not opp >> c & 1]
        if len(stock) != view["stock_size"] or opp.bit_count() != sizes[1 - seat]:
            raise ValueError("the view's cards do not add up to a deck")
        rng.shuffle(stock)
        hands = [own, opp] if seat == 0 else [opp, own]
        found.append(
            Table(
                hands=hands,
                stock=stock,
                pile=list(pile),
                dealer=int(view["dealer"]),
                phase=str(view["phase"]),
                turn=int(view["turn"]),
                taken=card_index(taken) if taken else None,
                discard_draws=int(view.get("discard_draws") or 0),
                history=list(view["history"]),
            )
        )
    return found


def play_out(table: Table, rng: random.Random, knock_samples: int) -> None:
    """Play the hand to its end with the hard policy for both seats."""
    while not table.over:
        table.play(hard.decide(table.view(table.turn), rng, knock_samples))


def values(
    view: Mapping[str, Any],
    candidates: Sequence[Action],
    *,
    samples: int,
    seed: str,
    salt: str = "",
    knock_samples: int = 8,
) -> list[list[int]]:
    """For each candidate, the decider's points in each of ``samples`` worlds."""
    seat = int(view["seat"])
    base = view_seed(seed, view, salt)
    rng = random.Random(base)
    tables = worlds(view, rng, samples)
    points: list[list[int]] = [[] for _ in candidates]
    for index, world in enumerate(tables):
        for slot, action in enumerate(candidates):
            table = world.copy()
            table.play(dict(action))
            play_out(table, random.Random(base + 1 + index), knock_samples)
            points[slot].append(table.points_for(seat))
    return points
