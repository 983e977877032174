"""Write client/web/test/fixtures/deadwood.json: hands and their least deadwood as the
project's Python meld solver (protocol.melds) computes them, for the web client's own solver
(client/web/src/melds.ts) to be checked against.

    PYTHONPATH=. .venv/bin/python scripts/make_deadwood_fixture.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from protocol.cards import DECK
from protocol.melds import best_arrangement, best_discards, min_deadwood

OUT = Path(__file__).resolve().parents[1] / "client" / "web" / "test" / "fixtures" / "deadwood.json"
SEED = 17

# hands where sets and runs compete for the same cards, chosen by hand
CRAFTED = [
    ["7C", "7D", "7H", "7S", "5H", "6H", "8H", "9H", "5S", "6S"],
    ["4C", "4D", "4H", "3H", "5H", "6H", "3S", "4S", "5S", "KD"],
    ["AC", "2C", "3C", "4C", "AD", "AH", "AS", "2D", "2H", "9S"],
    ["9C", "TC", "JC", "QC", "KC", "QD", "QH", "KD", "KH", "KS"],
    ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"],
    ["3C", "3D", "3H", "4C", "4D", "4H", "5C", "5D", "5H", "6S"],
    ["QS", "KS", "AS", "KC", "AC", "2C", "JD", "QD", "KD", "AD"],
    ["2C", "3C", "4C", "4D", "4H", "4S", "5S", "6S", "7S", "7D", "7H"],
    ["TC", "TD", "TH", "JH", "QH", "KH", "9H", "8H", "JC", "QC", "KC"],
    ["TH", "8H", "9S", "8D", "8S", "8C", "9C", "TC", "9H", "7C", "TS"],
]


def ten(cards: list[str]) -> dict[str, object]:
    arrangement = best_arrangement(cards)
    return {"cards": cards, "deadwood": arrangement.deadwood_points}


def eleven(cards: list[str]) -> dict[str, object]:
    after = {discard.card: discard.deadwood_points for discard in best_discards(cards)}
    return {"cards": cards, "after_discard": after, "best": min_deadwood(cards)}


def biased_hand(rng: random.Random, size: int) -> list[str]:
    """A hand drawn from a few neighbouring ranks, so that melds are frequent."""
    low = rng.randrange(0, 8)
    pool = [card for card in DECK if low <= "A23456789TJQK".index(card[0]) < low + 6]
    return rng.sample(pool, size)


def melded_hand(rng: random.Random, size: int) -> list[str]:
    """A run and a set (overlapping or not) filled up with random cards: a hand near knocking."""
    suit = rng.choice("CDHS")
    start = rng.randrange(0, 10)
    cards = {f"{'A23456789TJQK'[rank]}{suit}" for rank in range(start, start + rng.choice((3, 4)))}
    rank = rng.choice("A23456789TJQK")
    cards |= set(rng.sample([f"{rank}{s}" for s in "CDHS"], 3))
    cards |= set(rng.sample([card for card in DECK if card not in cards], size - len(cards)))
    return sorted(cards, key=DECK.index)


def main() -> None:
    rng = random.Random(SEED)
    tens = [ten(hand) for hand in CRAFTED if len(hand) == 10]
    elevens = [eleven(hand) for hand in CRAFTED if len(hand) == 11]
    for _ in range(150):
        tens.append(ten(rng.sample(DECK, 10)))
        tens.append(ten(biased_hand(rng, 10)))
        tens.append(ten(melded_hand(rng, 10)))
    for _ in range(100):
        elevens.append(eleven(rng.sample(DECK, 11)))
        elevens.append(eleven(biased_hand(rng, 11)))
        elevens.append(eleven(melded_hand(rng, 11)))
    fixture = {
        "source": "scripts/make_deadwood_fixture.py (protocol.melds)",
        "ten": tens,
        "eleven": elevens,
    }
    OUT.write_text(json.dumps(fixture, indent=None, separators=(",", ":")) + "\n")
    print(f"{OUT}: {len(tens)} hands of 10, {len(elevens)} hands of 11")


if __name__ == "__main__":
    main()
