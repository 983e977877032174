"""Hash slots of the commands the store sends together (Redis Cluster runs a script, a MULTI
or a batch on one node only when all its keys share a slot: ``server.keys`` lays them out)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from redis.exceptions import RedisClusterException

from server import keys

__all__ = ["Arg", "Command", "CrossSlotError", "command_keys", "slot_of"]

Arg = bytes | str | int | float
Command = tuple[Arg, ...]

_NO_KEYS = frozenset({b"SCRIPT", b"WAIT", b"ASKING", b"PING", b"CLUSTER", b"INFO", b"MULTI"})
_NO_KEYS |= {b"EXEC"}
_ALL_KEYS = frozenset({b"MGET", b"DEL", b"EXISTS", b"UNLINK"})


class CrossSlotError(RedisClusterException):
    """Commands meant to run together name keys of several hash slots (refused before any is
    sent: on a cluster they would run on different nodes, in no defined order)."""


def command_name(command: Command) -> bytes:
    name = command[0]
    return (name if isinstance(name, bytes) else str(name).encode()).upper()


def command_keys(command: Command) -> Sequence[Arg]:
    """The keys a command names (of the commands this server sends)."""
    name = command_name(command)
    if name in (b"EVALSHA", b"EVAL"):
        return command[3 : 3 + int(command[2])]
    if name in _NO_KEYS:
        return ()
    if name in _ALL_KEYS:
        return command[1:]
    return command[1:2]


def slot_of(commands: Iterable[Command], *, each_key: bool = True) -> int | None:
    """The one slot of every key of ``commands`` (None: no keys); CrossSlotError if several.
    ``each_key=False`` looks at the first key of each command only: Redis Cluster itself
    refuses a command (or a script) whose own keys span slots, not a batch of commands."""
    found: int | None = None
    for command in commands:
        named = command_keys(command)
        for key in named if each_key else named[:1]:
            slot = keys.hash_slot(key if isinstance(key, bytes | str) else str(key))
            if found is None:
                found = slot
            elif slot != found:
                raise CrossSlotError(
                    f"keys of several hash slots sent together ({command_name(command)!r})"
                )
    return found
