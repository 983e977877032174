"""How good and how fast the hand review is (``docs/review.md``): printed, not asserted.

``python -m bench.review [--hands N] [--errors N] [--seed S] [--samples N --confirm N --rounds N]
[--knock-samples N]``

- **Finds real errors**: obvious errors injected into positions (a complete meld broken
  while a lone king could go; an upcard or discard passed that makes gin; no knock with 1
  point of deadwood early in the hand), each judged: the share labelled mistake or worse.
- **Few false alarms**: every decision of the hard policy in hard-against-hard hands: the
  share labelled mistake or worse.
- **Orders the players**: the mean loss per decision of easy, normal, hard and Simple, each
  against the hard policy, over ``--hands`` hands per level.
- **Reproducible**: one hand reviewed twice with the same seed.
- **Fast enough**: seconds per hand on one core (this process), scaled to 20 decisions,
  p50 and p95; beside the machine speed ``bench.load`` prints (``bench.engine_moves``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench import engine_moves
from client.ai.common import options
from client.ai.policies import get_policy
from client.review import record as records
from client.review import selfplay, verdict
from client.review.table import DISCARD, Table
from protocol.cards import DECK, INDEX_VALUES, card_index, iter_indices
from protocol.melds import best_arrangement_mask, min_deadwood_mask

MISTAKE_OR_WORSE = frozenset({"mistake", "blunder"})


def _mask(cards: Any) -> int:
    return sum(1 << card_index(c) for c in cards)


# --- injected errors -----------------------------------------------------------------------


def _melds(rng: random.Random, count: int, used: int) -> list[int] | None:
    """``count`` random 3-card melds (sets or runs) of cards outside ``used``."""
    found: list[int] = []
    for _ in range(200):
        if len(found) == count:
            return found
        if rng.random() < 0.5:
            rank = rng.randrange(13)
            suits = rng.sample(range(4), 3)
            meld = sum(1 << (s * 13 + rank) for s in suits)
        else:
            suit, low = rng.randrange(4), rng.randrange(11)
            meld = sum(1 << (suit * 13 + low + i) for i in range(3))
        if meld & used:
            continue
        found.append(meld)
        used |= meld
    return None


def _table(
    hand: int, rng: random.Random, *, phase: str, extra: int = 0, upcard: int | None = None
) -> Table:
    """A table where seat 1 (the non-dealer) holds ``hand``, early in the hand."""
    rest = [c for c in range(52) if not (hand | extra) >> c & 1 and c != upcard]
    rng.shuffle(rest)
    opponent = sum(1 << c for c in rest[:10])
    top, stock = (rest[10], rest[11:]) if upcard is None else (upcard, rest[10:])
    table = Table.deal([opponent, hand], top, stock, dealer=0)
    if phase == DISCARD:
        table.history = [
            {"seat": 1, "kind": "pass"},
            {"seat": 0, "kind": "pass"},
            {"seat": 1, "kind": "draw_stock"},
        ]
        table.hands[1] |= extra
        table.phase, table.turn = DISCARD, 1
    return table


def gin_upcard(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Nine melded cards and a tenth; the upcard makes gin (discarding the tenth). Injected:
    pass."""
    melds = _melds(rng, 3, 0)
    if melds is None:
        return None
    nine = melds[0] | melds[1] | melds[2]
    outs = [c for c in range(52) if not nine >> c & 1 and min_deadwood_mask(nine | 1 << c) == 0]
    if not outs:
        return None
    upcard = rng.choice(outs)
    tenth = rng.choice([c for c in range(52) if not (nine | 1 << upcard) >> c & 1])
    table = _table(nine | 1 << tenth, rng, phase="first_offer", upcard=upcard)
    table.dealer, table.turn = 0, 1
    return table.view(1), {"kind": "pass"}


def no_early_knock(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Nine melded cards, an ace and a high card just drawn, early: knocking with the ace
    (1 point) is right. Injected: the same discard without a knock."""
    melds = _melds(rng, 3, 0)
    if melds is None:
        return None
    nine = melds[0] | melds[1] | melds[2]
    aces = [c for c in range(0, 52, 13) if not nine >> c & 1]
    highs = [c for c in range(52) if INDEX_VALUES[c] == 10 and not nine >> c & 1]
    ace, high = rng.choice(aces), rng.choice(highs)
    hand = nine | 1 << ace | 1 << high
    if min_deadwood_mask(hand ^ 1 << high) != 1 or min_deadwood_mask(hand ^ 1 << ace) == 0:
        return None
    table = _table(hand ^ 1 << high, rng, phase=DISCARD, extra=1 << high)
    view = table.view(1)
    if not any(a["kind"] == "knock" for a in view["legal_actions"]):
        return None
    return view, {"kind": "discard", "card": DECK[high]}


def broken_meld(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """From hard-against-hard play: a discard where a lone king (no card of its rank or suit
    near it) could go and the hand holds a 3-card meld. Injected: a card of that meld."""
    table = selfplay.deal(rng, rng.randrange(2))
    hard = get_policy("hard")
    while not table.over:
        seat = table.turn
        view = table.view(seat)
        if table.phase == DISCARD:
            hand = table.hands[seat]
            kings = [
                c
                for c in iter_indices(hand)
                if c % 13 == 12
                and not any(hand >> o & 1 for o in (c - 1, c - 2) if o >= 0 and o // 13 == c // 13)
                and sum(hand >> (s * 13 + 12) & 1 for s in range(4)) == 1
            ]
            melds = [m for m in best_arrangement_mask(hand).melds if len(m) == 3]
            opts = options(view)
            if kings and melds and table.taken is None and not opts.knock:
                card = card_index(rng.choice(melds[0]))
                return view, {"kind": "discard", "card": DECK[card]}
        table.play(hard(view, rng))
    return None


INJECTIONS: dict[str, Callable[[random.Random], Any]] = {
    "meld broken, a lone king kept": broken_meld,
    "upcard that makes gin passed": gin_upcard,
    "no knock with 1 point, early": no_early_knock,
}


def injected_errors(count: int, rng: random.Random, settings: verdict.ReviewSettings) -> None:
    print(f"\ninjected obvious errors ({count} of each), labelled mistake or worse:")
    total = caught = 0
    for name, make in INJECTIONS.items():
        labels: list[str] = []
        losses: list[float] = []
        while len(labels) < count:
            made = make(rng)
            if made is None:
                continue
            view, played = made
            kind = "discard" if view["phase"] == DISCARD else "upcard"
            out = verdict.judge(
                records.Decision(1, int(view["seat"]), kind, view, played), settings
            )
            labels.append(out.get("label", "-"))
            losses.append(out["loss"])
        hit = sum(1 for label in labels if label in MISTAKE_OR_WORSE)
        total += len(labels)
        caught += hit
        print(
            f"  {name:34s} {hit:3d}/{len(labels):<3d} {100 * hit / len(labels):5.1f}%"
            f"   mean loss {statistics.mean(losses):5.1f} points"
        )
    print(f"  {'all':34s} {caught:3d}/{total:<3d} {100 * caught / total:5.1f}%   (target >= 95%)")


# --- levels ------------------------------------------------------------------------------


def levels(hands: int, seed: int, settings: verdict.ReviewSettings) -> list[float]:
    """Mean loss per decision of each level against hard; returns seconds per hand scaled
    to 20 decisions."""
    per_hand: list[float] = []
    print(f"\nmean loss per decision, each level against the hard policy, {hands} hands each:")
    print(f"  {'level':8s} {'decisions':>9s} {'mean loss':>9s} {'mistake+':>9s}")
    false_alarms = [0, 0]
    for level in ("hard", "normal", "easy", "simple"):
        losses: list[float] = []
        marked = 0
        for index in range(hands):
            rng = random.Random(f"{seed}/{level}/{index}")
            judged_seat = index % 2
            policies = {judged_seat: get_policy(level), 1 - judged_seat: get_policy("hard")}
            record = selfplay.play_hand(selfplay.deal(rng, rng.randrange(2)), policies, rng)
            started = time.process_time()
            review = verdict.review_hand(record, settings)
            spent = time.process_time() - started
            if review["decisions"]:
                per_hand.append(spent / len(review["decisions"]) * 20)
            for decision in review["decisions"]:
                if level == "hard":  # both seats are the hard policy
                    false_alarms[0] += 1
                    false_alarms[1] += decision.get("label") in MISTAKE_OR_WORSE
                if decision["seat"] != judged_seat:
                    continue
                losses.append(decision["loss"])
                marked += decision.get("label") in MISTAKE_OR_WORSE
        mean = statistics.mean(losses) if losses else 0.0
        print(
            f"  {level:8s} {len(losses):9d} {mean:9.2f} {100 * marked / max(1, len(losses)):8.1f}%",
            flush=True,
        )
    share = 100 * false_alarms[1] / max(1, false_alarms[0])
    print(
        f"\nfalse alarms: the hard policy's own decisions (both seats of its hands) labelled"
        f" mistake or worse: {false_alarms[1]}/{false_alarms[0]} = {share:.1f}% (target <= 5%)"
    )
    return per_hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=500, help="hands per level")
    parser.add_argument("--errors", type=int, default=40, help="injected errors of each kind")
    parser.add_argument("--seed", type=int, default=1)
    defaults = verdict.ReviewSettings()
    parser.add_argument("--samples", type=int, default=defaults.samples)
    parser.add_argument("--confirm", type=int, default=defaults.confirm_samples)
    parser.add_argument(
        "--rounds", type=int, default=defaults.confirm_rounds, help="at most, of --confirm"
    )
    parser.add_argument(
        "--knock-samples",
        type=int,
        default=defaults.knock_samples,
        help="opponent hands a knock decision samples inside a play-out",
    )
    args = parser.parse_args()
    settings = verdict.ReviewSettings(
        samples=args.samples,
        confirm_samples=args.confirm,
        confirm_rounds=args.rounds,
        knock_samples=args.knock_samples,
    )
    speed = engine_moves.speed()
    print(
        f"hand review bench: samples {settings.samples}, confirm {settings.confirm_samples}"
        f" (at most {settings.confirm_rounds} rounds), knock samples {settings.knock_samples},"
        f" seed {args.seed}; machine speed now: the pure game code of a move"
        f" (bench.engine_moves, as bench.load prints it) takes {speed:.1f} us"
    )
    rng = random.Random(args.seed)
    record = selfplay.play_hand(
        selfplay.deal(rng, 0), {0: get_policy("hard"), 1: get_policy("easy")}, rng
    )
    same = verdict.review_hand(record, settings) == verdict.review_hand(record, settings)
    print(f"reproducible: the same hand and seed reviewed twice gives the same review: {same}")
    injected_errors(args.errors, rng, settings)
    per_hand = levels(args.hands, args.seed, settings)
    if per_hand:
        per_hand.sort()
        p95 = per_hand[min(len(per_hand) - 1, int(0.95 * len(per_hand)))]
        print(
            f"\nCPU seconds per hand of 20 decisions (one core, {len(per_hand)} hands):"
            f" p50 {statistics.median(per_hand):.1f} s, p95 {p95:.1f} s (target <= 10 s)"
        )


if __name__ == "__main__":
    main()
