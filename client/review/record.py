"""A finished hand's replay record, read back as the decisions its players made.

The record (``GET /api/hands/{id}``, or the job the server hands a review worker) holds the
deal with every card and each move. It is replayed on a :class:`~client.review.table.Table`;
before each move of a seat that had a choice, the seat's view at that moment is kept
(``Table.view``: its own cards and the public history, nothing hidden). Only those views go
on to be judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from client.review.table import DISCARD, DRAW, FIRST_DRAW, FIRST_OFFER, SECOND_OFFER, Table
from protocol.cards import DECK, card_index

#: What a decision is about, by the phase it is made in.
KIND_OF_PHASE = {
    FIRST_OFFER: "upcard",
    SECOND_OFFER: "upcard",
    DRAW: "draw",
    DISCARD: "discard",
    FIRST_DRAW: "forced_draw",
}


class RecordError(ValueError):
    """The record does not replay (malformed, or a move the rules do not allow)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One move of a seat: the event it was (``step``, its index in ``events``), what the
    seat saw before it, and what it played. ``kind`` ``forced_draw`` (the first draw after two
    passes) is no choice: it is kept for the luck of the card drawn."""

    step: int
    seat: int
    kind: str
    view: dict[str, Any]
    played: dict[str, Any]

    @property
    def choice(self) -> bool:
        return self.kind != "forced_draw"


def _mask(cards: Sequence[str]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card_index(card)
    return mask


def _action(event: Mapping[str, Any]) -> dict[str, Any] | None:
    kind = event.get("type")
    if kind in ("take_upcard", "pass"):
        return {"kind": kind}
    if kind == "draw":
        return {"kind": "draw_discard" if event.get("source") == "discard" else "draw_stock"}
    if kind in ("discard", "knock", "gin"):
        return {"kind": kind, "card": event["card"]}
    return None


def decisions(record: Mapping[str, Any]) -> list[Decision]:
    """Every move of the hand, with the view its seat had before it, in order."""
    try:
        return _decisions(record)
    except RecordError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise RecordError(f"the hand record does not replay: {error}") from None


def _decisions(record: Mapping[str, Any]) -> list[Decision]:
    events = list(record.get("events") or ())
    starts = [i for i, event in enumerate(events) if event.get("type") == "deal"]
    if not starts:
        raise RecordError("the hand record has no deal")
    start = starts[0]
    deal = events[start]
    hands = [_mask(deal["hands"][0]), _mask(deal["hands"][1])]
    stock = [card_index(card) for card in deal["stock"]]
    table = Table.deal(hands, card_index(deal["upcard"]), stock, int(deal["dealer"]))
    found: list[Decision] = []
    for step in range(start + 1, len(events)):
        event = events[step]
        action = _action(event)
        if action is None:
            continue
        if table.over:
            raise RecordError(f"a move after the end of the hand (event {step})")
        seat = int(event["seat"])
        if seat != table.turn:
            raise RecordError(f"event {step}: seat {seat} moved out of turn")
        legal = table.legal_actions()
        if action not in legal:
            raise RecordError(f"event {step}: {action} is not a legal move")
        if len(legal) > 1 or table.phase == FIRST_DRAW:
            found.append(Decision(step, seat, KIND_OF_PHASE[table.phase], table.view(seat), action))
        drawn = table.play(action)
        if drawn is not None and event.get("card") not in (None, DECK[drawn]):
            raise RecordError(f"event {step}: the stock gave {event.get('card')}, not {drawn}")
    return found
