"""A game state as one line of text, for tests, logs and bug reports (like chess FEN).

The line is the tag ``GR2`` then space-separated ``key=value`` fields, written in this order::

    GR2 rules=150,game,shutout hand=1 dealer=1 phase=discard
    turn=1 scores=0,0 results=- hands=AC,JC,3D,4D,JD,7H,9H,JH,QH,8S|5C,9C,9D,KD,AH,TH,KH,7S,9S,
    QS,KS stock=3C,8H,5S,3H,KC,2C,TC,6H,7C,8D,5H,AD,6C,2H,TD,QC,JS,AS,4S,4H,2D,6D,QD,3S,TS,4C,7D,
    5D,8C,2S pile=6S taken=KS draws=1 history=0p,1p,0s,0xKS,1dKS

(one line, wrapped here).

- ``rules`` the target, then the enabled bonuses: ``100`` or ``150,game,box,shutout``.
- ``hand`` the hand number (from 1); ``dealer`` and ``turn`` a seat (``-``: nobody's turn).
- ``phase`` a ``Phase`` value: first_offer second_offer first_draw draw discard hand_over
  match_over.
- ``scores`` both seats' running points; ``results`` one entry per finished hand,
  ``kind:winner:points`` or ``dead``, comma-separated.
- ``hands`` seat 0's cards ``|`` seat 1's cards; ``stock`` and ``pile`` (the discard pile) are
  listed bottom to top, so the last card is drawn next. Cards are comma-separated; ``-`` is empty.
- ``taken`` the card taken from the discard pile this turn; ``draws`` how many draws from the
  discard pile this hand.
- ``history`` this hand's public moves: seat digit, a letter, and the card when public:
  ``p`` pass, ``t`` take_upcard, ``s`` draw_stock, ``d`` draw_discard, ``x`` discard,
  ``k`` knock, ``g`` gin. ``0p,1t7H,1xQS,0s,0x2C`` reads: seat 0 passed, seat 1 took the 7H
  upcard and discarded the QS, seat 0 drew from the stock and discarded the 2C. A move made
  for the seat's player ends with ``~c`` (by the turn clock) or ``~s`` (by an AI standing in
  for them): ``0s~c,0x2C~c``.

``from_text(to_text(state)) == state`` for every state, and ``from_text`` validates like
``GameState.from_dict``. It also reads the ``GR1`` lines of before, whose ``seed`` and ``rng``
fields (one generator for the whole match) it ignores: a state holds no seed any more.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.cards import card_index, sort_cards
from protocol.scoring import MatchRules
from server.engine.actions import (
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    GIN,
    KNOCK,
    PASS,
    TAKE_UPCARD,
)
from server.engine.state import GameState, HandRecord, Move, Phase, shared

TAG = "GR2"
#: The tag of the first form, and its fields that are read and ignored.
TAG_1 = "GR1"
_FIELDS_1 = ("seed", "rng")
_FIELDS = (
    "rules",
    "hand",
    "dealer",
    "phase",
    "turn",
    "scores",
    "results",
    "hands",
    "stock",
    "pile",
    "taken",
    "draws",
    "history",
)
_BONUSES = ("game", "box", "shutout")
_MOVE_CODES = {
    PASS: "p",
    TAKE_UPCARD: "t",
    DRAW_STOCK: "s",
    DRAW_DISCARD: "d",
    DISCARD: "x",
    KNOCK: "k",
    GIN: "g",
}
_MOVE_KINDS = {code: kind for kind, code in _MOVE_CODES.items()}
_EMPTY = "-"


def to_text(state: GameState) -> str:
    """The one-line text form of a state."""
    fields = {
        "rules": _rules_text(state.rules),
        "hand": str(state.hand_number),
        "dealer": str(state.dealer),
        "phase": state.phase.value,
        "turn": _EMPTY if state.turn is None else str(state.turn),
        "scores": f"{state.scores[0]},{state.scores[1]}",
        "results": _join(_result_text(record) for record in state.results),
        "hands": f"{_join(state.hands[0])}|{_join(state.hands[1])}",
        "stock": _join(state.stock),
        "pile": _join(state.discard_pile),
        "taken": state.taken_card or _EMPTY,
        "draws": str(state.discard_draws),
        "history": _join(_move_text(move) for move in state.history),
    }
    return " ".join([TAG, *(f"{key}={fields[key]}" for key in _FIELDS)])


def from_text(text: str) -> GameState:
    """Parse the text form; a ``ValueError`` naming the field on anything malformed."""
    tokens = text.split()
    if not tokens or tokens[0] not in (TAG, TAG_1):
        raise ValueError(f"a game state text starts with {TAG!r}")
    names = _FIELDS if tokens[0] == TAG else (*_FIELDS_1, *_FIELDS)
    fields: dict[str, str] = {}
    for token in tokens[1:]:
        key, equals, value = token.partition("=")
        if not equals or key not in names:
            raise ValueError(f"unknown field {token!r}: fields are {' '.join(names)}")
        if key in fields:
            raise ValueError(f"field {key!r} is given twice")
        fields[key] = value
    missing = [key for key in names if key not in fields]
    if missing:
        raise ValueError(f"missing field: {' '.join(missing)}")
    try:
        state = _parse_fields(fields)
    except ValueError as error:
        raise ValueError(f"bad game state text: {error}") from None
    state.validate()
    return state


def _parse_fields(fields: dict[str, str]) -> GameState:
    hands = fields["hands"].split("|")
    if len(hands) != 2:
        raise ValueError("hands is seat 0's cards, '|', seat 1's cards")
    scores = _split(fields["scores"])
    if len(scores) != 2:
        raise ValueError("scores is two numbers")
    try:
        phase = Phase(fields["phase"])
    except ValueError:
        raise ValueError(f"unknown phase {fields['phase']!r}") from None
    return GameState(
        rules=_parse_rules(fields["rules"]),
        hand_number=_number(fields["hand"], "hand"),
        dealer=_number(fields["dealer"], "dealer"),
        phase=phase,
        turn=None if fields["turn"] == _EMPTY else _number(fields["turn"], "turn"),
        hands=(_parse_hand(hands[0]), _parse_hand(hands[1])),
        stock=_parse_cards(fields["stock"]),
        discard_pile=_parse_cards(fields["pile"]),
        taken_card=_parse_card_or_none(fields["taken"]),
        discard_draws=_number(fields["draws"], "draws"),
        scores=(_number(scores[0], "scores"), _number(scores[1], "scores")),
        results=tuple(_parse_result(item) for item in _split(fields["results"])),
        history=tuple(_parse_move(item) for item in _split(fields["history"])),
    )


def _join(items: Iterable[str]) -> str:
    return ",".join(items) or _EMPTY


def _split(text: str) -> list[str]:
    return [] if text == _EMPTY else text.split(",")


def _number(text: str, what: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"{what} must be a non-negative decimal number, got {text!r}")
    return int(text)


def _rules_text(rules: MatchRules) -> str:
    enabled = [name for name in _BONUSES if getattr(rules, f"{name}_bonus")]
    return ",".join([str(rules.target), *enabled])


def _parse_rules(text: str) -> MatchRules:
    target, *bonuses = text.split(",")
    unknown = set(bonuses) - set(_BONUSES)
    if unknown or len(set(bonuses)) != len(bonuses):
        raise ValueError(f"rules are the target then any of {', '.join(_BONUSES)}, got {text!r}")
    return MatchRules(
        target=_number(target, "target"),
        game_bonus="game" in bonuses,
        box_bonus="box" in bonuses,
        shutout_bonus="shutout" in bonuses,
    )


def _parse_cards(text: str) -> tuple[str, ...]:
    cards = tuple(_split(text))
    for card in cards:
        card_index(card)
    return cards


def _parse_hand(text: str) -> tuple[str, ...]:
    return sort_cards(_parse_cards(text))


def _parse_card_or_none(text: str) -> str | None:
    if text == _EMPTY:
        return None
    card_index(text)
    return text


def _result_text(record: HandRecord) -> str:
    if record.winner is None:
        return record.kind
    return f"{record.kind}:{record.winner}:{record.points}"


def _parse_result(text: str) -> HandRecord:
    if text == "dead":
        record = HandRecord("dead", None, 0)
    else:
        parts = text.split(":")
        if len(parts) != 3:
            raise ValueError(f"a hand result is kind:winner:points or dead, got {text!r}")
        record = HandRecord(parts[0], _number(parts[1], "winner"), _number(parts[2], "points"))
    record.check()
    return record


#: A move made for the seat's player (``Move.by``) ends with ``~`` and one of these letters.
_BY_CODES = {"clock": "c", "stand_in": "s"}
_BY_NAMES = {code: name for name, code in _BY_CODES.items()}


def _move_text(move: Move) -> str:
    by = f"~{_BY_CODES[move.by]}" if move.by is not None else ""
    return f"{move.seat}{_MOVE_CODES[move.kind]}{move.card or ''}{by}"


def _parse_move(text: str) -> Move:
    text, _, by_code = text.partition("~")
    if by_code and by_code not in _BY_NAMES:
        raise ValueError(f"a history entry's ~ is followed by c or s, got {by_code!r}")
    if len(text) not in (2, 4) or text[1] not in _MOVE_KINDS:
        raise ValueError(f"a history entry is seat, move letter, card, got {text!r}")
    seat, kind, card = _number(text[0], "history seat"), _MOVE_KINDS[text[1]], text[2:] or None
    if by_code:
        marked = Move(seat, kind, card, _BY_NAMES[by_code])
        marked.check()
        return marked
    move = Move(seat, kind, card)
    move.check()
    return shared(move)
