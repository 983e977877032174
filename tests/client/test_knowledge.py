"""What the policies infer from a view: the public facts, and the quick knock scoring."""

from __future__ import annotations

import random

from client.ai import POLICIES, knowledge, opponent, playout
from protocol.cards import from_mask, to_mask
from protocol.scoring import score_hand
from tests.client.helpers import decisions


def test_the_replayed_history_matches_the_hidden_state() -> None:
    players = (POLICIES["normal"], POLICIES["simple"])
    checked = 0
    for seed in range(30):
        for state, seat, view, _ in decisions(players, seed, hands=2):
            know = knowledge.read(view)
            theirs = to_mask(state.hands[1 - seat])
            assert know.opp_known & ~theirs == 0, "known cards are in the opponent's hand"
            assert know.hand == to_mask(state.hands[seat])
            assert know.pile == to_mask(state.discard_pile)
            # The unseen cards are exactly the stock and the opponent's unknown cards.
            assert know.unseen == to_mask(state.stock) | (theirs & ~know.opp_known)
            if state.history and state.history[0].kind == "take_upcard":
                assert know.upcard is not None
                assert from_mask(1 << know.upcard)[0] == state.history[0].card
            checked += 1
    assert checked > 1000


def test_the_opponent_model_is_a_distribution_over_its_hand() -> None:
    players = (POLICIES["hard"], POLICIES["normal"])
    rng = random.Random(3)
    for state, seat, view, _ in decisions(players, seed=11, hands=1):
        know = knowledge.read(view)
        size = len(state.hands[1 - seat])
        model = opponent.build(know, size)
        assert abs(sum(model.prob) - size) < 1e-6
        assert all(0.0 <= p <= 1.0 for p in model.prob)
        hand = model.sample(rng)
        assert hand.bit_count() == size
        assert hand & know.opp_known == know.opp_known
        assert hand & (know.hand | know.pile) == 0


def test_quick_knock_scoring_agrees_with_the_rules() -> None:
    """``playout.knock_points`` (used in the hard player's estimates) against
    ``protocol.scoring.score_hand`` on the knocks of simulated matches: equal nearly always
    (it does not apply the knocker's tie-break between equal arrangements)."""
    players = (POLICIES["simple"], POLICIES["easy"])
    same = total = 0
    for seed in range(40):
        for state, seat, _, action in decisions(players, seed, hands=10):
            if action["kind"] not in ("knock", "gin"):
                continue
            knocker = to_mask(state.hands[seat]) & ~to_mask([action["card"]])
            defender = to_mask(state.hands[1 - seat])
            result = score_hand(from_mask(knocker), from_mask(defender))
            expected = result.points if result.winner == "knocker" else -result.points
            same += playout.knock_points(knocker, defender) == expected
            total += 1
    assert total > 250
    assert same >= 0.97 * total
