"""The rules as a state machine: which actions a seat may take, and what each one does."""

from __future__ import annotations

from collections.abc import Callable

from protocol.cards import card_index, sort_cards, to_mask
from protocol.melds import KNOCK_LIMIT, min_deadwood_after_discard_mask, min_deadwood_mask
from protocol.scoring import HandResult, match_winner, score_hand
from server.engine.actions import (
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    GIN,
    KNOCK,
    NEXT_HAND,
    PASS,
    TAKE_UPCARD,
    Action,
)
from server.engine.deal import deal
from server.engine.errors import (
    CannotDiscardTakenCard,
    CardNotInHand,
    KnockTooHigh,
    MatchOver,
    NoSuchSeat,
    NotGin,
    NotYourTurn,
    WrongPhase,
)
from server.engine.events import (
    Event,
    deal_event,
    draw_event,
    hand_over_event,
    match_over_event,
    move_event,
)
from server.engine.plain import replacer
from server.engine.state import SEATS, GameState, HandRecord, Move, Phase, move_of

_Hands = tuple[tuple[str, ...], tuple[str, ...]]

#: A dead hand: a discard without a knock that leaves this many cards or fewer in the stock.
DEAD_HAND_STOCK = 2
#: Safety cap: the discard after this many draws from the discard pile ends a dead hand.
DISCARD_DRAW_CAP = 50

_OFFER = (Action(TAKE_UPCARD), Action(PASS))
_FIRST_DRAW = (Action(DRAW_STOCK),)
_DRAW = (Action(DRAW_STOCK), Action(DRAW_DISCARD))
_NEXT_HAND = (Action(NEXT_HAND),)
_PHASE_ACTIONS: dict[Phase, tuple[Action, ...]] = {
    Phase.FIRST_OFFER: _OFFER,
    Phase.SECOND_OFFER: _OFFER,
    Phase.FIRST_DRAW: _FIRST_DRAW,
    Phase.DRAW: _DRAW,
}
_PHASE_KINDS: dict[Phase, frozenset[str]] = {
    Phase.FIRST_OFFER: frozenset({TAKE_UPCARD, PASS}),
    Phase.SECOND_OFFER: frozenset({TAKE_UPCARD, PASS}),
    Phase.FIRST_DRAW: frozenset({DRAW_STOCK}),
    Phase.DRAW: frozenset({DRAW_STOCK, DRAW_DISCARD}),
    Phase.DISCARD: frozenset({DISCARD, KNOCK, GIN}),
    Phase.HAND_OVER: frozenset({NEXT_HAND}),
    Phase.MATCH_OVER: frozenset(),
}


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action the seat may take now, in a fixed order; empty when it is not its turn.

    In the discard phase: every ``discard``, then every ``knock``, then every ``gin``, each in
    card order. A discard leaving no deadwood is listed as both ``knock`` and ``gin``.
    """
    _check_seat(seat)
    phase = state.phase
    if phase is Phase.HAND_OVER:
        return list(_NEXT_HAND)
    if state.turn != seat:
        return []
    if phase is Phase.DISCARD:
        discards, knocks, gins = _discard_choices(state, seat)
        actions = [Action(DISCARD, card) for card in discards]
        actions.extend(Action(KNOCK, card) for card in knocks)
        actions.extend(Action(GIN, card) for card in gins)
        return actions
    return list(_PHASE_ACTIONS.get(phase, ()))


def legal_action_dicts(state: GameState, seat: int) -> list[dict[str, str]]:
    """``[action.to_dict() for action in legal_actions(state, seat)]``, without making the
    ``Action`` objects (a view lists the legal actions after every move)."""
    _check_seat(seat)
    phase = state.phase
    if phase is Phase.HAND_OVER:
        return [{"kind": NEXT_HAND}]
    if state.turn != seat:
        return []
    if phase is Phase.DISCARD:
        discards, knocks, gins = _discard_choices(state, seat)
        dicts = [{"kind": DISCARD, "card": card} for card in discards]
        dicts.extend({"kind": KNOCK, "card": card} for card in knocks)
        dicts.extend({"kind": GIN, "card": card} for card in gins)
        return dicts
    return [action.to_dict() for action in _PHASE_ACTIONS.get(phase, ())]


def _discard_choices(state: GameState, seat: int) -> tuple[list[str], list[str], list[str]]:
    """The cards the seat may discard, knock with and declare gin with, each in card order."""
    hand = state.hands[seat]
    taken = state.taken_card
    choices = [card for card in hand if card != taken]
    mask = _mask(hand)
    if min_deadwood_after_discard_mask(mask) > KNOCK_LIMIT:
        return choices, [], []
    left = [(card, min_deadwood_mask(mask ^ (1 << card_index(card)))) for card in choices]
    knocks = [card for card, points in left if points <= KNOCK_LIMIT]
    gins = [card for card, points in left if points == 0]
    return choices, knocks, gins


def apply(
    state: GameState, seat: int, action: Action, seed: bytes | None = None
) -> tuple[GameState, list[Event]]:
    """The state after the seat's action, and the events it caused.

    ``seed`` is the seed of the hand an action deals (``next_hand``; a ``ValueError`` without
    one), drawn by the caller for that deal alone; other actions do not use it. Raises an
    ``IllegalAction`` subclass naming the rule when the action is not legal; the given state
    is never modified.
    """
    if state.phase is Phase.MATCH_OVER:
        raise MatchOver("the match is over: no more actions")
    action.check()
    _check_seat(seat)
    if state.phase is not Phase.HAND_OVER and state.turn != seat:
        raise NotYourTurn(f"seat {seat} cannot {action.kind}: it is seat {state.turn}'s turn")
    if action.kind not in _PHASE_KINDS[state.phase]:
        allowed = ", ".join(sorted(_PHASE_KINDS[state.phase]))
        raise WrongPhase(f"cannot {action.kind} in phase {state.phase}: allowed are {allowed}")
    if action.kind == NEXT_HAND:
        return _next_hand(state, seed)
    return _HANDLERS[action.kind](state, seat, action.card)


def _check_seat(seat: int) -> None:
    if seat not in SEATS or isinstance(seat, bool):
        raise NoSuchSeat(f"seats are 0 and 1, got {seat!r}")


def _mask(cards: tuple[str, ...]) -> int:
    try:
        return to_mask(cards)
    except ValueError:  # what the engine did before ``to_mask``: raise on a bad card, and
        mask = 0  # merge duplicates (a valid state has none)
        for card in cards:
            mask |= 1 << card_index(card)
        return mask


def _with_card(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    return sort_cards((*hand, card))


def _without_card(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    """The hand (which holds the card, once) without it."""
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


def _set_hand(state: GameState, seat: int, hand: tuple[str, ...]) -> _Hands:
    return (hand, state.hands[1]) if seat == 0 else (state.hands[0], hand)


#: ``dataclasses.replace(state, ...)`` for a move within a hand: every field a move may change
#: is given, the match's own (rules, hand number, dealer) are kept; generated from the fields
#: at a third of ``replace``'s cost (``server.engine.plain.replacer``).
_evolve = replacer(
    GameState,
    "phase",
    "turn",
    "hands",
    "stock",
    "discard_pile",
    "taken_card",
    "discard_draws",
    "scores",
    "results",
    "history",
)


# --- the first turn and drawing ---------------------------------------------------------------


def _take_upcard(state: GameState, seat: int, _: str | None) -> tuple[GameState, list[Event]]:
    card = state.discard_pile[-1]
    new = _evolve(
        state,
        phase=Phase.DISCARD,
        turn=state.turn,
        hands=_set_hand(state, seat, _with_card(state.hands[seat], card)),
        stock=state.stock,
        discard_pile=state.discard_pile[:-1],
        taken_card=card,
        discard_draws=state.discard_draws + 1,
        scores=state.scores,
        results=state.results,
        history=(*state.history, move_of(seat, TAKE_UPCARD, card)),
    )
    return new, [move_event(seat, TAKE_UPCARD, card)]


def _pass(state: GameState, seat: int, _: str | None) -> tuple[GameState, list[Event]]:
    if state.phase is Phase.FIRST_OFFER:
        phase, turn = Phase.SECOND_OFFER, state.dealer
    else:
        phase, turn = Phase.FIRST_DRAW, state.non_dealer
    new = _evolve(
        state,
        phase=phase,
        turn=turn,
        hands=state.hands,
        stock=state.stock,
        discard_pile=state.discard_pile,
        taken_card=state.taken_card,
        discard_draws=state.discard_draws,
        scores=state.scores,
        results=state.results,
        history=(*state.history, move_of(seat, PASS)),
    )
    return new, [move_event(seat, PASS, None)]


def _draw_stock(state: GameState, seat: int, _: str | None) -> tuple[GameState, list[Event]]:
    card = state.stock[-1]
    new = _evolve(
        state,
        phase=Phase.DISCARD,
        turn=state.turn,
        hands=_set_hand(state, seat, _with_card(state.hands[seat], card)),
        stock=state.stock[:-1],
        discard_pile=state.discard_pile,
        taken_card=state.taken_card,
        discard_draws=state.discard_draws,
        scores=state.scores,
        results=state.results,
        history=(*state.history, move_of(seat, DRAW_STOCK)),
    )
    return new, [draw_event(seat, "stock", card)]


def _draw_discard(state: GameState, seat: int, _: str | None) -> tuple[GameState, list[Event]]:
    card = state.discard_pile[-1]
    new = _evolve(
        state,
        phase=Phase.DISCARD,
        turn=state.turn,
        hands=_set_hand(state, seat, _with_card(state.hands[seat], card)),
        stock=state.stock,
        discard_pile=state.discard_pile[:-1],
        taken_card=card,
        discard_draws=state.discard_draws + 1,
        scores=state.scores,
        results=state.results,
        history=(*state.history, move_of(seat, DRAW_DISCARD, card)),
    )
    return new, [draw_event(seat, "discard", card)]


# --- discarding, knocking, ending the hand ----------------------------------------------------


def _check_discard(state: GameState, seat: int, kind: str, card: str) -> tuple[str, ...]:
    """The hand left after discarding the card, if the rules allow discarding it."""
    hand = state.hands[seat]
    if card not in hand:
        raise CardNotInHand(f"cannot {kind} {card}: it is not in seat {seat}'s hand")
    if card == state.taken_card:
        raise CannotDiscardTakenCard(
            f"cannot {kind} {card}: the card taken from the discard pile may not be discarded "
            "in the same turn (another card of the same rank may)"
        )
    return _without_card(hand, card)


def _discard(state: GameState, seat: int, card: str | None) -> tuple[GameState, list[Event]]:
    assert card is not None
    hand = _check_discard(state, seat, DISCARD, card)
    events = [move_event(seat, DISCARD, card)]
    if len(state.stock) <= DEAD_HAND_STOCK or state.discard_draws >= DISCARD_DRAW_CAP:
        return _end_hand(state, move_of(seat, DISCARD, card), hand, None, events)
    new = _evolve(
        state,
        phase=Phase.DRAW,
        turn=1 - seat,
        hands=_set_hand(state, seat, hand),
        stock=state.stock,
        discard_pile=(*state.discard_pile, card),
        taken_card=None,
        discard_draws=state.discard_draws,
        scores=state.scores,
        results=state.results,
        history=(*state.history, move_of(seat, DISCARD, card)),
    )
    return new, events


def _knock(state: GameState, seat: int, card: str | None) -> tuple[GameState, list[Event]]:
    assert card is not None
    hand = _check_discard(state, seat, KNOCK, card)
    points = min_deadwood_mask(_mask(hand))
    if points > KNOCK_LIMIT:
        raise KnockTooHigh(
            f"cannot knock discarding {card}: {points} deadwood points would be left "
            f"and the knock limit is {KNOCK_LIMIT}"
        )
    return _score_knock(state, seat, hand, card)


def _gin(state: GameState, seat: int, card: str | None) -> tuple[GameState, list[Event]]:
    assert card is not None
    hand = _check_discard(state, seat, GIN, card)
    points = min_deadwood_mask(_mask(hand))
    if points:
        raise NotGin(
            f"cannot declare gin discarding {card}: {points} deadwood points would be left "
            "and gin needs 0"
        )
    return _score_knock(state, seat, hand, card)


def _score_knock(
    state: GameState, knocker: int, hand: tuple[str, ...], card: str
) -> tuple[GameState, list[Event]]:
    result = score_hand(hand, state.hands[1 - knocker])
    kind = GIN if result.kind == "gin" else KNOCK
    events = [move_event(knocker, kind, card)]
    return _end_hand(state, move_of(knocker, kind, card), hand, result, events)


def _end_hand(
    state: GameState,
    last: Move,
    hand: tuple[str, ...],
    result: HandResult | None,
    events: list[Event],
) -> tuple[GameState, list[Event]]:
    """End the hand on the last discard, leaving ``hand`` to the seat that made it (a dead
    hand when there is no ``result``)."""
    seat = last.seat
    if result is None:
        record = HandRecord("dead", None, 0)
    else:
        winner = seat if result.winner == "knocker" else 1 - seat
        record = HandRecord(result.kind, winner, result.points)
    scores = list(state.scores)
    if record.winner is not None:
        scores[record.winner] += record.points
    over = match_winner(scores, state.rules) is not None
    assert last.card is not None
    state = _evolve(
        state,
        phase=Phase.MATCH_OVER if over else Phase.HAND_OVER,
        turn=None,
        hands=_set_hand(state, seat, hand),
        stock=state.stock,
        discard_pile=(*state.discard_pile, last.card),
        taken_card=None,
        discard_draws=state.discard_draws,
        scores=(scores[0], scores[1]),
        results=(*state.results, record),
        history=(*state.history, last),
    )
    events.append(hand_over_event(state, result))
    totals = state.totals
    if totals is not None:
        events.append(match_over_event(totals))
    return state, events


def _next_hand(state: GameState, seed: bytes | None) -> tuple[GameState, list[Event]]:
    if seed is None:
        raise ValueError("next_hand deals a new hand: pass its seed")
    new = deal(
        seed=seed,
        rules=state.rules,
        hand_number=state.hand_number + 1,
        dealer=1 - state.dealer,
        scores=state.scores,
        results=state.results,
    )
    return new, [deal_event(new)]


_Handler = Callable[[GameState, int, str | None], tuple[GameState, list[Event]]]
_HANDLERS: dict[str, _Handler] = {
    TAKE_UPCARD: _take_upcard,
    PASS: _pass,
    DRAW_STOCK: _draw_stock,
    DRAW_DISCARD: _draw_discard,
    DISCARD: _discard,
    KNOCK: _knock,
    GIN: _gin,
}
