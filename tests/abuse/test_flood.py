"""Floods and oversized frames are cut off without hurting anyone else on the same process.

Two honest people play match after match (at a person's pace, well within the default limits
of 20 requests a second; ``HonestPlay``) while a flooding process (``flooder.py``) hammers the
same server process, the default limits on, for ``FLOOD_SECONDS``: valid requests as fast as
it can, undecodable frames, frames over the 16 KiB limit and frames over the websocket limit
(1 MiB), each on connections of its own; a flooder that is cut off comes straight back and
floods again. A third honest connection pings the server all along.

Checks: every flooding connection is cut off: ``bye rate_limited`` then close code 1008, or,
for a frame too big to be read, close code 1009 (or a dropped socket, 1006, when the flooder
was still writing it); the honest players keep playing during the flood (at least 5 moves a
second) and the pings are answered in time (median and 90th percentile under ``MAX_PING``;
the figures are printed); every honest match ends with nothing lost, nothing applied twice,
no gap, no reconnect and no request of theirs refused; the process survives, logs no failure
and, once everyone has left, holds no connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from client.session import Session
from protocol import codec
from protocol import messages as m
from tests.abuse.fuzzing import HonestPlay, logged_failures, open_connections
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import play_match
from tests.support.server_process import ROOT, ServerProcess

FLOOD_SECONDS = 3.0
TARGET = 10  # short matches, one after the other, through the flood
#: A person's pace: well inside 20 requests a second.
THINK = 0.05
#: The honest pings during the flood: median and 90th percentile at most this (seconds).
#: Loose on purpose (a shared 2-core machine), but a starved match is far beyond it.
MAX_PING = 0.25
#: Close codes: 1008 policy violation (after ``bye``), 1009 message too big, 1006 the socket
#: dropped (a flooder still writing its giant frame when the server closes may see only that).
POLICY, TOO_BIG, DROPPED = 1008, 1009, 1006


async def _wait_closed(server: ServerProcess, expected: int = 0, timeout: float = 5.0) -> float:
    """Wait until the server holds ``expected`` connections; returns how many it holds."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = await server.aget("/metrics")
        assert status == 200
        left = open_connections(body.decode())
        if left <= expected or time.monotonic() > deadline:
            return left
        await asyncio.sleep(0.1)


async def test_floods_are_cut_off_and_the_honest_match_goes_on(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory()  # the default limits
    honest = HonestPlay(server, redis_url, [], set(), target=TARGET, think=THINK)
    honest.start()
    observer = await Session.connect(server.ws_url, name="Observer")
    flooder: asyncio.subprocess.Process | None = None
    try:
        assert await asyncio.to_thread(honest.started.wait, 30), honest.error
        while honest.progress["intents"] < 10 and honest.is_alive():
            await asyncio.sleep(0.05)
        before = [await observer.ping() for _ in range(20)]
        moves_before = honest.progress["intents"]
        flooder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.abuse.flooder",
            server.ws_url,
            str(FLOOD_SECONDS),
            "requests",
            "garbage",
            "oversized",
            "giant",
            cwd=ROOT,
            stdout=subprocess.PIPE,
        )
        assert flooder.stdout is not None
        ready = await asyncio.wait_for(flooder.stdout.readline(), 30)
        assert ready.strip() == b"flooding", ready
        report = asyncio.create_task(flooder.stdout.read())
        during = []
        while not report.done():  # the flooder floods, then reports and exits
            during.append(await observer.ping(timeout=10))
            await asyncio.sleep(0.05)
        moves_during = honest.progress["intents"] - moves_before
        output = await report
        assert await asyncio.wait_for(flooder.wait(), 10) == 0, "the flooder failed"
        floods: dict[str, list[dict[str, Any]]] = json.loads(output)
    finally:
        if flooder is not None and flooder.returncode is None:
            flooder.kill()
            await flooder.wait()
        honest.stop.set()
        await observer.close()
        await asyncio.to_thread(honest.join, 120)
    assert not honest.is_alive(), "the honest play did not end"
    assert honest.error is None, honest.error
    counts = honest.counts
    left = await _wait_closed(server)

    for kind, records in floods.items():
        endings = [f"bye {r['bye']}, close {r['close']}" for r in records]
        answers: dict[str, int] = {}
        for record in records:
            for code, number in record["answers"].items():
                answers[code] = answers.get(code, 0) + number
        print(
            f"\n{kind}: {len(records)} connections, {sum(r['sent'] for r in records)} "
            f"frames sent, answers {answers}, endings {sorted(set(endings))}"
        )
    print(
        f"honest: {moves_during} moves during the {FLOOD_SECONDS:.0f} s flood; observer's ping "
        f"median {statistics.median(before) * 1000:.1f} ms before, "
        f"{statistics.median(during) * 1000:.1f} ms during (90th percentile "
        f"{_p90(during) * 1000:.1f} ms, {len(during)} pings); {honest.matches} matches "
        f"checked: {dict(counts)}; connections left on the server: {left:.0f}"
    )
    for kind, records in floods.items():
        assert records, f"no {kind} flood"
        for record in records:
            if kind == "giant":
                assert record["close"] in (TOO_BIG, DROPPED) and not record["answers"], record
            else:
                assert record["bye"] == "rate_limited", (kind, record)
                assert record["close"] == POLICY, (kind, record)
    cut = {"requests": "rate_limited", "garbage": "bad_message", "oversized": "frame_too_large"}
    for kind, code in cut.items():
        assert all(record["answers"].get(code) for record in floods[kind]), (kind, code)
    assert any(record["close"] == TOO_BIG for record in floods["giant"]), floods["giant"]
    assert moves_during >= FLOOD_SECONDS * 5, "the honest match stalled in the flood"
    assert statistics.median(during) <= MAX_PING and _p90(during) <= MAX_PING, during
    for key in ("frame_gaps", "frame_duplicates", "reconnects", "resends"):
        assert counts[key] == 0, (key, counts)
    refused = {k: v for k, v in counts.items() if k.startswith("answer:")}
    assert set(refused) <= {"answer:stale_sequence"}, refused
    assert server.running and (await server.aget("/healthz"))[0] == 200
    assert not logged_failures(server.log_text()), logged_failures(server.log_text())[:3]
    assert left == 0, f"{left} connections still open on the server"


#: How long the sleepy client keeps asking before the test gives up on its being cut off.
PATIENCE_SECONDS = 120


def _p90(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.9)]


async def test_a_client_that_does_not_read_is_cut_off(
    server_factory: ServerFactory,
) -> None:
    """A connection that asks for many answers (the whole history of a room, again and again)
    and never reads them fills its outbound queue and is cut off, while another connection is
    served meanwhile."""
    server = server_factory(env=FAST_CLIENT_ENV)
    a = await Session.connect(server.ws_url, name="Ada")
    b = await Session.connect(server.ws_url, name="Bob")
    try:
        created = await a.request("create_room", mode="private", rules={"target": 10})
        room = created.result["room"]
        watch = created.result["watch_token"]  # Sleepy was given the watch link
        await b.request("join_room", invite=created.result["invite"])
        await play_match([a, b], room, seed=5)
        history = a.room(room).seq + 1
        # a small receive buffer: the server's writes back up as soon as it stops reading
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        sent = 0
        loop = asyncio.get_running_loop()
        started = loop.time()
        pings = []
        async with connect(
            server.ws_url, sock=sock, compression=None, proxy=None, close_timeout=1
        ) as ws:
            await ws.send(codec.encode(m.Hello(id="h", version="1.0", name="Sleepy")))
            ws.transport.pause_reading()  # never read again
            # A send waits while the server reads no more of this connection: that is the end.
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                while "slow client cut off" not in server.log_text():
                    # about 5 s on a quiet machine: the server's socket buffers take some MB
                    # before its writes back up, and a loaded machine answers resumes slowly
                    if loop.time() > started + PATIENCE_SECONDS:
                        break
                    async with asyncio.timeout(5):
                        for _ in range(20):
                            resume = m.Resume(id=sent, room=room, last_seq=-1, watch_token=watch)
                            await ws.send(codec.encode(resume))
                            sent += 1
                    pings.append(await a.ping(timeout=10))
            cut = "slow client cut off" in server.log_text()
            seconds = loop.time() - started
            # The socket is still open here and still not read: the server must let it go all
            # the same (a close handshake it waits for cannot finish, nor can its last writes).
            left = await _wait_closed(server, expected=2) - 2  # Ada and Bob are still connected
        print(
            f"\nsent {sent} resume requests (each answered by {history} updates) without "
            f"reading; cut off after {seconds:.1f} s: {cut}; meanwhile Ada's pings: "
            f"{len(pings)}, median {statistics.median(pings or [0]) * 1000:.1f} ms; sleepy "
            f"connections left on the server: {left:.0f}"
        )
        assert cut, "a client that never reads was never cut off"
        assert left == 0, f"{left} sleepy connections still open on the server"
        assert await a.ping() < 5
        assert server.running
        assert not logged_failures(server.log_text()), logged_failures(server.log_text())[:3]
    finally:
        await a.close()
        await b.close()
