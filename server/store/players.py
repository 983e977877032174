"""Players: identity (token hash, name) and stats, one hash per player (``player:ID``)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from server import keys
from server.store._base import StoreBase, as_text, check_text


@dataclass(frozen=True, slots=True)
class Player:
    """A player record. ``created`` is a unix time in seconds; ``stats`` maps stat names to
    counters (absent counters are 0)."""

    player_id: str
    token_hash: str
    name: str
    created: float
    stats: dict[str, int] = field(default_factory=dict)
    #: The hashes of the player's session tokens (an account's, ``server.store.accounts``).
    sessions: frozenset[str] = frozenset()
    #: The account's handle (display form); None for a guest.
    handle: str | None = None


def _stats_of(fields: dict[str, str]) -> dict[str, int]:
    stats: dict[str, int] = {}
    for name, value in fields.items():
        stat = keys.stat_name(name)
        if stat is not None:
            stats[stat] = int(value)
    return stats


class PlayerOps(StoreBase):
    """``player:ID`` hashes: ``token_hash``, ``name``, ``created`` and ``stat:NAME`` counters."""

    async def create_player(
        self, player_id: str, token_hash: str, name: str, *, created: float | None = None
    ) -> bool:
        """Create a player (atomic, ``lua/hash_create.lua``); False if the id is taken.

        ``token_hash`` is a hash of the player's secret token (never the token itself).
        ``created`` defaults to now.
        """
        key = keys.player(player_id)
        check_text(token_hash, "token_hash")
        check_text(name, "name")
        when = time.time() if created is None else float(created)
        reply = await self._run_script(
            self._scripts.hash_create,
            [key],
            ["token_hash", token_hash, "name", name, "created", repr(when)],
        )
        if int(reply) != 1:
            return False
        await self.touch_player(player_id)
        return True

    async def touch_player(self, player_id: str) -> bool:
        """The player was seen: their record lives ``player_ttl_seconds`` from now if they
        ever finished a hand, else ``new_player_ttl_seconds`` (``lua/touch_player.lua``): a
        player who never comes back is forgotten. False if there is no such player."""
        reply = await self._run_script(
            self._scripts.touch_player,
            [keys.player(player_id)],
            [self._config.player_ttl_seconds, self._config.new_player_ttl_seconds],
        )
        return bool(reply)

    async def get_player(self, player_id: str) -> Player | None:
        """The player's record, or None if there is no such player."""
        raw = await self._redis.hgetall(keys.player(player_id))
        if not raw:
            return None
        fields = {as_text(k): as_text(v) for k, v in raw.items()}
        return Player(
            player_id=player_id,
            token_hash=fields.get("token_hash", ""),
            name=fields.get("name", ""),
            created=float(fields.get("created", "0")),
            stats=_stats_of(fields),
            sessions=frozenset(f[8:] for f in fields if f.startswith("session:")),
            handle=fields.get("handle"),
        )

    async def set_player_name(self, player_id: str, name: str) -> bool:
        """Rename a player; False (nothing changed) if there is no such player."""
        key = keys.player(player_id)
        check_text(name, "name")
        reply = await self._run_script(self._scripts.hash_update, [key], ["name", name])
        return int(reply) == 1

    async def add_stats(self, player_id: str, **increments: int) -> dict[str, int] | None:
        """Add to stat counters (HINCRBY each, atomically), e.g. ``add_stats(p, games=1,
        wins=1)``. Returns the new values of those counters, or None (nothing changed) if
        there is no such player. Stat names are ``[a-z][a-z0-9_]*``, at most 32 characters.
        A player's first finished hand (``hands``) keeps their record ``player_ttl_seconds``."""
        key = keys.player(player_id)
        args: list[str | int] = []
        for name, amount in increments.items():
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise ValueError(f"increment of {name!r} must be an int, got {amount!r}")
            args += [keys.stat_field(name), amount]
        if not args:
            return await self.get_stats(player_id)
        reply = await self._run_script(self._scripts.hash_incr, [key], args)
        if reply is None:
            return None
        if increments.get("hands", 0) > 0:
            await self.touch_player(player_id)
        return {name: int(value) for name, value in zip(increments, reply, strict=True)}

    async def get_stats(self, player_id: str) -> dict[str, int] | None:
        """All stat counters of a player, or None if there is no such player."""
        raw = await self._redis.hgetall(keys.player(player_id))
        if not raw:
            return None
        return _stats_of({as_text(k): as_text(v) for k, v in raw.items()})
