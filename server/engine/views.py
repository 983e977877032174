"""What each party may see: per-seat views of a state and per-recipient copies of events.

RULES.md, "What each party may see": a player sees their own hand, the opponent's card count,
the stock's size, the whole discard pile, the public history, the scores and, on their turn,
the legal actions. A spectator (``seat=None``) sees the public part only. When a hand is over
both hands, the arrangements, the layoffs and the score are public. The stock's order and the
unseen cards are never sent before the hand is over.
"""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType
from typing import Any, Final

from protocol.cards import from_mask, to_mask
from protocol.melds import best_arrangement_mask
from server.engine.events import Event, hand_over_event
from server.engine.rules import legal_action_dicts as _legal_action_dicts
from server.engine.state import GameState, Phase, rules_dict

HIDDEN: Final = MappingProxyType({"type": "hidden"})

_PUBLIC_MOVES = frozenset({"take_upcard", "pass", "discard", "knock", "gin"})
_PUBLIC_RESULTS = frozenset({"hand_over", "match_over"})
#: Room events (seats, forfeits, rematches, turn clock): public, and they name no card.
_PUBLIC_ROOM_EVENTS = frozenset(
    {
        "room",
        "forfeit",
        "rematch",
        "timeout",
        "presence",
        "stand_in",
        "rated",
        "paired",
        "result_closed",
    }
)
#: Event types of the room (not of the game): a hand's record holds the others only.
ROOM_EVENT_TYPES = _PUBLIC_ROOM_EVENTS

#: Distinct hands whose arrangement is remembered (a few hundred bytes each).
_HAND_CACHE = 4096


def game_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """Everything the seat (or a spectator, ``None``) needs to draw the table, and no more."""
    head, table, tail = public_game_parts(state)
    view: dict[str, Any] = {**head, "seat": seat, **table}
    view["history"] = [move.to_dict() for move in state.history]
    view.update(record_part(state))
    view["legal_actions"] = []
    if seat is not None:
        cards, melds, deadwood, points = hand_parts(state.hands[seat])
        view["cards"] = list(cards)
        view["melds"] = [list(meld) for meld in melds]
        view["deadwood"] = list(deadwood)
        view["deadwood_points"] = points
        view["legal_actions"] = legal_action_dicts(state, seat)
    view.update(tail)
    return view


def public_game_parts(
    state: GameState,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The part of ``game_view`` every recipient shares but the ``history`` (the public moves,
    ``Move.to_dict`` each) and the hand's record (``record_part``), as three maps in the
    view's key order: before ``seat`` (hand, dealer, phase, turn), between ``seat`` and
    ``history`` (the table), and after the seat's own cards (``last_hand`` and ``match`` when
    there are)."""
    head: dict[str, Any] = {
        "hand": state.hand_number,
        "dealer": state.dealer,
        "phase": state.phase.value,
        "turn": state.turn,
    }
    table: dict[str, Any] = {
        "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
        "stock_size": len(state.stock),
        "discard_pile": list(state.discard_pile),
        "taken_card": state.taken_card,
        "discard_draws": state.discard_draws,
    }
    tail: dict[str, Any] = {}
    if state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER) and state.results:
        tail["last_hand"] = hand_over_event(state)
    totals = state.totals
    if totals is not None:
        tail["match"] = {
            "winner": totals.winner,
            "points": list(totals.points),
            "game_bonus": list(totals.game_bonus),
            "box_bonus": list(totals.box_bonus),
            "shutout": totals.shutout,
            "totals": list(totals.totals),
        }
    return head, table, tail


def record_part(state: GameState) -> dict[str, Any]:
    """The ``scores``, ``results`` and ``rules`` of ``game_view``, between ``history`` and
    ``legal_actions``. A move keeps the state's results, scores and rules, so the encoders
    reuse what they make of it for the whole hand (``FrameParts``, ``RoomBlobs``). The
    ``rules`` map is shared (``rules_dict``): callers must not modify it."""
    return {
        "scores": list(state.scores),
        "results": [result.to_dict() for result in state.results],
        "rules": rules_dict(state.rules),
    }


def legal_action_dicts(state: GameState, seat: int) -> list[dict[str, Any]]:
    """The seat's ``legal_actions`` as the view lists them (``Action.to_dict`` each)."""
    return _legal_action_dicts(state, seat)


_HandParts = tuple[tuple[str, ...], tuple[tuple[str, ...], ...], tuple[str, ...], int]


def hand_parts(hand: tuple[str, ...]) -> _HandParts:
    """A hand as its owner's view shows it: the cards in order, the melds, the deadwood and
    its points of the best arrangement (remembered per hand: a hand is unchanged for the
    opponent's whole turn)."""
    return _arranged(to_mask(hand))  # ``to_mask`` says what is wrong with what is not a hand


@lru_cache(maxsize=_HAND_CACHE)
def _arranged(mask: int) -> _HandParts:
    arrangement = best_arrangement_mask(mask)
    return from_mask(mask), arrangement.melds, arrangement.deadwood, arrangement.deadwood_points


def seen_by_all(event: Event) -> bool:
    """Whether every seat and every spectator sees the event as it is (``event_for`` copies
    it unchanged for each): the encoders then encode it once for all."""
    kind = event.get("type")
    if kind == "draw":
        return bool(event["source"] == "discard")
    return kind in _PUBLIC_MOVES or kind in _PUBLIC_RESULTS or kind in _PUBLIC_ROOM_EVENTS


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
        hidden: Event = {"type": "draw", "seat": event["seat"], "source": event["source"]}
        if "by" in event:
            hidden["by"] = event["by"]
        return hidden
    if kind in _PUBLIC_MOVES or kind in _PUBLIC_RESULTS or kind in _PUBLIC_ROOM_EVENTS:
        return dict(event)
    return dict(HIDDEN)
