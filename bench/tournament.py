"""Tournament between two AI policies, played in-process with the real engine.

Run::

    PYTHONPATH=. .venv/bin/python -m bench.tournament A B --matches N --seed S --workers 2
    PYTHONPATH=. .venv/bin/python -m bench.tournament A --openspiel --matches N --seed S

Matches (default mode): ``N`` matches to 100 points (``N`` is rounded up to an even number).
They are played as duplicate pairs: every match seed is played twice, once with A in seat 0
and once with A in seat 1. The engine's deals depend on the seed only (players' actions never
consume its generator), so in both matches of a pair each seat gets the same cards hand after
hand, and the luck of the deal cancels out. Each policy sees exactly what the server would send
its seat: ``server.engine.views.game_view(state, seat)``, and gets its own seeded
``random.Random``. Printed:

- match win rate of A, with a 95% confidence interval computed over the pairs (a pair scores
  0, 1/2 or 1 for A, so the correlation inside a pair is accounted for);
- points per hand: the net points of A per hand (A's points minus B's), with a 95% interval
  over the pairs, and each policy's own points per hand;
- per policy: knock rate, gin rate (gins per hand played), undercut rate (the share of its
  knocks that were undercut), undercuts it made, dead hands;
- decision time p50/p99 (and max) per policy: wall time of the ``choose`` call only. On a
  busy 2-core machine the max mostly measures the worker being descheduled, not the policy.

OpenSpiel (``--openspiel``): OpenSpiel's own ``gin_rummy`` game and its C++ simple bot
(``pyspiel.make_simple_gin_rummy_bot(params, player_id)``) against policy A through an adapter
from OpenSpiel's state to our view dict. OpenSpiel plays single hands: ``N`` hands, as
duplicate pairs again (each deal played with A as player 0 and as player 1; player 0 is the
non-dealer, offered the upcard first). Printed: A's points per hand (OpenSpiel's returns) with a
95% interval, how hands ended, and A's decision times. What the adapter cannot map exactly:

- OpenSpiel lets the player take the last discard ("upcard") even at the wall: when a discard
  leaves 2 cards in the stock, the next player may pick the upcard up and knock. Our rules end
  the hand there. The adapter does not ask the policy: it knocks when OpenSpiel allows it (as
  OpenSpiel's own bot does) and passes otherwise.
- OpenSpiel allows discarding the upcard just taken; our rules do not, so our policies never do.
- The knock is a separate action in OpenSpiel and only legal when OpenSpiel's own 11-card
  minimum deadwood (which drops the highest-ranked deadwood card instead of trying every
  discard, and is sometimes too high) is at most 10. The adapter offers our policy ``knock``
  and ``gin`` only then, and counts the turns where our exact solver would have allowed it.
- Laying melds and layoffs are OpenSpiel actions; the adapter plays them for our policy: as
  knocker its optimal arrangement (runs longer than 5 cards split, OpenSpiel has no such meld;
  without the hidden defender's hand it cannot apply our rules' knocker tie-break), as
  defender the best layoffs and melds of ``protocol.melds.best_layoffs``, within OpenSpiel's
  limits (layoffs chain one card deep per meld end; a layoff OpenSpiel refuses is skipped).
- Scoring: OpenSpiel scores a knock tie as 0; our rules call it an undercut (25 to the
  defender). OpenSpiel also ends a hand after the 50th upcard draw and after a discard repeats
  the previous upcard twice in a row.
- The view's history holds what a player sees: the opponent's stock draws without a card.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Any

from bench.seeds import deal_seed
from client.ai.common import Policy
from client.ai.policies import POLICIES, get_policy
from protocol.cards import RANKS, card_index, to_mask
from protocol.melds import best_arrangement_mask, best_layoffs, min_deadwood_mask
from server.engine import Action, GameState, Phase, apply, new_match
from server.engine.views import game_view

Z95 = 1.959963984540054


# --- one match in our engine ------------------------------------------------------------------


@dataclass(slots=True)
class SeatStats:
    """What one policy did in one match (or in many, once merged)."""

    points: int = 0
    hands_won: int = 0
    knocks: int = 0
    gins: int = 0
    undercut: int = 0
    """Its knocks that were undercut."""
    undercuts_made: int = 0
    decisions_ns: list[int] = field(default_factory=list)


@dataclass(slots=True)
class MatchResult:
    seed: int
    a_seat: int
    a_won: bool
    hands: int
    dead: int
    hand_nets: list[int]
    """A's net points of each hand (+ A scored, - B scored, 0 dead)."""
    a: SeatStats
    b: SeatStats


def policy_rng(seed: int, name: str, seat: int) -> random.Random:
    """A policy's own generator: a function of the match seed, its name and its seat."""
    return random.Random(f"{seed}:{name}:{seat}")


def play_match(seed: int, a_name: str, b_name: str, a_seat: int) -> MatchResult:
    names = [b_name, b_name]
    names[a_seat] = a_name
    policies: list[Policy] = [get_policy(names[0]), get_policy(names[1])]
    rngs = [policy_rng(seed, names[seat], seat) for seat in (0, 1)]
    stats = [SeatStats(), SeatStats()]
    state: GameState = new_match(deal_seed(seed, 1))
    hand_nets: list[int] = []
    dead = 0
    clock = time.perf_counter_ns
    while state.phase is not Phase.MATCH_OVER:
        if state.phase is Phase.HAND_OVER:
            state, _ = apply(state, 0, Action("next_hand"), deal_seed(seed, state.hand_number + 1))
            continue
        seat = state.turn
        assert seat is not None
        view = game_view(state, seat)
        start = clock()
        chosen = policies[seat](view, rngs[seat])
        stats[seat].decisions_ns.append(clock() - start)
        state, _ = apply(state, seat, Action.from_dict(chosen))
        if state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            record = state.results[-1]
            last = state.history[-1]
            if record.kind == "dead":
                dead += 1
                hand_nets.append(0)
                continue
            knocker = last.seat
            assert record.winner is not None
            stats[record.winner].points += record.points
            stats[record.winner].hands_won += 1
            stats[knocker].knocks += 1
            if record.kind == "gin":
                stats[knocker].gins += 1
            elif record.kind == "undercut":
                stats[knocker].undercut += 1
                stats[1 - knocker].undercuts_made += 1
            sign = 1 if record.winner == a_seat else -1
            hand_nets.append(sign * record.points)
    assert state.winner is not None
    return MatchResult(
        seed=seed,
        a_seat=a_seat,
        a_won=state.winner == a_seat,
        hands=len(state.results),
        dead=dead,
        hand_nets=hand_nets,
        a=stats[a_seat],
        b=stats[1 - a_seat],
    )


def play_pair(job: tuple[int, str, str]) -> tuple[MatchResult, MatchResult]:
    seed, a_name, b_name = job
    return play_match(seed, a_name, b_name, 0), play_match(seed, a_name, b_name, 1)


# --- statistics -------------------------------------------------------------------------------


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal confidence interval."""
    if not values:
        return math.nan, math.nan
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, Z95 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: Sequence[int], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index] / 1e6


def merge(into: SeatStats, other: SeatStats) -> None:
    into.points += other.points
    into.hands_won += other.hands_won
    into.knocks += other.knocks
    into.gins += other.gins
    into.undercut += other.undercut
    into.undercuts_made += other.undercuts_made
    into.decisions_ns.extend(other.decisions_ns)


def report(a_name: str, b_name: str, pairs: Sequence[tuple[MatchResult, MatchResult]]) -> str:
    matches = [m for pair in pairs for m in pair]
    pair_scores = [(p[0].a_won + p[1].a_won) / 2 for p in pairs]
    win, win_ci = mean_ci(pair_scores)
    hands = sum(m.hands for m in matches)
    dead = sum(m.dead for m in matches)
    pair_net_per_hand = [
        sum(sum(m.hand_nets) for m in p) / max(1, sum(m.hands for m in p)) for p in pairs
    ]
    # Ratio estimator: total net / total hands, with the pairs' spread for the interval.
    net = sum(sum(m.hand_nets) for m in matches) / max(1, hands)
    _, net_ci = mean_ci(pair_net_per_hand)
    a, b = SeatStats(), SeatStats()
    for m in matches:
        merge(a, m.a)
        merge(b, m.b)
    lines = [
        f"{a_name} vs {b_name}: {len(matches)} matches to 100 ({len(pairs)} duplicate pairs), "
        f"{hands} hands, {dead} dead ({100 * dead / max(1, hands):.1f}%), "
        f"{hands / max(1, len(matches)):.2f} hands per match",
        f"  {a_name} match win rate: {100 * win:.1f}% ± {100 * win_ci:.1f} (95% CI "
        f"[{100 * (win - win_ci):.1f}, {100 * (win + win_ci):.1f}]), "
        f"{sum(m.a_won for m in matches)} of {len(matches)} matches",
        f"  {a_name} net points per hand: {net:+.2f} ± {net_ci:.2f}",
        "",
        f"  {'policy':<8} {'pts/hand':>8} {'won%':>6} {'knock%':>7} {'gin%':>6} "
        f"{'undercut%':>10} {'ucuts made':>10} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}",
    ]
    for name, s in ((a_name, a), (b_name, b)):
        lines.append(
            f"  {name:<8} {s.points / max(1, hands):8.2f} {100 * s.hands_won / max(1, hands):6.1f} "
            f"{100 * s.knocks / max(1, hands):7.1f} {100 * s.gins / max(1, hands):6.1f} "
            f"{100 * s.undercut / max(1, s.knocks):10.1f} "
            f"{100 * s.undercuts_made / max(1, hands):10.1f} "
            f"{percentile(s.decisions_ns, 0.5):8.3f} {percentile(s.decisions_ns, 0.99):8.3f} "
            f"{max(s.decisions_ns, default=0) / 1e6:8.1f}"
        )
    lines.append(
        "  (knock% and gin%: of all hands; undercut%: of that policy's knocks; "
        "ucuts made: undercuts it scored, % of all hands)"
    )
    return "\n".join(lines)


def run_matches(a_name: str, b_name: str, matches: int, seed: int, workers: int) -> str:
    pairs_wanted = max(1, (matches + 1) // 2)
    seeds = random.Random(seed)
    jobs = [(seeds.getrandbits(63), a_name, b_name) for _ in range(pairs_wanted)]
    started = time.monotonic()
    pairs: list[tuple[MatchResult, MatchResult]] = []
    if workers <= 1:
        pairs = [play_pair(job) for job in jobs]
    else:
        with Pool(workers) as pool:
            for done, pair in enumerate(pool.imap_unordered(play_pair, jobs, chunksize=1), 1):
                pairs.append(pair)
                if sys.stderr.isatty() and done % 10 == 0:
                    print(f"\r{done}/{len(jobs)} pairs", end="", file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            print(file=sys.stderr)
    pairs.sort(key=lambda p: p[0].seed)
    elapsed = time.monotonic() - started
    return report(a_name, b_name, pairs) + f"\n  ({elapsed:.0f} s, {workers} workers)"


# --- OpenSpiel --------------------------------------------------------------------------------

# OpenSpiel cards: suit * 13 + rank with suits in the order s c d h; ours: C D H S.
_OS_SUITS = "scdh"


def os_to_card(card: int) -> str:
    return RANKS[card % 13] + _OS_SUITS[card // 13].upper()


def card_to_os(card: str) -> int:
    return _OS_SUITS.index(card[1].lower()) * 13 + RANKS.index(card[0])


@dataclass(slots=True)
class OpenSpielHand:
    seed: int
    a_player: int
    a_return: float
    ending: str
    a_decisions_ns: list[int]
    knock_refused: int
    """Turns where our solver allowed a knock that OpenSpiel's knock rule did not."""
    layoffs_refused: int
    """Planned layoffs that OpenSpiel did not allow (its chains are one card deep)."""


class _OpenSpielSeat:
    """Our policy seated in an OpenSpiel ``gin_rummy`` state, through a view like ours."""

    def __init__(self, pyspiel: Any, player: int, policy: Policy, rng: random.Random) -> None:
        self.gr = pyspiel.gin_rummy
        self.utils = self.gr.GinRummyUtils(13, 4, 10)
        self.meld_ids = {
            frozenset(os_to_card(c) for c in cards): meld_id
            for meld_id, cards in self.utils.int_to_meld.items()
        }
        self.player = player
        self.policy = policy
        self.rng = rng
        self.history: list[dict[str, Any]] = []
        self.taken: str | None = None
        self.discard_draws = 0
        self.knock_card = -1
        self.layoff_plan: list[int] | None = None
        self.decisions_ns: list[int] = []
        self.knock_refused = 0
        self.layoffs_refused = 0

    # The public history, as our view has it; called for every player action applied.
    def observe(self, state: Any, player: int, action: int) -> None:
        phase = state.current_phase()
        p = self.gr.Phase
        upcard = state.upcard()
        if phase in (p.FIRST_UPCARD, p.DRAW):
            if action == self.gr.DRAW_UPCARD_ACTION:
                kind = "take_upcard" if phase == p.FIRST_UPCARD else "draw_discard"
                self.history.append({"seat": player, "kind": kind, "card": os_to_card(upcard)})
                self.discard_draws += 1
            elif action == self.gr.DRAW_STOCK_ACTION:
                self.history.append({"seat": player, "kind": "draw_stock"})
            elif action == self.gr.PASS_ACTION:
                self.history.append({"seat": player, "kind": "pass"})
        elif phase == p.DISCARD and action < 52:
            self.history.append({"seat": player, "kind": "discard", "card": os_to_card(action)})

    def _hand(self, state: Any) -> list[str]:
        return [os_to_card(c) for c in state.hands()[self.player]]

    def view(self, state: Any, legal: list[dict[str, Any]], phase: str) -> dict[str, Any]:
        cards = self._hand(state)
        arrangement = best_arrangement_mask(to_mask(cards))
        pile = [os_to_card(c) for c in state.discard_pile()]
        if state.upcard() is not None:
            pile.append(os_to_card(state.upcard()))
        hands = state.hands()
        return {
            "hand": 1,
            "dealer": 1,
            "phase": phase,
            "turn": self.player,
            "seat": self.player,
            # Only the sizes of the hands are read here: they are public.
            "hand_sizes": [len(hands[0]), len(hands[1])],
            "stock_size": state.stock_size(),
            "discard_pile": pile,
            "taken_card": self.taken,
            "discard_draws": self.discard_draws,
            "history": [dict(m) for m in self.history],
            "scores": [0, 0],
            "results": [],
            "rules": {"target": 100, "game_bonus": False, "box_bonus": False},
            "legal_actions": legal,
            "cards": sorted(cards, key=card_index),
            "melds": [list(m) for m in arrangement.melds],
            "deadwood": list(arrangement.deadwood),
            "deadwood_points": arrangement.deadwood_points,
        }

    def _ask(self, view: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter_ns()
        chosen = self.policy(view, self.rng)
        self.decisions_ns.append(time.perf_counter_ns() - start)
        if chosen not in view["legal_actions"]:
            raise RuntimeError(f"policy returned an illegal action {chosen}")
        return chosen

    def _meld_actions(self, melds: Iterable[Sequence[str]]) -> list[int]:
        ids = []
        for meld in melds:
            cards = sorted(meld, key=card_index)
            # OpenSpiel has runs of 3 to 5 cards only: split longer ones.
            while len(cards) > 5:
                ids.append(self.meld_ids[frozenset(cards[:3])])
                cards = cards[3:]
            ids.append(self.meld_ids[frozenset(cards)])
        return [self.gr.MELD_ACTION_BASE + meld_id for meld_id in ids]

    def act(self, state: Any) -> int:
        legal = list(state.legal_actions())
        gr = self.gr
        p = gr.Phase
        phase = state.current_phase()
        if phase == p.FIRST_UPCARD:
            if legal == [gr.DRAW_STOCK_ACTION]:
                view = self.view(state, [{"kind": "draw_stock"}], "first_draw")
            else:
                name = "first_offer" if self.player == 0 else "second_offer"
                view = self.view(state, [{"kind": "take_upcard"}, {"kind": "pass"}], name)
            chosen = self._ask(view)
            if chosen["kind"] == "take_upcard":
                self.taken = os_to_card(state.upcard())
                return int(gr.DRAW_UPCARD_ACTION)
            return int(gr.PASS_ACTION if chosen["kind"] == "pass" else gr.DRAW_STOCK_ACTION)
        if phase == p.DRAW:
            view = self.view(state, [{"kind": "draw_stock"}, {"kind": "draw_discard"}], "draw")
            chosen = self._ask(view)
            if chosen["kind"] == "draw_discard":
                self.taken = os_to_card(state.upcard())
                return int(gr.DRAW_UPCARD_ACTION)
            return int(gr.DRAW_STOCK_ACTION)
        if phase == p.DISCARD:
            return self._discard(state, legal)
        if phase == p.WALL:
            return int(gr.KNOCK_ACTION if gr.KNOCK_ACTION in legal else gr.PASS_ACTION)
        if phase == p.KNOCK:
            if len(state.hands()[self.player]) == 11:
                if self.knock_card in legal:
                    return int(self.knock_card)
                # Knocking at the wall: the discard leaving the least deadwood.
                mask = to_mask(self._hand(state))
                return int(
                    min(
                        (c for c in legal if c < 52),
                        key=lambda c: min_deadwood_mask(mask & ~to_mask([os_to_card(c)])),
                    )
                )
            return self._lay_melds(state, legal)
        if phase == p.LAYOFF:
            if state.finished_layoffs():
                return self._lay_melds(state, legal)
            if self.layoff_plan is None:
                knocker_melds = [
                    [os_to_card(c) for c in self.utils.int_to_meld[meld_id]]
                    for meld_id in state.layed_melds()[1 - self.player]
                ]
                defence = best_layoffs(knocker_melds, self._hand(state))
                self.layoff_plan = [card_to_os(layoff.card) for layoff in defence.layoffs]
            while self.layoff_plan:
                card = self.layoff_plan.pop(0)
                if card in legal:
                    return card
                self.layoffs_refused += 1
            return int(gr.PASS_ACTION)
        raise RuntimeError(f"unexpected OpenSpiel phase {phase}")

    def _lay_melds(self, state: Any, legal: list[int]) -> int:
        """Lay the next meld of the optimal arrangement of the cards left, then pass."""
        melds = best_arrangement_mask(to_mask(self._hand(state))).melds
        for action in self._meld_actions(melds):
            if action in legal:
                return action
        return int(self.gr.PASS_ACTION if self.gr.PASS_ACTION in legal else legal[0])

    def _discard(self, state: Any, legal: list[int]) -> int:
        gr = self.gr
        cards = self._hand(state)
        mask = to_mask(cards)
        choices = [c for c in cards if c != self.taken]
        actions: list[dict[str, Any]] = [{"kind": "discard", "card": c} for c in choices]
        left = {c: min_deadwood_mask(mask & ~to_mask([c])) for c in choices}
        if gr.KNOCK_ACTION in legal:
            hand = state.hands()[self.player]
            allowed = {os_to_card(c) for c in self.utils.legal_discards(hand, 10)}
            actions += [{"kind": "knock", "card": c} for c in choices if c in allowed]
            actions += [
                {"kind": "gin", "card": c} for c in choices if c in allowed and left[c] == 0
            ]
        elif any(points <= 10 for points in left.values()):
            self.knock_refused += 1
        chosen = self._ask(self.view(state, actions, "discard"))
        self.taken = None
        if chosen["kind"] in ("knock", "gin"):
            self.knock_card = card_to_os(chosen["card"])
            return int(gr.KNOCK_ACTION)
        return card_to_os(chosen["card"])


def play_openspiel_hand(job: tuple[int, str, int]) -> OpenSpielHand:
    import pyspiel  # noqa: PLC0415 (only this benchmark mode needs OpenSpiel)

    seed, name, a_player = job
    game = pyspiel.load_game("gin_rummy")
    bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - a_player)
    bot.restart()
    seat = _OpenSpielSeat(pyspiel, a_player, get_policy(name), policy_rng(seed, name, a_player))
    chance = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = sorted(a for a, _ in state.chance_outcomes())
            state.apply_action(chance.choice(outcomes))
            continue
        player = state.current_player()
        action = seat.act(state) if player == a_player else bot.step(state)
        seat.observe(state, player, action)
        state.apply_action(action)
    returns = state.returns()
    struct = state.to_struct()
    knocked = list(struct.knocked)
    if any(knocked):
        knocker = a_player if knocked[a_player] else 1 - a_player
        who = name if knocker == a_player else "bot"
        k_ret = returns[knocker]
        if state.deadwood()[knocker] == 0:
            kind = "gin"
        elif k_ret > 0:
            kind = "knock"
        elif k_ret == 0:
            kind = "knock tied (0)"
        else:
            kind = "knock undercut"
        ending = f"{who} {kind}"
    else:
        ending = "no knock (wall or a cap)"
    return OpenSpielHand(
        seed=seed,
        a_player=a_player,
        a_return=float(returns[a_player]),
        ending=ending,
        a_decisions_ns=seat.decisions_ns,
        knock_refused=seat.knock_refused,
        layoffs_refused=seat.layoffs_refused,
    )


def run_openspiel(name: str, hands: int, seed: int, workers: int) -> str:
    pairs_wanted = max(1, (hands + 1) // 2)
    seeds = random.Random(seed)
    jobs = []
    for _ in range(pairs_wanted):
        deal = seeds.getrandbits(63)
        jobs += [(deal, name, 0), (deal, name, 1)]
    started = time.monotonic()
    if workers <= 1:
        results = [play_openspiel_hand(job) for job in jobs]
    else:
        with Pool(workers) as pool:
            results = list(pool.imap(play_openspiel_hand, jobs, chunksize=8))
    elapsed = time.monotonic() - started
    by_pair = [
        (results[i].a_return + results[i + 1].a_return) / 2 for i in range(0, len(results), 2)
    ]
    mean, ci = mean_ci(by_pair)
    endings = Counter(r.ending for r in results)
    decisions = [ns for r in results for ns in r.a_decisions_ns]
    refused = sum(r.knock_refused for r in results)
    layoffs_refused = sum(r.layoffs_refused for r in results)
    lines = [
        f"{name} vs OpenSpiel simple_gin_rummy_bot in OpenSpiel gin_rummy: {len(results)} hands "
        f"({len(by_pair)} deals, each played from both seats)",
        f"  {name} points per hand: {mean:+.2f} ± {ci:.2f} (95% CI [{mean - ci:+.2f}, "
        f"{mean + ci:+.2f}])",
        f"  {name} hands won: {sum(r.a_return > 0 for r in results)}, lost: "
        f"{sum(r.a_return < 0 for r in results)}, zero: {sum(r.a_return == 0 for r in results)}",
        "  endings: "
        + ", ".join(f"{kind} {100 * n / len(results):.1f}%" for kind, n in endings.most_common()),
        f"  turns where our solver allowed a knock OpenSpiel refused: {refused}; "
        f"layoffs OpenSpiel refused: {layoffs_refused}",
        f"  {name} decision time p50 {percentile(decisions, 0.5):.3f} ms, "
        f"p99 {percentile(decisions, 0.99):.3f} ms, max {max(decisions) / 1e6:.1f} ms",
        f"  ({elapsed:.0f} s, {workers} workers)",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", choices=sorted(POLICIES), help="the policy measured")
    parser.add_argument("b", nargs="?", choices=sorted(POLICIES), help="its opponent")
    parser.add_argument("--matches", type=int, default=200, help="matches (hands with --openspiel)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--openspiel", action="store_true", help="play A against OpenSpiel's simple bot"
    )
    args = parser.parse_args(argv)
    if args.openspiel:
        if args.b is not None:
            parser.error("--openspiel takes one policy")
        print(run_openspiel(args.a, args.matches, args.seed, args.workers))
        return 0
    if args.b is None:
        parser.error("two policies are needed (or --openspiel)")
    print(run_matches(args.a, args.b, args.matches, args.seed, args.workers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
