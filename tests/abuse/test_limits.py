"""The limits of a connection, tried the way an attacker would, each against a real server
started with small limits: connections per address (X-Forwarded-For believed from a trusted
proxy only), the hello deadline, pings metered, refused frames forgiven by time alone, an AI
worker's limits scaled by its seats (and nobody else's), and Host names not served."""

from __future__ import annotations

import asyncio
import contextlib
import http.client

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol import codec
from protocol import messages as m
from tests.abuse.fuzzing import logged_failures, open_connections
from tests.abuse.wire import Ending, hello, open_raw, read_until_closed, request
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import WORKER_KEY, ServerProcess

POLICY, TRY_AGAIN_LATER = 1008, 1013
GARBAGE = b"\xc1\xc1\xc1\xc1"


async def _held_connections(server: ServerProcess, expected: float) -> float:
    """Wait (bounded) until the server holds ``expected`` connections; how many it holds."""
    for _ in range(100):
        status, body = await server.aget("/metrics")
        assert status == 200
        held = open_connections(body.decode())
        if held == expected:
            break
        await asyncio.sleep(0.1)
    return held


# --- connections per address ---------------------------------------------------------------------


async def test_connections_per_address_are_capped(server_factory: ServerFactory) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_MAX_CONNECTIONS_PER_ADDRESS": "8"})
    kept = []
    refused: list[Ending] = []
    try:
        for number in range(12):
            ws = await open_raw(server.port)
            answer = await request(ws, hello(number))
            if isinstance(answer, m.Ack):
                kept.append(ws)
            else:
                assert isinstance(answer, m.Bye), answer
                ending = await read_until_closed(ws)
                ending.bye = str(answer.code)
                refused.append(ending)
        assert len(kept) == 8, f"{len(kept)} connections kept from one address, cap 8"
        assert len(refused) == 4
        for ending in refused:
            assert ending.bye == "too_many_connections" and ending.close == TRY_AGAIN_LATER
        # the kept ones are served; one closed makes room for a new one
        assert isinstance(await request(kept[0], m.Ping(id="p")), m.Pong)
        await kept.pop().close()
        assert await _held_connections(server, 7) == 7
        again = await open_raw(server.port)
        kept.append(again)
        assert isinstance(await request(again, hello(99)), m.Ack)
    finally:
        for ws in kept:
            await ws.close()
    assert await _held_connections(server, 0) == 0
    assert not logged_failures(server.log_text()), logged_failures(server.log_text())[:3]


async def _accepted(server: ServerProcess, forwarded: str) -> tuple[bool, object]:
    ws = await open_raw(server.port, headers={"X-Forwarded-For": forwarded})
    answer = await request(ws, hello())
    if isinstance(answer, m.Ack):
        return True, ws
    assert isinstance(answer, m.Bye) and answer.code == "too_many_connections", answer
    await ws.close()
    return False, None


async def test_x_forwarded_for_counts_only_from_a_trusted_proxy(
    server_factory: ServerFactory,
) -> None:
    cap = {**FAST_CLIENT_ENV, "GIN_MAX_CONNECTIONS_PER_ADDRESS": "2"}
    behind = server_factory(env={**cap, "GIN_TRUSTED_PROXIES": "127.0.0.1"})
    exposed = server_factory(env=cap)
    held = []
    try:
        # behind a trusted proxy (127.0.0.1): each forwarded client address has its own cap
        results = []
        for forwarded in (
            "203.0.113.7",
            "203.0.113.7",
            "203.0.113.7",  # the third of one client: refused
            "198.51.100.1, 203.0.113.7",  # a left part the client wrote changes nothing
            "203.0.113.8",  # another client: room for it
            "10.9.9.9, 127.0.0.1",  # a proxy hop is skipped: the client is 10.9.9.9
        ):
            ok, ws = await _accepted(behind, forwarded)
            results.append(ok)
            if ws is not None:
                held.append(ws)
        assert results == [True, True, False, False, True, True], results
        # without trusted proxies the header is the client's word: all count as 127.0.0.1
        results = []
        for forwarded in ("203.0.113.1", "203.0.113.2", "203.0.113.3"):
            ok, ws = await _accepted(exposed, forwarded)
            results.append(ok)
            if ws is not None:
                held.append(ws)
        assert results == [True, True, False], results
    finally:
        for ws in held:
            await ws.close()  # type: ignore[attr-defined]


# --- the hello deadline --------------------------------------------------------------------------


async def test_a_connection_that_does_not_say_hello_is_closed(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_HELLO_TIMEOUT": "1"})
    silent = [await open_raw(server.port) for _ in range(5)]
    pinging = await open_raw(server.port)  # pings keep it from idling, not from saying hello
    greeted = await open_raw(server.port)
    try:
        assert isinstance(await request(greeted, hello()), m.Ack)
        assert isinstance(await request(pinging, m.Ping(id="p")), m.Pong)
        for ws in silent:
            ending = await read_until_closed(ws, timeout=20)
            assert ending.bye == "hello_timeout" and ending.close == POLICY, ending
        answer: m.ServerMessage = m.Pong(id="p")
        for number in range(400):
            answer = await request(pinging, m.Ping(id=number))
            if not isinstance(answer, m.Pong):
                break
            await asyncio.sleep(0.05)
        assert isinstance(answer, m.Bye) and answer.code == "hello_timeout", answer
        assert (await read_until_closed(pinging)).close == POLICY
        # the one that said hello is still served
        assert isinstance(await request(greeted, m.Ping(id="still")), m.Pong)
    finally:
        await greeted.close()
    assert await _held_connections(server, 0) == 0


# --- pings and strikes ---------------------------------------------------------------------------


async def test_a_ping_flood_is_limited_and_cut_off(server_factory: ServerFactory) -> None:
    server = server_factory(env={"GIN_PING_RATE": "5", "GIN_PING_BURST": "10"})
    ws = await open_raw(server.port)
    assert isinstance(await request(ws, hello()), m.Ack)
    reading = asyncio.create_task(read_until_closed(ws))
    with contextlib.suppress(ConnectionClosed):
        for number in range(3000):
            await ws.send(codec.encode(m.Ping(id=number)))
    # on a server that never cuts it off, a last answer shows the connection still open
    with contextlib.suppress(ConnectionClosed):
        await ws.send(codec.encode(m.Lobby(id="last")))
        await asyncio.sleep(1)
        await ws.close()
    ending = await reading
    assert ending.answers["pong"] >= 10 and ending.answers["rate_limited"] > 0, ending
    assert ending.bye == "rate_limited" and ending.close == POLICY, ending
    assert ending.answers["pong"] < 3000, ending


@pytest.mark.parametrize("forgiver", ["ping", "request"])
async def test_refused_frames_are_forgiven_by_time_only(
    server_factory: ServerFactory, forgiver: str
) -> None:
    """The flood cut-off counted refused frames in a row: a ping (or any answered request)
    after every 49 of them started it again, and the connection stayed open for ever."""
    server = server_factory()  # the default limits: 50 strikes
    ws = await open_raw(server.port)
    assert isinstance(await request(ws, hello()), m.Ack)
    reading = asyncio.create_task(read_until_closed(ws))
    with contextlib.suppress(ConnectionClosed):
        for number in range(40):
            for _ in range(49):
                await ws.send(GARBAGE)
            between = m.Ping(id=number) if forgiver == "ping" else m.Lobby(id=number)
            await ws.send(codec.encode(between))
        await ws.send(codec.encode(m.Ping(id="last")))
        await asyncio.sleep(1)
        await ws.close()
    ending = await reading
    assert ending.answers["bad_message"] >= 50, ending
    assert ending.bye == "rate_limited" and ending.close == POLICY, ending
    assert ending.answers["bad_message"] < 40 * 49, ending
    assert server.running
    assert not logged_failures(server.log_text()), logged_failures(server.log_text())[:3]


# --- an AI worker's limits -----------------------------------------------------------------------

ROOMS = 50  # the worker's default capacity: one request a second in each room
ROUNDS = 4


async def _paced_rounds(ws: object, rounds: int) -> Ending:
    """Every second, one request for each of ``ROOMS`` rooms; the answers by code."""
    seen = Ending()
    for round_number in range(rounds):
        for room in range(ROOMS):
            await ws.send(codec.encode(m.Lobby(id=f"{round_number}-{room}")))  # type: ignore[attr-defined]
        for _ in range(ROOMS):
            answer = codec.decode(await asyncio.wait_for(ws.recv(), 10), direction="server")  # type: ignore[attr-defined]
            seen.answers[answer.code if isinstance(answer, m.Error) else answer.t] += 1
        await asyncio.sleep(1)
    return seen


async def test_an_ai_worker_is_limited_by_the_seats_it_plays(
    server_factory: ServerFactory,
) -> None:
    server = server_factory()  # a person's limits: 20 requests a second, bursts of 40
    worker = await open_raw(server.port)
    person = await open_raw(server.port)
    pretender = await open_raw(server.port)
    try:
        assert isinstance(await request(worker, hello(worker_key=WORKER_KEY)), m.Ack)
        subscribed = await request(worker, m.AiSubscribe(id="s", capacity=ROOMS))
        assert isinstance(subscribed, m.Ack), subscribed
        assert isinstance(await request(person, hello(name="Person")), m.Ack)
        assert isinstance(await request(pretender, hello(name="Pretender")), m.Ack)
        # only the key gets a worker's limits: asking for seats without it changes nothing
        refused = await request(pretender, m.AiSubscribe(id="s", capacity=ROOMS))
        assert isinstance(refused, m.Error) and refused.code == "not_authenticated", refused

        as_worker = await _paced_rounds(worker, ROUNDS)
        assert as_worker.answers == {"ack": ROOMS * ROUNDS}, as_worker
        as_person = await _paced_rounds(person, 1)
        assert as_person.answers["rate_limited"] > 0, as_person
        as_pretender = await _paced_rounds(pretender, 1)
        assert as_pretender.answers["rate_limited"] > 0, as_pretender
    finally:
        for ws in (worker, person, pretender):
            await ws.close()


# --- allowed hosts -------------------------------------------------------------------------------


def _http_status(port: int, host: str, path: str = "/healthz") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host})
        return connection.getresponse().status
    finally:
        connection.close()


async def _ws_status(port: int, host: str) -> int:
    """101 when the websocket opens (and answers a ping), else the HTTP status it got."""
    try:
        ws = await open_raw(port, host=host)
    except InvalidStatus as refused:
        return refused.response.status_code
    try:
        assert isinstance(await request(ws, m.Ping(id="p")), m.Pong)
    finally:
        await ws.close()
    return 101


async def test_a_host_header_of_another_name_is_refused(server_factory: ServerFactory) -> None:
    """DNS rebinding: a page of evil.example whose name now resolves to this server."""
    default = server_factory()
    named = server_factory(env={"GIN_ALLOWED_HOSTS": "gin.example,*.gin.example"})
    for host in ("127.0.0.1", "localhost", "[::1]"):
        assert await asyncio.to_thread(_http_status, default.port, host) == 200, host
        assert await _ws_status(default.port, host) == 101, host
    for host in ("evil.example", "127.0.0.1.evil.example", "gin.example"):
        assert await asyncio.to_thread(_http_status, default.port, host) == 400, host
        assert await asyncio.to_thread(_http_status, default.port, host, "/") == 400, host
        assert await _ws_status(default.port, host) == 400, host
    for host in ("gin.example", "play.gin.example"):
        assert await asyncio.to_thread(_http_status, named.port, host) == 200, host
        assert await _ws_status(named.port, host) == 101, host
    for host in ("127.0.0.1", "localhost"):  # health checks; never a rebinding page's name
        assert await _ws_status(named.port, host) == 101, host
    for host in ("evil.example", "gin.example.evil.example", "ggin.example"):
        assert await asyncio.to_thread(_http_status, named.port, host) == 400, host
        assert await _ws_status(named.port, host) == 400, host
    for server in (default, named):
        assert server.running
        assert not logged_failures(server.log_text()), logged_failures(server.log_text())[:3]
