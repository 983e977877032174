"""Scripted people for the chaos tests, and the checks of what they saw against Redis.

A person plays its seat through anything (its server killed, Redis restarted, a graceful
shutdown): every ``act`` is an *intent* with one request id, sent again with the SAME id and
the same ``seq`` until a definitive answer comes (an ack, ``stale_sequence`` or
``duplicate_request``); a lost answer (dropped connection, ``internal``, a timeout) only means
"unknown". Afterwards the room's full-information change stream (the ground truth) must
explain every change the seat made by exactly one intent, and every acked intent must be the
change its ack named: no action lost, none applied twice, none applied that nobody asked.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from client.session import ConnectionLost, RequestError, Session, View
from protocol import codec
from protocol import messages as m
from protocol.cards import DECK
from protocol.scoring import score_hand
from server.store import HandRecord, Store
from tests.support.players import action_matches, check_view, choose, redacted, replay_hands, truth

Change = tuple[int, int | None, list[dict[str, Any]]]

#: Answers after which an intent is settled (anything else is a finding).
SETTLED = frozenset({"stale_sequence", "duplicate_request"})
#: Answers that say nothing about whether the action was applied: ask again, same id.
UNKNOWN = frozenset({"internal", "rate_limited", "store_unavailable", "not_replicated"})
#: Of those, the answers a request may have been applied under (Redis went away mid-way).
MAYBE_APPLIED = frozenset({"internal", "store_unavailable", "not_replicated"})


@dataclass
class Intent:
    """One decision: the request id, the number it was made on and the action."""

    id: str
    seq: int
    action: dict[str, Any]
    attempts: int = 0
    unknown: int = 0
    outcome: str = "pending"
    acked_seq: int | None = None
    #: The answer to each attempt: "ack", an error code, or "lost".
    answers: list[str] = field(default_factory=list)


@dataclass
class SeatPlay:
    """Everything one person did in one room."""

    session: Session
    room: str
    seat: int
    tag: str = field(default_factory=lambda: secrets.token_hex(4))
    intents: list[Intent] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def acked(self) -> int:
        return sum(1 for intent in self.intents if intent.outcome == "acked")

    @property
    def resends(self) -> int:
        return sum(intent.attempts - 1 for intent in self.intents)


async def play_seat(
    play: SeatPlay,
    rng: random.Random,
    *,
    timeout: float,
    progress: Counter[str] | None = None,
    think: float = 0.0,
    gate: asyncio.Event | None = None,
) -> View:
    """Play until the match is over (``think`` seconds before each move; while ``gate`` is
    cleared, no new move is decided); returns the final view."""
    session, room = play.session, play.room
    state = session.room(room)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    floor = -2
    while True:

        def ready(view: View, floor: int = floor) -> bool:
            if view["status"] == "finished":
                return True
            game = view.get("game")
            return state.seq > floor and bool(game and game["legal_actions"])

        view = await session.wait_for(room, ready, timeout=max(0.1, deadline - loop.time()))
        if view["status"] == "finished":
            return view
        if gate is not None and not gate.is_set():
            await gate.wait()
            continue  # look again: the room may have moved on
        if think:
            await asyncio.sleep(think)
            view = await session.wait_for(room, ready, timeout=max(0.1, deadline - loop.time()))
            if view["status"] == "finished":
                return view
        intent = Intent(
            id=f"{play.tag}-{len(play.intents)}", seq=state.seq, action=choose(view, rng)
        )
        play.intents.append(intent)
        floor = intent.seq
        await _settle(play, intent, deadline)
        if progress is not None:
            progress["intents"] += 1


async def _settle(play: SeatPlay, intent: Intent, deadline: float) -> None:
    """Send the intent until a definitive answer, always with the same id and seq."""
    loop = asyncio.get_running_loop()
    while True:
        if loop.time() > deadline:
            raise TimeoutError(f"{play.room} seat {play.seat}: intent {intent} never settled")
        intent.attempts += 1
        try:
            ack = await play.session.act(
                play.room,
                intent.action["kind"],
                intent.action.get("card"),
                seq=intent.seq,
                id=intent.id,
                timeout=15,
            )
        except (ConnectionLost, TimeoutError):
            intent.unknown += 1
            intent.answers.append("lost")
            play.errors["lost"] += 1
            # The next act waits for the reconnect (hello and resumes) itself; the pause lets
            # the session's reader see the closed socket first (see test_session.py).
            await asyncio.sleep(0.05)
            continue
        except RequestError as error:
            intent.answers.append(error.code)
            play.errors[error.code] += 1
            if error.code in UNKNOWN:
                intent.unknown += 1
                await asyncio.sleep(0.1)
                continue
            intent.outcome = error.code
            return
        intent.answers.append("ack")
        intent.outcome = "acked"
        intent.acked_seq = int(ack.result["seq"])
        return


# --- checks against the ground truth ----------------------------------------------------------


@dataclass
class SeatReport:
    intents: int = 0
    acked: int = 0
    applied_after_lost_answer: int = 0
    applied_after_internal: int = 0
    duplicate_on_first_attempt: int = 0
    resends: int = 0


def check_intents(
    play: SeatPlay, changes: Sequence[Change], *, internal_means_unchanged: bool = False
) -> SeatReport:
    """Every change the seat made is exactly one of its intents; every ack names its change.

    - ``ack``: the stream holds the intent's action, by this seat, at the number acked, which
      is the one after the number the intent was made on, or after the changes nobody saw
      (no events: an AI worker taking its seat) that followed it (docs/protocol.md).
    - ``duplicate_request`` (the id was applied already, docs/protocol.md): it was applied.
    - ``stale_sequence``: it was not applied. The server looks for the request id before it
      compares numbers, so a resend of an applied intent is answered duplicate, never stale.
      (The same action at its number is then another intent's: one made after the unseen
      changes that followed this one, e.g. after a worker took its seat again.)
    - no change of this seat in the stream that no intent explains, none explained twice.

    ``internal`` only says "may be retried" (docs/protocol.md): a server whose Redis dies
    after a commit cannot know whether it stood. With ``internal_means_unchanged`` (the
    server did know: nothing else failed), an applied intent must not have been answered so.
    """
    by_seq = {seq: (actor, events) for seq, actor, events in changes}
    made = {seq for seq, actor, _ in changes if actor == play.seat and seq > 0}
    explained: dict[int, Intent] = {}
    stale_but_matched: dict[int, Intent] = {}
    seen_on: set[int] = set()
    report = SeatReport(intents=len(play.intents), resends=play.resends)
    where = f"room {play.room} seat {play.seat}"
    for intent in play.intents:
        assert intent.seq not in seen_on, f"{where}: two intents on seq {intent.seq}"
        seen_on.add(intent.seq)
        target = intent.seq + 1
        while (unseen := by_seq.get(target)) is not None and unseen == (None, []):
            target += 1
        actor, events = by_seq.get(target, (None, []))
        applied = actor == play.seat and action_matches(intent.action, events)
        if intent.outcome == "acked":
            report.acked += 1
            assert intent.acked_seq == target and applied, (
                f"{where}: {intent} was acked but the stream has {actor}: {events} at {target}"
            )
        elif intent.outcome == "duplicate_request":
            assert applied, f"{where}: {intent} answered duplicate but was never applied"
        elif intent.outcome == "stale_sequence":
            if applied:  # only if a later intent, made across the same unseen changes, did it
                stale_but_matched.setdefault(target, intent)
            continue
        else:
            raise AssertionError(f"{where}: {intent} got the answer {intent.outcome}")
        if not applied:
            continue
        assert target not in explained, f"{where}: {target} explained twice"
        explained[target] = intent
        if intent.outcome != "acked":
            report.applied_after_lost_answer += 1
        # An acked attempt applied it itself. A duplicate answer says an earlier attempt did:
        # one whose answer was lost, or else one answered ``internal``, ``store_unavailable``
        # or ``not_replicated``. (With no earlier attempt, the server's own Redis client sent
        # the commit again after losing its reply: Redis restarted. The answer is still true:
        # the request was applied.)
        earlier = intent.answers[:-1]
        if intent.outcome == "duplicate_request" and not earlier:
            report.duplicate_on_first_attempt += 1
        elif intent.outcome == "duplicate_request" and "lost" not in earlier:
            assert MAYBE_APPLIED & set(earlier), intent
            report.applied_after_internal += 1
            assert not (internal_means_unchanged and "internal" in earlier), (
                f"{where}: {intent} was applied by an attempt answered internal"
            )
    for target, intent in stale_but_matched.items():
        assert target in explained, f"{where}: {intent} answered stale_sequence but applied"
    stray = sorted(made - set(explained))
    assert not stray, f"{where}: changes by this seat that no intent explains: {stray}"
    return report


def check_log(play: SeatPlay, changes: Sequence[Change]) -> tuple[int, int]:
    """The session's log of the room is every number from 0 to the last, in order, no
    snapshot, each with exactly the seat's redaction of the true events. Returns the raw
    frames' (gaps, duplicates) as received (the session resumes over a gap itself)."""
    state = play.session.room(play.room)
    numbers = [applied.seq for applied in state.log]
    last = changes[-1][0]
    where = f"room {play.room} seat {play.seat}"
    assert numbers == list(range(last + 1)), f"{where}: log {numbers[:5]}...{numbers[-5:]}"
    assert not any(applied.snapshot for applied in state.log), f"{where}: a snapshot"
    for applied, (seq, _actor, events) in zip(state.log, changes, strict=True):
        expected = [redacted(event, play.seat) for event in events]
        assert list(applied.events) == expected, f"{where} seq {seq}: {applied.events}"
    gaps = duplicates = 0
    previous = -1
    for frame in play.session.frames or []:
        if isinstance(frame, m.Update) and frame.room == play.room:
            if frame.seq > previous + 1:
                gaps += 1
            elif frame.seq <= previous:
                duplicates += 1
            previous = max(previous, frame.seq)
    return gaps, duplicates


def check_hands(changes: Sequence[Change], target: int) -> tuple[int, list[int]]:
    """Replay every hand of the stream card by card, score it again with the rules library and
    check the running scores and the match result. Returns (hands, final scores)."""
    hands: list[list[dict[str, Any]]] = []
    match_over: dict[str, Any] | None = None
    for _seq, _actor, events in changes:
        for event in events:
            if event["type"] == "deal":
                hands.append([event])
            elif event["type"] == "match_over":
                match_over = event
            elif hands:
                hands[-1].append(event)
    assert match_over is not None, "the match did not end"
    scores = [0, 0]
    for number, events in enumerate(hands, start=1):
        over = [event for event in events if event["type"] == "hand_over"]
        assert len(over) == 1, f"hand {number} of a finished match has {len(over)} ends"
        end = over[0]
        assert end["hand"] == number, (end["hand"], number)
        assert events[0]["scores"] == scores, (events[0], scores)
        final = replay_hands(events)
        assert [sorted(h, key=DECK.index) for h in end["hands"]] == final, (end, final)
        if end["knocker"] is None:
            assert end["winner"] is None and end["points"] == 0, end
        else:
            knocker = end["knocker"]
            result = score_hand(final[knocker], final[1 - knocker])
            winner = knocker if result.winner == "knocker" else 1 - knocker
            assert (end["kind"], end["winner"], end["points"]) == (
                result.kind,
                winner,
                result.points,
            ), (end, result)
            scores[winner] += result.points
        assert end["scores"] == scores, (end["scores"], scores)
    assert match_over["points"] == scores, (match_over, scores)
    winner = match_over["winner"]
    assert scores[winner] >= target > scores[1 - winner], (scores, target)
    return len(hands), scores


#: A replay record that could not be written with its move is written by a server's sweep
#: of owed records (``Upkeep.write_owed_records``: after 5 s, every 2 s).
RECORD_WAIT_SECONDS = 20.0


async def wait_for_record(store: Store, hand_id: str) -> HandRecord | None:
    """The hand's replay record, waiting up to ``RECORD_WAIT_SECONDS`` for it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RECORD_WAIT_SECONDS
    while (record := await store.get_hand(hand_id)) is None and loop.time() < deadline:
        await asyncio.sleep(0.25)
    return record


async def check_room(
    store: Store,
    room: str,
    plays: Sequence[SeatPlay],
    finals: Sequence[View],
    target: int,
    *,
    internal_means_unchanged: bool = False,
) -> dict[str, int]:
    """All checks of one finished match (``plays``: its scripted people); returns its counts."""
    changes = await truth(store, room)
    assert [seq for seq, _, _ in changes] == list(range(len(changes))), f"{room}: stream gaps"
    hands, scores = check_hands(changes, target)
    counts: Counter[str] = Counter(hands=hands, changes=len(changes))
    people = {play.seat for play in plays}
    counts["ai_moves"] = sum(
        1 for _, actor, _ in changes if actor is not None and actor not in people
    )
    for play, final in zip(plays, finals, strict=True):
        assert final["status"] == "finished" and final["forfeit"] is None, final
        assert final["game"]["scores"] == scores, (room, final["game"]["scores"], scores)
        check_view(final)
        report = check_intents(play, changes, internal_means_unchanged=internal_means_unchanged)
        gaps, duplicates = check_log(play, changes)
        assert gaps == 0, f"{room} seat {play.seat}: the server skipped numbers {gaps} times"
        assert not play.session.bad_frames, play.session.bad_frames[:3]
        counts["intents"] += report.intents
        counts["acked"] += report.acked
        counts["applied_after_lost_answer"] += report.applied_after_lost_answer
        counts["applied_after_internal"] += report.applied_after_internal
        counts["duplicate_on_first_attempt"] += report.duplicate_on_first_attempt
        counts["resends"] += report.resends
        counts["frame_gaps"] += gaps
        counts["frame_duplicates"] += duplicates
        counts["reconnects"] += play.session.connections - 1
        for code, number in play.errors.items():
            counts[f"answer:{code}"] += number
    # every finished hand is kept for replays: one record per hand, with its result
    answers = {
        intent.seq + 1: intent.answers
        for play in plays
        for intent in play.intents
        if intent.outcome != "stale_sequence"
    }
    for seq, actor, events in changes:
        for end in (event for event in events if event["type"] == "hand_over"):
            record = await wait_for_record(store, f"{room}-{end['hand']}")
            assert record is not None, (
                f"{room}: hand {end['hand']} has no replay record {RECORD_WAIT_SECONDS} s after "
                f"the match (see test_partial_writes.py); that move, "
                f"seat {actor}'s at {seq}, was answered {answers.get(seq, 'to an AI')}"
            )
            data = codec.unpack(record.blob)
            assert isinstance(data, dict) and data["room"] == room, data
            result = data["result"]
            assert (result["kind"], result["winner"], result["points"]) == (
                end["kind"],
                end["winner"],
                end["points"],
            ), (room, result, end)
            counts["hand_records"] += 1
    return dict(counts)
