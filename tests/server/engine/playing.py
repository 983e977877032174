"""Seeded random play for the play-out tests: random legal actions, biased to end hands."""

from __future__ import annotations

import random

from protocol.cards import DECK, to_mask
from protocol.melds import min_deadwood_mask
from server.engine import ACTION_KINDS, CARD_KINDS, Action, GameState, apply, legal_actions
from server.engine.events import Event
from tests.support.seeds import next_hand_seed

#: Every action that can be written, legal or not.
EVERY_ACTION: tuple[Action, ...] = (
    *(Action(kind) for kind in sorted(ACTION_KINDS - CARD_KINDS)),
    *(Action(kind, card) for kind in sorted(CARD_KINDS) for card in DECK),
)


def acting_seat(state: GameState, rnd: random.Random) -> int:
    return state.turn if state.turn is not None else rnd.randrange(2)


def choose(state: GameState, actions: list[Action], rnd: random.Random) -> Action:
    """A legal action at random, biased towards ending hands: a possible knock or gin is taken
    half of the time, and most discards keep the least deadwood."""
    endings = [action for action in actions if action.kind in ("knock", "gin")]
    if endings and rnd.random() < 0.5:
        return rnd.choice(endings)
    discards = [action for action in actions if action.kind == "discard"]
    if discards and rnd.random() < 0.8:
        assert state.turn is not None
        hand = to_mask(state.hands[state.turn])
        return min(
            discards,
            key=lambda a: min_deadwood_mask(hand ^ to_mask([a.card or ""])) + rnd.random(),
        )
    return rnd.choice(actions)


def random_step(state: GameState, rnd: random.Random) -> tuple[GameState, int, Action, list[Event]]:
    seat = acting_seat(state, rnd)
    action = choose(state, legal_actions(state, seat), rnd)
    new, events = apply(state, seat, action, next_hand_seed(state))
    return new, seat, action, events
