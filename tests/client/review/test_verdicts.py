"""The judge of a hand (``client.review``): it sees what each player knew and nothing else,
and the same hand with the same seed gives the same review."""

from __future__ import annotations

import random
from typing import Any

import pytest

from client.ai.policies import get_policy
from client.review import record as records
from client.review import selfplay, verdict
from client.review.table import Table
from protocol.cards import DECK, card_index

FEW = verdict.ReviewSettings(samples=2, confirm_samples=2, discards=2, knock_samples=2)


def a_hand(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    table = selfplay.deal(rng, dealer=seed % 2)
    return selfplay.play_hand(table, {0: get_policy("hard"), 1: get_policy("normal")}, rng)


def swap_unseen_by(record: dict[str, Any], seat: int) -> dict[str, Any]:
    """The same hand with two cards that ``seat`` never saw exchanged: one in the opponent's
    hand that stays there to the end, and one left in the stock. ``seat``'s own cards and the
    public history are unchanged; the opponent's hand (and so the score) is not."""
    events = [dict(e) for e in record["events"]]
    deal = events[0]
    shown = {e.get("card") for e in events if e["type"] != "draw" or e["seat"] == seat}
    drawn = {e["card"] for e in events if e["type"] == "draw"}
    other = [c for c in deal["hands"][1 - seat] if c not in shown]
    left = [c for c in deal["stock"] if c not in drawn]
    assert other and left, "no card to swap"
    held, unseen = other[0], left[0]
    hands = [list(h) for h in deal["hands"]]
    hands[1 - seat] = [unseen if c == held else c for c in hands[1 - seat]]
    deal["hands"] = hands
    deal["stock"] = [held if c == unseen else c for c in deal["stock"]]
    events[0] = deal
    return {**record, "events": events}


def judged(record: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    return [verdict.judge(d, FEW) for d in records.decisions(record) if d.seat == seat]


@pytest.mark.parametrize("seed", [3, 11])
def test_hidden_cards_change_no_verdict(seed: int) -> None:
    original = a_hand(seed)
    other = swap_unseen_by(original, 0)
    assert other["events"][0]["hands"][1] != original["events"][0]["hands"][1]
    assert judged(other, 0) == judged(original, 0)


def test_a_change_to_what_the_player_saw_changes_its_verdicts() -> None:
    """The test above could fail: the same swap made among the cards the other seat never saw
    changes this seat's own cards, and so its verdicts."""
    original = a_hand(3)
    assert judged(swap_unseen_by(original, 1), 0) != judged(original, 0)


def test_the_same_hand_and_seed_give_the_same_review() -> None:
    hand = a_hand(5)
    assert verdict.review_hand(hand, FEW) == verdict.review_hand(hand, FEW)
    other_seed = verdict.ReviewSettings(**{**FEW.to_dict(), "seed": "another"})
    assert (
        verdict.review_hand(hand, other_seed)["decisions"]
        != verdict.review_hand(hand, FEW)["decisions"]
    )


def test_passing_an_upcard_that_makes_gin_is_a_blunder() -> None:
    # Non-dealer (seat 1) holds nine melded cards and a 4 of clubs; the upcard 4H makes gin.
    hand1 = ["AS", "2S", "3S", "7D", "8D", "9D", "KH", "KC", "KD", "4C"]
    hand0 = ["2H", "5C", "9S", "JD", "QH", "6S", "3D", "TC", "8H", "JS"]
    upcard = "4S"
    rest = [c for c in _deck() if c not in hand0 + hand1 + [upcard]]
    table = Table.deal(
        [_mask(hand0), _mask(hand1)], card_index(upcard), [card_index(c) for c in rest], 0
    )
    view = table.view(1)
    decision = records.Decision(1, 1, "upcard", view, {"kind": "pass"})
    settings = verdict.ReviewSettings(samples=6, confirm_samples=6, knock_samples=2)
    out = verdict.judge(decision, settings)
    assert out["best"] == "take_upcard"
    assert out["label"] == "blunder", out


def test_a_record_that_does_not_replay_is_refused() -> None:
    hand = a_hand(7)
    broken = {**hand, "events": [hand["events"][0], {"type": "discard", "seat": 0, "card": "AS"}]}
    with pytest.raises(records.RecordError):
        records.decisions(broken)
    with pytest.raises(records.RecordError):
        records.decisions({"events": []})


def _deck() -> list[str]:
    return list(DECK)


def _mask(cards: list[str]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card_index(card)
    return mask
