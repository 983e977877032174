"""Tokens are bearer credentials: whoever holds one IS that player. What must not work is
everything else: guessing a token, tampering with one (another player's id with this secret,
a truncated or extended secret, the hash Redis keeps), guessing the AI workers' key, switching
an authenticated connection to another player's identity, or using one's own valid token to
act for a seat one does not hold. And a refused ``hello`` changes nothing."""

from __future__ import annotations

import asyncio
import secrets
import string
import time
from collections import Counter
from typing import Any

import redis.asyncio as aioredis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from client.session import RequestError, Session
from protocol import codec
from protocol import messages as m
from server import names
from server.identity import hash_token
from server.settings import Settings
from tests.abuse.fuzzing import FuzzClient, logged_failures
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import expect_error
from tests.support.server_process import WORKER_KEY


def _tampered(token: str, other: str) -> list[str]:
    """Tokens that are not ``token`` but look like it, or mix it with ``other``."""
    player, _, secret = token.partition(".")
    other_player, _, other_secret = other.partition(".")
    flipped = []
    for index in (0, len(secret) // 2, len(secret) - 1):
        char = "A" if secret[index] != "A" else "B"
        flipped.append(f"{player}.{secret[:index]}{char}{secret[index + 1 :]}")
    tampered = [
        *flipped,
        f"{player}.{secret[:-1]}",
        f"{player}.{secret[:8]}",
        f"{player}.{secret}x",
        f"{player}.",
        f"{player}.{other_secret}",  # my id, another player's secret
        f"{other_player}.{secret}",  # another player's id, my secret
        f"{player}{secret}",
        f"{player}..{secret}",
        token.upper(),
        token.swapcase(),
        token[1:],
        hash_token(token),  # what Redis keeps: not a credential
        f"{player}.{hash_token(token)}",
        player,
    ]
    assert token not in tampered and other not in tampered
    return tampered


def _guesses(count: int) -> list[str]:
    alphabet = string.ascii_letters + string.digits + "-_"
    out = [f"p{secrets.token_urlsafe(9)}.{secrets.token_urlsafe(32)}" for _ in range(count)]
    out += ["".join(secrets.choice(alphabet) for _ in range(1 + i % 120)) for i in range(count)]
    return out


async def test_guessed_and_tampered_tokens_are_refused(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    bob = await Session.connect(server.ws_url, name="Bob")
    assert ada.token and bob.token
    attempts = _tampered(ada.token, bob.token) + _tampered(bob.token, ada.token) + _guesses(200)
    client = FuzzClient(server.ws_url, "Anonymous", hello=False)
    try:
        for number, token in enumerate(attempts):
            answer = client.request(m.Hello(id=f"h{number}", version="1.0", token=token))
            assert isinstance(answer, m.Error) and answer.code == "bad_token", (token, answer)
        # still nobody: the connection is not authenticated after any of them
        answer = client.request(m.Lobby(id="after"))
        assert isinstance(answer, m.Error) and answer.code == "not_authenticated", answer
        # the right token still works, and names the right player
        answer = client.request(m.Hello(id="right", version="1.0", token=ada.token))
        assert isinstance(answer, m.Ack) and answer.result["player_id"] == ada.player_id
        # a wrong AI worker key is refused too
        keys = ["x", WORKER_KEY[:-1], WORKER_KEY + "x", WORKER_KEY.upper(), hash_token(WORKER_KEY)]
        for key in keys:
            try:
                await Session.connect(server.ws_url, worker_key=key, reconnect=False)
            except RequestError as error:
                assert error.code == "bad_token", (key, error)
            else:
                raise AssertionError(f"worker key {key!r} accepted")
        print(
            f"\nrefused {len(attempts)} guessed or tampered tokens and {len(keys)} wrong "
            "worker keys; the real token still works"
        )
    finally:
        client.close()
        await ada.close()
        await bob.close()


async def test_guessing_is_throttled_and_cut_off(server_factory: ServerFactory) -> None:
    """With the default limits, a guesser on one connection gets at most the burst plus the
    rate over the time it lasted checked, then ``rate_limited``, then ``bye``."""
    server = server_factory()
    limits = Settings()
    guesser = await Session.connect(server.ws_url, hello=False, record=True, reconnect=False)
    try:
        frames = [
            codec.encode(m.Hello(id=f"g{i}", version="1.0", token=token))
            for i, token in enumerate(_guesses(300))
        ]
        started = time.monotonic()
        sent = 0
        for frame in frames:
            try:
                await guesser.send_raw(frame)
            except Exception:
                break
            sent += 1
        bye = await guesser.next_message(lambda msg: isinstance(msg, m.Bye), timeout=15)
        lasted = time.monotonic() - started
        assert isinstance(bye, m.Bye) and bye.code == "rate_limited", bye
        answers = [f for f in guesser.frames or [] if isinstance(f, m.Error)]
        codes = {answer.code for answer in answers}
        checked = sum(1 for a in answers if a.code == "bad_token")
        limited = sum(1 for a in answers if a.code == "rate_limited")
        print(
            f"\n{sent} guesses sent on one connection in {lasted:.2f} s: {checked} checked "
            f"(the limit allows {limits.rate_burst} + {limits.rate_per_second:g}/s), "
            f"{limited} refused as rate_limited, then bye {bye.code}"
        )
        assert codes <= {"bad_token", "rate_limited"}, codes
        assert limited > 0
        assert checked <= limits.rate_burst + limits.rate_per_second * lasted + 1, "no throttle"
        assert checked + limited < sent, "the guesser was not cut off"
    finally:
        await guesser.close()


async def test_a_valid_token_acts_only_for_its_own_seat(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    bob = await Session.connect(server.ws_url, name="Bob")
    eve = await Session.connect(server.ws_url, name="Eve")
    refused = 0
    try:
        created = await ada.request("create_room", mode="private", rules={"target": 10})
        room = created.result["room"]
        await bob.request("join_room", invite=created.result["invite"])
        view = await ada.wait_for(room, lambda v: v["game"] is not None)
        mover, waiter = (ada, bob) if view["game"]["turn"] == 0 else (bob, ada)
        seq = ada.room(room).seq
        legal = (await mover.wait_for(room, lambda v: bool(v["game"]["legal_actions"])))["game"][
            "legal_actions"
        ][0]
        kind, card = legal["kind"], legal.get("card")

        async def refuse(code: str, request: object) -> None:
            nonlocal refused
            await expect_error(code, request)
            refused += 1

        # the player whose turn it is not, with its own valid token: refused
        await refuse("not_your_turn", waiter.act(room, kind, card, seq=seq))
        # a stranger with a valid token of her own: no seat here, whatever she tries
        await refuse("not_a_player", eve.act(room, kind, card, seq=seq))
        await refuse("not_found", eve.request("join_room", room=room))  # a private room's id
        await refuse("room_full", eve.request("join_room", invite=created.result["invite"]))
        # ... nor by saying hello again on her connection with the mover's token: a
        # connection keeps the identity of its first hello
        assert mover.token is not None
        await refuse("invalid_argument", eve.request(eve.message("hello", version="1.0")))
        switch = m.Hello(id="switch", version="1.0", token=mover.token)
        await refuse("invalid_argument", eve.request(switch))
        await refuse("not_a_player", eve.act(room, kind, card, seq=seq))
        # as a spectator she sees no hand and still cannot act
        watch = created.result["watch_token"]  # given the watch link
        resumed = await eve.request("resume", room=room, last_seq=-1, watch_token=watch)
        assert resumed.result.get("seat") is None, resumed.result
        spectator = await eve.wait_for(room)
        assert spectator["seat"] is None and "cards" not in spectator["game"], spectator
        await refuse("not_a_player", eve.act(room, kind, card, seq=seq))
        await refuse("not_a_player", eve.request("leave", room=room))
        await refuse("not_a_player", eve.request("rematch", room=room))
        # ... and she is no AI worker
        await refuse("not_authenticated", eve.request("ai_subscribe", capacity=1))
        ai_room = (await eve.request("create_room", mode="ai", level="easy")).result["room"]
        await refuse("not_found", ada.request("join_room", room=ai_room))  # not hers, not public
        for seat in (0, 1):  # naming a seat is a worker's: nobody else takes an AI's seat so
            await refuse("invalid_argument", ada.request("join_room", room=ai_room, seat=seat))
        # nothing changed: the mover still moves at the same number
        await ada.ping()
        assert ada.room(room).seq == bob.room(room).seq == seq
        ack = await mover.act(room, kind, card, seq=seq)
        assert ack.result["seq"] == seq + 1
        await asyncio.gather(ada.wait_seq(room, seq + 1), bob.wait_seq(room, seq + 1))
        stats = await eve.request("stats")
        assert eve.player_id not in (ada.player_id, bob.player_id)
        assert stats.result["matches"] == 0, stats.result
        print(
            f"\n{refused} moves and requests of the other player, a stranger and a "
            "spectator refused; the mover's move then counted once"
        )
    finally:
        for session in (ada, bob, eve):
            await session.close()


async def test_a_refused_hello_changes_nothing(
    server_factory: ServerFactory, redis_url: str
) -> None:
    """``hello`` with a wrong worker key is refused (``bad_token``): it must leave no player
    behind in Redis and rename nobody ("bad input: an error, nothing changes")."""
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    raw = aioredis.from_url(redis_url)
    try:
        before = sorted(await raw.keys("player:*"))
        attempts: list[dict[str, Any]] = [
            {"name": "Mallory", "worker_key": "wrong"},
            {"worker_key": "wrong"},
            {"token": ada.token, "name": "Renamed", "worker_key": "wrong"},
        ]
        for fields in attempts:
            try:
                await Session.connect(server.ws_url, reconnect=False, **fields)
            except RequestError as error:
                assert error.code == "bad_token", (fields, error)
            else:
                raise AssertionError(f"{fields} accepted")
        after = sorted(await raw.keys("player:*"))
        name = await raw.hget(f"player:{ada.player_id}", "name")
        print(
            f"\n{len(attempts)} hellos with a wrong worker key refused; player records "
            f"{len(before)} before, {len(after)} after; Ada is named {name!r}"
        )
        problems = []
        if after != before:
            problems.append(f"refused hellos left players behind: {set(after) - set(before)}")
        if name != b"Ada":
            problems.append(f"a refused hello renamed Ada to {name!r}")
        assert not problems, problems
    finally:
        await raw.aclose()
        await ada.close()


_URLSAFE = string.ascii_letters + string.digits + "-_"
#: What the codec lets through as a token: 1-128 printable ASCII characters.
_ANY_TOKEN = st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=128
)


def _token_like(player: str, secret: str) -> str:
    return f"p{player}.{secret}"[:128]


#: Tokens shaped almost like real ones: ids and secrets of every length, a stray character.
_NEAR_TOKEN = st.builds(
    _token_like, st.text(_URLSAFE + "!.~", max_size=70), st.text(_URLSAFE + "!.~", max_size=60)
)
_NAMES = st.text(
    st.characters(categories=["L", "N", "P", "S"], include_characters=" "), min_size=1, max_size=32
).filter(lambda name: name.strip() == name)


async def test_malformed_tokens_are_bad_token_never_internal(
    server_factory: ServerFactory,
) -> None:
    """``hello {token: "p!x.y"}`` (or an id part of 65 characters) was answered ``internal``,
    with a traceback in the server's log, on every retry."""
    server = server_factory(env=FAST_CLIENT_ENV)
    client = FuzzClient(server.ws_url, "Anonymous", hello=False)
    answers: Counter[str] = Counter()

    @settings(
        max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @example(token="p!x.y", name=None)
    @example(token="p" + "a" * 64 + ".secret", name=None)
    @example(token="p" + "a" * 65 + ".secret", name="Mallory")
    @given(token=_ANY_TOKEN | _NEAR_TOKEN, name=st.none() | _NAMES)
    def guess(token: str, name: str | None) -> None:
        answer = client.request(m.Hello(id="h", version="1.0", token=token, name=name))
        answers[answer.code if isinstance(answer, m.Error) else answer.t] += 1
        assert isinstance(answer, m.Error) and answer.code == "bad_token", (token, answer)

    @settings(
        max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(name=_NAMES)
    def newcomer(name: str) -> None:
        fresh = FuzzClient(server.ws_url, "Newcomer", hello=False)
        try:
            answer = fresh.request(m.Hello(id="n", version="1.0", name=name))
        finally:
            fresh.close()
        answers[f"name: {answer.code if isinstance(answer, m.Error) else answer.t}"] += 1
        try:  # the name policy decides; the server answers as it says, never internal
            kept = names.clean_name(name, ai_worker=False)
        except names.BadName:
            assert isinstance(answer, m.Error) and answer.code == "bad_name", (name, answer)
        else:
            assert isinstance(answer, m.Ack) and answer.result["name"] == kept, (name, answer)

    try:
        guess()
        newcomer()
    finally:
        client.close()
    print(f"\nhello answers: {dict(answers)}")
    assert not logged_failures(server.log_text()), logged_failures(server.log_text())[:3]
