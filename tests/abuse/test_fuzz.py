"""Fuzz the codec in-process, then a real server process over the wire (``fuzzing.py`` holds the
frames and the oracles), while two honest players play matches on the same process.

The decoder test: every input is refused with one of the codec's codes (and an error that can
be sent back, naming the request id exactly when the frame held a valid one) or decodes to a
message that holds exactly the frame's fields and survives a canonical round trip.

The server test plays both seats of a private match of its own (each frame goes out on one of
two connections, one per seat, so legal moves drawn from the views it receives reach the game
engine) and watches the honest matches, of which it may see only what a spectator sees. Every
frame must get exactly the answer the protocol promises; the server must never answer
``internal``, never log a failure, never close a fuzzing connection, never show the fuzzer a
card of an honest match it may not see, and keep no connection open once everyone has left.
Every honest match must end with nothing lost, nothing applied twice, no gap, no reconnect.

``GIN_FUZZ_EXAMPLES`` sets the number of server frames (default 1500; ``bench/fuzz.py`` runs
100,000), ``GIN_FUZZ_DECODER_EXAMPLES`` the in-process decoder inputs (default 800).
"""

from __future__ import annotations

import os
import time
from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol import messages as m
from tests.abuse.fuzzing import (
    Context,
    Frame,
    FuzzClient,
    HonestPlay,
    check_decoder,
    frames,
    logged_failures,
    open_connections,
)
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import leaks, visible_cards
from tests.support.server_process import ServerProcess

EXAMPLES = int(os.environ.get("GIN_FUZZ_EXAMPLES", "1500"))
DECODER_EXAMPLES = int(os.environ.get("GIN_FUZZ_DECODER_EXAMPLES", "800"))


# --- the decoder alone ---------------------------------------------------------------------------


def test_the_decoder_refuses_or_round_trips_every_input() -> None:
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=DECODER_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    # a request id that is not valid UTF-8: it was echoed in the error, which then could not
    # be encoded, and the server's read loop died on it (the connection closed, unanswered)
    @example(frame=b"\x82\x00\xa4\x00\x00\x00\x00\xa2id\xa2\x00\x80")
    @example(frame=b"\x82\xa1t\xa4ping\xa2id\xa1\xff")
    @given(frame=frames(Context()))
    def one(frame: Frame) -> None:
        outcome, problems = check_decoder(frame)
        outcomes[outcome] += 1
        assert not problems, problems

    one()
    decoded = sum(n for outcome, n in outcomes.items() if outcome.startswith("decoded"))
    print(
        f"\ndecoder: {sum(outcomes.values())} inputs, {decoded} decoded (round trip checked), "
        f"refused {dict(sorted((o, n) for o, n in outcomes.items() if o.startswith('refused')))}"
    )
    assert decoded > 0 and outcomes["refused bad_message"] > 0, outcomes


# --- a real server -------------------------------------------------------------------------------


def _seats(server: ServerProcess, context: Context) -> list[FuzzClient]:
    """Two fuzzing connections, one per seat of a private match of theirs, and an AI room of
    the first."""
    first = FuzzClient(server.ws_url, "Fuzz A", context)
    second = FuzzClient(server.ws_url, "Fuzz B", context)
    private = first.request(m.CreateRoom(id="ctx-1", mode="private"))
    ai = first.request(m.CreateRoom(id="ctx-2", mode="ai", level="easy"))
    assert isinstance(private, m.Ack) and isinstance(ai, m.Ack), (private, ai)
    joined = second.request(m.JoinRoom(id="ctx-3", invite=private.result["invite"]))
    assert isinstance(joined, m.Ack), joined
    context.rooms[:] = [private.result["room"], ai.result["room"]]
    context.invites[:] = [private.result["invite"]]
    token, player = first.token, first.player_id
    context.tokens[:] = [token, token[:-1], token + "x", f"{player}.x", second.token]
    return [first, second]


def test_fuzzed_frames_get_the_answers_the_protocol_promises(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    context = Context()
    seats = _seats(server, context)
    secret: set[str] = set()
    for client in seats:
        client.secret_rooms = secret
    honest = HonestPlay(server, redis_url, context.rooms, secret, target=10, think=0.05)
    honest.start()
    assert honest.started.wait(30) and honest.rooms, honest.error
    watched = seats[0].request(m.Watch(id="ctx-4", room=context.rooms[-1]))
    assert isinstance(watched, m.Ack), watched
    by_seat = [frames(context, client.player_id) for client in seats]
    problems: list[str] = []
    started = time.monotonic()
    try:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(pair=st.integers(0, 1).flatmap(lambda who: st.tuples(st.just(who), by_seat[who])))
        def one_frame(pair: tuple[int, Frame]) -> None:
            who, frame = pair
            found = seats[who].check(frame)
            problems.extend(found)
            assert not found, found

        one_frame()
    finally:
        fuzzed_until = time.monotonic()
        honest.stop.set()
        for client in seats:
            client.close()
        honest.join(120)
    assert not honest.is_alive(), "the honest play did not end"
    assert honest.error is None, honest.error
    counts = sum((client.counts for client in seats), Counter[str]())
    moves = sum(n for label, n in counts.items() if label.startswith("act -> ack"))
    # what the fuzzer saw of the honest matches is what a spectator may see, no more
    seen = [f for client in seats for f in client.secret_frames]
    shown = leaks(seen, {room: visible_cards(honest.changes[room], None) for room in secret})
    failures = logged_failures(server.log_text())
    status, _ = server.get("/healthz")
    deadline = time.monotonic() + 5
    while (still_open := open_connections(server.get("/metrics")[1].decode())) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.1)
    print(
        f"\nfuzz: {counts['frames']} frames in {fuzzed_until - started:.1f} s, {moves} moves "
        f"played by the fuzzer, {len(context.rooms)} rooms known; answers:"
    )
    for label, number in sorted(counts.items()):
        if label != "frames":
            print(f"  {number:>6}  {label}")
    print(
        f"honest play alongside: {honest.matches} matches, {dict(honest.counts)}, the last "
        f"ended {honest.ended_at - fuzzed_until:.1f} s after the fuzzing; {len(seen)} of their "
        f"frames seen by the fuzzer, {len(shown)} showing a hidden card; server log errors: "
        f"{len(failures)}; connections left open: {still_open:.0f}"
    )
    assert not problems
    assert not failures, failures[:3]
    assert status == 200 and server.running
    assert not shown, shown[:3]
    assert seen, "the fuzzer saw nothing of the honest matches: the leak check checked nothing"
    assert still_open == 0, f"{still_open} connections still open on the server"
    assert moves > 0, "no fuzzed move reached the game engine"
    assert honest.matches >= 1
    for key in ("frame_gaps", "frame_duplicates", "reconnects", "resends"):
        assert honest.counts[key] == 0, (key, honest.counts)
