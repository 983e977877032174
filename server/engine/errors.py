"""Why an action was refused. Every refusal is a ``ValueError`` with a stable ``code``."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action that the rules do not allow in this state; the state is left unchanged."""

    code = "illegal_action"


class MatchOver(IllegalAction):
    code = "match_over"


class UnknownAction(IllegalAction):
    code = "unknown_action"


class MalformedAction(IllegalAction):
    """A card missing, given where none belongs, or not a card at all."""

    code = "malformed_action"


class NoSuchSeat(IllegalAction):
    code = "no_such_seat"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class CardNotInHand(IllegalAction):
    code = "card_not_in_hand"


class CannotDiscardTakenCard(IllegalAction):
    code = "cannot_discard_taken_card"


class KnockTooHigh(IllegalAction):
    code = "knock_too_high"


class NotGin(IllegalAction):
    code = "not_gin"
