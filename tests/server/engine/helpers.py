"""Build game states directly, for tests that need a particular position."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.cards import DECK, parse_cards, sort_cards
from protocol.scoring import MatchRules
from server.engine import Action, GameState, HandRecord, Move, Phase, apply, legal_actions
from server.engine.events import Event
from tests.support.seeds import next_hand_seed

DEFAULT_RULES = MatchRules()


def position(
    hand0: str,
    hand1: str,
    *,
    pile: str = "",
    stock: str = "",
    stock_size: int | None = None,
    phase: Phase = Phase.DRAW,
    turn: int | None = 0,
    dealer: int = 1,
    taken: str | None = None,
    discard_draws: int = 0,
    results: Sequence[tuple[str, int | None, int]] = (),
    history: Sequence[Move] = (),
    rules: MatchRules = DEFAULT_RULES,
) -> GameState:
    """A validated state with the given hands.

    ``pile`` is the discard pile bottom to top; ``stock`` lists the next cards drawn from the
    stock, first drawn first. The other cards fill the stock below them (or all of it, up to
    ``stock_size`` cards); cards that do not fit go to the bottom of the discard pile.
    """
    named = [*parse_cards(hand0), *parse_cards(hand1), *parse_cards(pile), *parse_cards(stock)]
    rest = [card for card in DECK if card not in named]
    if stock_size is None:
        stock_size = len(rest) + len(parse_cards(stock))
    below_top = stock_size - len(parse_cards(stock))
    assert 0 <= below_top <= len(rest), "stock_size does not fit the named cards"
    buried, filler = rest[: len(rest) - below_top], rest[len(rest) - below_top :]
    records = tuple(HandRecord(kind, winner, points) for kind, winner, points in results)
    scores = [0, 0]
    for record in records:
        if record.winner is not None:
            scores[record.winner] += record.points
    finished = phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    state = GameState(
        rules=rules,
        hand_number=len(records) + (0 if finished else 1),
        dealer=dealer,
        phase=phase,
        turn=turn,
        hands=(sort_cards(parse_cards(hand0)), sort_cards(parse_cards(hand1))),
        stock=(*filler, *reversed(parse_cards(stock))),
        discard_pile=(*buried, *parse_cards(pile)),
        taken_card=taken,
        discard_draws=discard_draws,
        scores=(scores[0], scores[1]),
        results=records,
        history=tuple(history),
    )
    state.validate()
    return state


def act(state: GameState, seat: int, kind: str, card: str | None = None) -> GameState:
    """Apply an action that must be legal, and return the new state."""
    return act_with_events(state, seat, kind, card)[0]


def act_with_events(
    state: GameState, seat: int, kind: str, card: str | None = None
) -> tuple[GameState, list[Event]]:
    action = Action(kind, card)
    assert action in legal_actions(state, seat), f"{action} is not legal for seat {seat}"
    return apply(state, seat, action, next_hand_seed(state))


def kinds(actions: Sequence[Action]) -> list[str]:
    return [action.kind for action in actions]


def cards_of(actions: Sequence[Action], kind: str) -> list[str]:
    return [action.card for action in actions if action.kind == kind and action.card]
