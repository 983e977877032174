"""AI players: pure policies from a seat's view (what the server sends it) to an action.

``POLICIES[name](view, rng)`` returns one of ``view["legal_actions"]``; the only input is the
view and the explicit ``random.Random``, so a decision is reproducible and can never depend on
hidden cards.
"""

from client.ai.policies import LEVELS, POLICIES, get_policy

__all__ = ["LEVELS", "POLICIES", "get_policy"]
