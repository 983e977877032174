"""Positions and play-outs for the AI policy tests (the engine runs the games)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from protocol.cards import DECK, card_index, parse_cards, sort_cards
from protocol.scoring import MatchRules
from server.engine import Action, GameState, Move, Phase, apply, new_match
from server.engine.views import game_view
from tests.support.seeds import next_hand_seed, seed_of

Chooser = Callable[[dict[str, Any], random.Random], dict[str, Any]]


def random_player(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Any legal action, uniformly: reaches positions no sensible player would."""
    return dict(rng.choice(view["legal_actions"]))


def position(
    mine: str,
    theirs: str,
    *,
    pile: str,
    history: Sequence[Move] = (),
    phase: Phase = Phase.DISCARD,
    stock_size: int | None = None,
    taken: str | None = None,
    dealer: int = 1,
) -> GameState:
    """A validated state where seat 0 (``mine``) has the turn; ``pile`` bottom to top. The
    cards not named fill the stock (``stock_size`` of them; the rest go under the pile)."""
    named = [*parse_cards(mine), *parse_cards(theirs), *parse_cards(pile)]
    rest = [card for card in DECK if card not in named]
    size = len(rest) if stock_size is None else stock_size
    buried, stock = rest[: len(rest) - size], rest[len(rest) - size :]
    state = GameState(
        rules=MatchRules(),
        hand_number=1,
        dealer=dealer,
        phase=phase,
        turn=0,
        hands=(sort_cards(parse_cards(mine)), sort_cards(parse_cards(theirs))),
        stock=tuple(stock),
        discard_pile=(*buried, *parse_cards(pile)),
        taken_card=taken,
        discard_draws=sum(m.kind in ("take_upcard", "draw_discard") for m in history),
        scores=(0, 0),
        results=(),
        history=tuple(history),
    )
    state.validate()
    return state


def decisions(
    players: tuple[Chooser, Chooser], seed: int, hands: int
) -> Iterator[tuple[GameState, int, dict[str, Any], dict[str, Any]]]:
    """Play ``hands`` hands of a match (fewer if it ends) and yield every decision:
    (state, seat, view, action chosen). The action is applied after the yield, so the caller
    can check it first."""
    state = new_match(seed_of(seed))
    rngs = [random.Random(seed * 2 + 1), random.Random(seed * 2 + 2)]
    played = 0
    while state.phase is not Phase.MATCH_OVER:
        if state.phase is Phase.HAND_OVER:
            played += 1
            if played >= hands:
                return
            state, _ = apply(state, 0, Action("next_hand"), next_hand_seed(state))
            continue
        seat = state.turn
        assert seat is not None
        view = game_view(state, seat)
        action = players[seat](view, rngs[seat])
        yield state, seat, view, action
        state, _ = apply(state, seat, Action.from_dict(action))


def opponent_known(state: GameState, seat: int) -> set[str]:
    """Cards the other seat took from the pile in this hand and still holds (public)."""
    known: set[str] = set()
    for move in state.history:
        if move.seat == seat or move.card is None:
            continue
        if move.kind in ("take_upcard", "draw_discard"):
            known.add(move.card)
        elif move.kind == "discard":
            known.discard(move.card)
    return known


def other_deal(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same position seen from ``seat`` with a different hidden deal: the opponent's
    unknown cards and the stock reshuffled among themselves (sizes and the opponent's
    publicly known cards kept)."""
    opponent = 1 - seat
    known = opponent_known(state, seat)
    theirs = list(state.hands[opponent])
    hidden = [c for c in theirs if c not in known] + list(state.stock)
    rng.shuffle(hidden)
    keep = len(theirs) - len(known)
    new_theirs = sort_cards([*known, *hidden[:keep]])
    hands = [state.hands[0], state.hands[1]]
    hands[opponent] = new_theirs
    new = replace(state, hands=(hands[0], hands[1]), stock=tuple(hidden[keep:]))
    new.validate()
    return new


def card_order(cards: Sequence[str]) -> list[int]:
    return [card_index(card) for card in cards]
