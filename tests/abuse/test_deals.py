"""The next deal cannot be predicted. What an attacker holds at the end of hand 1 of an
unfinished match: every frame both seats got, the public replay of hand 1 (its whole
shuffle: the stock order and both hands), and even (a worker or an operator gone bad) the
room as Redis stores it. Before, all of that together fixed hand 2: the stored game carried
the match's SplitMix64 state, one generator for the whole match, so replaying its next
outputs dealt hand 2 before the server did. Now hand 2 is dealt from a seed drawn for it
when ``next_hand`` arrives, which nothing stored or sent before holds."""

from __future__ import annotations

import random
from typing import Any

import redis.asyncio as aioredis

from client.session import Session
from protocol import codec
from protocol.cards import DECK, sort_cards
from server import keys
from server.engine import Action, GameState, apply
from server.engine.shuffle import shuffled
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import choose, close_all, private_match


async def _stored(redis_url: str, room: str) -> dict[str, Any]:
    client = aioredis.from_url(redis_url)
    try:
        blob = await client.get(keys.room(room))
    finally:
        await client.aclose()
    assert isinstance(blob, bytes)
    data = codec.unpack(blob, validate=False)
    assert isinstance(data, dict)
    return data


async def _play_to_hand_over(sessions: list[Session], room: str) -> None:
    rng = random.Random(18)
    seq = -1
    while True:
        views = [await _view_after(s, room, seq) for s in sessions]
        if views[0]["game"]["phase"] == "hand_over":
            return
        session, view = next(
            (s, v) for s, v in zip(sessions, views, strict=True) if v["game"]["legal_actions"]
        )
        action = choose(view, rng)
        ack = await session.act(
            room, action["kind"], action.get("card"), seq=session.room(room).seq
        )
        seq = int(ack.result["seq"])


async def _view_after(session: Session, room: str, seq: int) -> dict[str, Any]:
    def caught_up(view: dict[str, Any]) -> bool:
        return session.room(room).seq >= seq and view["game"] is not None

    return await session.wait_for(room, caught_up)


def _deal_of(state: GameState) -> tuple[Any, ...]:
    return (state.hands, state.stock, state.discard_pile)


async def test_hand_2_is_not_a_function_of_anything_before_it(
    server_factory: ServerFactory, redis_url: str
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_LOG_LEVEL": "DEBUG"})
    ada, bob, room = await private_match(server.ws_url, server.ws_url, target=500, record=True)
    try:
        await _play_to_hand_over([ada, bob], room)
        status, replay = await server.aget_json(f"/api/hands/{room}-1")
        assert status == 200
        before = await _stored(redis_url, room)
        game = before["game"]
        # The attack of before: the stored game holds the generator that deals hand 2.
        predicted = _old_next_hand(game) if "rng" in game else None
        state = GameState.from_dict(game)
        await ada.act(room, "next_hand", seq=ada.room(room).seq)
        after = await _stored(redis_url, room)
        dealt = GameState.from_dict(after["game"])
        assert dealt.hand_number == 2
        assert predicted is None or predicted != _deal_of(dealt), "hand 2 was predicted"
        # Nothing kept from before deals it: no seed the stored room held, no seed found in
        # a frame or the replay (any 32 bytes of them tried as a seed would take forever;
        # the room's own first-deal seed and a few obvious ones are tried).
        candidates = [bytes.fromhex(before["seed"]), bytes.fromhex(after["seed"]), bytes(32)]
        for seed in candidates:
            if len(seed) == 32:
                guess = apply(state, 0, Action("next_hand"), seed)[0]
                assert _deal_of(guess) != _deal_of(dealt), "hand 2 was dealt from a kept seed"
        # The first deal's seed stays in Redis and nowhere else: no frame, no replay and no
        # line of the server's log (at DEBUG) has it.
        secret = bytes.fromhex(before["seed"])
        public = [codec.pack(replay, validate=False), server.log_path.read_bytes()]
        for session in (ada, bob):
            assert session.frames is not None
            public.extend(codec.encode(frame, validate=False) for frame in session.frames)
        for blob in public:
            assert secret not in blob and secret.hex().encode() not in blob
        assert shuffled(DECK, secret)[21:] == tuple(replay["events"][0]["stock"])
    finally:
        await close_all(ada, bob)


def _old_next_hand(game: dict[str, Any]) -> tuple[Any, ...]:
    """Hand 2 as the old engine dealt it: SplitMix64 from the stored ``rng``, Fisher-Yates,
    ten cards each from the non-dealer, the upcard, the stock."""
    mask, gamma = (1 << 64) - 1, 0x9E3779B97F4A7C15
    state = game["rng"]
    deck = list(DECK)
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            state = (state + gamma) & mask
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            if z < limit:
                break
        j = z % bound
        deck[i], deck[j] = deck[j], deck[i]
    hands = [sort_cards(deck[0:20:2]), sort_cards(deck[1:20:2])]
    if 1 - game["dealer"] == 0:  # the next hand's dealer
        hands.reverse()
    return ((hands[0], hands[1]), tuple(deck[21:]), (deck[20],))
