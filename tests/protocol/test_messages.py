"""Messages as values: construction validates, ``from_wire`` / ``to_wire``, versions, docs."""

from __future__ import annotations

import re
import typing
from dataclasses import FrozenInstanceError, fields
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import (
    CLIENT_MESSAGES,
    HIDDEN_EVENT,
    MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    Ack,
    Act,
    Action,
    Bye,
    ClientMessage,
    CreateRoom,
    Error,
    ErrorCode,
    Hello,
    JoinRoom,
    Nudge,
    Ping,
    ProtocolError,
    Resume,
    Rules,
    Said,
    Say,
    ServerMessage,
    SetName,
    Update,
    from_wire,
    is_compatible,
    parse_version,
    to_wire,
)
from protocol.talk import EMOTES, PHRASES, QUICK_MESSAGES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def invalid(
    code: str, field: str | None, build: Any, /, *args: Any, **kwargs: Any
) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        build(*args, **kwargs)
    assert (caught.value.code, caught.value.field) == (code, field), str(caught.value)
    return caught.value


# -- registry ---------------------------------------------------------------------------------


def test_registries_match_the_union_types() -> None:
    assert set(CLIENT_MESSAGES.values()) == set(typing.get_args(ClientMessage))
    assert set(SERVER_MESSAGES.values()) == set(typing.get_args(ServerMessage))
    assert not set(CLIENT_MESSAGES) & set(SERVER_MESSAGES)
    assert MESSAGES == {**CLIENT_MESSAGES, **SERVER_MESSAGES}
    for tag, cls in MESSAGES.items():
        assert cls.t == tag


def test_every_client_request_has_an_id_first() -> None:
    for cls in CLIENT_MESSAGES.values():
        assert fields(cls)[0].name == "id"


def test_messages_are_frozen() -> None:
    ping = Ping(id=1)
    with pytest.raises(FrozenInstanceError):
        ping.id = 2  # type: ignore[misc]


# -- versions ---------------------------------------------------------------------------------


def test_parse_version() -> None:
    assert parse_version("1.0") == (1, 0)
    assert parse_version("12.345") == (12, 345)
    for bad in ("1", "1.0.0", "01.0", "1.01", "v1.0", "1.0\n", " 1.0", "١.٠", ""):
        with pytest.raises(ValueError, match=r"MAJOR\.MINOR"):
            parse_version(bad)


def test_same_major_is_compatible() -> None:
    assert PROTOCOL_VERSION == "1.2"  # 1.1 added say and said, 1.2 nudge
    assert is_compatible("1.0") and is_compatible("1.7")
    assert not is_compatible("2.0") and not is_compatible("0.9")
    assert not is_compatible("one") and not is_compatible(1.0)  # type: ignore[arg-type]


def test_hello_version_must_be_well_formed_but_may_be_another_major() -> None:
    assert Hello(id=1, version="2.0").version == "2.0"  # the server answers unsupported_version
    invalid("invalid_argument", "version", Hello, id=1, version="1")


# -- field checks -----------------------------------------------------------------------------


def test_request_ids() -> None:
    assert Ping(id=0).id == 0 and Ping(id=2**53 - 1).id == 2**53 - 1
    assert Ping(id="x" * 64).id == "x" * 64
    for bad in (-1, 2**53, "", "x" * 65, True, 1.0, None, b"1"):
        invalid("bad_message", "id", Ping, id=bad)


def test_names_are_stripped_printable_and_short() -> None:
    assert SetName(id=1, name="  Ada Lovelace \n").name == "Ada Lovelace"
    assert SetName(id=1, name="Zoë 🂡").name == "Zoë 🂡"
    assert SetName(id=1, name="x" * 32).name == "x" * 32
    for bad in ("", "   ", "x" * 33, "a\x00b", "a\tb", "a\u202eb"):
        invalid("invalid_argument", "name", SetName, id=1, name=bad)
    invalid("bad_message", "name", SetName, id=1, name=7)


def test_hello_token_and_client() -> None:
    hello = Hello(id=1, version="1.0", token="tk_" + "a" * 125, client="ai-worker/0.1")
    assert hello.client == "ai-worker/0.1"
    for bad in ("", "with space", "x" * 129, "é"):
        invalid("invalid_argument", "token", Hello, id=1, version="1.0", token=bad)
    invalid("invalid_argument", "client", Hello, id=1, version="1.0", client="x" * 65)


def test_room_ids_are_short_and_safe_for_keys() -> None:
    assert JoinRoom(id=1, room="r-8f3a_2C").room == "r-8f3a_2C"
    for bad in ("", "x" * 65, "a b", "{room:1}", "r/1"):
        invalid("invalid_argument", "room", JoinRoom, id=1, room=bad)


def test_create_room_level_iff_ai() -> None:
    assert CreateRoom(id=1, mode="ai", level="hard").level == "hard"
    assert CreateRoom(id=1, mode="private").level is None
    invalid("invalid_argument", "level", CreateRoom, id=1, mode="ai")
    invalid("invalid_argument", "level", CreateRoom, id=1, mode="private", level="easy")
    invalid("invalid_argument", "level", CreateRoom, id=1, mode="ai", level="expert")
    invalid("invalid_argument", "mode", CreateRoom, id=1, mode="solo")


def test_create_room_stand_in_only_between_people() -> None:
    """A room against the AI waits for its person (issue 27): it may not ask for a stand-in."""
    assert CreateRoom(id=1, mode="private", stand_in=True).stand_in is True
    assert CreateRoom(id=1, mode="ai", level="easy", stand_in=False).stand_in is False
    invalid(
        "invalid_argument", "stand_in", CreateRoom, id=1, mode="ai", level="easy", stand_in=True
    )


def test_create_room_rules_and_clock() -> None:
    room = CreateRoom(id=1, mode="private", rules={"target": 250}, turn_seconds=0)  # type: ignore[arg-type]
    assert room.rules == Rules(target=250)
    assert CreateRoom(id=1, mode="private", turn_seconds=3600).turn_seconds == 3600
    for target in (0, 10_001):
        invalid("invalid_argument", "target", Rules, target=target)
        invalid("invalid_argument", "rules.target", from_wire, _create(rules={"target": target}))
    invalid("bad_message", "rules.game_bonus", from_wire, _create(rules={"game_bonus": 1}))
    invalid("bad_message", "rules", from_wire, _create(rules={"big_gin": True}))
    invalid("bad_message", "rules", from_wire, _create(rules=[]))
    invalid("invalid_argument", "turn_seconds", CreateRoom, id=1, mode="private", turn_seconds=-1)
    invalid("invalid_argument", "turn_seconds", from_wire, _create(turn_seconds=3601))


def _create(**fields: object) -> dict[str, object]:
    return {"t": "create_room", "id": 1, "mode": "private", **fields}


def test_join_room_by_exactly_one_of_room_and_invite() -> None:
    assert JoinRoom(id=1, invite="K7Q2MX").invite == "K7Q2MX"
    invalid("invalid_argument", None, JoinRoom, id=1)
    invalid("invalid_argument", None, JoinRoom, id=1, room="r1", invite="K7Q2MX")


@pytest.mark.parametrize("kind", ["discard", "knock", "gin"])
def test_card_actions_need_a_valid_card(kind: str) -> None:
    assert Action(kind, "TD").card == "TD"  # type: ignore[arg-type]
    invalid("invalid_argument", "card", Action, kind)
    for bad in ("10D", "td", "XX", ""):
        invalid("invalid_argument", "card", Action, kind, bad)
    invalid("bad_message", "card", Action, kind, 12)


@pytest.mark.parametrize("kind", ["take_upcard", "pass", "draw_stock", "draw_discard", "next_hand"])
def test_other_actions_take_no_card(kind: str) -> None:
    assert Action(kind).card is None  # type: ignore[arg-type]
    invalid("invalid_argument", "card", Action, kind, "QS")


def test_act_and_resume_sequence_numbers() -> None:
    action = Action("pass")
    assert Act(id=1, room="r1", seq=0, action=action).seq == 0
    invalid("invalid_argument", "seq", Act, id=1, room="r1", seq=-1, action=action)
    invalid("bad_message", "seq", Act, id=1, room="r1", seq=True, action=action)
    assert Resume(id=1, room="r1", last_seq=-1).last_seq == -1
    invalid("invalid_argument", "last_seq", Resume, id=1, room="r1", last_seq=-2)
    invalid("invalid_argument", "action.kind", from_wire, _act({"kind": "cheat"}))
    invalid("bad_message", "action", from_wire, _act("pass"))


def test_say_names_a_phrase_of_the_fixed_list() -> None:
    for phrase in QUICK_MESSAGES:
        assert Say(id=1, room="r1", phrase=phrase).phrase == phrase
    invalid("invalid_argument", "phrase", Say, id=1, room="r1", phrase="you are bad")
    invalid("invalid_argument", "phrase", Say, id=1, room="r1", phrase="")
    invalid("bad_message", "phrase", Say, id=1, room="r1", phrase=7)
    invalid("bad_message", "phrase", from_wire, {"t": "say", "id": 1, "room": "r1"})
    error = invalid(
        "invalid_argument",
        "phrase",
        from_wire,
        {"t": "say", "id": "s1", "room": "r1", "phrase": "free text"},
        direction="client",
    )
    assert error.request_id == "s1"
    assert len(set(QUICK_MESSAGES)) == len(QUICK_MESSAGES) == len(PHRASES) + len(EMOTES)


def test_said_is_a_server_message_with_a_seat_and_a_time() -> None:
    said = Said(room="r1", seat=1, phrase="good_game", at=1764412800123)
    assert to_wire(said) == {
        "t": "said",
        "room": "r1",
        "seat": 1,
        "phrase": "good_game",
        "at": 1764412800123,
    }
    invalid("invalid_argument", "seat", Said, room="r1", seat=2, phrase="oops", at=0)
    invalid("invalid_argument", "at", Said, room="r1", seat=0, phrase="oops", at=-1)
    wire = to_wire(said)
    invalid("unknown_type", "t", from_wire, wire, direction="client")
    error = invalid("unknown_type", "t", from_wire, {"t": "say", "id": 1}, direction="server")
    assert "sent by a client" in str(error)


def test_nudge_is_a_server_message_about_a_known_thing_only() -> None:
    nudge = Nudge(about="challenges")
    assert to_wire(nudge) == {"t": "nudge", "about": "challenges"}
    invalid("invalid_argument", "about", Nudge, about="friends")
    invalid("unknown_type", "t", from_wire, to_wire(nudge), direction="client")


def _act(action: object) -> dict[str, object]:
    return {"t": "act", "id": 1, "room": "r1", "seq": 1, "action": action}


def test_error_codes_known_are_enum_members_unknown_well_formed_are_kept() -> None:
    assert Error(id=1, code="not_found", message="no room").code is ErrorCode.NOT_FOUND
    assert Bye(code="a_newer_code", message="bye").code == "a_newer_code"
    for bad in ("Not Found", "", "x" * 65, "9lives"):
        invalid("invalid_argument", "code", Error, id=1, code=bad, message="m")
    assert Error(id=None, code="internal", message="oops").id is None
    invalid("invalid_argument", "message", Error, id=None, code="internal", message="")


def test_update_events_are_maps_with_a_type() -> None:
    update = Update(room="r1", seq=3, events=[HIDDEN_EVENT], view={})
    assert update.events == ({"type": "hidden"},)
    invalid(
        "bad_message", "events[1].type", Update, room="r", seq=1, events=[HIDDEN_EVENT, {}], view={}
    )
    invalid("bad_message", "events[0]", Update, room="r", seq=1, events=["hidden"], view={})
    invalid("bad_message", "events", Update, room="r", seq=1, events="hidden", view={})
    invalid("bad_message", "view", Update, room="r", seq=1, events=[], view=[])
    invalid("bad_message", "result", Ack, id=1, result={1: "x"})


# -- from_wire / to_wire ----------------------------------------------------------------------


def test_to_wire_puts_t_first_then_fields_in_order_and_leaves_out_absent_ones() -> None:
    message = CreateRoom(id=7, mode="ai", level="easy", turn_seconds=20)
    assert list(to_wire(message).items()) == [
        ("t", "create_room"),
        ("id", 7),
        ("mode", "ai"),
        ("level", "easy"),
        ("turn_seconds", 20),
    ]
    act = to_wire(Act(id=1, room="r", seq=2, action=Action("discard", "QS")))
    assert act["action"] == {"kind": "discard", "card": "QS"}
    assert to_wire(Error(id=None, code="internal", message="x")) == {
        "t": "error",
        "id": None,
        "code": "internal",
        "message": "x",
    }
    with pytest.raises(TypeError):
        to_wire(Rules())  # type: ignore[arg-type]


def test_from_wire_round_trips_to_wire() -> None:
    message = Hello(id="h", version="1.2", token="tk", name="Ada", client="web/0.1")
    assert from_wire(to_wire(message)) == message


def test_from_wire_structure_errors_keep_the_request_id() -> None:
    for data, field in (
        ({"id": 4}, "t"),
        ({"t": None, "id": 4}, "t"),
        ({"t": ["ping"], "id": 4}, "t"),
        ({"t": "watch", "id": 4}, "room"),
        ({"t": "watch", "id": 4, "room": "r1", "x": 1}, None),
        ({"t": "watch", "id": 4, "room": "r1", 5: 1}, None),
    ):
        error = invalid("bad_message", field, from_wire, data)
        assert error.request_id == 4
    error = invalid("unknown_type", "t", from_wire, {"t": "nope", "id": "q"})
    assert error.request_id == "q"
    error = invalid("bad_message", "id", from_wire, {"t": "ping", "id": -5})
    assert error.request_id is None


def test_direction_decides_which_types_exist() -> None:
    ack = {"t": "ack", "id": 1, "result": {}}
    assert from_wire(ack, direction="server") == Ack(id=1, result={})
    error = invalid("unknown_type", "t", from_wire, ack, direction="client")
    assert "sent by the server" in str(error) and error.request_id == 1
    error = invalid("unknown_type", "t", from_wire, {"t": "ping", "id": 1}, direction="server")
    assert "sent by a client" in str(error)


def test_protocol_error_answers_with_an_error_message() -> None:
    error = invalid(
        "invalid_argument", "action.card", from_wire, _act({"kind": "gin", "card": "1S"})
    )
    reply = error.to_message()
    assert reply.id == 1 and reply.code == ErrorCode.INVALID_ARGUMENT
    assert reply.message.startswith("action.card: bad rank '1'")
    assert reply.detail == {"field": "action.card"}
    assert isinstance(error, ValueError)


# -- documentation ----------------------------------------------------------------------------


def test_docs_describe_every_message_field_and_error_code() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    headings = set(re.findall(r"^#### `(\w+)`", docs, flags=re.MULTILINE))
    assert headings == set(MESSAGES)
    for tag, cls in MESSAGES.items():
        section = docs.split(f"#### `{tag}`", 1)[1].split("\n#### ", 1)[0]
        for field in fields(cls):
            assert f"`{field.name}`" in section, (tag, field.name)
    codes = set(re.findall(r"^\| `(\w+)` \|", docs, flags=re.MULTILINE))
    assert {code.value for code in ErrorCode} <= codes
