"""What happened, as full-information plain dicts (the server redacts them per recipient).

Event types: ``deal``, ``take_upcard``, ``pass``, ``draw``, ``discard``, ``knock``, ``gin``,
``hand_over`` and ``match_over``. Together they replay a hand move by move with every card.
"""

from __future__ import annotations

from typing import Any

from protocol.melds import best_arrangement
from protocol.scoring import HandResult, MatchTotals, score_hand
from server.engine.state import GameState, Phase

Event = dict[str, Any]


def deal_event(state: GameState) -> Event:
    """The deal of the current hand, from a state before its first draw."""
    if state.phase not in (Phase.FIRST_OFFER, Phase.SECOND_OFFER, Phase.FIRST_DRAW):
        raise ValueError(f"the deal is only visible before the first draw, not in {state.phase}")
    return {
        "type": "deal",
        "hand": state.hand_number,
        "dealer": state.dealer,
        "hands": [list(state.hands[0]), list(state.hands[1])],
        "upcard": state.discard_pile[-1],
        "stock": list(state.stock),
        "scores": list(state.scores),
    }


def move_event(seat: int, kind: str, card: str | None) -> Event:
    event: Event = {"type": kind, "seat": seat}
    if card is not None:
        event["card"] = card
    return event


def draw_event(seat: int, source: str, card: str) -> Event:
    return {"type": "draw", "seat": seat, "source": source, "card": card}


def hand_over_event(state: GameState, result: HandResult | None = None) -> Event:
    """The end of the last hand: both hands, their arrangements, layoffs and the score.

    Rebuilt from the state alone when ``result`` is not given, so a view can show a finished
    hand without the event stream.
    """
    if state.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
        raise ValueError(f"no hand is over in phase {state.phase}")
    record = state.results[-1]
    last = state.history[-1] if state.history else None
    knocker = last.seat if record.kind != "dead" and last is not None else None
    event: Event = {
        "type": "hand_over",
        "hand": state.hand_number,
        "kind": record.kind,
        "winner": record.winner,
        "points": record.points,
        "knocker": knocker,
        "hands": [list(state.hands[0]), list(state.hands[1])],
        "scores": list(state.scores),
    }
    if knocker is None:
        arrangements = [best_arrangement(hand) for hand in state.hands]
        event["melds"] = [[list(meld) for meld in a.melds] for a in arrangements]
        event["deadwood"] = [list(a.deadwood) for a in arrangements]
        event["deadwood_points"] = [a.deadwood_points for a in arrangements]
        event["layoffs"] = []
        return event
    if result is None:
        result = score_hand(state.hands[knocker], state.hands[1 - knocker])
    melds: list[list[list[str]]] = [[], []]
    deadwood: list[list[str]] = [[], []]
    points = [0, 0]
    melds[knocker] = [list(meld) for meld in result.knocker_melds]
    melds[1 - knocker] = [list(meld) for meld in result.defender_melds]
    deadwood[knocker] = list(result.knocker_deadwood_cards)
    deadwood[1 - knocker] = list(result.defender_deadwood_cards)
    points[knocker] = result.knocker_deadwood
    points[1 - knocker] = result.defender_deadwood
    event["melds"] = melds
    event["deadwood"] = deadwood
    event["deadwood_points"] = points
    event["layoffs"] = [{"card": lay.card, "meld": lay.meld} for lay in result.layoffs]
    return event


def match_over_event(totals: MatchTotals) -> Event:
    return {
        "type": "match_over",
        "winner": totals.winner,
        "points": list(totals.points),
        "game_bonus": list(totals.game_bonus),
        "box_bonus": list(totals.box_bonus),
        "shutout": totals.shutout,
        "totals": list(totals.totals),
    }
