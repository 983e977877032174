"""All Redis access: rooms, room feeds, players, lobby, finished hands, AI seat requests.

Only this package imports ``redis``; key names come from ``server.keys``; the atomic parts are
the Lua scripts in ``server/lua/``. Values are ``bytes`` the caller encodes.
"""

from server.store._base import ReplicationTimeout, StoreConfig
from server.store.ai import AiQueueSummary, AiSeatRequest, QueuedSeat
from server.store.core import Store
from server.store.errors import store_unavailable
from server.store.feed import (
    FeedItem,
    FeedReconnected,
    RoomFeed,
    RoomSaid,
    RoomUpdate,
    decode_room_message,
    encode_room_message,
)
from server.store.hands import HandRecord
from server.store.lobby import QuickMatch, QuickMatchStatus
from server.store.players import Player
from server.store.quotas import RoomClaim, RoomClaimResult
from server.store.resp import redact
from server.store.reviews import ReviewStatus
from server.store.rooms import CommitResult, CommitStatus
from server.store.talk import TalkResult, TalkStatus

__all__ = [
    "AiQueueSummary",
    "AiSeatRequest",
    "CommitResult",
    "CommitStatus",
    "FeedItem",
    "FeedReconnected",
    "HandRecord",
    "Player",
    "QueuedSeat",
    "QuickMatch",
    "QuickMatchStatus",
    "ReplicationTimeout",
    "ReviewStatus",
    "RoomClaim",
    "RoomClaimResult",
    "RoomFeed",
    "RoomSaid",
    "RoomUpdate",
    "Store",
    "StoreConfig",
    "TalkResult",
    "TalkStatus",
    "decode_room_message",
    "encode_room_message",
    "redact",
    "store_unavailable",
]
