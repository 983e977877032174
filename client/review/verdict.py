"""Judging a finished hand: each decision's value against the best choice, its label, and the
players' summaries (``docs/review.md``).

:func:`judge` judges one decision (a pure function of the decision's view, what was played and
the settings: a process pool may run it); :func:`assemble` puts the judged decisions together
as the review that is stored with the hand.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from client.ai import hard
from client.ai.common import options
from client.review import value
from client.review.record import Decision, decisions
from protocol.cards import INDEX_VALUES, card_index
from protocol.melds import min_deadwood_mask

#: Version of the review's shape and method (stored with it).
REVIEW_VERSION = 1
#: Labels by the points a decision lost (expected points of the hand), from the worst.
LABELS = (("blunder", 10.0), ("mistake", 5.0), ("inaccuracy", 2.0))
#: The marks of the labels, as chess and the replay page show them.
MARKS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}
#: A decision's accuracy is ``exp(-loss / ACCURACY_SCALE)``; a player's, the mean, in percent.
ACCURACY_SCALE = 5.0


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    samples: int = 8
    """Worlds each candidate is played out in (first pass)."""
    confirm_samples: int = 16
    """Fresh worlds for the played choice and the best one when the first pass finds a loss
    of an inaccuracy or more: the loss reported comes from them alone."""
    confirm_rounds: int = 4
    """At most this many rounds of ``confirm_samples`` fresh worlds: another round is played
    while the label is in doubt (a loss of an inaccuracy or more measured so far, with a
    mistake's or a blunder's threshold within two standard errors of it)."""
    discards: int = 3
    """Plain discards considered besides the one played, the hard policy's and a knock: the
    best by the hard policy's discard score."""
    knock_samples: int = 8
    """Opponent hands the hard policy samples for a knock decision inside a play-out."""
    seed: str = "review-1"

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "confirm_samples": self.confirm_samples,
            "confirm_rounds": self.confirm_rounds,
            "discards": self.discards,
            "knock_samples": self.knock_samples,
            "seed": self.seed,
        }


def action_text(action: Mapping[str, Any]) -> str:
    """``pass``, ``draw_stock``, ``discard:7H``, ``knock:2C`` ..."""
    card = action.get("card")
    return f"{action['kind']}:{card}" if card else str(action["kind"])


def label_of(loss: float) -> str | None:
    for name, threshold in LABELS:
        if loss >= threshold:
            return name
    return None


def candidates(decision: Decision, settings: ReviewSettings) -> list[dict[str, Any]]:
    """The choices a decision is judged among: for a draw, both; for a discard, the one
    played, the hard policy's, gin and a knock when legal, and the best plain discards by
    the hard policy's score."""
    view = decision.view
    if decision.kind != "discard":
        return [dict(a) for a in view["legal_actions"]]
    opts = options(view)
    found: list[dict[str, Any]] = [dict(decision.played)]
    rng = random.Random(value.view_seed(settings.seed, view, "policy"))
    found.append(hard.choose(view, rng))
    hand = sum(1 << card_index(card) for card in view["cards"])

    def left(card: int) -> tuple[int, int]:
        return (min_deadwood_mask(hand ^ (1 << card)), -INDEX_VALUES[card])

    if opts.gin:
        found.append(dict(opts.gin[min(opts.gin)]))
    if opts.knock:
        found.append(dict(opts.knock[min(opts.knock, key=left)]))
    for card in hard.ranked_discards(view)[: settings.discards]:
        if card in opts.discard:
            found.append(dict(opts.discard[card]))
    unique: dict[str, dict[str, Any]] = {}
    for action in found:
        unique.setdefault(action_text(action), action)
    return list(unique.values())


def _mean(points: Sequence[float]) -> float:
    return sum(points) / len(points) if points else 0.0


#: The thresholds worth measuring more closely: a mistake's and a blunder's (the marks a
#: player is told to look at), for a loss measured at an inaccuracy or more. Doubt below that
#: is left as it is: it is the common case, and measuring it too made reviews 30-45 % longer
#: with more false alarms (docs/review.md).
DOUBTFUL = tuple(threshold for name, threshold in LABELS if name in ("mistake", "blunder"))


def in_doubt(differences: Sequence[int]) -> bool:
    """Whether the mean of the per-world differences (best minus played) is an inaccuracy or
    more and a mistake's or a blunder's threshold lies within two standard errors of it."""
    count = len(differences)
    if count < 2:
        return False
    mean = _mean(differences)
    if mean < LABELS[-1][1]:
        return False
    variance = sum((d - mean) ** 2 for d in differences) / (count - 1)
    error = math.sqrt(variance / count)
    return any(abs(mean - edge) < 2 * error for edge in DOUBTFUL)


def confirm(
    view: Mapping[str, Any],
    best: Mapping[str, Any],
    played: Mapping[str, Any],
    settings: ReviewSettings,
) -> tuple[float, float]:
    """The values of the best choice and the one played, measured again in fresh worlds
    (rounds of ``confirm_samples``, more while the label is in doubt)."""
    best_points: list[int] = []
    played_points: list[int] = []
    for round_ in range(max(1, settings.confirm_rounds)):
        again = value.values(
            view,
            [best, played],
            samples=settings.confirm_samples,
            seed=settings.seed,
            salt="confirm" if round_ == 0 else f"confirm-{round_}",
            knock_samples=settings.knock_samples,
        )
        best_points += again[0]
        played_points += again[1]
        if not in_doubt([b - p for b, p in zip(best_points, played_points, strict=True)]):
            break
    return _mean(best_points), _mean(played_points)


def judge(decision: Decision, settings: ReviewSettings) -> dict[str, Any]:
    """One decision judged: the values of the choice played and of the best one, the loss and
    its label; ``base``, the value of the hard policy's choice, and for a stock draw
    ``stock``, the value of drawing (the average card): the luck of the card drawn comes from
    them (:func:`assemble`)."""
    view = decision.view
    played = action_text(decision.played)
    if not decision.choice:
        points = value.values(
            view,
            [decision.played],
            samples=settings.samples,
            seed=settings.seed,
            knock_samples=settings.knock_samples,
        )
        return {
            "step": decision.step,
            "seat": decision.seat,
            "kind": decision.kind,
            "played": played,
            "stock": round(_mean(points[0]), 2),
        }
    options_ = candidates(decision, settings)
    texts = [action_text(a) for a in options_]
    points = value.values(
        view,
        options_,
        samples=settings.samples,
        seed=settings.seed,
        knock_samples=settings.knock_samples,
    )
    means = [_mean(p) for p in points]
    mine = texts.index(played)
    best = max(range(len(means)), key=lambda i: (means[i], i == mine))
    played_value, best_value = means[mine], means[best]
    loss = best_value - played_value
    if best != mine and loss >= LABELS[-1][1]:
        best_value, played_value = confirm(view, options_[best], options_[mine], settings)
        loss = best_value - played_value
        if loss <= 0:
            best, best_value, loss = mine, played_value, 0.0
    if best == mine:
        loss = 0.0
        best_value = played_value
    rng = random.Random(value.view_seed(settings.seed, view, "policy"))
    policy = action_text(hard.choose(view, rng)) if decision.kind == "discard" else None
    out: dict[str, Any] = {
        "step": decision.step,
        "seat": decision.seat,
        "kind": decision.kind,
        "played": played,
        "value": round(played_value, 2),
        "best": texts[best],
        "best_value": round(best_value, 2),
        "loss": round(max(0.0, loss), 2),
    }
    label = label_of(out["loss"])
    if label:
        out["label"] = label
    if policy is not None:
        out["base"] = round(means[texts.index(policy)], 2)
    if decision.played.get("kind") == "draw_stock" or (
        decision.kind == "draw" and "draw_stock" in texts
    ):
        out["stock"] = round(means[texts.index("draw_stock")], 2)
    return out


def assemble(judged: Sequence[Mapping[str, Any]], settings: ReviewSettings) -> dict[str, Any]:
    """The review of a hand from its judged decisions (in order)."""
    decisions = [dict(d) for d in judged if d["kind"] != "forced_draw"]
    luck = [0.0, 0.0]
    pending: list[float | None] = [None, None]
    for item in judged:
        seat = int(item["seat"])
        if item["played"] == "draw_stock" and "stock" in item:
            pending[seat] = float(item["stock"])
        elif item["kind"] == "discard":
            before = pending[seat]
            if before is not None and "base" in item:
                luck[seat] += float(item["base"]) - before
            pending[seat] = None
    players = []
    for seat in (0, 1):
        mine = [d for d in decisions if d["seat"] == seat]
        losses = [float(d["loss"]) for d in mine]
        count = len(mine)
        players.append(
            {
                "decisions": count,
                "loss": round(sum(losses), 2),
                "mean_loss": round(sum(losses) / count, 2) if count else 0.0,
                "accuracy": round(
                    100 * sum(math.exp(-x / ACCURACY_SCALE) for x in losses) / count, 1
                )
                if count
                else 100.0,
                "luck": round(luck[seat], 2),
                **{name: sum(1 for d in mine if d.get("label") == name) for name, _ in LABELS},
            }
        )
    return {
        "version": REVIEW_VERSION,
        "settings": settings.to_dict(),
        "decisions": decisions,
        "players": players,
    }


def review_hand(record: Mapping[str, Any], settings: ReviewSettings) -> dict[str, Any]:
    """The whole review of a hand, in one call (tests, the benchmark)."""
    return assemble([judge(d, settings) for d in decisions(record)], settings)
