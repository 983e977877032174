"""A hand of Gin Rummy on card masks, for reviews and their play-outs (pure; no I/O).

The review worker is a client: it may not import the server's engine, so this module plays a
hand the way ``RULES.md`` says, from a deal, with every card known (a finished hand's replay,
or a deal sampled for a Monte Carlo play-out). :meth:`Table.view` is what the server would
send a seat at that moment -- the fields the AI policies read (``seat``, ``cards``,
``discard_pile``, ``history``, ``hand_sizes``, ``stock_size``, ``taken_card``,
``legal_actions``) -- built from that seat's cards and the public history only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.cards import DECK, card_index, iter_indices
from protocol.melds import KNOCK_LIMIT, min_deadwood_after_discard_mask, min_deadwood_mask
from protocol.scoring import score_hand

#: A discard that leaves this many cards or fewer in the stock ends the hand (dead hand).
DEAD_HAND_STOCK = 2
#: After this many draws from the discard pile, the next discard without a knock ends it.
DISCARD_DRAW_CAP = 50

FIRST_OFFER = "first_offer"
SECOND_OFFER = "second_offer"
FIRST_DRAW = "first_draw"
DRAW = "draw"
DISCARD = "discard"
OVER = "over"


@dataclass(slots=True)
class Table:
    """The state of one hand. ``stock`` is drawn from its end."""

    hands: list[int]
    stock: list[int]
    pile: list[int]
    dealer: int
    phase: str = FIRST_OFFER
    turn: int = 0
    taken: int | None = None
    discard_draws: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    #: Points of the finished hand for seat 0 (positive: seat 0 scored), and how it ended.
    points0: int = 0
    ending: str | None = None

    @classmethod
    def deal(cls, hands: list[int], upcard: int, stock: list[int], dealer: int) -> Table:
        return cls(
            hands=list(hands), stock=list(stock), pile=[upcard], dealer=dealer, turn=1 - dealer
        )

    def copy(self) -> Table:
        return Table(
            hands=list(self.hands),
            stock=list(self.stock),
            pile=list(self.pile),
            dealer=self.dealer,
            phase=self.phase,
            turn=self.turn,
            taken=self.taken,
            discard_draws=self.discard_draws,
            history=list(self.history),
            points0=self.points0,
            ending=self.ending,
        )

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def points_for(self, seat: int) -> int:
        return self.points0 if seat == 0 else -self.points0

    # --- what a seat sees ------------------------------------------------------------------

    def legal_actions(self) -> list[dict[str, str]]:
        """The legal actions of the seat to play, in the server's order."""
        phase = self.phase
        if phase in (FIRST_OFFER, SECOND_OFFER):
            return [{"kind": "take_upcard"}, {"kind": "pass"}]
        if phase == FIRST_DRAW:
            return [{"kind": "draw_stock"}]
        if phase == DRAW:
            return [{"kind": "draw_stock"}, {"kind": "draw_discard"}]
        if phase != DISCARD:
            return []
        hand = self.hands[self.turn]
        choices = [c for c in iter_indices(hand) if c != self.taken]
        actions = [{"kind": "discard", "card": DECK[c]} for c in choices]
        if min_deadwood_after_discard_mask(hand) > KNOCK_LIMIT:
            return actions
        left = [(c, min_deadwood_mask(hand ^ (1 << c))) for c in choices]
        actions.extend({"kind": "knock", "card": DECK[c]} for c, p in left if p <= KNOCK_LIMIT)
        actions.extend({"kind": "gin", "card": DECK[c]} for c, p in left if p == 0)
        return actions

    def view(self, seat: int) -> dict[str, Any]:
        """The game view the server sends ``seat`` now (own cards and public facts only)."""
        return {
            "seat": seat,
            "dealer": self.dealer,
            "phase": self.phase,
            "turn": self.turn,
            "hand_sizes": [self.hands[0].bit_count(), self.hands[1].bit_count()],
            "stock_size": len(self.stock),
            "discard_pile": [DECK[c] for c in self.pile],
            "taken_card": DECK[self.taken] if self.taken is not None else None,
            "discard_draws": self.discard_draws,
            "history": list(self.history),
            "cards": [DECK[c] for c in iter_indices(self.hands[seat])],
            "legal_actions": self.legal_actions() if seat == self.turn else [],
        }

    # --- playing ---------------------------------------------------------------------------

    def play(self, action: dict[str, Any]) -> int | None:
        """Apply the action of the seat to play (assumed legal); returns the card drawn from
        the stock, if any."""
        kind = action["kind"]
        seat = self.turn
        if kind in ("take_upcard", "draw_discard"):
            card = self.pile.pop()
            self.hands[seat] |= 1 << card
            self.taken = card
            if kind == "draw_discard":
                self.discard_draws += 1
            self.history.append({"seat": seat, "kind": kind, "card": DECK[card]})
            self.phase = DISCARD
            return None
        if kind == "pass":
            self.history.append({"seat": seat, "kind": "pass"})
            if self.phase == FIRST_OFFER:
                self.phase, self.turn = SECOND_OFFER, 1 - seat
            else:
                self.phase, self.turn = FIRST_DRAW, 1 - seat
            return None
        if kind == "draw_stock":
            card = self.stock.pop()
            self.hands[seat] |= 1 << card
            self.taken = None
            self.history.append({"seat": seat, "kind": "draw_stock"})
            self.phase = DISCARD
            return card
        card = card_index(action["card"])
        self.hands[seat] ^= 1 << card
        self.pile.append(card)
        self.taken = None
        self.history.append({"seat": seat, "kind": kind, "card": DECK[card]})
        if kind in ("knock", "gin"):
            self._score(seat)
        elif len(self.stock) <= DEAD_HAND_STOCK or self.discard_draws >= DISCARD_DRAW_CAP:
            self.phase, self.ending, self.points0 = OVER, "dead", 0
        else:
            self.phase, self.turn = DRAW, 1 - seat
        return None

    def _score(self, knocker: int) -> None:
        result = score_hand(
            [DECK[c] for c in iter_indices(self.hands[knocker])],
            [DECK[c] for c in iter_indices(self.hands[1 - knocker])],
        )
        winner = knocker if result.winner == "knocker" else 1 - knocker
        self.phase, self.ending = OVER, result.kind
        self.points0 = result.points if winner == 0 else -result.points
