"""Every step the store sends as one (a Lua script, a MULTI, a batch of commands) stays in one
hash slot, so it runs unchanged on Redis Cluster (``server.keys``: slot groups).

- each script's KEYS, as its header documents them, share one slot for any ids;
- every redis-py pipeline in the store is a transaction (redis-py's cluster client refuses a
  cross-slot one; a plain pipeline would be split across nodes in no defined order);
- the store refuses, before sending anything, a script call or a batch whose keys span slots.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server import keys
from server.store import Store
from server.store._base import LUA_DIR, SCRIPT_NAMES
from server.store.slots import CrossSlotError, slot_of

STORE_DIR = Path(keys.__file__).resolve().parent / "store"
_KEY_LINE = re.compile(r"^-- KEYS\[(\d+)\]\s+(\S+)", re.MULTILINE)
IDS = ("r1", "abc", "Z-9_x", "a" * 64)


def _declared_keys(name: str) -> list[str]:
    header = (LUA_DIR / f"{name}.lua").read_text()
    found = _KEY_LINE.findall(header)
    assert [int(index) for index, _ in found] == list(range(1, len(found) + 1)), name
    return [key for _, key in found]


@pytest.mark.parametrize("name", SCRIPT_NAMES)
def test_every_script_touches_one_slot(name: str) -> None:
    declared = _declared_keys(name)
    assert declared, f"{name}.lua documents no KEYS"
    for room_id in IDS:
        names = [key.replace("ID", room_id) for key in declared]
        assert len({keys.hash_slot(key) for key in names}) == 1, (name, names)


def test_room_keys_share_one_slot() -> None:
    for room_id in IDS:
        room_keys = keys.room_keys(room_id)
        assert len({keys.hash_slot(key) for key in room_keys}) == 1, room_keys


def test_every_pipeline_of_the_store_is_a_transaction() -> None:
    for path in sorted(STORE_DIR.glob("*.py")):
        for line in path.read_text().splitlines():
            if ".pipeline(" in line:
                assert "transaction=True" in line, f"{path.name}: {line.strip()}"


def test_a_batch_across_slots_is_refused() -> None:
    with pytest.raises(CrossSlotError):
        slot_of([("HSET", keys.hand("h1"), "a", "b"), ("ZADD", keys.hands_recent(), 1, "h1")])
    with pytest.raises(CrossSlotError):
        slot_of([("EVALSHA", "sha", 2, keys.ai_requests(), keys.ai_wanted())])
    assert slot_of([("MGET", *keys.room_keys("r1")[:2])]) == keys.hash_slot("{room:r1}")


async def test_the_store_sends_nothing_across_slots(store: Store) -> None:
    hand = keys.hand("h1")
    with pytest.raises(CrossSlotError):
        await store._together(("SET", hand, "x"), ("SET", keys.hands_recent(), "y"))
    with pytest.raises(CrossSlotError):
        await store._run_script(
            store._scripts.hash_create, [keys.player("p1"), keys.player("p2")], ["a", "b"]
        )
    assert not await store.hand_exists("h1")  # nothing of either reached Redis
    assert await store.get_player("p1") is None
