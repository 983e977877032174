"""Names an impersonator would pick. Before, a stranger could call themselves ``AI (hard)``
(the name the server gives its own seats), take the Cyrillic look-alike of the opponent's
name, or a name of invisible characters (U+3164, U+2800) or of 30 stacked combining marks,
and the opponent and the replays showed it as given. Now ``hello`` and ``set_name`` refuse
them with ``bad_name`` (the connection stays usable), and a look-alike of the other seat's
name is shown marked (``#2``) in the seats and the replays."""

from __future__ import annotations

import pytest

from client.session import RequestError, Session
from protocol import messages as m
from tests.abuse.fuzzing import FuzzClient
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, expect_error

IMPERSONATIONS = [
    "AI (hard)",
    "AI (easy)",
    "ai",
    "ΑΙ (normal)",  # Greek capitals
    "ИИ · Сложный",  # the Russian client's AI seat
    "Yapay zekâ · Zor",  # the Turkish client's
    "\u3164",  # Hangul filler: shows as nothing
    "\u2800",  # blank Braille pattern
    "\u3164\u3164\u3164",
    "Z" + "\u0301" * 30,
]


async def test_impersonating_names_are_refused(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    client = FuzzClient(server.ws_url, "Anonymous", hello=False)
    try:
        for number, name in enumerate(IMPERSONATIONS):
            answer = client.request(m.Hello(id=f"h{number}", version="1.0", name=name))
            assert isinstance(answer, m.Error) and answer.code == "bad_name", (name, answer)
        answer = client.request(m.Hello(id="ok", version="1.0", name="Mallory"))
        assert isinstance(answer, m.Ack) and answer.result["name"] == "Mallory"
        for number, name in enumerate(IMPERSONATIONS):
            answer = client.request(m.SetName(id=f"s{number}", name=name))
            assert isinstance(answer, m.Error) and answer.code == "bad_name", (name, answer)
        answer = client.request(m.Lobby(id="after"))
        assert isinstance(answer, m.Ack), answer
    finally:
        client.close()
    # and nothing was kept: the player is still Mallory
    mallory = await Session.connect(server.ws_url, name="Mallory")
    try:
        with pytest.raises(RequestError) as refused:
            await mallory.request("set_name", name="AI (hard)")
        assert refused.value.code == "bad_name"
    finally:
        await close_all(mallory)


async def test_a_look_alike_of_the_opponent_is_shown_marked(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada = await Session.connect(server.ws_url, name="Ada")
    mallory = await Session.connect(server.ws_url, name="\u0410da")  # Cyrillic А
    try:
        created = await ada.request("create_room", mode="private", rules={"target": 10})
        room = created.result["room"]
        await mallory.request("join_room", invite=created.result["invite"])
        for session in (ada, mallory):
            view = await session.wait_for(room, lambda v: v["game"] is not None)
            names = [seat["name"] for seat in view["seats"]]
            assert names == ["Ada", "\u0410da #2"], names
    finally:
        await close_all(ada, mallory)


async def test_a_name_is_normalised_before_it_is_shown(server_factory: ServerFactory) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    session = await Session.connect(server.ws_url, name="  ＡＤＡ   Lovelace ")
    try:
        answer = await session.request("set_name", name="Ｍａｌｌｏｒｙ")
        assert answer.result["name"] == "Mallory"
        await expect_error("bad_name", session.request("set_name", name="\u2800"))
    finally:
        await close_all(session)
