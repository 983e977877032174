"""Shared helpers for the AI policies: reading a view and picking from its legal actions.

A policy is a pure function ``choose(view, rng) -> action`` of the ``game`` part of a seat's
view (exactly what the server sends that seat) and an explicit ``random.Random``. Everything
here reads the view only; the returned action is always an element of
``view["legal_actions"]``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.cards import INDEX_VALUES, card_index, iter_indices, rank_of
from protocol.melds import min_deadwood_mask

View = Mapping[str, Any]
ActionDict = dict[str, Any]
Policy = Callable[[View, random.Random], ActionDict]

DISCARD_KINDS = ("discard", "knock", "gin")
TAKE_KINDS = ("take_upcard", "draw_discard")


@dataclass(frozen=True, slots=True)
class Options:
    """The legal actions of a view, sorted by what they are."""

    actions: tuple[ActionDict, ...]
    take: ActionDict | None
    """``take_upcard`` or ``draw_discard``, when legal."""
    decline: ActionDict | None
    """``pass`` or ``draw_stock``, when legal."""
    discard: dict[int, ActionDict]
    knock: dict[int, ActionDict]
    gin: dict[int, ActionDict]
    other: tuple[ActionDict, ...]
    """Anything else (``next_hand``)."""

    @property
    def discarding(self) -> bool:
        return bool(self.discard or self.knock or self.gin)

    @property
    def drawing(self) -> bool:
        return self.take is not None or self.decline is not None


def options(view: View) -> Options:
    actions = tuple(view.get("legal_actions") or ())
    take = decline = None
    discard: dict[int, ActionDict] = {}
    knock: dict[int, ActionDict] = {}
    gin: dict[int, ActionDict] = {}
    other = []
    for action in actions:
        kind = action.get("kind")
        if kind in TAKE_KINDS:
            take = action
        elif kind in ("pass", "draw_stock"):
            # ``pass`` (an offer) and ``draw_stock`` never appear together.
            decline = action
        elif kind == "discard":
            discard[card_index(action["card"])] = action
        elif kind == "knock":
            knock[card_index(action["card"])] = action
        elif kind == "gin":
            gin[card_index(action["card"])] = action
        else:
            other.append(action)
    return Options(actions, take, decline, discard, knock, gin, tuple(other))


def hand_mask(view: View) -> int:
    mask = 0
    for card in view.get("cards") or ():
        mask |= 1 << card_index(card)
    return mask


def top_discard(view: View) -> int | None:
    pile = view.get("discard_pile") or ()
    return card_index(pile[-1]) if pile else None


def discardable(opts: Options) -> list[int]:
    """Card indices that may be discarded now (with or without a knock), ascending."""
    return sorted(set(opts.discard) | set(opts.knock) | set(opts.gin))


def finish(opts: Options, card: int, *, knock: bool) -> ActionDict:
    """The action that lets go of ``card``: gin when it is gin, a knock when asked and legal,
    else a plain discard."""
    if card in opts.gin:
        return dict(opts.gin[card])
    if knock and card in opts.knock:
        return dict(opts.knock[card])
    if card in opts.discard:
        return dict(opts.discard[card])
    if card in opts.knock:
        return dict(opts.knock[card])
    raise ValueError(f"card {card} cannot be discarded now")


def fallback(view: View, rng: random.Random) -> ActionDict:
    """Any legal action; the only one there is outside of a playing turn (``next_hand``)."""
    actions = list(view.get("legal_actions") or ())
    if not actions:
        raise ValueError("no legal action in this view: it is not this seat's turn")
    return dict(actions[0])


def lowers_deadwood(mask: int, card: int) -> tuple[int, int]:
    """(deadwood of the hand now, least deadwood after taking ``card`` and discarding another
    one). The second is computed on the 11 cards with ``card`` kept."""
    now = min_deadwood_mask(mask)
    best = min(
        min_deadwood_mask((mask | (1 << card)) ^ (1 << other)) for other in iter_indices(mask)
    )
    return now, best


def joins_meld(mask: int, card: int) -> bool:
    """Whether ``card`` can be part of a meld with cards of ``mask`` (a set or a run)."""
    rank = rank_of(card)
    same_rank = sum(1 for suit in range(4) if mask >> (suit * 13 + rank) & 1)
    if same_rank >= 2:
        return True
    low = card - rank
    run = [(mask >> (low + r)) & 1 if 0 <= r < 13 else 0 for r in range(rank - 2, rank + 3)]
    # Positions: rank-2, rank-1, (card), rank+1, rank+2.
    return bool((run[0] and run[1]) or (run[1] and run[3]) or (run[3] and run[4]))


def in_best_melds(mask: int, card: int) -> bool:
    """Whether ``card`` is melded in a least-deadwood arrangement of ``mask | card`` that
    keeps it (its removal would raise the deadwood by more than its own value)."""
    with_card = mask | (1 << card)
    return min_deadwood_mask(with_card) < min_deadwood_mask(mask) + INDEX_VALUES[card]


def tie_break(cards: Sequence[int], rng: random.Random) -> int:
    return cards[0] if len(cards) == 1 else rng.choice(list(cards))


_SUIT = (1 << 13) - 1
_RANKS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))
#: The cards that a shift of the whole hand by one or two ranks keeps within their suit.
_UP_ONE = ((1 << 52) - 1) & ~_RANKS[12]
_UP_TWO = _UP_ONE & ~_RANKS[11]
_DOWN_ONE = ((1 << 52) - 1) & ~_RANKS[0]
_DOWN_TWO = _DOWN_ONE & ~_RANKS[1]


def meld_outs(hand: int) -> int:
    """Cards not in the hand that would join a meld with its cards: the third or fourth card
    of a rank it holds twice or more, or a card making three in a row with two of its cards."""
    above = (hand & _UP_ONE) << 1  # one rank above a card of the hand, same suit
    two_above = (hand & _UP_TWO) << 2
    below = (hand & _DOWN_ONE) >> 1
    two_below = (hand & _DOWN_TWO) >> 2
    outs = (above & two_above) | (above & below) | (below & two_below)
    c, d, h, s = hand & _SUIT, (hand >> 13) & _SUIT, (hand >> 26) & _SUIT, hand >> 39
    # Ranks held at least twice.
    twice = (c & (d | h | s)) | (d & (h | s)) | (h & s)
    outs |= twice | (twice << 13) | (twice << 26) | (twice << 39)
    return outs & ~hand


def take_if_it_melds(view: View, opts: Options, mask: int, rng: random.Random) -> ActionDict:
    """The draw rule of the easy and simple players: take the top discard (or the upcard)
    only when it joins a meld, else draw from the stock (or pass)."""
    top = top_discard(view)
    if opts.take is not None and top is not None and joins_meld(mask, top):
        return dict(opts.take)
    if opts.decline is not None:
        return dict(opts.decline)
    return fallback(view, rng)
