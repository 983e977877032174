"""Who is speaking (``hello``, ``set_name``), their statistics, and the lobby."""

from __future__ import annotations

import hmac
from typing import Any

from protocol import codec
from protocol import messages as m
from protocol.ai_ratings import LEVEL_RATINGS
from protocol.messages import ErrorCode
from server import identity, names
from server.connection import Connection
from server.limits import Limits
from server.live import LiveRooms
from server.requests import Reply, RequestFailed
from server.settings import Settings
from server.store import Store

SERVER_VERSION = "gin-rummy-server/0.1"
STAT_FIELDS = ("matches", "wins", "hands", "gins", "undercuts", "points")


class Players:
    def __init__(self, store: Store, settings: Settings, limits: Limits, live: LiveRooms) -> None:
        self._live = live
        self._limits = limits
        self._store = store
        self._settings = settings

    async def hello(self, conn: Connection, message: m.Hello) -> Reply:
        if not m.is_compatible(message.version):
            raise RequestFailed(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol {m.PROTOCOL_VERSION}, not {message.version}",
                {"supported": m.PROTOCOL_VERSION},
            )
        if conn.player_id is not None:
            raise RequestFailed(ErrorCode.INVALID_ARGUMENT, "hello was already sent")
        if message.worker_key is not None:
            expected = self._settings.ai_worker_key
            if expected is None or not hmac.compare_digest(message.worker_key, expected):
                raise RequestFailed(ErrorCode.BAD_TOKEN, "wrong AI worker key")
        store = self._store
        token = message.token
        if token is not None:
            player_id = identity.token_player_id(token)
            player = await store.get_player(player_id) if player_id else None
            if player is None or not identity.token_known(
                token, player.token_hash, player.sessions
            ):
                raise RequestFailed(ErrorCode.BAD_TOKEN, "unknown or revoked token")
            await store.touch_player(player.player_id)
            worker = message.worker_key is not None  # a wrong key was refused above
            name = names.kept_name(player.name, player.player_id, ai_worker=worker)
            wanted = name if message.name is None else _clean_name(message.name, ai_worker=worker)
            if wanted != player.name:
                await store.set_player_name(player.player_id, wanted)
                name = wanted
            conn.player_id = player.player_id
            handle = player.handle
        else:
            player_id = identity.new_player_id()
            token = identity.new_token(player_id)
            if message.name is not None:
                name = _clean_name(message.name, ai_worker=message.worker_key is not None)
            else:
                name = names.default_name(player_id)
            await self._limits.count_new_player(conn, worker=message.worker_key is not None)
            await store.create_player(player_id, identity.hash_token(token), name)
            conn.player_id = player_id
            handle = None
        conn.name = name
        conn.client = message.client
        conn.is_worker = message.worker_key is not None
        conn.protocol_minor = m.parse_version(message.version)[1]
        return Reply(
            {
                "player_id": conn.player_id,
                "name": name,
                "name_id": names.name_id(name, conn.player_id),
                "token": token,
                "handle": handle,
                "protocol": m.PROTOCOL_VERSION,
                "server": SERVER_VERSION,
                # the turn clock a room between people gets when it asks for none (quick
                # match always): what the lobby shows before a room is made
                "turn_seconds": self._settings.default_turn_seconds,
                # how long a person of a room between people may be away before the other
                # may claim the win or call a stand-in: the countdown the other is shown
                "away_grace": self._settings.disconnect_grace_seconds,
                # each AI level's rating on the players' scale, shown beside it in the lobby
                "ai_ratings": dict(LEVEL_RATINGS),
            }
        )

    async def set_name(self, conn: Connection, message: m.SetName) -> Reply:
        assert conn.player_id is not None
        name = _clean_name(message.name, ai_worker=conn.is_worker)
        await self._store.set_player_name(conn.player_id, name)
        conn.name = name
        return Reply({"name": name, "name_id": names.name_id(name, conn.player_id)})

    async def stats(self, conn: Connection, message: m.Stats) -> Reply:
        assert conn.player_id is not None
        stats = await self._store.get_stats(conn.player_id) or {}
        return Reply({name: int(stats.get(name, 0)) for name in STAT_FIELDS})

    async def lobby(self, conn: Connection, message: m.Lobby) -> Reply:
        assert conn.player_id is not None
        mine = await self._store.player_hands(conn.player_id, 20)
        return Reply(
            {
                "recent_hands": await self.recent_hands(20),
                "my_hands": await self._hand_summaries(mine, public_only=False),
                "live": await self._live.listing(),
                # the rooms in play of this player on any device (an account signed in here)
                "my_rooms": [
                    {"room": room, "kind": kind}
                    for room, kind in sorted(
                        (await self._store.player_rooms(conn.player_id)).items()
                    )
                ],
            }
        )

    async def recent_hands(self, limit: int) -> list[dict[str, Any]]:
        """The public list: finished hands of public rooms, newest first."""
        return await self._hand_summaries(await self._store.recent_hands(limit), public_only=True)

    async def _hand_summaries(
        self, hand_ids: list[str], *, public_only: bool
    ) -> list[dict[str, Any]]:
        summaries = []
        for recent_id in hand_ids:
            record = await self._store.get_hand(recent_id)
            if record is None or (public_only and not record.public):
                continue
            data = codec.unpack(record.blob)
            if isinstance(data, dict):
                summaries.append(
                    {
                        "id": recent_id,
                        "room": record.room_id,
                        "players": data.get("players"),
                        "seats": data.get("seats"),
                        "result": data.get("result"),
                        "finished_at": record.finished_at,
                    }
                )
        return summaries


def _clean_name(raw: str, *, ai_worker: bool) -> str:
    try:
        return names.clean_name(raw, ai_worker=ai_worker)
    except names.BadName as refusal:
        raise RequestFailed(ErrorCode.BAD_NAME, str(refusal)) from None
