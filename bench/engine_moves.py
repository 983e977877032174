"""Benchmark of the pure game code of one move: ``room.act`` and what the server builds
after it, the stored blob (``encode_room``) and both seats' update frames (``RoomFrames``).

Run: ``PYTHONPATH=. .venv/bin/python -m bench.engine_moves [--matches N] [--repeat R]``

Seeded random matches (two players, a 30 s turn clock, the default rules) are played once to
script their moves; each run then replays every match from its creation, timing ``act`` and the
parts separately with ``time.perf_counter_ns`` (the garbage collector disabled while timing).
It prints the median and best run in microseconds per move, and a digest of every event and
part built, so that two versions of the code can be checked to give identical results.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import math
import random
import statistics
import time

from bench.seeds import deal_seed
from protocol.cards import to_mask
from protocol.melds import min_deadwood_mask
from server.blobs import RoomBlobs
from server.engine import Action, GameState, legal_actions
from server.frames import FrameParts
from server.reuse import Histories
from server.room import Room, Seat, act, create_room

Script = tuple[int, list[tuple[int, Action]]]


def new_room(seed: int) -> Room:
    room, _ = create_room(
        room_id=f"r{seed}",
        mode="private",
        creator=Seat(player="a", name="A"),
        opponent=Seat(player="b", name="B"),
        seed=deal_seed(seed, 1),
        now=1000.0,
        turn_seconds=30,
    )
    return room


def choose(game: GameState, actions: list[Action], rnd: random.Random) -> Action:
    """A legal action, biased towards ending hands (as ``tests/server/engine/playing.py``)."""
    endings = [action for action in actions if action.kind in ("knock", "gin")]
    if endings and rnd.random() < 0.5:
        return rnd.choice(endings)
    discards = [action for action in actions if action.kind == "discard"]
    if discards and rnd.random() < 0.8 and game.turn is not None:
        hand = to_mask(game.hands[game.turn])
        return min(
            discards,
            key=lambda a: min_deadwood_mask(hand ^ to_mask([a.card or ""])) + rnd.random(),
        )
    return rnd.choice(actions)


def script(seed: int) -> Script:
    rnd = random.Random(seed)
    room = new_room(seed)
    moves: list[tuple[int, Action]] = []
    while room.status == "playing" and room.game is not None:
        game = room.game
        seat = game.turn if game.turn is not None else rnd.randrange(2)
        action = choose(game, legal_actions(game, seat), rnd)
        moves.append((seat, action))
        room, _ = act(
            room, seat, action, 1000.0 + len(moves), deal_seed(seed, game.hand_number + 1)
        )
    return seed, moves


def replay(scripts: list[Script], digest: hashlib._Hash | None = None) -> tuple[int, int, int]:
    """Moves replayed, and the nanoseconds spent in ``act`` and in building the parts."""
    moves = act_ns = parts_ns = 0
    clock = time.perf_counter_ns
    histories = Histories()  # one process's parts: the blob and the views share the history
    blobs, parts = RoomBlobs(histories), FrameParts(histories)
    for seed, script_moves in scripts:
        room = new_room(seed)
        for number, (seat, action) in enumerate(script_moves, 1):
            hand = room.game.hand_number if room.game is not None else 0
            next_seed = deal_seed(seed, hand + 1)
            start = clock()
            room, events = act(room, seat, action, 1000.0 + number, next_seed)
            acted = clock()
            frames = parts.frames(room, number, events)
            built = [blobs.encode_room(room), frames.update(0), frames.update(1)]
            done = clock()
            act_ns += acted - start
            parts_ns += done - acted
            moves += 1
            if digest is not None:
                digest.update(repr((events, built)).encode())
    return moves, act_ns, parts_ns


def speed(matches: int = 20, repeat: int = 3) -> float:
    """The best of ``repeat`` runs, in microseconds per move (act and parts), over the first
    ``matches`` scripted matches: how fast this machine runs the game code right now, printed
    by ``bench.load`` so that runs on different days or machines can be compared."""
    scripts = [script(seed) for seed in range(matches)]
    replay(scripts)  # warm-up
    best = math.inf
    gc.disable()
    try:
        for _ in range(repeat):
            moves, act_ns, parts_ns = replay(scripts)
            best = min(best, (act_ns + parts_ns) / moves / 1000)
    finally:
        gc.enable()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    scripts = [script(seed) for seed in range(args.matches)]
    digest = hashlib.sha256()
    moves, _, _ = replay(scripts, digest)  # also the warm-up
    print(f"{args.matches} matches, {moves} moves, digest {digest.hexdigest()[:16]}")
    runs: list[tuple[float, float]] = []
    gc.disable()
    try:
        for _ in range(args.repeat):
            moves, act_ns, parts_ns = replay(scripts)
            runs.append((act_ns / moves / 1000, parts_ns / moves / 1000))
    finally:
        gc.enable()
    for name, values in (
        ("act", [run[0] for run in runs]),
        ("parts", [run[1] for run in runs]),
        ("total", [run[0] + run[1] for run in runs]),
    ):
        median = statistics.median(values)
        print(f"{name:6s} median {median:6.2f} us/move  best {min(values):6.2f}")


if __name__ == "__main__":
    main()
