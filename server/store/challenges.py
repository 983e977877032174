"""Challenges: each one a hash, with the sender's open and sent lists and the target's inbox
(the ``{challenges}`` slot group), sent and answered by one script per step
(``lua/challenges.lua``); the ``challenge-requests:ID`` counters; and who may challenge a
player (the ``challenges`` field of ``player:ID``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from protocol.scoring import MATCH_TARGET
from server import keys
from server.store._base import StoreBase, as_text, check_positive
from server.store.player_channel import PlayerChannel

__all__ = ["ChallengeOps", "ChallengeRecord", "ChallengeTerms"]

ChallengeAnswer = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class ChallengeTerms:
    """What a challenge asks for: rated or casual, the turn clock (s; 0: none) and the
    points the match is played to."""

    rated: bool
    turn_seconds: int
    target: int


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    """A stored challenge."""

    id: str
    sender: str
    target: str
    terms: ChallengeTerms
    at: int
    deadline: int
    state: str
    room: str | None


class ChallengeOps(StoreBase):
    """``{challenges}:c:ID``, ``{challenges}:open:ID``, ``{challenges}:sent:ID``,
    ``{challenges}:in:ID``, ``challenge-requests:ID``."""

    def _challenge_keys(self, challenge_id: str, sender: str, target: str) -> list[str]:
        return [
            keys.challenge(challenge_id),
            keys.challenges_open(sender),
            keys.challenges_sent(sender),
            keys.challenges_in(target),
        ]

    async def send_challenge(
        self,
        challenge_id: str,
        sender: str,
        target: str,
        terms: ChallengeTerms,
        now_ms: int,
        deadline_ms: int,
        keep_ms: int,
        most_open: int,
    ) -> str:
        """Store a new challenge, unless the sender has ``most_open`` open ones: the script's
        word (``sent``, ``too_many_open``, ``exists``)."""
        reply = await self._run_script(
            self._scripts.challenges,
            self._challenge_keys(challenge_id, sender, target),
            [
                "send",
                sender,
                target,
                int(now_ms),
                int(deadline_ms),
                int(check_positive(keep_ms, "keep")),
                int(check_positive(most_open, "most open")),
                1 if terms.rated else 0,
                int(terms.turn_seconds),
                int(check_positive(terms.target, "target")),
            ],
        )
        return as_text(reply)

    async def answer_challenge(
        self, answer: ChallengeAnswer, record: ChallengeRecord, now_ms: int, room: str = ""
    ) -> str:
        """Accept (naming the ``room`` it makes), decline or cancel: the script's word."""
        args: list[str | int] = [answer, record.sender, record.target, int(now_ms)]
        if answer == "accept":
            args.append(keys.check_id(room, "room id"))
        reply = await self._run_script(
            self._scripts.challenges,
            self._challenge_keys(record.id, record.sender, record.target),
            args,
        )
        return as_text(reply)

    async def challenge_failed(self, challenge_id: str) -> None:
        """An accepted challenge whose room could not be made (``state`` ``failed``)."""
        await self._redis.hset(keys.challenge(challenge_id), "state", "failed")

    async def get_challenge(self, challenge_id: str) -> ChallengeRecord | None:
        raw = await self._redis.hgetall(keys.challenge(challenge_id))
        return _record(challenge_id, raw)

    async def challenge_lists(
        self, player_id: str, now_ms: int
    ) -> tuple[list[ChallengeRecord], list[ChallengeRecord]]:
        """The open challenges to the player and the ones they sent (outcomes kept a while),
        read in two steps of one slot each (the lists, then the challenges)."""
        inbox, sent = keys.challenges_in(player_id), keys.challenges_sent(player_id)
        replies = await self._together(
            ("ZREMRANGEBYSCORE", inbox, "-inf", int(now_ms)),
            ("ZRANGE", inbox, 0, -1),
            ("ZREMRANGEBYSCORE", sent, "-inf", int(now_ms)),
            ("ZRANGE", sent, 0, -1),
        )
        received_ids = [as_text(item) for item in replies[1]]
        sent_ids = [as_text(item) for item in replies[3]]
        ids = received_ids + sent_ids
        if not ids:
            return [], []
        raw = await self._together(*(("HGETALL", keys.challenge(cid)) for cid in ids))
        records = [_record(cid, reply) for cid, reply in zip(ids, raw, strict=True)]
        received = [r for r in records[: len(received_ids)] if r is not None]
        mine = [r for r in records[len(received_ids) :] if r is not None]
        return received, mine

    async def count_challenge(self, player_id: str, limit: int, window_seconds: int) -> bool:
        """Count one challenge sent: False, counting nothing, past ``limit`` in the window
        (``lua/count_new_player.lua``, the same counter)."""
        reply = await self._run_script(
            self._scripts.count_new_player,
            [keys.challenge_requests(player_id)],
            [int(check_positive(limit, "limit")), int(check_positive(window_seconds, "window"))],
        )
        return int(reply) == 1

    async def are_friends(self, one: str, other: str) -> bool:
        """Whether the two are friends (``{friends}:of:ID``, both sides are written together)."""
        return bool(await self._redis.hexists(keys.friends_of(one), keys.check_id(other)))

    def challenge_nudges(self, on_nudge: Callable[[str], None]) -> PlayerChannel:
        """The process's subscription to the players whose challenges changed
        (``players:nudged:challenges``, ``server.store.player_channel``)."""
        return PlayerChannel(self._redis, keys.nudges_channel("challenges"), on_nudge)

    async def challenge_setting(self, player_id: str) -> str | None:
        """Who may challenge the player, as stored (None: never set)."""
        value = await self._redis.hget(keys.player(player_id), "challenges")
        return None if value is None else as_text(value)

    async def set_challenge_setting(self, player_id: str, who: str) -> None:
        await self._redis.hset(keys.player(player_id), "challenges", who)


def _record(challenge_id: str, raw: object) -> ChallengeRecord | None:
    """A challenge from its HGETALL reply (a dict from redis-py, a flat list from the direct
    connection); None when gone or cut short. One sent by a process older than the match
    target's field is to the default target, as its room was."""
    if isinstance(raw, dict):
        pairs = list(raw.items())
    else:
        assert isinstance(raw, list)
        pairs = list(zip(raw[::2], raw[1::2], strict=True))
    fields = {as_text(name): as_text(value) for name, value in pairs}
    try:
        return ChallengeRecord(
            id=challenge_id,
            sender=fields["sender"],
            target=fields["target"],
            terms=ChallengeTerms(
                rated=fields["rated"] == "1",
                turn_seconds=int(fields["turn_seconds"]),
                target=int(fields.get("match_target", MATCH_TARGET)),
            ),
            at=int(fields["at"]),
            deadline=int(fields["deadline"]),
            state=fields["state"],
            room=fields.get("room"),
        )
    except (KeyError, ValueError):
        return None
