"""What a seat can do: an action kind, and the card for the kinds that name one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.cards import card_index
from server.engine.errors import MalformedAction, UnknownAction

TAKE_UPCARD = "take_upcard"
PASS = "pass"
DRAW_STOCK = "draw_stock"
DRAW_DISCARD = "draw_discard"
DISCARD = "discard"
KNOCK = "knock"
GIN = "gin"
NEXT_HAND = "next_hand"

#: Kinds that name the card to discard (a knock and a gin are declared with their discard).
CARD_KINDS = frozenset({DISCARD, KNOCK, GIN})
ACTION_KINDS = frozenset({TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD, NEXT_HAND}) | CARD_KINDS


@dataclass(frozen=True, slots=True)
class Action:
    """One action, e.g. ``Action("pass")`` or ``Action("discard", "QS")``.

    The constructor does not validate, so that ``apply`` can refuse a bad action with a
    specific error; ``from_dict`` and ``check`` do.
    """

    kind: str
    card: str | None = None

    def check(self) -> None:
        """Raise ``UnknownAction`` or ``MalformedAction`` unless the action is well formed."""
        if not isinstance(self.kind, str) or self.kind not in ACTION_KINDS:
            raise UnknownAction(
                f"unknown action {self.kind!r}: actions are {', '.join(sorted(ACTION_KINDS))}"
            )
        if self.kind in CARD_KINDS:
            if self.card is None:
                raise MalformedAction(f"{self.kind} needs a card")
            try:
                card_index(self.card)
            except ValueError as error:
                raise MalformedAction(f"{self.kind}: {error}") from None
        elif self.card is not None:
            raise MalformedAction(f"{self.kind} takes no card, got {self.card!r}")

    def to_dict(self) -> dict[str, str]:
        if self.card is None:
            return {"kind": self.kind}
        return {"kind": self.kind, "card": self.card}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        """Parse and validate; a ``ValueError`` (an ``IllegalAction``) on anything malformed."""
        if not isinstance(data, Mapping):
            raise MalformedAction(f"an action is a map, got {type(data).__name__}")
        extra = set(data) - {"kind", "card"}
        if extra:
            raise MalformedAction(f"unknown action field: {', '.join(sorted(map(str, extra)))}")
        kind = data.get("kind")
        if not isinstance(kind, str):
            raise MalformedAction(f"an action needs a kind (a string), got {kind!r}")
        action = cls(kind, data.get("card"))
        action.check()
        return action

    def __str__(self) -> str:
        return self.kind if self.card is None else f"{self.kind} {self.card}"
