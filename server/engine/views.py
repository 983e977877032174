"""What each party may see: per-seat views of a state and per-recipient copies of events.

RULES.md, "What each party may see": a player sees their own hand, the opponent's card count,
the stock's size, the whole discard pile, the public history, the scores and, on their turn,
the legal actions. A spectator (``seat=None``) sees the public part only. When a hand is over
both hands, the arrangements, the layoffs and the score are public. The stock's order and the
unseen cards are never sent before the hand is over.
"""

from __future__ import annotations

from typing import Any

from protocol.cards import from_mask, to_mask
from protocol.melds import best_arrangement_mask
from server.engine.events import Event, hand_over_event
from server.engine.rules import legal_actions
from server.engine.state import GameState, Phase

HIDDEN: Event = {"type": "hidden"}

_PUBLIC_MOVES = frozenset({"take_upcard", "pass", "discard", "knock", "gin"})
_PUBLIC_RESULTS = frozenset({"hand_over", "match_over"})
#: Room events (seats, forfeits, rematches, turn clock): public, and they name no card.
_PUBLIC_ROOM_EVENTS = frozenset({"room", "forfeit", "rematch", "timeout", "presence", "stand_in"})


def game_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """Everything the seat (or a spectator, ``None``) needs to draw the table, and no more."""
    view: dict[str, Any] = {
        "hand": state.hand_number,
        "dealer": state.dealer,
        "phase": state.phase.value,
        "turn": state.turn,
        "seat": seat,
        "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
        "stock_size": len(state.stock),
        "discard_pile": list(state.discard_pile),
        "taken_card": state.taken_card,
        "discard_draws": state.discard_draws,
        "history": [move.to_dict() for move in state.history],
        "scores": list(state.scores),
        "results": [record.to_dict() for record in state.results],
        "rules": state.rules.to_dict(),
        "legal_actions": [],
    }
    over = state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    if seat is not None:
        hand = state.hands[seat]
        arrangement = best_arrangement_mask(to_mask(hand))
        view["cards"] = list(from_mask(to_mask(hand)))
        view["melds"] = [list(meld) for meld in arrangement.melds]
        view["deadwood"] = list(arrangement.deadwood)
        view["deadwood_points"] = arrangement.deadwood_points
        view["legal_actions"] = [action.to_dict() for action in legal_actions(state, seat)]
    if over and state.results:
        view["last_hand"] = hand_over_event(state)
    totals = state.totals
    if totals is not None:
        view["match"] = {
            "winner": totals.winner,
            "points": list(totals.points),
            "game_bonus": list(totals.game_bonus),
            "box_bonus": list(totals.box_bonus),
            "shutout": totals.shutout,
            "totals": list(totals.totals),
        }
    return view


def event_for(event: Event, seat: int | None) -> Event:
    """The copy of a full-information event that a seat (or a spectator, ``None``) may see.

    Unknown event types are hidden: a new event type must be added here before anyone sees it.
    """
    kind = event.get("type")
    if kind == "deal":
        dealt: Event = {
            "type": "deal",
            "hand": event["hand"],
            "dealer": event["dealer"],
            "upcard": event["upcard"],
            "hand_sizes": [len(event["hands"][0]), len(event["hands"][1])],
            "stock_size": len(event["stock"]),
            "scores": list(event["scores"]),
        }
        if seat is not None:
            dealt["cards"] = list(event["hands"][seat])
        return dealt
    if kind == "draw":
        if event["source"] == "discard" or event["seat"] == seat:
            return dict(event)
        return {"type": "draw", "seat": event["seat"], "source": event["source"]}
    if kind in _PUBLIC_MOVES or kind in _PUBLIC_RESULTS or kind in _PUBLIC_ROOM_EVENTS:
        return dict(event)
    return dict(HIDDEN)
