"""The display-name policy, in one place: what a person may be called, and how two seats whose
names look alike are told apart.

``clean_name`` is NFKC-normalised, with runs of spaces made one; it refuses invisible, format,
control, private-use and unassigned characters (and blank-looking letters), more than
``MAX_MARKS_IN_A_ROW`` combining marks in a row or ``MAX_MARKS`` in all, a name with no letter
or digit, and the names of the server's own seats (the AI's, in every language of the web
client) and their look-alikes. Look-alikes are decided by the UTS #39 skeleton, from Unicode's
confusables data (package ``confusable-homoglyphs``).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from confusable_homoglyphs.confusables import confusables_data

#: Combining marks (Mn, Me) allowed in a row, and in the whole name.
MAX_MARKS_IN_A_ROW = 2
MAX_MARKS = 8

#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), and letters that draw
#: nothing (Hangul fillers, the blank Braille pattern): every one of them shows as nothing.
INVISIBLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
#: General categories refused: control, format, surrogate, private use, unassigned, line and
#: paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MARKS = frozenset({"Mn", "Me"})

#: The names the server gives its own seats, as the web client shows them (``seat.ai``,
#: ``seat.standIn`` and the ``level.*`` of client/web/src/i18n/*.ts): en, ar, ka, ru, tr.
AI_WORDS = ("AI", "ذكاء اصطناعي", "الذكاء الاصطناعي", "ИИ", "Yapay zekâ")
LEVEL_WORDS = (
    *("easy", "normal", "hard"),
    *("Easy", "Normal", "Hard"),
    *("سهل", "عادي", "صعب"),
    *("მარტივი", "ნორმალური", "რთული"),
    *("Лёгкий", "Средний", "Сложный"),
    *("Kolay", "Normal", "Zor"),
)


class BadName(ValueError):
    """A name the policy refuses; the message says why."""


def default_name(player_id: str) -> str:
    """The name of a player who gave none (it passes the policy: a test holds it)."""
    return f"Player {player_id[1:6]}"


def name_id(name: str | None, player_id: str | None) -> str | None:
    """What a default name is made of: the id part of ``Player xxxxx`` when ``name`` is the
    default name of ``player_id`` (clients say it in their own language), else None (a name
    the person chose, shown as given, even one that looks like a default)."""
    if name is None or player_id is None or name != default_name(player_id):
        return None
    return player_id[1:6]


def kept_name(stored: str, player_id: str, *, ai_worker: bool = False) -> str:
    """A name stored before this policy: itself if it passes, else the default name."""
    try:
        return clean_name(stored, ai_worker=ai_worker)
    except BadName:
        return default_name(player_id)


def clean_name(raw: str, *, ai_worker: bool = False) -> str:
    """The name as it is kept and shown, or ``BadName``. An AI worker (it presented the
    workers' key) is the server's own and may take the AI's names."""
    name = unicodedata.normalize("NFKC", raw)
    in_a_row = total = 0
    for char in name:
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES or _invisible(char):
            raise BadName(f"a name cannot hold the invisible character U+{ord(char):04X}")
        if category == "Zs" and char != " ":
            raise BadName(f"a name cannot hold the space U+{ord(char):04X}")
        if category in _MARKS:
            in_a_row += 1
            total += 1
            if in_a_row > MAX_MARKS_IN_A_ROW or total > MAX_MARKS:
                raise BadName(
                    f"a name holds at most {MAX_MARKS_IN_A_ROW} combining marks in a row "
                    f"and {MAX_MARKS} in all"
                )
        else:
            in_a_row = 0
    name = " ".join(part for part in name.split(" ") if part)
    if not name:
        raise BadName("a name cannot be empty or blank")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise BadName("a name needs a letter or a digit")
    if not ai_worker and _gists(name) & _reserved():
        raise BadName(f"{name!r} is the name of the server's own AI seats")
    return name


def skeleton(text: str) -> str:
    """The UTS #39 skeleton: two strings that look alike have the same one."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(char, char) for char in decomposed)
    return unicodedata.normalize("NFD", mapped)


def confusable(a: str, b: str) -> bool:
    """Whether the two names may be taken for one another (equal ones included), ignoring
    case, spacing and punctuation."""
    return bool(_gists(a) & _gists(b))


def shown_names(names: Sequence[str | None]) -> list[str | None]:
    """The names as shown to everybody: a name confusable with an earlier seat's gets a
    distinguishing ``#2``, ``#3``... (``Ada``, ``Аda`` -> ``Ada``, ``Аda #2``)."""
    shown: list[str | None] = []
    for name in names:
        marked = name
        number = 2
        while marked is not None and any(
            other is not None and confusable(marked, other) for other in shown
        ):
            marked = f"{name} #{number}"
            number += 1
        shown.append(marked)
    return shown


def gists(name: str) -> frozenset[str]:
    """What a reader may take ``name`` for (see ``confusable``): two names that share a gist
    look alike. Handles (``server.handles``) are unique by these."""
    return _gists(name)


def reserved(name: str) -> bool:
    """Whether ``name`` reads as one of the server's own seats (the AI's names)."""
    return bool(_gists(name) & _reserved())


def _invisible(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in INVISIBLE_RANGES)


def _gists(name: str) -> frozenset[str]:
    """What a reader may take the name for: its skeleton with case folded before or after
    (``AI`` reads as ``ai`` and as ``Al``), only letters and digits kept."""
    name = unicodedata.normalize("NFKC", name)
    readings = (skeleton(name.casefold()), skeleton(skeleton(name).casefold()))
    return frozenset(
        "".join(char for char in reading if unicodedata.category(char)[0] in "LN")
        for reading in readings
    )


@functools.cache
def _reserved() -> frozenset[str]:
    names = [*AI_WORDS, *(f"{ai} ({level})" for ai in AI_WORDS for level in LEVEL_WORDS)]
    names += [f"{ai} · {level}" for ai in AI_WORDS for level in LEVEL_WORDS]
    return frozenset(gist for name in names for gist in _gists(name))


@functools.cache
def _prototypes() -> Mapping[str, str]:
    """Each confusable character and its prototype. The data lists, for a prototype, every
    character confusable with it, and for each of those, the prototype: the hub of each group
    is the member with the most entries (a two-member group: the longer string)."""
    groups: dict[str, set[str]] = {}
    for key, entries in confusables_data.items():
        members = {_bare(key), *(_bare(entry["c"]) for entry in entries)}
        for member in list(members):
            members |= groups.get(member, set())
        for member in members:
            groups[member] = members
    sizes = {_bare(key): len(entries) for key, entries in confusables_data.items()}
    mapping: dict[str, str] = {}
    for char, members in groups.items():
        if len(char) != 1:
            continue
        hub = max(members, key=lambda m: (sizes.get(m, 0), len(m), -min(map(ord, m or " "))))
        if hub != char:
            mapping[char] = unicodedata.normalize("NFD", hub)
    return MappingProxyType(mapping)


def _bare(text: str) -> str:
    """The data wraps right-to-left characters in direction marks, for display."""
    return text.replace("\u200e", "").replace("\u200f", "")
