"""The AI and review workers' settings from their environment."""

from __future__ import annotations

from client.ai.worker import WorkerSettings
from client.review.worker import ReviewWorkerSettings

KEY = {"GIN_AI_WORKER_KEY": "k"}


def test_a_paused_ai_room_is_given_up_after_the_servers_disconnect_grace_by_default() -> None:
    """A room against the AI whose person is gone past the grace holds no worker's seat: with
    no setting of its own the worker follows the servers' ``GIN_DISCONNECT_GRACE``. Before:
    60 s whatever the grace, so a soak with a 10 s grace found 40 abandoned rooms still
    holding their seats and 0 of 40 new AI rooms served within 5 s."""
    assert WorkerSettings.from_env(KEY).release_away_seconds == 60.0
    grace = WorkerSettings.from_env({**KEY, "GIN_DISCONNECT_GRACE": "10"})
    assert grace.release_away_seconds == 10.0
    both = {**KEY, "GIN_DISCONNECT_GRACE": "10", "GIN_AI_RELEASE_AWAY_SECONDS": "3"}
    assert WorkerSettings.from_env(both).release_away_seconds == 3.0
    # compose passes the worker's own setting empty when the host leaves it unset
    empty = {**KEY, "GIN_DISCONNECT_GRACE": "10", "GIN_AI_RELEASE_AWAY_SECONDS": ""}
    assert WorkerSettings.from_env(empty).release_away_seconds == 10.0


def test_the_review_workers_play_out_settings_come_from_its_environment() -> None:
    """``GIN_REVIEW_KNOCK_SAMPLES``: the opponent hands a knock decision samples inside the
    play-outs (fewer: a quicker, noisier review; docs/review.md)."""
    default = ReviewWorkerSettings.from_env(KEY).review
    assert (default.knock_samples, default.confirm_rounds) == (8, 4)
    quick = ReviewWorkerSettings.from_env(
        {**KEY, "GIN_REVIEW_KNOCK_SAMPLES": "2", "GIN_REVIEW_CONFIRM_ROUNDS": "1"}
    ).review
    assert (quick.knock_samples, quick.confirm_rounds) == (2, 1)
