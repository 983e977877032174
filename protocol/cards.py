"""Card notation, values and the deck.

A card is written rank then suit: ranks ``A 2 3 4 5 6 7 8 9 T J Q K``, suits ``C D H S``
(``AS``, ``TD``, ``7H``, ``KC``). Internally a card is an index ``suit * 13 + rank`` (rank 0 is
the ace), and a hand is a 52-bit mask of those indices: each suit is a contiguous 13-bit field,
which the meld solver relies on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

RANKS = "A23456789TJQK"
SUITS = "CDHS"
DECK_SIZE = 52
FULL_DECK_MASK = (1 << DECK_SIZE) - 1

#: Card strings in index order: ``DECK[i]`` is the card with index ``i``.
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_INDEX: dict[str, int] = {card: i for i, card in enumerate(DECK)}
_BITS: dict[str, int] = {card: 1 << i for card, i in _INDEX.items()}


def card_index(card: str) -> int:
    """The index of a card string; a clear ``ValueError`` on anything that is not a card."""
    try:
        return _INDEX[card]
    except (KeyError, TypeError):
        raise ValueError(_explain_bad_card(card)) from None


def _explain_bad_card(card: object) -> str:
    if not isinstance(card, str):
        return f"a card must be a 2-character string like 'AS', got {card!r}"
    if len(card) != 2:
        return f"a card is 2 characters, rank then suit (like 'AS'), got {card!r}"
    rank, suit = card[0], card[1]
    if rank not in RANKS:
        return f"bad rank {rank!r} in {card!r}: ranks are {' '.join(RANKS)}"
    return f"bad suit {suit!r} in {card!r}: suits are {' '.join(SUITS)}"


def rank_of(index: int) -> int:
    """0 for the ace up to 12 for the king."""
    return index % 13


def suit_of(index: int) -> int:
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return index // 13


#: Deadwood value by rank: ace 1, 2-10 their number, J Q K 10.
RANK_VALUES: tuple[int, ...] = tuple(min(rank + 1, 10) for rank in range(13))
#: Deadwood value by card index.
INDEX_VALUES: tuple[int, ...] = tuple(RANK_VALUES[rank_of(i)] for i in range(DECK_SIZE))


def card_value(card: str) -> int:
    """Deadwood points of one card."""
    return INDEX_VALUES[card_index(card)]


def parse_cards(cards: str | Iterable[str]) -> list[str]:
    """Validate cards given as a list of strings or one space-separated string.

    Raises ``ValueError`` naming the offending card on anything malformed or duplicated.
    """
    items = cards.split() if isinstance(cards, str) else list(cards)
    seen: set[str] = set()
    for card in items:
        card_index(card)
        if card in seen:
            raise ValueError(f"duplicate card {card!r}")
        seen.add(card)
    return items


def to_mask(cards: str | Iterable[str]) -> int:
    """The 52-bit mask of validated, distinct cards."""
    items = cards.split() if isinstance(cards, str) else cards
    if not isinstance(items, list | tuple):
        items = list(items)
    mask = 0
    try:
        for card in items:
            mask |= _BITS[card]
    except (KeyError, TypeError):
        parse_cards(items)  # raises the precise error
        raise
    if mask.bit_count() != len(items):
        parse_cards(items)  # raises the duplicate error
    return mask


def iter_indices(mask: int) -> Iterator[int]:
    """Card indices set in a mask, in ascending order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# A mask read a byte at a time: for the byte at position ``b`` (bits ``8b`` to ``8b + 7``) and
# its value ``v``, the cards (in index order) and their deadwood points. Seven table look-ups
# replace a loop over the set bits on the hot path (``from_mask``, ``mask_points``).
_BYTE_CARDS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(
        tuple(DECK[8 * b + i] for i in range(8) if value >> i & 1 and 8 * b + i < DECK_SIZE)
        for value in range(256)
    )
    for b in range(7)
)
_BYTE_POINTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sum(INDEX_VALUES[8 * b + i] for i in range(8) if value >> i & 1 and 8 * b + i < DECK_SIZE)
        for value in range(256)
    )
    for b in range(7)
)
_C0, _C1, _C2, _C3, _C4, _C5, _C6 = _BYTE_CARDS
_P0, _P1, _P2, _P3, _P4, _P5, _P6 = _BYTE_POINTS


def from_mask(mask: int) -> tuple[str, ...]:
    """Card strings of a mask in index order (suit, then rank)."""
    if mask < 0 or mask > FULL_DECK_MASK:
        raise ValueError(f"not a 52-card mask: {mask:#x}")
    return (
        _C0[mask & 255]
        + _C1[mask >> 8 & 255]
        + _C2[mask >> 16 & 255]
        + _C3[mask >> 24 & 255]
        + _C4[mask >> 32 & 255]
        + _C5[mask >> 40 & 255]
        + _C6[mask >> 48]
    )


def mask_points(mask: int) -> int:
    """Sum of the deadwood values of the cards in a mask."""
    if mask < 0 or mask > FULL_DECK_MASK:
        return sum(INDEX_VALUES[i] for i in iter_indices(mask))  # the old loop's behaviour
    return (
        _P0[mask & 255]
        + _P1[mask >> 8 & 255]
        + _P2[mask >> 16 & 255]
        + _P3[mask >> 24 & 255]
        + _P4[mask >> 32 & 255]
        + _P5[mask >> 40 & 255]
        + _P6[mask >> 48]
    )


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards in canonical order: by suit (C D H S), then rank (A to K)."""
    items = cards if isinstance(cards, list | tuple) else list(cards)
    try:
        return tuple(sorted(items, key=_INDEX.__getitem__))
    except (KeyError, TypeError):
        return tuple(sorted(items, key=card_index))  # raises the precise error
