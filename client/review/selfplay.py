"""Hands played by the AI policies on a :class:`~client.review.table.Table`, recorded the way
the server records a finished hand (``deal``, the moves, ``hand_over``): what the benchmark
and the tests review. A policy may be swapped for one seat's decisions (injected errors)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from client.ai.common import Policy
from client.review.table import Table
from protocol.cards import DECK, iter_indices

#: Called before each move: (table, seat, the policy's action) -> the action played instead,
#: or None to play the policy's.
Override = Callable[[Table, dict[str, Any], dict[str, Any]], dict[str, Any] | None]


def deal(rng: random.Random, dealer: int) -> Table:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[:10]), sum(1 << c for c in deck[10:20])]
    return Table.deal(hands, deck[20], deck[21:], dealer)


def deal_event(table: Table, hand: int = 1) -> dict[str, Any]:
    return {
        "type": "deal",
        "hand": hand,
        "dealer": table.dealer,
        "hands": [[DECK[c] for c in iter_indices(h)] for h in table.hands],
        "upcard": DECK[table.pile[-1]],
        "stock": [DECK[c] for c in table.stock],
        "scores": [0, 0],
    }


def play_hand(
    table: Table,
    policies: Mapping[int, Policy],
    rng: random.Random,
    override: Override | None = None,
) -> dict[str, Any]:
    """Play the table's hand to its end; returns its record (``events``, ``result``)."""
    events = [deal_event(table)]
    while not table.over:
        seat = table.turn
        view = table.view(seat)
        action = policies[seat](view, rng)
        if override is not None:
            action = override(table, view, action) or action
        kind = action["kind"]
        drawn = table.play(action)
        if kind in ("draw_stock", "draw_discard"):
            card = DECK[drawn] if drawn is not None else str(table.history[-1]["card"])
            source = "stock" if kind == "draw_stock" else "discard"
            events.append({"type": "draw", "seat": seat, "source": source, "card": card})
        else:
            events.append(
                {
                    "type": kind,
                    "seat": seat,
                    **({"card": action["card"]} if "card" in action else {}),
                }
            )
    result = {"type": "hand_over", "kind": table.ending, "points0": table.points0}
    events.append(result)
    return {"events": events, "dealer": table.dealer, "result": result}
