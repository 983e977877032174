"""The judge of a hand (``client.review``): it sees what each player knew and nothing else,
and the same hand with the same seed gives the same review."""

from __future__ import annotations

import random
from typing import Any

import pytest

from client.ai.policies import get_policy
from client.review import record as records
from client.review import selfplay, value, verdict
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


def test_a_label_in_doubt_is_measured_again_and_a_clear_one_is_not() -> None:
    """``in_doubt``: a mean of an inaccuracy or more, with a mistake's or a blunder's
    threshold within two standard errors of it."""
    assert not verdict.in_doubt([7, 7, 7, 7])  # no spread: 7 is no threshold
    assert verdict.in_doubt([4, 6, 4, 6])  # 5 +- 0.58: the mistake's threshold inside
    assert verdict.in_doubt([30, -20, 10, -10])  # 2.5 +- 10.9: any label, or none
    assert not verdict.in_doubt([31, 33, 32, 30, 34, 32])  # 32 +- 0.58: a clear blunder
    assert not verdict.in_doubt([9])  # one world: no spread to judge by
    assert not verdict.in_doubt([1, 3, 1, 3])  # 2 +- 0.58: an inaccuracy or not, left so
    assert not verdict.in_doubt([-10, 12, -10, 12])  # 1 +- 6.35: under an inaccuracy, left so
    assert verdict.in_doubt([8, 12, 8, 12])  # 10 +- 1.15: a blunder or a mistake


def test_the_confirmation_plays_more_rounds_only_while_in_doubt() -> None:
    """One round is the single confirmation it always was; more rounds add fresh worlds (of
    their own salts) while the label is in doubt, and stop once it is clear."""
    settings = verdict.ReviewSettings(samples=2, confirm_samples=4, knock_samples=2)

    def measured(view: Any, best: Any, played: Any, rounds: int) -> list[list[int]]:
        found: list[list[int]] = [[], []]
        for round_ in range(rounds):
            again = value.values(
                view,
                [best, played],
                samples=4,
                seed=settings.seed,
                salt="confirm" if round_ == 0 else f"confirm-{round_}",
                knock_samples=2,
            )
            found[0] += again[0]
            found[1] += again[1]
        return found

    def doubt(points: list[list[int]]) -> bool:
        return verdict.in_doubt([b - p for b, p in zip(*points, strict=True)])

    pairs = [
        (d.view, action, d.played)
        for d in records.decisions(a_hand(5))
        if d.choice
        for action in d.view["legal_actions"]
        if action != d.played
    ]
    clear = next(p for p in pairs if not doubt(measured(*p, 1)))
    view, best, played = next(p for p in pairs if doubt(measured(*p, 1)))

    one = verdict.ReviewSettings(samples=2, confirm_samples=4, knock_samples=2, confirm_rounds=1)
    first = measured(view, best, played, 1)
    assert verdict.confirm(view, best, played, one) == (sum(first[0]) / 4, sum(first[1]) / 4)
    rounds = 2
    while rounds < 4 and doubt(measured(view, best, played, rounds)):
        rounds += 1
    expected = measured(view, best, played, rounds)
    assert verdict.confirm(view, best, played, settings) == (
        sum(expected[0]) / (4 * rounds),
        sum(expected[1]) / (4 * rounds),
    )
    once = measured(*clear, 1)
    assert verdict.confirm(*clear, settings) == (sum(once[0]) / 4, sum(once[1]) / 4)
