"""The pure, synchronous Gin Rummy engine: deal, turns, knock, gin, dead hand and match.

``new_match(seed)`` gives the first state; ``legal_actions(state, seat)`` lists what a seat may
do; ``apply(state, seat, action, seed)`` returns the next state and the events. No I/O, no
clock, no global random: every deal is a function of the seed its caller passes for it
(``SEED_BYTES`` fresh bytes a hand), and the state keeps none.
"""

from server.engine.actions import ACTION_KINDS, CARD_KINDS, Action
from server.engine.deal import new_match
from server.engine.errors import (
    CannotDiscardTakenCard,
    CardNotInHand,
    IllegalAction,
    KnockTooHigh,
    MalformedAction,
    MatchOver,
    NoSuchSeat,
    NotGin,
    NotYourTurn,
    UnknownAction,
    WrongPhase,
)
from server.engine.events import Event, deal_event, hand_over_event
from server.engine.notation import from_text, to_text
from server.engine.rules import DEAD_HAND_STOCK, DISCARD_DRAW_CAP, apply, legal_actions
from server.engine.shuffle import SEED_BYTES
from server.engine.state import GameState, HandRecord, Move, Phase

__all__ = [
    "ACTION_KINDS",
    "CARD_KINDS",
    "DEAD_HAND_STOCK",
    "DISCARD_DRAW_CAP",
    "SEED_BYTES",
    "Action",
    "CannotDiscardTakenCard",
    "CardNotInHand",
    "Event",
    "GameState",
    "HandRecord",
    "IllegalAction",
    "KnockTooHigh",
    "MalformedAction",
    "MatchOver",
    "Move",
    "NoSuchSeat",
    "NotGin",
    "NotYourTurn",
    "Phase",
    "UnknownAction",
    "WrongPhase",
    "apply",
    "deal_event",
    "from_text",
    "hand_over_event",
    "legal_actions",
    "new_match",
    "to_text",
]
