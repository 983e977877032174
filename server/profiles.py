"""Profiles: a player's record and last matches (``GET /api/players/@HANDLE``, ``/me``).

An account holder's profile is public, found by their handle or any look-alike of it (the
handle's gists, ``server.handles``). A guest has no public page, only their own (``me``). The
matches of rooms that are not public are listed only to their own two players: the request's
bearer token tells who asks. The rating is shown as a leaderboard would (its deviation grown
to now), with its history (one point per rated match, oldest first); the record counts rated
matches apart (``server.rated.RATED_PREFIX``), and each rated match listed has its change.
"""

from __future__ import annotations

import json
import time
from typing import Any

from protocol import codec
from protocol.messages import ErrorCode
from server import glicko, handles
from server.accounts import AccountError, Accounts
from server.rated import RATED_PREFIX
from server.ratings import shown_now
from server.room import hand_id
from server.store import Store

#: The last matches a profile lists.
MATCHES_SHOWN = 20
#: How many of the viewer's own matches are read to tell whether they played a private one.
VIEWER_MATCHES = 1000
RECORD_FIELDS = ("matches", "wins", "hands", "gins", "undercuts", "knocks", "points")
#: The newest rated matches the rating's history (the profile's chart) shows.
HISTORY_SHOWN = 200


async def match_seats(store: Store, room_id: str) -> list[dict[str, Any]] | None:
    """The two seats of a finished match as its first hand's record keeps them (``name``,
    ``name_id``, ``ai``): the names they had then; None when that record is gone."""
    first = await store.get_hand(hand_id(room_id, 1))
    if first is None:
        return None
    data = codec.unpack(first.blob)
    seats = data.get("seats") if isinstance(data, dict) else None
    if not isinstance(seats, list) or len(seats) != 2:
        return None
    if not all(isinstance(seat, dict) for seat in seats):
        return None
    return seats


class Profiles:
    def __init__(self, store: Store, accounts: Accounts) -> None:
        self._store = store
        self._accounts = accounts

    async def by_handle(self, raw_handle: str, token: str | None) -> dict[str, Any]:
        """The public profile of the account holding ``raw_handle`` or a look-alike."""
        try:
            handle = handles.clean_handle(raw_handle)
        except handles.BadHandle as refusal:
            raise AccountError(ErrorCode.BAD_HANDLE, str(refusal)) from None
        viewer = (await self._accounts.authenticate(token)).player_id if token else None
        for digest in handles.handle_digests(handle):
            held = await self._store.handle_holder(digest)
            if held is None:
                continue
            player = await self._store.get_player(held[0])
            # a claim cut short (the key without the hash's handle) is no account
            if player is not None and player.handle is not None:
                return await self._profile(player.player_id, viewer)
        raise AccountError(ErrorCode.UNKNOWN_HANDLE, "no account has this handle", 404)

    async def me(self, token: str | None) -> dict[str, Any]:
        """The asking player's own profile, a guest's too (their private matches included)."""
        account = await self._accounts.authenticate(token)
        return await self._profile(account.player_id, account.player_id)

    async def _profile(self, player_id: str, viewer: str | None) -> dict[str, Any]:
        player = await self._store.get_player(player_id)
        if player is None:
            raise AccountError(ErrorCode.UNKNOWN_HANDLE, "no account has this handle", 404)
        total = {name: int(player.stats.get(name, 0)) for name in RECORD_FIELDS}
        rated = {name: int(player.stats.get(RATED_PREFIX + name, 0)) for name in RECORD_FIELDS}
        casual = {name: max(0, total[name] - rated[name]) for name in RECORD_FIELDS}
        record: dict[str, Any] = _with_average(total)
        record["rated"] = _with_average(rated)
        record["casual"] = _with_average(casual)
        return {
            "handle": player.handle,
            "name": player.name,
            "guest": player.handle is None,
            "me": viewer == player_id,
            "record": record,
            "rating": await self._rating(player_id),
            "rating_history": await self._rating_history(player_id),
            "matches": await self._matches(player_id, viewer),
        }

    async def _rating(self, player_id: str) -> dict[str, Any] | None:
        """The rating as shown now (None: never rated)."""
        stored = await self._store.get_rating(player_id)
        if stored is None:
            return None
        now = shown_now(stored, time.time())
        return {
            "rating": round(now.rating),
            "rd": round(now.rd),
            "shown": glicko.shown(now.rating, now.rd),
            "provisional": glicko.provisional(now.rd),
            "matches": stored.n,
        }

    async def _rating_history(self, player_id: str) -> list[dict[str, Any]]:
        """One point per rated match, oldest first: when, the rating after it, the change.
        No room ids: a private room's id is never published."""
        changes = await self._store.rating_history(player_id, HISTORY_SHOWN)
        return [
            {"at": change["at"], "rating": round(change["after"]), "delta": change["delta"]}
            for change in reversed(changes)
        ]

    async def _matches(self, player_id: str, viewer: str | None) -> list[dict[str, Any]]:
        store = self._store
        entries = []
        for raw, finished_at in await store.player_matches(player_id, MATCHES_SHOWN):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("room"), str):
                entries.append((entry, finished_at))
        shared: set[str] | None = None
        shown = []
        for entry, finished_at in entries:
            if not entry.get("public") and viewer != player_id:
                if viewer is None:
                    continue
                if shared is None:
                    theirs = await store.player_matches(viewer, VIEWER_MATCHES)
                    shared = {_room_of(item) for item, _ in theirs}
                if entry["room"] not in shared:
                    continue
            shown.append(await self._match(entry, finished_at))
        changes = await store.rating_changes(player_id, [match["room"] for match in shown])
        for match in shown:
            change = changes.get(match["room"])
            match["rated"] = change is not None or match["rated"]
            match["rating_change"] = (
                None
                if change is None
                else {key: change[key] for key in ("before", "after", "delta", "shown")}
            )
        return shown

    async def _match(self, entry: dict[str, Any], finished_at: float) -> dict[str, Any]:
        store = self._store
        seat = 1 if entry.get("seat") == 1 else 0
        other = 1 - seat
        winner = entry.get("winner")
        result = "unfinished" if winner not in (0, 1) else "won" if winner == seat else "lost"
        scores = entry.get("scores") or [0, 0]
        opponent: dict[str, Any] = {"name": None, "name_id": None, "ai": entry.get("opponent_ai")}
        seats = await match_seats(store, entry["room"])
        if seats is not None:
            opponent.update(
                {k: seats[other].get(k) for k in ("name", "name_id", "ai") if k in seats[other]}
            )
        handle = None
        if entry.get("opponent"):
            person = await store.get_player(str(entry["opponent"]))
            if person is not None:
                handle = person.handle
                if opponent["name"] is None:
                    opponent["name"] = person.name
        opponent["handle"] = handle
        return {
            "room": entry["room"],
            "result": result,
            "forfeit": entry.get("forfeit") is not None,
            "scores": [scores[seat], scores[other]],
            "hands": entry.get("hands", 0),
            "public": bool(entry.get("public")),
            "rated": bool(entry.get("rated")),
            "opponent": opponent,
            "replay": f"/replay/{hand_id(entry['room'], 1)}?match=1" if seats is not None else None,
            "finished_at": finished_at,
        }


def _with_average(counts: dict[str, int]) -> dict[str, Any]:
    """The record's counters with ``points_per_hand`` (one decimal; None before a hand)."""
    hands = counts["hands"]
    return {**counts, "points_per_hand": round(counts["points"] / hands, 1) if hands else None}


def _room_of(raw: str) -> str:
    try:
        entry = json.loads(raw)
    except ValueError:
        return ""
    return str(entry.get("room", "")) if isinstance(entry, dict) else ""
