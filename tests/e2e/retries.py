"""What the tests of the store's retryable errors share: the seat to move, its move as one
request (sent again with the same id), and the check that it was applied exactly once."""

from __future__ import annotations

from typing import Any

from client.session import Session
from protocol import messages as m
from server.store import Store
from tests.support.players import action_matches, truth


def next_move(sessions: tuple[Session, Session], room: str) -> tuple[int, m.Act]:
    """The seat whose turn it is and its first legal action, as one ``act`` request with
    its own id (the same message may be sent again: same id, same ``seq``)."""
    for seat, session in enumerate(sessions):
        view = session.view(room)
        assert view is not None and view["game"] is not None
        legal = view["game"]["legal_actions"]
        if legal:
            act = session.message("act", room=room, seq=session.room(room).seq, action=legal[0])
            assert isinstance(act, m.Act)
            return seat, act
    raise AssertionError("nobody may act")


async def assert_applied_once(store: Store, room: str, seat: int, act: m.Act) -> None:
    """The room's stream holds ``act`` once, as the change right after the number it was
    made on, and nothing after that."""
    action: dict[str, Any] = {"kind": act.action.kind, "card": act.action.card}
    changes = await truth(store, room)
    after = [(seq, actor, events) for seq, actor, events in changes if seq > act.seq]
    assert len(after) == 1, f"expected one change after {act.seq}, the stream has {after}"
    seq, actor, events = after[0]
    assert seq == act.seq + 1 and actor == seat and action_matches(action, events), after[0]
