"""Challenges: an account holder challenges a friend, or any account holder whose setting
allows it, to a match (rated or casual, with a turn clock, to a target of points); the one
challenged accepts (both are seated in a new room: ``server.challenge_rooms``) or declines, the
sender may cancel, and a challenge not answered within ``GIN_CHALLENGE_SECONDS`` (a minute)
expires (``/api/challenges``, docs/protocol.md "Challenges").

Delivery is a small inbox per account that every page of a signed-in player reads every
second (``listed``): the challenges to them and the outcomes of their own. All of it lives in
Redis (``{challenges}``, ``server.keys``), so the two may be on different server processes.
Each change also nudges the other player's connections on every process (a ``nudge`` frame,
``players:nudged:challenges``) to read it at once: a browser runs the timers of a tab hidden
for long once a minute, and the nudge is what still shows a challenge there within the
minute it lasts.

A block keeps the two apart: a challenge between them is refused with the same neutral
``challenge_refused`` as one to a player whose setting does not take it, so the sender cannot
tell a block from a setting; a challenge sent before a block (or before its sender was
banned: docs/moderation.md) is no longer listed to the one challenged, and cannot be
accepted. A challenge tells the sender nothing of the other's presence: it is stored and
answered alike whether they are online or not (docs/security.md, "Challenges").
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Literal, get_args

from protocol.messages import ErrorCode
from protocol.scoring import MATCH_TARGET
from server.accounts import AccountError, Accounts
from server.blocking import either_blocks
from server.challenge_rooms import ChallengeRooms, new_challenge_room_id
from server.requests import RequestFailed
from server.settings import Settings
from server.store import Store
from server.store.challenges import ChallengeRecord, ChallengeTerms
from server.targets import player_by_handle

__all__ = ["WHO_MAY_CHALLENGE", "Challenges"]

log = logging.getLogger(__name__)

#: The most open challenges of one sender.
MAX_OPEN = 3
#: Challenges one player may send per window, and the window (s).
CHALLENGE_REQUESTS = 30
CHALLENGE_WINDOW_SECONDS = 600
#: A challenge's outcome is kept for its sender this long past its deadline (ms).
KEEP_MS = 60_000
#: The longest turn clock a challenge may ask for (s), as ``create_room``'s.
MAX_TURN_SECONDS = 3600
#: The most points a challenge's match may be played to, as ``create_room``'s rules.
MAX_TARGET = 10_000

WhoMayChallenge = Literal["friends", "everyone", "nobody"]
WHO_MAY_CHALLENGE: tuple[WhoMayChallenge, ...] = get_args(WhoMayChallenge)
DEFAULT_WHO: WhoMayChallenge = "friends"

NEUTRAL_REFUSAL = "this player takes no challenge from you now"


def _refused() -> AccountError:
    return AccountError(ErrorCode.CHALLENGE_REFUSED, NEUTRAL_REFUSAL, 403)


def _no_challenge(state: str | None = None) -> AccountError:
    detail = {"state": state} if state else None
    return AccountError(ErrorCode.NO_CHALLENGE, "no such challenge open to you", 404, detail)


def _timed_out() -> AccountError:
    return AccountError(
        ErrorCode.CHALLENGE_TIMED_OUT, "this challenge expired: it was not answered in time", 410
    )


class Challenges:
    """``nudge_here(player_id)`` tells this process's connections of the player to read their
    challenges again; every process runs it for each change (``start`` subscribes)."""

    def __init__(
        self,
        store: Store,
        accounts: Accounts,
        rooms: ChallengeRooms,
        settings: Settings,
        nudge_here: Callable[[str], None],
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._rooms = rooms
        self._settings = settings
        self._nudges = store.challenge_nudges(nudge_here)

    async def start(self) -> None:
        await self._nudges.start()

    async def stop(self) -> None:
        await self._nudges.stop()

    async def _nudge(self, player_id: str) -> None:
        """Tell every process: the player's challenges changed. Best effort: the change is
        stored, and the player's pages read it within a second all the same."""
        try:
            await self._nudges.publish(player_id)
        except Exception:
            log.warning("nudging a player failed", exc_info=True, extra={"player": player_id})

    async def _member(self, token: str | None) -> str:
        return await self._accounts.holder(token, "challenges")

    def _terms(self, data: dict[str, Any]) -> ChallengeTerms:
        rated = data.get("rated", False)
        if not isinstance(rated, bool):
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "rated: true or false")
        clock = data.get("turn_seconds", self._settings.default_turn_seconds)
        if not _whole(clock, 0, MAX_TURN_SECONDS):
            raise AccountError(
                ErrorCode.INVALID_ARGUMENT,
                f"turn_seconds: a whole number of seconds, 0 to {MAX_TURN_SECONDS}",
            )
        target = data.get("target", MATCH_TARGET)
        if not _whole(target, 1, MAX_TARGET):
            raise AccountError(
                ErrorCode.INVALID_ARGUMENT,
                f"target: the points the match is played to, a whole number 1 to {MAX_TARGET}",
            )
        return ChallengeTerms(rated=rated, turn_seconds=clock, target=target)

    async def _may_challenge(self, me: str, other: str) -> bool:
        """Whether ``other`` takes a challenge from ``me``: no block either way, and their
        setting allows it (friends only unless set)."""
        if await either_blocks(self._store, me, other):
            return False
        who = await self._store.challenge_setting(other) or DEFAULT_WHO
        if who == "everyone":
            return True
        if who == "friends":
            return await self._store.are_friends(me, other)
        return False

    async def send(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """Challenge the holder of ``handle`` with the ``rated``, ``turn_seconds`` and
        ``target`` asked."""
        me = await self._member(token)
        other = await player_by_handle(self._store, data.get("handle"))
        if other == me:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "a player cannot challenge themselves")
        terms = self._terms(data)
        if not await self._store.count_challenge(me, CHALLENGE_REQUESTS, CHALLENGE_WINDOW_SECONDS):
            raise AccountError(
                ErrorCode.TOO_MANY_CHALLENGE_REQUESTS,
                f"at most {CHALLENGE_REQUESTS} challenges in {CHALLENGE_WINDOW_SECONDS // 60}"
                " minutes",
                429,
                {"retry_after": CHALLENGE_WINDOW_SECONDS, "limit": CHALLENGE_REQUESTS},
            )
        if not await self._may_challenge(me, other):
            raise _refused()
        now = _now_ms()
        deadline = now + self._settings.challenge_seconds * 1000
        challenge_id = secrets.token_urlsafe(12)
        word = await self._store.send_challenge(
            challenge_id, me, other, terms, now, deadline, KEEP_MS, MAX_OPEN
        )
        if word == "too_many_open":
            raise AccountError(
                ErrorCode.TOO_MANY_CHALLENGES,
                f"at most {MAX_OPEN} challenges wait for an answer; cancel one first",
                409,
                {"limit": MAX_OPEN},
            )
        if word != "sent":
            raise AccountError(ErrorCode.INTERNAL, "the challenge could not be stored; try again")
        await self._nudge(other)
        record = await self._store.get_challenge(challenge_id)
        assert record is not None
        return {"challenge": await self._sent_entry(record, now)}

    async def listed(self, token: str | None) -> dict[str, Any]:
        """The open challenges to the asker (from players no block keeps apart) and the ones
        they sent with their outcome; what every page of theirs reads every second."""
        me = await self._member(token)
        now = _now_ms()
        received, sent = await self._store.challenge_lists(me, now)
        shown = await asyncio.gather(*(self._received_entry(me, r, now) for r in received))
        return {
            "received": [entry for entry in shown if entry is not None],
            "sent": [await self._sent_entry(record, now) for record in sent],
            "limit": MAX_OPEN,
        }

    async def _received_entry(
        self, me: str, record: ChallengeRecord, now: int
    ) -> dict[str, Any] | None:
        if record.state != "open" or record.deadline <= now:
            return None
        card, blocked, banned = await asyncio.gather(
            self._store.friend_card(record.sender),
            either_blocks(self._store, me, record.sender),
            self._store.ban_of(record.sender),
        )
        if card is None or blocked or banned is not None:
            return None
        return {**_terms_entry(record, now), "from": {"handle": card.handle, "name": card.name}}

    async def _sent_entry(self, record: ChallengeRecord, now: int) -> dict[str, Any]:
        card = await self._store.friend_card(record.target)
        state = record.state
        if state == "open" and record.deadline <= now:
            state = "expired"
        entry: dict[str, Any] = {
            **_terms_entry(record, now),
            "to": {"handle": card.handle if card else None, "name": card.name if card else None},
            "state": state,
        }
        if state == "accepted" and record.room is not None:
            entry["room"] = record.room
        return entry

    async def _own(
        self, me: str, data: dict[str, Any], side: Literal["sender", "target"]
    ) -> ChallengeRecord:
        raw = data.get("id")
        if not isinstance(raw, str) or not 1 <= len(raw) <= 64:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "id: a challenge's id")
        try:
            record = await self._store.get_challenge(raw)
        except ValueError:
            raise AccountError(ErrorCode.INVALID_ARGUMENT, "id: a challenge's id") from None
        if record is None or getattr(record, side) != me:
            raise _no_challenge()
        return record

    async def _answered(self, word: str) -> None:
        if word == "expired":
            raise _timed_out()
        if word != "ok":
            raise _no_challenge(None if word == "none" else word)

    async def accept(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """Accept challenge ``id``: both are seated in a new room; its id."""
        me = await self._member(token)
        record = await self._own(me, data, "target")
        if await either_blocks(self._store, me, record.sender):
            raise _no_challenge()
        if await self._store.ban_of(record.sender) is not None:  # banned since: no match
            raise _no_challenge()
        room_id = new_challenge_room_id()
        players = (record.sender, me)
        try:
            await self._rooms.claim(room_id, players)
        except RequestFailed as failure:  # either one at a limit: the challenge stays open
            raise AccountError(failure.code, failure.message, 409, failure.detail) from None
        try:
            await self._answered(
                await self._store.answer_challenge("accept", record, _now_ms(), room_id)
            )
        except AccountError:
            await self._rooms.release(room_id, players)
            raise
        try:
            await self._rooms.open(room_id, record.sender, me, record.terms)
        except RequestFailed as failure:
            await self._store.challenge_failed(record.id)
            await self._rooms.release(room_id, players)
            await self._nudge(record.sender)
            raise AccountError(failure.code, failure.message, 409, failure.detail) from None
        await self._nudge(record.sender)  # the sender's pages go to the table
        return {"room": room_id, "seat": 1, "rated": record.terms.rated}

    async def decline(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        me = await self._member(token)
        record = await self._own(me, data, "target")
        await self._answered(await self._store.answer_challenge("decline", record, _now_ms()))
        await self._nudge(record.sender)
        return {"declined": True}

    async def cancel(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        me = await self._member(token)
        record = await self._own(me, data, "sender")
        await self._answered(await self._store.answer_challenge("cancel", record, _now_ms()))
        await self._nudge(record.target)
        return {"cancelled": True}

    async def setting(self, token: str | None) -> dict[str, Any]:
        me = await self._member(token)
        return {"who": await self._store.challenge_setting(me) or DEFAULT_WHO}

    async def set_setting(self, token: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """Who may challenge the asker: ``friends`` (the default), ``everyone`` or ``nobody``."""
        me = await self._member(token)
        who = data.get("who")
        if who not in WHO_MAY_CHALLENGE:
            raise AccountError(
                ErrorCode.INVALID_ARGUMENT, f"who: one of {', '.join(WHO_MAY_CHALLENGE)}"
            )
        await self._store.set_challenge_setting(me, str(who))
        return {"who": who}


def _terms_entry(record: ChallengeRecord, now: int) -> dict[str, Any]:
    return {
        "id": record.id,
        "rated": record.terms.rated,
        "turn_seconds": record.terms.turn_seconds,
        "target": record.terms.target,
        "at": record.at,
        "deadline": record.deadline,
        "seconds_left": max(0, (record.deadline - now + 999) // 1000),
    }


def _whole(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is a whole number (not a boolean) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _now_ms() -> int:
    return int(time.time() * 1000)
