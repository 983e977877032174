"""``docker compose up`` without Docker (see ``tests.deploy.local``): the compose file's own
commands and environments, run as local processes from the runtime image's file tree, on a
redis-server of the test's own (the redis service's command, its volume a folder). One
setting is added: ``GIN_AI_THINK_SECONDS=0``, the AI's pause for human eyes.

What ``docker compose up -d --profile proxy`` then has to do, and does here:

- every service passes its healthcheck; the server's fails while Redis is unreachable;
- a person plays a whole match against an AI seat that the ai-worker command takes, on the
  other replica; halfway through, the worker is replaced as a deploy replaces it (SIGTERM,
  it drains for ``GIN_AI_DRAIN_SECONDS`` and hands the seat back, a new worker plays on);
- meanwhile two people play each other, one per replica, one of them a browser behind the
  proxy (nginx with ``deploy/nginx.conf``, when nginx is installed);
- the scores of both matches agree with every hand replayed and scored again, with the
  replay records the replicas serve and with the players' statistics;
- ``docker compose stop`` stops every process by SIGTERM within its ``stop_grace_period``;
- Redis started again on its volume still has the matches.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.session import RequestError, Session, View
from server.store import Store
from tests.deploy.local import LocalCompose, Process
from tests.deploy.matches import Played, check_match, play_to_end, stats_agree
from tests.support.polling import wait_until

#: What the host sets (in the shell or an .env file): the required secret, and a short drain
#: so that the worker replaced mid-match hands its seat back within the test.
HOST_ENV = {"GIN_AI_WORKER_KEY": secrets.token_urlsafe(24), "GIN_AI_DRAIN_SECONDS": "2"}
#: Beyond the compose file: the AI's pause before each move, for human eyes (0.3 s), is off.
WORKER_EXTRA = {"GIN_AI_THINK_SECONDS": "0"}
TARGET = 50
LEVEL = "hard"  # the level the worker's process pool plays (GIN_AI_PROCESSES=1)
#: People pause before each move: the deployment's default rate limit (20 requests a second,
#: bursts of 40) is for people, not for scripts.
THINK = 0.015
#: Ada's move before which the AI worker is replaced (mid-match: the AI waits for her).
REPLACE_AT = 6
#: A single hand can reach the target before Ada's REPLACE_AT-th move (seen in about one
#: match in twenty): she then plays another match against the AI, up to this many.
AI_MATCHES = 3


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[LocalCompose]:
    compose = LocalCompose(tmp_path, HOST_ENV)
    yield compose
    compose.kill_all()


async def test_compose_up_plays_whole_matches_survives_a_worker_deploy_and_stops_cleanly(
    deployment: LocalCompose, tmp_path: Path
) -> None:
    compose = deployment
    # --- up: redis, the server replicas, one worker, the proxy in front of the first replica
    redis = compose.start_redis(tmp_path / "redis-data")
    replicas = compose.replicas("server")
    assert replicas >= 2, "two replicas at least: one person on each"
    servers = [compose.start_server(f"server-{index + 1}") for index in range(replicas)]
    first, last = "server-1", f"server-{replicas}"
    ports = compose.server_ports
    worker = compose.start_worker("ai-worker-1", server=first, extra=WORKER_EXTRA)
    proxy = compose.start_proxy(first)
    proxy_note = "no nginx installed: Bob went to server-1 directly"
    if proxy is not None:
        bob_url, bob_origin = f"ws://127.0.0.1:{proxy[1]}/ws", f"http://127.0.0.1:{proxy[1]}"
        proxy_note = f"Bob was a browser (Origin {bob_origin}) behind nginx on port {proxy[1]}"
    else:
        bob_url, bob_origin = f"ws://127.0.0.1:{ports[first]}/ws", None

    store = await Store.connect(f"redis://127.0.0.1:{compose.redis_port}/0")
    ada = await Session.connect(f"ws://127.0.0.1:{ports[last]}/ws", name="Ada")
    bob = await Session.connect(bob_url, name="Bob", origin=bob_origin)
    cy = await Session.connect(f"ws://127.0.0.1:{ports[last]}/ws", name="Cy")
    replaced: dict[str, Any] = {}
    try:
        # --- a person against the AI, on the last replica; the worker is on the first -----
        async def replace_worker(view: View, moves: int) -> None:
            """Before Ada's REPLACE_AT-th move (the AI waits for her): a deploy of the
            worker. SIGTERM; it drains, hands the seat back and exits; a new one starts."""
            if moves != REPLACE_AT or replaced:
                return
            assert view["status"] == "playing", "the match ended before the worker deploy"
            code, seconds = await asyncio.to_thread(worker.stop, compose.grace("ai-worker"))
            replaced["stopped"] = (code, round(seconds, 1))
            assert code == 0, f"the worker did not stop by itself:\n{worker.log()[-3000:]}"
            assert seconds < compose.grace("ai-worker"), seconds
            compose.start_worker("ai-worker-2", server=last, extra=WORKER_EXTRA)
            replaced["at_seq"] = ada.room(view["room"]).seq

        # --- two people, one per replica, Bob through the proxy ------------------------------
        invite = await bob.request("create_room", mode="private", rules={"target": TARGET})
        people_room = invite.result["room"]
        await cy.request("join_room", invite=invite.result["invite"])

        async def play(session: Session, room: str, seed: str, **hook: Any) -> Played:
            try:
                return await play_to_end(
                    session, room, random.Random(seed), timeout=90, think=THINK, **hook
                )
            except TimeoutError as stuck:
                raise AssertionError(f"{room} stuck: {stuck}\n{compose.logs()}") from None

        async def play_ai_matches() -> list[Played]:
            """Ada's matches against the AI until one lasted to her REPLACE_AT-th move (a
            single hand can reach the target before it: then she plays another)."""
            plays: list[Played] = []
            while not replaced and len(plays) < AI_MATCHES:
                try:
                    created = await ada.request(
                        "create_room", mode="ai", level=LEVEL, rules={"target": TARGET}
                    )
                except RequestError as refused:
                    raise AssertionError(f"{refused}\n{compose.logs()}") from None
                room = created.result["room"]
                plays.append(await play(ada, room, f"ada-{len(plays)}", before_move=replace_worker))
            return plays

        started = time.monotonic()
        ada_plays, bob_play, cy_play = await asyncio.gather(
            play_ai_matches(), play(bob, people_room, "bob"), play(cy, people_room, "cy")
        )
        played_for = time.monotonic() - started
        assert replaced, (
            f"the worker was never replaced: {len(ada_plays)} matches against the AI each "
            f"ended before Ada's move {REPLACE_AT} ({[p.moves for p in ada_plays]} moves)"
        )
        ada_play = ada_plays[-1]
        for played in ada_plays:
            assert played.final["seats"][1]["ai"] == LEVEL, played.final["seats"]

        # --- the scores, against the truth in Redis and the replays the replicas serve ------
        ai_matches = [
            await check_match(
                store, played.room, [played], TARGET, f"http://127.0.0.1:{ports[first]}"
            )
            for played in ada_plays
        ]
        ai_match = ai_matches[-1]
        api = f"http://127.0.0.1:{proxy[1]}" if proxy else f"http://127.0.0.1:{ports[last]}"
        people_match = await check_match(store, people_room, [bob_play, cy_play], TARGET, api)
        await stats_agree(ada, ai_matches, 0)
        await stats_agree(bob, [people_match], 0)
        await stats_agree(cy, [people_match], 1)
    finally:
        await asyncio.gather(ada.close(), bob.close(), cy.close())
        await store.close()

    # --- the server's healthcheck fails while Redis does not answer, and recovers ----------
    redis.proc.send_signal(signal.SIGSTOP)
    try:
        unhealthy = compose.healthcheck("server", first)
    finally:
        redis.proc.send_signal(signal.SIGCONT)
    assert unhealthy != 0, "the server's healthcheck passed while Redis was stopped"
    wait_until(lambda: compose.healthcheck("server", first) == 0, 20, "healthy again")

    # --- docker compose stop: dependents first, SIGTERM, SIGKILL after the grace ------------
    order: list[tuple[Process, str]] = []
    if proxy is not None:
        order.append((proxy[0], "proxy"))
    order += [(p, "ai-worker") for p in compose.processes if p.name.startswith("ai-worker")]
    order += [(p, "server") for p in servers] + [(redis, "redis")]
    stopped = {}
    for process, service in order:
        if process.running:
            stopped[process.name] = process.stop(compose.grace(service))
    for name, (code, _seconds) in stopped.items():
        assert code is not None, f"{name} was killed after its stop_grace_period"
        # uvicorn ends by re-raising the SIGTERM it handled (exit status 143 in Docker)
        expected = (0, -signal.SIGTERM) if name.startswith("server") else (0,)
        assert code in expected, (name, code)
    for process in servers:
        assert "server stopped" in process.log(), process.log()[-2000:]

    # --- Redis again on its volume: both matches are still there ----------------------------
    compose.start_redis(tmp_path / "redis-data")
    store = await Store.connect(f"redis://127.0.0.1:{compose.redis_port}/0")
    try:
        rooms = [(played.room, match) for played, match in zip(ada_plays, ai_matches, strict=True)]
        for room, match in [*rooms, (people_room, people_match)]:
            assert await store.room_version(room) == match["changes"] - 1, room
            for number in range(1, match["hands"] + 1):
                assert await store.get_hand(f"{room}-{number}") is not None, (room, number)
    finally:
        await store.close()
    print(
        f"\ncompose up: redis ({' '.join(compose.command('redis')[1:])}), {replicas} x "
        f"python -m server, python -m client.ai; {proxy_note}.\n"
        f"Both matches played in {played_for:.1f} s (moves refused rate_limited: "
        f"{ada_play.rate_limited + bob_play.rate_limited + cy_play.rate_limited}).\n"
        f"Ada vs the {LEVEL} AI to {TARGET} on {last} (match {len(ai_matches)} of hers, the "
        f"ones before ended before her move {REPLACE_AT}): {ai_match}; the worker was replaced "
        f"before her move {REPLACE_AT} (room seq {replaced['at_seq']}; the old one stopped "
        f"with (exit code, seconds) {replaced['stopped']}), the new one finished the match.\n"
        f"Bob ({first}) vs Cy ({last}) to {TARGET}: {people_match}.\n"
        f"Scores = every hand replayed and scored again = replay records = statistics. "
        f"Healthcheck failed while Redis was stopped. compose stop (exit code, seconds): "
        f"{ {name: (code, round(sec, 1)) for name, (code, sec) in stopped.items()} }; "
        f"both matches still in Redis after a restart on its volume."
    )
