"""The Starlette application: HTTP routes, the websocket route, and the process lifecycle."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
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
from protocol.messages import ErrorCode, Reconnect
from server import collector, keys, logs, metrics
from server.account_routes import ROUTES as ACCOUNT_ROUTES
from server.accounts import AccountError
from server.addresses import AddressCounter, TrustedProxies
from server.connection import Connection
from server.live import LIVE_LIMIT
from server.settings import Settings
from server.store import redact
from server.wiring import ServerParts
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
    parts: ServerParts = request.app.state.parts
    try:
        ready = await asyncio.wait_for(parts.store.ping(), timeout=2.0)
    except Exception:
        ready = False
    if not ready:
        return JSONResponse({"status": "redis unreachable"}, status_code=503)
    if not parts.feed.connected:
        return JSONResponse({"status": "room feed down"}, status_code=503)
    if request.app.state.draining:
        return JSONResponse({"status": "shutting down"}, status_code=503)
    return JSONResponse({"status": "ready"})


async def metrics_endpoint(request: Request) -> Response:
    parts: ServerParts = request.app.state.parts
    with contextlib.suppress(Exception):
        metrics.ROOMS.set(await parts.store.active_room_count())
    with contextlib.suppress(Exception):
        queue = await parts.store.ai_queue_summary()
        oldest = 0.0 if queue.oldest_ms is None else time.time() - queue.oldest_ms / 1000
        metrics.AI_SEATS.read(await parts.store.ai_in_use(), queue.waiting, max(0.0, oldest))
    return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)


def _no_such_hand() -> Response:
    return JSONResponse({"error": "not_found", "message": "no such hand"}, status_code=404)


def _hand_id(request: Request) -> str | None:
    """The hand id of the path, or None when it cannot be one."""
    hand_id: str = request.path_params["hand_id"]
    try:
        keys.check_id(hand_id, "hand id")
    except ValueError:
        return None
    return hand_id


async def hand(request: Request) -> Response:
    """A finished hand with every card shown, for replays (``events`` replay it move by move)."""
    hand_id = _hand_id(request)
    parts: ServerParts = request.app.state.parts
    record = None if hand_id is None else await parts.store.get_hand(hand_id)
    if record is None:
        return _no_such_hand()
    data: Any = codec.unpack(record.blob)
    data["finished_at"] = record.finished_at
    return JSONResponse(data)


async def hand_review(request: Request) -> Response:
    """Where the review of a finished hand stands, and the review once done (to whoever has
    the hand's id, like its replay): ``state`` ``none``, ``queued``, ``running`` or ``done``."""
    hand_id = _hand_id(request)
    parts: ServerParts = request.app.state.parts
    status = None if hand_id is None else await parts.store.review_status(hand_id)
    if status is None:
        return _no_such_hand()
    data: dict[str, Any] = {
        "hand": hand_id,
        "state": status.state,
        "done": status.done,
        "total": status.total,
    }
    if status.blob is not None:
        data["review"] = codec.unpack(status.blob)
    return JSONResponse(data)


async def hands(request: Request) -> Response:
    parts: ServerParts = request.app.state.parts
    try:
        limit = max(1, min(100, int(request.query_params.get("limit", "20"))))
    except ValueError:
        limit = 20
    return JSONResponse({"hands": await parts.players.recent_hands(limit)})


async def live(request: Request) -> Response:
    parts: ServerParts = request.app.state.parts
    try:
        limit = int(request.query_params.get("limit", str(LIVE_LIMIT)))
    except ValueError:
        limit = LIVE_LIMIT
    return JSONResponse({"rooms": await parts.live.listing(limit)})


async def leaderboard(request: Request) -> Response:
    """The top 100 by rating of the non-provisional players rated in the last 30 days; with
    ``Authorization: Bearer TOKEN``, the viewer's own rank and rating (``you``). A token that
    is not a player's (a guest's, or any signed-in session of an account) is refused (401
    ``bad_token``), never taken for nobody."""
    parts: ServerParts = request.app.state.parts
    viewer = None
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        try:
            if scheme.lower() != "bearer" or not token.strip():
                raise AccountError(ErrorCode.BAD_TOKEN, "unknown or revoked token", 401)
            viewer = (await parts.accounts.authenticate(token.strip())).player_id
        except AccountError as refusal:
            return JSONResponse(
                {"error": ErrorCode.BAD_TOKEN.value, "message": refusal.message}, status_code=401
            )
    return JSONResponse(await parts.ratings.leaderboard(viewer))


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        logs.configure(settings.log_level, settings.log_format)
        parts = await ServerParts.start(settings)
        app.state.parts = parts
        app.state.settings = settings
        app.state.service = parts.service
        app.state.connections = parts.connections
        app.state.addresses = AddressCounter(settings.max_connections_per_address)
        app.state.trusted_proxies = TrustedProxies(settings.trusted_proxies)
        app.state.draining = False
        collector.settle()
        full_collections = asyncio.create_task(collector.collect_every(settings.full_gc_seconds))
        log.info("server ready", extra={"redis": redact(settings.redis_url)})
        try:
            yield
        finally:
            full_collections.cancel()
            parts.stop_upkeep()
            await drain(app)
            await parts.stop()
            log.info("server stopped")

    return Starlette(
        routes=[
            Route("/", index),
            # Deep links of the web client: the page reads its route from the address.
            Route("/room/{room_id}", index),
            Route("/join/{code}", index),
            Route("/replay/{hand_id}", index),
            Route("/rules", index),
            Route("/leaderboard", index),
            Route("/@/{handle}", index),
            # The built web client's files (hashed names); absent until `npm run build`.
            Mount("/assets", WebAssets(directory=WEB_ROOT / "assets", check_dir=False)),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint),
            Route("/api/hands", hands),
            Route("/api/live", live),
            Route("/api/leaderboard", leaderboard),
            Route("/api/hands/{hand_id}", hand),
            Route("/api/hands/{hand_id}/review", hand_review),
            *ACCOUNT_ROUTES,
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
