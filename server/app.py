"""The Starlette application: HTTP routes, the websocket route, and the process lifecycle."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from protocol import codec
from protocol.messages import Reconnect
from server import keys, logs, metrics
from server.addresses import AddressCounter, TrustedProxies
from server.ai_dispatch import AiDispatcher
from server.ai_seats import AiSeatKeeper
from server.blobs import RoomBlobs
from server.connection import Connection
from server.frames import FrameParts
from server.hub import Hub
from server.live import LIVE_LIMIT
from server.reuse import Histories
from server.service import Service
from server.settings import Settings
from server.store import Store, StoreConfig
from server.ws import serve_websocket

log = logging.getLogger(__name__)

WEB_ROOT = Path(__file__).resolve().parent.parent / "client" / "web" / "dist"

PLACEHOLDER_PAGE = """<!doctype html><html lang="en"><meta charset="utf-8">
<title>Gin Rummy server</title>
<h1>Gin Rummy server</h1>
<p>The server is running. The web client is not built yet; the websocket endpoint is
<code>/ws</code> (see docs/protocol.md), finished hands are at <code>/api/hands</code>.</p>
"""


class WebAssets(StaticFiles):
    """The built web client's files (``client/web/dist/assets``): a plain 404, not a server
    error, while the client is not built."""

    async def check_config(self) -> None:
        return None


async def index(request: Request) -> Response:
    page = WEB_ROOT / "index.html"
    if page.is_file():
        return FileResponse(page)
    return HTMLResponse(PLACEHOLDER_PAGE)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    store: Store = request.app.state.store
    try:
        ready = await asyncio.wait_for(store.ping(), timeout=2.0)
    except Exception:
        ready = False
    if not ready:
        return JSONResponse({"status": "redis unreachable"}, status_code=503)
    if not request.app.state.feed.connected:
        return JSONResponse({"status": "room feed down"}, status_code=503)
    if request.app.state.draining:
        return JSONResponse({"status": "shutting down"}, status_code=503)
    return JSONResponse({"status": "ready"})


async def metrics_endpoint(request: Request) -> Response:
    store: Store = request.app.state.store
    with contextlib.suppress(Exception):
        metrics.ROOMS.set(await store.active_room_count())
    return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)


async def hand(request: Request) -> Response:
    """A finished hand with every card shown, for replays (``events`` replay it move by move)."""
    hand_id = request.path_params["hand_id"]
    try:
        keys.check_id(hand_id, "hand id")
    except ValueError:
        return JSONResponse({"error": "not_found", "message": "no such hand"}, status_code=404)
    store: Store = request.app.state.store
    record = await store.get_hand(hand_id)
    if record is None:
        return JSONResponse({"error": "not_found", "message": "no such hand"}, status_code=404)
    data: Any = codec.unpack(record.blob)
    data["finished_at"] = record.finished_at
    return JSONResponse(data)


async def hands(request: Request) -> Response:
    service: Service = request.app.state.service
    try:
        limit = max(1, min(100, int(request.query_params.get("limit", "20"))))
    except ValueError:
        limit = 20
    return JSONResponse({"hands": await service.recent_hands(limit)})


async def live(request: Request) -> Response:
    service: Service = request.app.state.service
    try:
        limit = int(request.query_params.get("limit", str(LIVE_LIMIT)))
    except ValueError:
        limit = LIVE_LIMIT
    return JSONResponse({"rooms": await service.live.listing(limit)})


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        logs.configure(settings.log_level, settings.log_format)
        store = await Store.connect(
            settings.redis_url,
            StoreConfig(
                events_maxlen=settings.event_history,
                hand_ttl_seconds=settings.hand_retention_seconds,
                player_ttl_seconds=settings.player_retention_seconds,
                cluster=settings.redis_cluster,
                wait_replicas=settings.redis_wait_replicas,
                wait_timeout_ms=settings.redis_wait_timeout_ms,
                failover_seconds=settings.redis_failover_seconds,
                new_player_ttl_seconds=settings.new_player_retention_seconds,
                room_ttl_seconds=settings.room_idle_seconds,
                finished_history_seconds=settings.finished_history_seconds,
            ),
        )
        feed = store.feed()
        await feed.start()
        # The encoded history of a hand serves the stored room and the views alike.
        histories = Histories()
        blobs = RoomBlobs(histories)
        hub = Hub(store, feed, FrameParts(histories))
        hub.start()
        ai_seats = AiSeatKeeper(store, hub, settings.ai_lease_seconds)
        dispatcher = AiDispatcher(store, ai_seats.played_here)
        dispatcher.start()
        service = Service(store, hub, blobs, settings, dispatcher, ai_seats)
        app.state.settings = settings
        app.state.store = store
        app.state.feed = feed
        app.state.service = service
        app.state.connections = set()
        app.state.addresses = AddressCounter(settings.max_connections_per_address)
        app.state.trusted_proxies = TrustedProxies(settings.trusted_proxies)
        app.state.draining = False
        clock = asyncio.create_task(service.upkeep.run(settings.turn_clock_interval))
        # Everything allocated so far lives as long as the process: keep it out of the
        # collector's way, and collect less often (a full collection pauses every game).
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        log.info("server ready", extra={"redis": settings.redis_url})
        try:
            yield
        finally:
            clock.cancel()
            await drain(app)
            await dispatcher.stop()
            await hub.stop()
            await feed.close()
            await store.close()
            log.info("server stopped")

    return Starlette(
        routes=[
            Route("/", index),
            # Deep links of the web client: the page reads its route from the address.
            Route("/room/{room_id}", index),
            Route("/join/{code}", index),
            Route("/replay/{hand_id}", index),
            Route("/rules", index),
            # The built web client's files (hashed names); absent until `npm run build`.
            Mount("/assets", WebAssets(directory=WEB_ROOT / "assets", check_dir=False)),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint),
            Route("/api/hands", hands),
            Route("/api/live", live),
            Route("/api/hands/{hand_id}", hand),
            WebSocketRoute("/ws", serve_websocket),
        ],
        # A Host header of another name is refused (400): DNS rebinding (docs/security.md).
        middleware=[
            Middleware(
                TrustedHostMiddleware,
                allowed_hosts=list(settings.allowed_hosts),
                www_redirect=False,
            )
        ],
        lifespan=lifespan,
    )


async def drain(app: Starlette) -> None:
    """Stop taking work: /readyz turns 503, AI workers get no new seats, and every client is
    told to reconnect (to another process) and resume."""
    if app.state.draining:
        return
    app.state.draining = True
    connections: set[Connection] = app.state.connections
    for conn in list(connections):
        conn.send(Reconnect(reason="server shutting down", retry_ms=500))
        conn.bye("going_away", "server shutting down; reconnect and resume")
    await asyncio.gather(*(conn.drain_and_stop() for conn in list(connections)))
