"""Fast hand play-outs on card masks, for estimating what a decision is worth.

Everything here works on 52-bit masks (``protocol.cards``) with the exact solver of
``protocol.melds``. ``knock_points`` scores a knock the way the rules do (layoffs estimated: the
defender may lay off any subset of the cards that fit the knocker's melds, chains included);
``play_out`` finishes a hand from a given position with a quick policy for both players (take
the top discard when it melds, discard the card that leaves the least deadwood, knock as soon
as possible).
"""

from __future__ import annotations

from protocol.cards import INDEX_VALUES, card_index, rank_of
from protocol.melds import KNOCK_LIMIT, best_arrangement_mask, min_deadwood_mask

GIN_BONUS = 25
UNDERCUT_BONUS = 25
#: A discard that leaves this many cards or fewer in the stock ends the hand (dead hand).
DEAD_HAND_STOCK = 2

_RANK_BITS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))


def meld_masks(mask: int) -> list[int]:
    """The melds of an optimal arrangement of the hand, as masks."""
    melds = []
    for meld in best_arrangement_mask(mask).melds:
        bits = 0
        for card in meld:
            bits |= 1 << card_index(card)
        melds.append(bits)
    return melds


def layoff_cards(melds: list[int], defender: int) -> int:
    """Defender's cards that can be laid off on the melds (chains included)."""
    fits = 0
    for meld in melds:
        low = (meld & -meld).bit_length() - 1
        rank_bits = _RANK_BITS[rank_of(low)]
        if meld & ~rank_bits == 0:
            fits |= rank_bits & ~meld & defender
            continue
        high = meld.bit_length() - 1
        card = low - 1
        while rank_of(card + 1) > 0 and defender >> card & 1:
            fits |= 1 << card
            card -= 1
        card = high + 1
        while rank_of(card - 1) < 12 and defender >> card & 1:
            fits |= 1 << card
            card += 1
    return fits


def defender_deadwood(melds: list[int], defender: int) -> int:
    """The defender's deadwood after its best layoffs (estimated: every subset of the cards
    that fit is tried when there are at most 4, else none or all of them)."""
    best = min_deadwood_mask(defender)
    fits = layoff_cards(melds, defender)
    if not fits:
        return best
    if fits.bit_count() <= 4:
        subset = fits
        while subset:
            best = min(best, min_deadwood_mask(defender & ~subset))
            subset = (subset - 1) & fits
        return best
    return min(best, min_deadwood_mask(defender & ~fits))


def knock_points(knocker: int, defender: int, melds: list[int] | None = None) -> int:
    """Points of a knock for the knocker: positive when it scores, negative when undercut."""
    points = min_deadwood_mask(knocker)
    if points == 0:
        return GIN_BONUS + min_deadwood_mask(defender)
    if melds is None:
        melds = meld_masks(knocker)
    against = defender_deadwood(melds, defender)
    if against > points:
        return against - points
    return -(UNDERCUT_BONUS + points - against)


def _discard(hand: int, taken: int) -> tuple[int, int]:
    """The discard leaving the least deadwood (ties: the higher card) and that deadwood."""
    best_card = -1
    best_key = (1 << 30, 0)
    rest = hand
    while rest:
        low = rest & -rest
        rest ^= low
        card = low.bit_length() - 1
        if card == taken:
            continue
        key = (min_deadwood_mask(hand ^ low), -INDEX_VALUES[card])
        if key < best_key:
            best_key, best_card = key, card
    return best_card, best_key[0]


def play_out(
    me: int, opponent: int, stock: list[int], top: int, *, opponent_first: bool = True
) -> int:
    """Finish a hand with the quick policy for both; ``stock`` is consumed from its end and
    ``top`` is the card on the discard pile.

    Returns our points: positive when we score, negative when the opponent does, 0 for a dead
    hand.
    """
    hands = [me, opponent]
    player = 1 if opponent_first else 0
    while True:
        hand = hands[player]
        top_bit = 1 << top
        if min_deadwood_mask(hand | top_bit) < min_deadwood_mask(hand) + INDEX_VALUES[top]:
            hand |= top_bit
            taken = top
        else:
            if not stock:
                return 0
            hand |= 1 << stock.pop()
            taken = -1
        card, left = _discard(hand, taken)
        hand ^= 1 << card
        if left <= KNOCK_LIMIT:
            points = knock_points(hand, hands[1 - player])
            return points if player == 0 else -points
        if len(stock) <= DEAD_HAND_STOCK:
            return 0
        hands[player] = hand
        top = card
        player ^= 1
