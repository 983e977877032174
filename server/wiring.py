"""The composition root: every long-lived object of one server process, made and connected
here and nowhere else, started in order and stopped in the reverse order.

``server.app`` asks for the parts in its lifespan and hands the HTTP routes and the websocket
loop what they use; the objects themselves take their collaborators as arguments and build
none of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from protocol.messages import NUDGE_SINCE_MINOR, ErrorCode, Nudge
from server.accounts import Accounts
from server.ai_dispatch import AiDispatcher
from server.ai_seats import AiSeatKeeper
from server.blobs import RoomBlobs
from server.challenge_rooms import ChallengeRooms
from server.challenges import Challenges
from server.commits import Commits
from server.connection import Connection
from server.frames import FrameParts
from server.handlers.dispatch import dispatch_table
from server.handlers.play import Play
from server.handlers.players import Players
from server.handlers.reviews import Reviews
from server.handlers.rooms import Rooms
from server.handlers.talk import Talk
from server.handlers.workers import Workers
from server.hub import Hub
from server.limits import Limits
from server.live import LiveRooms
from server.matchmaking import RatedMatcher
from server.periodic import Upkeep
from server.presence import PresenceKeeper
from server.ratings import Ratings
from server.reuse import Histories
from server.service import Service
from server.settings import Settings
from server.store import RoomFeed, Store, StoreConfig


def store_config(settings: Settings) -> StoreConfig:
    """The store's part of the settings."""
    return StoreConfig(
        events_maxlen=settings.event_history,
        hand_ttl_seconds=settings.hand_retention_seconds,
        player_ttl_seconds=settings.player_retention_seconds,
        cluster=settings.redis_cluster,
        wait_replicas=settings.redis_wait_replicas,
        wait_timeout_ms=settings.redis_wait_timeout_ms,
        failover_seconds=settings.redis_failover_seconds,
        tls_ca=settings.redis_ca,
        tls_cert=settings.redis_cert,
        tls_key=settings.redis_key,
        new_player_ttl_seconds=settings.new_player_retention_seconds,
        room_ttl_seconds=settings.room_idle_seconds,
        finished_history_seconds=settings.finished_history_seconds,
    )


@dataclass(slots=True)
class ServerParts:
    """What one process runs: the store and its feed, the hub, the AI dispatch, the request
    handlers behind the service, and the periodic upkeep."""

    settings: Settings
    store: Store
    feed: RoomFeed
    hub: Hub
    dispatcher: AiDispatcher
    players: Players
    live: LiveRooms
    ratings: Ratings
    service: Service
    upkeep: Upkeep
    accounts: Accounts
    challenges: Challenges
    connections: set[Connection] = field(default_factory=set)
    clock: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, settings: Settings) -> ServerParts:
        store = await Store.connect(settings.redis_url, store_config(settings))
        feed = store.feed()
        await feed.start()
        # The encoded history of a hand serves the stored room and the views alike.
        histories = Histories()
        blobs = RoomBlobs(histories)
        hub = Hub(store, feed, FrameParts(histories), blobs)
        hub.start()
        ai_seats = AiSeatKeeper(store, hub, settings.ai_lease_seconds)
        dispatcher = AiDispatcher(store, ai_seats.played_here)
        dispatcher.start()
        limits = Limits(store, settings)
        ratings = Ratings(store)
        commits = Commits(store, hub, blobs, settings, limits, ratings)
        matcher = RatedMatcher(store, commits, limits)
        live = LiveRooms(store)
        players = Players(store, settings, limits, live)
        rooms = Rooms(store, hub, commits, settings, dispatcher, ai_seats, limits, ratings, matcher)
        workers = Workers(store, dispatcher, ai_seats)
        handlers = dispatch_table(
            players,
            rooms,
            Play(store, hub, commits),
            Talk(store, hub, settings),
            workers,
            Reviews(store, settings),
        )
        connections: set[Connection] = set()
        presence = PresenceKeeper(store, hub.process_id, connections, settings.presence_seconds)
        service = Service(handlers, hub=hub, rooms=rooms, workers=workers, presence=presence)
        upkeep = Upkeep(store, hub, commits, settings, ai_seats, matcher, presence)
        accounts = Accounts(store, settings, lambda player: cut_off(connections, player))
        await accounts.start()
        challenges = Challenges(
            store,
            accounts,
            ChallengeRooms(store, commits, limits, ratings, settings),
            settings,
            lambda player: nudge(connections, player, "challenges"),
        )
        await challenges.start()
        parts = cls(
            settings,
            store,
            feed,
            hub,
            dispatcher,
            players,
            live,
            ratings,
            service,
            upkeep,
            accounts,
            challenges,
            connections,
        )
        parts.clock = asyncio.create_task(upkeep.run(settings.turn_clock_interval))
        return parts

    def stop_upkeep(self) -> None:
        """No more turn clocks, stand-ins or sweeps from this process (it is draining)."""
        if self.clock is not None:
            self.clock.cancel()

    async def stop(self) -> None:
        """Everything stopped, in the reverse order of its start (after the connections have
        been drained)."""
        self.stop_upkeep()
        if self.clock is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.clock
        await self.challenges.stop()
        await self.accounts.stop()
        await self.dispatcher.stop()
        await self.hub.stop()
        await self.feed.close()
        await self.store.close()


def nudge(connections: set[Connection], player_id: str, about: str) -> None:
    """Every open connection of the player on this process whose protocol knows ``nudge`` is
    told to read ``about`` again (never an AI worker)."""
    for conn in list(connections):
        if (
            conn.player_id == player_id
            and not conn.is_worker
            and conn.protocol_minor >= NUDGE_SINCE_MINOR
        ):
            conn.send(Nudge(about=about))


def cut_off(connections: set[Connection], player_id: str) -> None:
    """Every open connection of the player on this process is closed: they signed out
    everywhere (or deleted the account)."""
    for conn in list(connections):
        if conn.player_id == player_id:
            conn.bye(ErrorCode.SIGNED_OUT.value, "signed out everywhere; sign in again")
