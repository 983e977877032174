"""A flooding client, run as a process of its own by ``test_flood.py`` (so that the honest
players' latencies measure the server, not the flooder's share of the test's event loop).

``python -m tests.abuse.flooder URL SECONDS KIND...`` floods ``URL`` with one connection per
KIND at a time for SECONDS; a flooder that is cut off comes straight back with a new
connection. It prints ``flooding`` when it starts, then one JSON line: for each kind, one
record per connection (frames sent, answers by code, the ``bye`` code, the close code). Kinds:

- ``requests``: ``hello``, then valid requests (``lobby``) as fast as the socket takes them;
- ``garbage``: frames that are not MessagePack;
- ``oversized``: frames over the server's 16 KiB limit (but under the websocket limit);
- ``giant``: a frame over the websocket limit (1 MiB), which the server does not even read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import Counter
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol import codec
from protocol import messages as m

KINDS = ("requests", "garbage", "oversized", "giant")
#: A string of 40,000 bytes in a map: well-formed MessagePack, over the 16 KiB frame limit.
OVERSIZED = b"\x82\xa1t\xa4ping\xa2id\xda\x9c\x40" + b"x" * 40_000
GIANT = b"\x80" * 1_200_000


def frame(kind: str, index: int) -> bytes:
    if kind == "requests":
        return codec.encode(m.Lobby(id=index))
    if kind == "garbage":
        return bytes([0xC1, index % 256]) * 4
    if kind == "oversized":
        return OVERSIZED
    return GIANT


async def flood_once(url: str, kind: str) -> dict[str, Any]:
    """One connection, flooded until the server cuts it off (or 20 s pass)."""
    record: dict[str, Any] = {"sent": 0, "answers": Counter(), "bye": None, "close": None}
    async with connect(url, compression=None, proxy=None, max_size=None) as ws:
        if kind == "requests":
            await ws.send(codec.encode(m.Hello(id="h", version="1.0", name="Flood")))

        async def read() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for data in ws:
                    message = codec.decode(data, direction="server")  # type: ignore[arg-type]
                    if isinstance(message, m.Error):
                        record["answers"][str(message.code)] += 1
                    elif isinstance(message, m.Ack):
                        record["answers"]["ack"] += 1
                    elif isinstance(message, m.Bye):
                        record["bye"] = str(message.code)

        reader = asyncio.create_task(read())
        deadline = time.monotonic() + 20
        with contextlib.suppress(ConnectionClosed):
            index = 0
            while time.monotonic() < deadline:
                index += 1
                await ws.send(frame(kind, index))
                record["sent"] += 1
                if index % 50 == 0:
                    await asyncio.sleep(0)
        await asyncio.wait_for(reader, 10)
        record["close"] = ws.close_code
    record["answers"] = dict(record["answers"])
    return record


async def flood(url: str, kind: str, until: float) -> list[dict[str, Any]]:
    records = []
    while time.monotonic() < until:
        records.append(await flood_once(url, kind))
    return records


async def main(url: str, seconds: float, kinds: list[str]) -> dict[str, list[dict[str, Any]]]:
    print("flooding", flush=True)
    until = time.monotonic() + seconds
    results = await asyncio.gather(*(flood(url, kind, until) for kind in kinds))
    return dict(zip(kinds, results, strict=True))


if __name__ == "__main__":
    url, seconds, *kinds = sys.argv[1:]
    assert kinds and set(kinds) <= set(KINDS), kinds
    print(json.dumps(asyncio.run(main(url, float(seconds), kinds))))
