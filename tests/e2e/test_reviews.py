"""Reviews of finished hands end to end: a real server, Redis, and review worker processes
(``python -m client.review``); people asking, strangers and floods refused."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from client.session import Session
from protocol import codec
from protocol import messages as m
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, expect_error, play, private_match
from tests.support.polling import eventually
from tests.support.review_worker import ReviewWorkerProcess
from tests.support.server_process import WORKER_KEY, ServerProcess


@pytest.fixture
def review_workers(tmp_path: Path) -> Iterator[Any]:
    started: list[ReviewWorkerProcess] = []

    def spawn(server: ServerProcess) -> ReviewWorkerProcess:
        worker = ReviewWorkerProcess(server.ws_url, tmp_path, str(len(started))).start()
        started.append(worker)
        return worker

    yield spawn
    for worker in started:
        worker.kill()


async def recorded(server: ServerProcess, hand: str) -> None:
    """Until the hand's record is written (just after the move that ended it)."""
    status, _ = await eventually(
        lambda: server.aget_json(f"/api/hands/{hand}"), lambda r: r[0] == 200, timeout=10
    )
    assert status == 200


async def play_hands(a: Session, b: Session, room: str, hands: int, server: ServerProcess) -> None:
    """Both play until ``hands`` hands of the room are over and recorded (the match goes on)."""
    tasks = [
        asyncio.create_task(play(s, room, random.Random(f"r{i}"), timeout=120))
        for i, s in enumerate((a, b))
    ]
    try:
        await a.wait_for(
            room,
            lambda v: (
                v["status"] == "finished"
                or len((v.get("game") or {}).get("results") or ()) >= hands
            ),
            timeout=120,
        )
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for number in range(1, hands + 1):
        await recorded(server, f"{room}-{number}")


async def review_of(server: ServerProcess, hand: str) -> dict[str, Any]:
    status, body = await server.aget_json(f"/api/hands/{hand}/review")
    assert status == 200, body
    result: dict[str, Any] = body
    return result


async def test_a_review_asked_for_twice_is_done_once_and_kept_with_its_hand(
    server_factory: ServerFactory, redis_url: str, review_workers: Any
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=1)
    try:
        await play_hands(a, b, room, 1, server)
        hand = f"{room}-1"
        assert (await review_of(server, hand))["state"] == "none"
        first = await a.request("review_hand", hand=hand)
        second = await b.request("review_hand", hand=hand)
        assert first.result["state"] == second.result["state"] == "queued"
        client = redis.Redis.from_url(redis_url)
        assert client.zrange("reviews:queue", 0, -1) == [hand.encode()]
        hand_ttl = client.ttl(f"hand:{hand}")
        # Two workers side by side: still one review.
        workers = [review_workers(server), review_workers(server)]
        seen: set[str] = set()

        async def probe() -> dict[str, Any]:
            answer = await review_of(server, hand)
            seen.add(answer["state"])
            return answer

        done = await eventually(probe, lambda r: r["state"] == "done", timeout=120, interval=0.05)
        assert done["state"] == "done", (done, [w.log_text()[-2000:] for w in workers])
        review = done["review"]
        _, record = await server.aget_json(f"/api/hands/{hand}")
        moves = [
            e
            for e in record["events"]
            if e["type"] in ("take_upcard", "pass", "draw", "discard", "knock", "gin")
        ]
        assert 0 < len(review["decisions"]) <= len(moves)
        assert done["done"] == done["total"] == len(review["decisions"])
        assert {d["seat"] for d in review["decisions"]} == {0, 1}
        for decision in review["decisions"]:
            assert decision["loss"] >= 0
            assert record["events"][decision["step"]]["seat"] == decision["seat"]
        assert len(review["players"]) == 2
        # Asked again: the stored review, nothing queued, and it lives as long as its hand.
        again = await a.request("review_hand", hand=hand)
        assert again.result["state"] == "done"
        assert client.zcard("reviews:queue") == 0
        assert 0 < client.ttl(f"hand:{hand}") <= hand_ttl
        reviewed = sum(w.log_text().count(f"hand {hand} reviewed") for w in workers)
        assert reviewed == 1, [w.log_text()[-2000:] for w in workers]
        client.close()
    finally:
        await close_all(a, b)


async def test_a_review_survives_a_restart_of_the_server(
    server_factory: ServerFactory, review_workers: Any
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=1)
    try:
        await play_hands(a, b, room, 1, server)
        hand = f"{room}-1"
        await a.request("review_hand", hand=hand)
    finally:
        await close_all(a, b)
    server.restart()
    worker = review_workers(server)
    done = await eventually(
        lambda: review_of(server, hand), lambda r: r["state"] == "done", timeout=120
    )
    assert done["state"] == "done", worker.log_text()[-2000:]
    worker.kill()
    server.restart()
    assert (await review_of(server, hand))["review"] == done["review"]


async def test_a_stranger_may_not_ask_before_the_match_is_over(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=500)
    stranger = await Session.connect(server.ws_url, name="Eve")
    try:
        # The hand in play: nobody may have it reviewed yet.
        await expect_error("hand_not_over", a.request("review_hand", hand=f"{room}-1"))
        await expect_error("hand_not_over", stranger.request("review_hand", hand=f"{room}-1"))
        await play_hands(a, b, room, 1, server)
        await expect_error("not_a_player", stranger.request("review_hand", hand=f"{room}-1"))
        assert (await b.request("review_hand", hand=f"{room}-1")).result["state"] == "queued"
        await expect_error("not_found", stranger.request("review_hand", hand=f"{room}-99"))
        # Nor may a person play the worker's part.
        await expect_error("not_authenticated", a.request("review_take"))
        await expect_error(
            "not_authenticated",
            a.request("review_done", hand=f"{room}-1", review={"decisions": []}),
        )
    finally:
        await close_all(a, b, stranger)


async def test_review_requests_are_limited_per_player(server_factory: ServerFactory) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_REVIEWS_PER_HOUR": "1"})
    a, b, room = await private_match(server.ws_url, server.ws_url, target=500)
    try:
        await play_hands(a, b, room, 2, server)
        assert (await a.request("review_hand", hand=f"{room}-1")).result["state"] == "queued"
        # The same review again costs nothing; a new one is over the limit ...
        assert (await a.request("review_hand", hand=f"{room}-1")).result["state"] == "queued"
        await expect_error("too_many_reviews", a.request("review_hand", hand=f"{room}-2"))
        # ... for this player only.
        assert (await b.request("review_hand", hand=f"{room}-2")).result["state"] == "queued"
    finally:
        await close_all(a, b)


def long_review(decisions: int) -> dict[str, Any]:
    """A review shaped as the worker makes them, of a hand with ``decisions`` decisions."""
    judged = [
        {
            "step": 2 * i + 1,
            "seat": i % 2,
            "kind": "discard",
            "played": "discard:7H",
            "value": -3.25,
            "best": "discard:KS",
            "best_value": 2.5,
            "loss": 5.75,
            "label": "mistake",
            "base": 2.5,
        }
        for i in range(decisions)
    ]
    player = {"decisions": decisions // 2, "loss": 1.5, "mean_loss": 0.25, "accuracy": 91.5}
    return {"version": 1, "decisions": judged, "players": [player, player]}


async def test_the_review_of_the_longest_hand_is_stored_whole(
    server_factory: ServerFactory,
) -> None:
    """A hand of 130 decisions (a browser test's, in CI) made a review of 16,657 bytes: over a
    person's 16 KiB frame, so the review worker died and the page waited for ever. The longest
    hand there is (29 stock draws, 50 from the pile) has about 160 decisions: a worker's frame
    may be 64 KiB; a person's limit stays 16 KiB."""
    server = server_factory(env=FAST_CLIENT_ENV)
    a, b, room = await private_match(server.ws_url, server.ws_url, target=500)
    worker = None
    try:
        await play_hands(a, b, room, 1, server)
        hand = f"{room}-1"
        assert (await a.request("review_hand", hand=hand)).result["state"] == "queued"
        worker = await Session.connect(server.ws_url, name="reviewer", worker_key=WORKER_KEY)
        assert (await worker.request("review_take")).result["hand"] == hand
        review = long_review(170)
        frame = codec.encode(m.ReviewDone(id="x", hand=hand, review=review))
        assert codec.MAX_CLIENT_FRAME < len(frame) < codec.MAX_WORKER_FRAME
        assert (await worker.request("review_done", hand=hand, review=review)).result["stored"]
        done = await review_of(server, hand)
        assert done["state"] == "done" and done["review"] == review
        # A person's frame of that size is still refused, and the connection goes on.
        answer = await a.raw_request(frame, None)
        assert isinstance(answer, m.Error) and answer.code == "frame_too_large", answer
        assert answer.detail == {"max_size": codec.MAX_CLIENT_FRAME}, answer
        await a.ping()
    finally:
        await close_all(a, b, *([worker] if worker else []))
