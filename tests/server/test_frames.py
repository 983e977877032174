"""The spliced frames of ``server.frames`` are byte for byte the codec's frames of the views."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from protocol import codec
from protocol import messages as m
from server.engine import legal_actions
from server.engine.events import Event
from server.engine.views import event_for, legal_action_dicts, seen_by_all
from server.frames import FrameParts, ack_frame, update_frame
from server.room import Room, Seat, act, create_room, join, leave, mark_away, room_view
from tests.support.seeds import next_hand_seed, seed_of

T0 = 1_700_000_000.0
RECIPIENTS = (0, 1, None)


def changes(seed: int) -> Iterator[tuple[Room, int, list[Event]]]:
    """Every (room, seq, events) of a random match in a room of each mode."""
    rnd = random.Random(seed)
    mode = ("private", "quick", "ai")[seed % 3]
    room, events = create_room(
        room_id="rFRAMESFRAMES",
        mode=mode,
        creator=Seat(player="pA", name="Ann é"),
        seed=seed_of(seed),
        now=T0,
        level="easy" if mode == "ai" else None,
        invite="INVITE23" if mode == "private" else None,
        turn_seconds=rnd.choice((0, 30)),
        watch_token=None if mode == "quick" else "wATCHtOKEN_-23",
    )
    seq = 0
    yield room, seq, events
    if mode == "private":
        room, events, _ = join(room, Seat(player="pB", name="Bob"), T0)
        seq += 1
        yield room, seq, events
    for step in range(400):
        if room.status != "playing" or room.game is None:
            break
        game = room.game
        seat = rnd.choice([s for s in (0, 1) if legal_actions(game, s)])
        action = rnd.choice(legal_actions(game, seat))
        room, events = act(room, seat, action, T0 + step, next_hand_seed(game))
        seq += 1
        yield room, seq, events
        if rnd.random() < 0.02:
            room, events = mark_away(room, rnd.choice((0, 1)), T0 + step)
            seq += 1
            yield room, seq, events
    if room.status == "playing":
        room, events = leave(room, 0, T0 + 1000)
        yield room, seq + 1, events


@pytest.mark.parametrize("seed", range(6))
def test_frames_are_the_codec_frames_of_the_views(seed: int) -> None:
    parts = FrameParts()
    for room, seq, events in changes(seed):
        frames = parts.frames(room, seq, events)
        for seat in RECIPIENTS:
            shown = tuple(event_for(event, seat) for event in events)
            view = room_view(room, seat)
            update = m.Update(room=room.id, seq=seq, events=shown, view=view)
            assert frames.update(seat) == codec.encode(update), (seq, seat)
            snapshot = m.Snapshot(room=room.id, seq=seq, view=view)
            assert frames.snapshot(seat) == codec.encode(snapshot), (seq, seat)
            bare = m.Update(room=room.id, seq=seq, events=shown)
            assert update_frame(room.id, seq, events, seat, None) == codec.encode(bare)


def test_every_connection_of_a_recipient_gets_the_same_bytes() -> None:
    room, seq, events = next(changes(1))
    frames = FrameParts().frames(room, seq, events)
    assert frames.update(None) is frames.update(None)
    assert frames.view(0) is frames.view(0)
    assert frames.update(0) != frames.update(1)


def test_a_frame_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    room, seq, events = next(changes(2))
    monkeypatch.setattr(codec, "MAX_SERVER_FRAME", 64)
    with pytest.raises(m.ProtocolError) as refused:
        FrameParts().frames(room, seq, events).update(0)
    assert refused.value.code == m.ErrorCode.FRAME_TOO_LARGE


@pytest.mark.parametrize("request_id", [0, 7, 2**40, "r", "req-é", "x" * 64])
@pytest.mark.parametrize(
    "result",
    [{}, {"seq": 12}, {"room": "r1", "seat": None, "seats": [{"name": "Ann", "ai": None}]}],
)
def test_an_ack_frame_is_the_codec_frame_of_the_ack(
    request_id: int | str, result: dict[str, object]
) -> None:
    assert ack_frame(request_id, result) == codec.encode(m.Ack(id=request_id, result=result))


def test_a_frame_that_cannot_be_made_is_refused_again_when_asked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Hub.prepare`` may meet the error first: ``deliver`` asks again and meets it too."""
    room, seq, events = next(changes(2))
    monkeypatch.setattr(codec, "MAX_SERVER_FRAME", 64)
    frames = FrameParts().frames(room, seq, events)
    for _ in range(2):
        with pytest.raises(m.ProtocolError):
            frames.update(0)


def test_the_watcher_count_and_the_stand_in_option_are_in_the_frames() -> None:
    parts = FrameParts()
    for count in (0, 3, 300, 3, 0):  # 300: a count that is not one of Python's cached ints
        for room, seq, events in changes(2):
            parts.watchers[room.id] = count
            frames = parts.frames(room, seq, events)
            for seat in RECIPIENTS:
                view = room_view(room, seat, watchers=count)
                assert view["watchers"] == count
                snapshot = m.Snapshot(room=room.id, seq=seq, view=view)
                assert frames.snapshot(seat) == codec.encode(snapshot), (count, seq, seat)


def test_an_event_encoded_once_for_all_is_what_each_recipient_may_see() -> None:
    """``seen_by_all``: the frames encode such an event once for every recipient, so each
    recipient's copy of it (``event_for``) must be the event itself."""
    kinds: set[str] = set()
    for seed in range(6):
        for _, _, events in changes(seed):
            for event in events:
                if seen_by_all(event):
                    kinds.add(event["type"])
                    assert all(event_for(event, seat) == event for seat in RECIPIENTS)
    assert {"pass", "discard", "room"} <= kinds


def test_the_legal_actions_made_once_per_phase_are_the_states_own() -> None:
    parts = FrameParts()
    for seed in range(6):
        for room, _, _ in changes(seed):
            if room.game is not None:
                for seat in (0, 1):
                    expected = codec.pack(legal_action_dicts(room.game, seat), validate=False)
                    assert parts.legal_actions(room.game, seat) == expected
