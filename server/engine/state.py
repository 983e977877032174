"""The game state: one frozen value holding everything a match needs, and its plain-data form.

Card order conventions: each hand is kept sorted (by suit, then rank); the stock and the
discard pile are listed bottom to top, so the card drawn next is the last one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any

from protocol.cards import DECK, card_index, sort_cards
from protocol.melds import HAND_SIZE
from protocol.scoring import MatchRules, MatchTotals, final_scores, match_winner
from server.engine.actions import (
    ACTION_KINDS,
    CARD_KINDS,
    DISCARD,
    DRAW_DISCARD,
    GIN,
    KNOCK,
    NEXT_HAND,
    PASS,
    TAKE_UPCARD,
)
from server.engine.plain import names, plain_writer, read_plain, stored

#: Format 2 keeps no seed or generator: each hand is dealt from a seed of its own, which the
#: engine does not keep. Format 1 (a match continued since before) is read without them.
STATE_FORMAT = 2
_FORMAT_1_KEYS = frozenset({"seed", "rng"})
SEATS = (0, 1)
#: Distinct rules whose map is remembered (a server sees a handful).
_RULES_CACHE = 64
STOCK_SIZE = len(DECK) - 2 * HAND_SIZE - 1


class Phase(StrEnum):
    FIRST_OFFER = "first_offer"
    """First turn: the non-dealer may take the upcard or pass."""
    SECOND_OFFER = "second_offer"
    """First turn, the non-dealer passed: the dealer may take the upcard or pass."""
    FIRST_DRAW = "first_draw"
    """First turn, both passed: the non-dealer must draw from the stock."""
    DRAW = "draw"
    """A normal turn: draw from the stock or the discard pile."""
    DISCARD = "discard"
    """The player holds 11 cards: discard, knock or gin."""
    HAND_OVER = "hand_over"
    """The hand is scored; either seat deals the next one with ``next_hand``."""
    MATCH_OVER = "match_over"
    """A seat reached the target; nothing more can happen."""


PLAYING_PHASES = frozenset(
    {Phase.FIRST_OFFER, Phase.SECOND_OFFER, Phase.FIRST_DRAW, Phase.DRAW, Phase.DISCARD}
)

#: Hand result kinds: the three of ``protocol.scoring`` and a dead hand.
HAND_KINDS = frozenset({"knock", "gin", "undercut", "dead"})
#: Kinds of the public history: every action but ``next_hand``.
MOVE_KINDS = ACTION_KINDS - {NEXT_HAND}
_MOVE_CARD_KINDS = CARD_KINDS | {TAKE_UPCARD, DRAW_DISCARD}
#: Who may make a move for a seat's player: the turn clock (its time ran out), or an AI
#: standing in for them while they are away.
MOVE_BY = frozenset({"clock", "stand_in"})


@dataclass(frozen=True, slots=True)
class Move:
    """One public event of the hand: who did what, with the card when everybody sees it.

    A draw from the stock has no card; a knock with no deadwood is recorded as ``gin``.
    ``by`` says who made a move for the seat's player (``MOVE_BY``: the turn clock, or an AI
    standing in for them while they are away); None: the seat's own player (or AI seat).
    The engine never sets it: the room marks the move it had made (``server.room.act``).
    """

    seat: int
    kind: str
    card: str | None = None
    by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "kind": self.kind}
        if self.card is not None:
            data["card"] = self.card
        if self.by is not None:
            data["by"] = self.by
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Move:
        _expect_keys(data, {"seat", "kind"}, {"card", "by"}, "history entry")
        seat, kind, card = _seat(data["seat"], "history seat"), data["kind"], data.get("card")
        by = data.get("by")
        if by is None and isinstance(kind, str) and (card is None or isinstance(card, str)):
            known = _MOVES.get((seat, kind, card))
            if known is not None:  # a valid move, made once (``move_of``)
                return known
        move = cls(seat, kind, card, by)
        move.check()
        return move

    def check(self) -> None:
        if self.by is not None and self.by not in MOVE_BY:
            raise ValueError(f"history entry by must be one of {sorted(MOVE_BY)}, got {self.by!r}")
        if self.seat not in SEATS:
            raise ValueError(f"history entry seat must be 0 or 1, got {self.seat!r}")
        if not isinstance(self.kind, str) or self.kind not in MOVE_KINDS:
            raise ValueError(f"unknown history entry kind {self.kind!r}")
        if self.kind in _MOVE_CARD_KINDS:
            if self.card is None:
                raise ValueError(f"history entry {self.kind} needs a card")
            card_index(self.card)
        elif self.card is not None:
            raise ValueError(f"history entry {self.kind} has no card, got {self.card!r}")


def _every_move() -> dict[tuple[int, str, str | None], Move]:
    moves = {}
    for seat in SEATS:
        for kind in MOVE_KINDS:
            for card in DECK if kind in _MOVE_CARD_KINDS else (None,):
                moves[seat, kind, card] = Move(seat, kind, card)
    return moves


_MOVES = _every_move()


def move_of(seat: int, kind: str, card: str | None = None) -> Move:
    """The one shared ``Move`` of that event (each of the few hundred is made at import):
    a history grows by no new object per action, so the garbage collector stops finding a
    whole hand's moves among the young objects of every room a process keeps.
    A ``KeyError`` for a move that cannot exist."""
    return _MOVES[seat, kind, card]


def shared(move: Move) -> Move:
    """The shared instance equal to ``move`` (``move_of``), or ``move`` itself if none is."""
    return _MOVES.get((move.seat, move.kind, move.card), move)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The result of one finished hand: its kind, the seat that scored (None: dead hand)."""

    kind: str
    winner: int | None
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "winner": self.winner, "points": self.points}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandRecord:
        _expect_keys(data, {"kind", "winner", "points"}, set(), "hand result")
        record = cls(data["kind"], data["winner"], data["points"])
        record.check()
        return record

    def check(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in HAND_KINDS:
            raise ValueError(f"unknown hand result kind {self.kind!r}")
        if self.kind == "dead":
            if self.winner is not None or self.points != 0:
                raise ValueError("a dead hand has no winner and scores 0")
            return
        _seat(self.winner, "hand winner")
        if not _is_int(self.points) or self.points < 1:
            raise ValueError(f"a scored hand scores a positive integer, got {self.points!r}")


@lru_cache(maxsize=_RULES_CACHE)
def rules_dict(rules: MatchRules) -> dict[str, Any]:
    """``rules.to_dict()``, made once per distinct rules (``dataclasses.asdict`` is slow).
    Shared: callers must not modify it."""
    return rules.to_dict()


def _rules(value: object) -> MatchRules:
    if not isinstance(value, Mapping):
        raise ValueError("rules must be a map")
    return MatchRules.from_dict(value)


def _phase(value: Any) -> Phase:
    try:
        return Phase(value)
    except ValueError:
        raise ValueError(f"unknown phase {value!r}") from None


def _hands(value: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    hands = _list(value, "hands")
    if len(hands) != 2:
        raise ValueError(f"hands holds one list per seat, got {len(hands)}")
    return (_hand(hands[0], "hand 0"), _hand(hands[1], "hand 1"))


@dataclass(frozen=True, slots=True)
class GameState:
    """A whole match at one moment. Never mutated: ``apply`` returns a new one."""

    rules: MatchRules = stored(out=lambda rules: rules_dict(rules).copy(), into=_rules)
    hand_number: int = stored()
    dealer: int = stored()
    phase: Phase = stored(out=lambda phase: phase.value, into=_phase)
    turn: int | None = stored()
    hands: tuple[tuple[str, ...], tuple[str, ...]] = stored(
        out=lambda hands: [list(hands[0]), list(hands[1])], into=_hands
    )
    stock: tuple[str, ...] = stored(out=list, into=lambda value: _cards(value, "stock"))
    discard_pile: tuple[str, ...] = stored(
        out=list, into=lambda value: _cards(value, "discard pile")
    )
    taken_card: str | None = stored()
    discard_draws: int = stored()
    scores: tuple[int, int] = stored(out=list, into=lambda value: _pair(value, "scores"))
    results: tuple[HandRecord, ...] = stored(
        out=lambda results: [record.to_dict() for record in results],
        into=lambda value: tuple(HandRecord.from_dict(_map(r)) for r in _list(value, "results")),
    )
    history: tuple[Move, ...] = stored(
        out=lambda history: [move.to_dict() for move in history],
        into=lambda value: tuple(Move.from_dict(_map(m)) for m in _list(value, "history")),
    )

    @property
    def non_dealer(self) -> int:
        return 1 - self.dealer

    @property
    def top_discard(self) -> str | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def winner(self) -> int | None:
        """The seat that won the match, once it is over."""
        return match_winner(self.scores, self.rules) if self.phase is Phase.MATCH_OVER else None

    @property
    def totals(self) -> MatchTotals | None:
        """The final scores with the configured bonuses, once the match is over."""
        if self.phase is not Phase.MATCH_OVER:
            return None
        return final_scores([(r.winner, r.points) for r in self.results], self.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (dicts, lists, str, int, bool, None), ready for MessagePack: ``format``,
        then each field as it declares (``server.engine.plain``)."""
        return _write_state(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        """The inverse of ``to_dict``; a ``ValueError`` on anything malformed or inconsistent."""
        if isinstance(data, Mapping) and data.get("format") == 1 and set(data) >= _FORMAT_1_KEYS:
            data = {key: value for key, value in data.items() if key not in _FORMAT_1_KEYS}
            data["format"] = STATE_FORMAT
        _expect_keys(data, set(_DICT_KEYS), set(), "game state")
        if data["format"] != STATE_FORMAT:
            raise ValueError(f"unsupported game state format {data['format']!r}")
        state = read_plain(cls, data)
        state.validate()
        return state

    def validate(self) -> None:
        """Raise ``ValueError`` unless this is a state the engine could have reached."""
        _validate(self)


_write_state = plain_writer(GameState, {"format": STATE_FORMAT})
#: The keys of a state's plain data.
_DICT_KEYS = ("format", *names(GameState))


def _validate(state: GameState) -> None:
    if not isinstance(state.rules, MatchRules):
        raise ValueError("rules must be MatchRules")
    if not isinstance(state.phase, Phase):
        raise ValueError(f"unknown phase {state.phase!r}")
    _seat(state.dealer, "dealer")
    for record in state.results:
        record.check()
    for move in state.history:
        move.check()
    _check_cards(state)
    _check_turn(state)
    _check_counters(state)
    _check_history(state)


def _check_cards(state: GameState) -> None:
    piles = (*state.hands, state.stock, state.discard_pile)
    cards = [card for pile in piles for card in pile]
    for card in cards:
        card_index(card)
    if len(set(cards)) != len(cards):
        duplicated = sorted({c for c in cards if cards.count(c) > 1}, key=card_index)
        raise ValueError(f"cards are not conserved: duplicated {' '.join(duplicated)}")
    if len(cards) != len(DECK):
        missing = sort_cards(set(DECK) - set(cards))
        raise ValueError(f"cards are not conserved: missing {' '.join(missing)}")
    for seat in SEATS:
        if state.hands[seat] != sort_cards(state.hands[seat]):
            raise ValueError(f"hand {seat} is not in canonical order")
    sizes = [len(hand) for hand in state.hands]
    expected = [HAND_SIZE, HAND_SIZE]
    if state.phase is Phase.DISCARD and state.turn in SEATS:
        expected[state.turn] += 1
    if sizes != expected:
        raise ValueError(f"in phase {state.phase} the hands hold {expected} cards, not {sizes}")
    before_first_draw = (Phase.FIRST_OFFER, Phase.SECOND_OFFER, Phase.FIRST_DRAW)
    if state.phase in before_first_draw and (
        len(state.discard_pile) != 1 or len(state.stock) != STOCK_SIZE
    ):
        raise ValueError(f"in phase {state.phase} nothing has been drawn yet")
    if state.phase is Phase.DRAW and (not state.discard_pile or len(state.stock) < 3):
        raise ValueError("a draw needs a discard pile and at least 3 cards in the stock")
    if state.phase is Phase.DISCARD and len(state.stock) < 2:
        raise ValueError("the stock never holds fewer than 2 cards before a discard")


def _check_turn(state: GameState) -> None:
    if state.phase in PLAYING_PHASES:
        _seat(state.turn, "turn")
    elif state.turn is not None:
        raise ValueError(f"nobody has the turn in phase {state.phase}")
    expected_turn = {
        Phase.FIRST_OFFER: state.non_dealer,
        Phase.SECOND_OFFER: state.dealer,
        Phase.FIRST_DRAW: state.non_dealer,
    }.get(state.phase, state.turn)
    if state.turn != expected_turn:
        raise ValueError(f"in phase {state.phase} it is seat {expected_turn}'s turn")
    if state.taken_card is not None:
        if state.phase is not Phase.DISCARD:
            raise ValueError("a taken card is only remembered during the discard")
        if state.turn is None or state.taken_card not in state.hands[state.turn]:
            raise ValueError(f"taken card {state.taken_card} is not in the player's hand")


def _check_counters(state: GameState) -> None:
    if not _is_int(state.discard_draws) or state.discard_draws < 0:
        raise ValueError(f"discard_draws is a count, got {state.discard_draws!r}")
    if not _is_int(state.hand_number) or state.hand_number < 1:
        raise ValueError(f"hand_number starts at 1, got {state.hand_number!r}")
    finished = 0 if state.phase in PLAYING_PHASES else 1
    if state.hand_number != len(state.results) + 1 - finished:
        raise ValueError(
            f"hand {state.hand_number} in phase {state.phase} "
            f"does not match {len(state.results)} finished hands"
        )
    totals = [0, 0]
    for record in state.results:
        if record.winner is not None:
            totals[record.winner] += record.points
    if list(state.scores) != totals:
        raise ValueError(f"scores {list(state.scores)} are not the sum of hand results {totals}")
    over = match_winner(state.scores, state.rules) is not None
    if over != (state.phase is Phase.MATCH_OVER):
        raise ValueError("the match is over exactly when a seat has reached the target")


def _check_history(state: GameState) -> None:
    passes = (move_of(state.non_dealer, PASS), move_of(state.dealer, PASS))
    first_turn = {Phase.FIRST_OFFER: (), Phase.SECOND_OFFER: passes[:1], Phase.FIRST_DRAW: passes}
    expected = first_turn.get(state.phase)
    # who made a pass (the seat's player, its clock, a stand-in) does not matter here
    made = tuple(replace(move, by=None) if move.by is not None else move for move in state.history)
    if expected is not None and made != expected:
        raise ValueError(f"in phase {state.phase} the history holds the passes only")
    if state.phase in PLAYING_PHASES:
        return
    record = state.results[-1]
    last = state.history[-1] if state.history else None
    if record.kind == "dead":
        ended = last is not None and last.kind == DISCARD
    else:
        knocker_scored = record.kind != "undercut"
        ended = (
            last is not None
            and last.kind == (GIN if record.kind == "gin" else KNOCK)
            and (record.winner == last.seat) == knocker_scored
        )
    if not ended:
        raise ValueError(f"the history does not end with the {record.kind} hand's last move")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat(value: object, what: str) -> int:
    if not _is_int(value) or value not in SEATS:
        raise ValueError(f"{what} must be seat 0 or 1, got {value!r}")
    assert isinstance(value, int)
    return value


def _expect_keys(
    data: Mapping[str, Any], required: set[str], optional: set[str], what: str
) -> None:
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be a map, got {type(data).__name__}")
    missing = required - set(data)
    extra = set(data) - required - optional
    if missing:
        raise ValueError(f"{what} lacks {', '.join(sorted(missing))}")
    if extra:
        raise ValueError(f"{what} has unknown field {', '.join(sorted(map(str, extra)))}")


def _map(value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a map, got {type(value).__name__}")
    return value


def _list(value: object, what: str) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{what} must be a list, got {type(value).__name__}")
    return value


def _cards(value: object, what: str) -> tuple[str, ...]:
    cards = tuple(_list(value, what))
    for card in cards:
        card_index(card)
    return cards


def _hand(value: object, what: str) -> tuple[str, ...]:
    return sort_cards(_cards(value, what))


def _pair(value: object, what: str) -> tuple[int, int]:
    items = _list(value, what)
    if len(items) != 2 or not all(_is_int(item) and item >= 0 for item in items):
        raise ValueError(f"{what} is two non-negative integers, got {value!r}")
    return (items[0], items[1])
