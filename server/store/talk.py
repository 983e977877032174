"""Quick messages: a seat's allowance, spent and published in one step (``lua/say.lua``).

A quick message is not a room change: it is not stored, has no sequence number, and travels
on the room's own channel (sharded pub/sub on a cluster), so it reaches every process that
follows the room without a subscription of its own. Its payload starts with ``said:``, which
no commit's payload does (those start with a digit, ``server.store.feed``)::

    said:<seat>:<the encoded said frame>
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server import keys
from server.store._base import StoreBase, check_blob, check_positive

__all__ = ["SAID_PREFIX", "TalkOps", "TalkResult", "TalkStatus", "encode_said_message"]

SAID_PREFIX = b"said:"


class TalkStatus(StrEnum):
    SENT = "sent"
    """Published on the room's channel."""
    LIMITED = "limited"
    """The seat's allowance is spent; nothing was published."""
    MISSING = "missing"
    """There is no such room."""


@dataclass(frozen=True, slots=True)
class TalkResult:
    status: TalkStatus
    retry_ms: int = 0
    """When LIMITED: how long until one message is allowed again."""


def encode_said_message(seat: int, frame: bytes) -> bytes:
    """The payload ``lua/say.lua`` publishes."""
    return SAID_PREFIX + b"%d:" % seat + frame


_STATUS = {1: TalkStatus.SENT, 0: TalkStatus.LIMITED, -1: TalkStatus.MISSING}


class TalkOps(StoreBase):
    """``{room:ID}:talk:SEAT`` allowances, and quick messages on the room's channel."""

    async def say(
        self,
        room_id: str,
        seat: int,
        frame: bytes,
        *,
        burst: int,
        every_seconds: float,
        deliver: bool = True,
    ) -> TalkResult:
        """Spend one of the seat's quick messages (``burst`` at once, one more every
        ``every_seconds``) and publish ``frame`` to the room's followers, atomically; with
        ``deliver`` False the allowance is spent alike and nothing is published."""
        room_keys = keys.room_keys(room_id)
        check_blob(frame, "frame")
        every_ms = max(1, round(check_positive(every_seconds, "every_seconds") * 1000))
        status, retry_ms = await self._run_script(
            self._scripts.say,
            [keys.room_talk(room_id, seat), room_keys.version, room_keys.channel],
            [
                int(check_positive(burst, "burst")),
                every_ms,
                encode_said_message(seat, frame),
                self._publish,
                "1" if deliver else "0",
            ],
            writes=False,
        )
        return TalkResult(_STATUS[int(status)], int(retry_ms))
