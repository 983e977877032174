"""What the public history of the hand tells about the opponent.

Everything comes from the view: the discard pile, the public history (who took which upcard
or discard, who passed, who drew from the stock, every discard) and the hand sizes. The
discard pile is replayed move by move (backwards from the pile as it is now, which gives the
first upcard, then forwards), so that every stock draw is known to have declined the card
then on top of the pile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.ai.common import View, hand_mask
from protocol.cards import FULL_DECK_MASK, card_index, rank_of

_RANK_BITS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))


def neighbours(card: int, reach: int = 2) -> int:
    """Mask of the cards of the same rank and of the same suit within ``reach`` ranks."""
    rank = rank_of(card)
    mask = _RANK_BITS[rank]
    for step in range(1, reach + 1):
        if rank - step >= 0:
            mask |= 1 << (card - step)
        if rank + step <= 12:
            mask |= 1 << (card + step)
    return mask & ~(1 << card)


@dataclass(slots=True)
class Knowledge:
    """The public facts of the hand, from the point of view of ``seat``."""

    seat: int
    opponent: int
    hand: int
    """Own cards (mask)."""
    pile: int
    """Cards in the discard pile now (mask)."""
    upcard: int | None
    """The first upcard of the hand (card index)."""
    opp_known: int = 0
    """Cards the opponent took from the pile and still holds."""
    opp_picked: int = 0
    """Every card the opponent ever took from the pile in this hand."""
    opp_discarded: int = 0
    """Every card the opponent discarded in this hand."""
    opp_declined: int = 0
    """Upcards and discards the opponent passed on (offers declined, stock draws instead)."""
    opp_picked_order: list[int] = field(default_factory=list)
    opp_discard_order: list[int] = field(default_factory=list)
    opp_stock_draws: int = 0
    my_discards: int = 0
    """Cards this seat discarded in this hand."""
    turns: int = 0
    """Discards so far in this hand (both players)."""

    @property
    def unseen(self) -> int:
        """Cards whose place is unknown: in the stock or in the opponent's hand."""
        return FULL_DECK_MASK & ~(self.hand | self.pile | self.opp_known)

    @property
    def dead(self) -> int:
        """Cards nobody can meld with any more: they are in the discard pile."""
        return self.pile


def read(view: View) -> Knowledge:
    """Replay the public history of the hand in the view."""
    seat = int(view["seat"])
    opponent = 1 - seat
    pile_cards = [card_index(card) for card in view.get("discard_pile") or ()]
    history = list(view.get("history") or ())
    # Backwards: undo every move on the pile to find the first upcard.
    stack = list(pile_cards)
    for move in reversed(history):
        kind = move["kind"]
        if kind in ("discard", "knock", "gin"):
            if stack:
                stack.pop()
        elif kind in ("take_upcard", "draw_discard"):
            stack.append(card_index(move["card"]))
    upcard = stack[0] if stack else None
    pile = 0
    for card in pile_cards:
        pile |= 1 << card
    know = Knowledge(seat=seat, opponent=opponent, hand=hand_mask(view), pile=pile, upcard=upcard)
    # Forwards.
    stack = [upcard] if upcard is not None else []
    passes = 0
    for move in history:
        kind = move["kind"]
        mover = move["seat"]
        top = stack[-1] if stack else None
        if kind == "pass":
            passes += 1
            if mover == opponent and top is not None:
                know.opp_declined |= 1 << top
        elif kind == "draw_stock":
            forced = passes == 2
            passes = 0
            if mover == opponent:
                know.opp_stock_draws += 1
                if not forced and top is not None:
                    know.opp_declined |= 1 << top
        elif kind in ("take_upcard", "draw_discard"):
            card = card_index(move["card"])
            if stack:
                stack.pop()
            if mover == opponent:
                know.opp_known |= 1 << card
                know.opp_picked |= 1 << card
                know.opp_picked_order.append(card)
        elif kind in ("discard", "knock", "gin"):
            card = card_index(move["card"])
            stack.append(card)
            know.turns += 1
            if mover == opponent:
                know.opp_known &= ~(1 << card)
                know.opp_discarded |= 1 << card
                know.opp_discard_order.append(card)
            else:
                know.my_discards |= 1 << card
    return know
