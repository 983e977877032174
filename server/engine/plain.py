"""A frozen dataclass's plain-data form, declared with its fields (issue #28).

Each field of a stored dataclass (``GameState``, ``Room``, ``Seat``) says, once, beside its
type, how it is written as plain data (``out``), read back (``into``) and what a value written
before the field existed reads as (``missing``). Everything else is derived from the fields:
the ``to_dict`` of each class (``plain_writer``), its ``from_dict`` (``read_plain``), the fast
copies the hot path makes (``replacer``) and the encoders' lists of what a part is made of
(``names``). The functions that run on every move are generated once, at import, as
straight-line code (what ``dataclasses`` itself does for ``__init__``), so deriving them costs
nothing per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, TypeVar

__all__ = ["Plain", "names", "plain_writer", "read_plain", "replacer", "shown_fields", "stored"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Plain:
    """How a field is written as plain data and read back. ``out``: value to plain data
    (None: as it is); ``into``: plain data to the value (None: as it is); ``missing``: the
    value of plain data written before the field existed, from that data (None: the field is
    required: a ``KeyError`` when it is absent)."""

    out: Callable[[Any], Any] | None = None
    into: Callable[[Any], Any] | None = None
    missing: Callable[[Mapping[str, Any]], Any] | None = None
    #: In the owner's view (``shown_fields``).
    shown: bool = False


_KEY = "plain"
_AS_IS = Plain()


def stored(
    default: Any = MISSING,
    *,
    out: Callable[[Any], Any] | None = None,
    into: Callable[[Any], Any] | None = None,
    missing: Callable[[Mapping[str, Any]], Any] | None = None,
    old: Any = MISSING,
    shown: bool = False,
) -> Any:
    """A dataclass field with its plain form (see ``Plain``); ``old``: the value of plain data
    written before the field existed (``missing`` for a constant); ``shown``: the field is in
    its owner's view (what a view makes of it is its owner's business, ``shown_fields``)."""
    if old is not MISSING:
        missing = _constant(old)
    return field(default=default, metadata={_KEY: Plain(out, into, missing, shown)})


def _constant(value: Any) -> Callable[[Mapping[str, Any]], Any]:
    return lambda _: value


def shown_fields(cls: type) -> tuple[str, ...]:
    """The fields of ``cls`` declared ``shown``, in declaration order."""
    return tuple(item.name for item in fields(cls) if plain_of(item).shown)


def plain_of(item: Field[Any]) -> Plain:
    plain = item.metadata.get(_KEY, _AS_IS)
    assert isinstance(plain, Plain)
    return plain


def names(cls: type, *, without: Iterable[str] = ()) -> tuple[str, ...]:
    """The fields of ``cls`` in declaration order (the order of its plain data), but
    ``without``."""
    left = set(without)
    unknown = left - {item.name for item in fields(cls)}
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    return tuple(item.name for item in fields(cls) if item.name not in left)


def plain_writer(
    cls: type[T],
    head: Mapping[str, Any] | None = None,
    *,
    only: Iterable[str] | None = None,
    as_is: bool = False,
) -> Callable[[T], dict[str, Any]]:
    """A function from an instance to its plain data: ``head``'s entries (constants), then
    each field (of ``only``, in its order, if given) in declaration order, written by its
    ``out``; a name of ``only`` that is no field is an attribute read as it is. ``as_is``:
    every value as it is, for an encoder that writes it as it would its plain form (the
    MessagePack packer writes a tuple as a list and a ``StrEnum`` as its string)."""
    chosen = names(cls) if only is None else tuple(only)
    by_name = {item.name: item for item in fields(cls)}  # type: ignore[arg-type]
    if not all(name.isidentifier() for name in chosen):
        raise ValueError(f"not attribute names: {chosen!r}")
    scope: dict[str, Any] = {}
    entries = []
    for index, (key, value) in enumerate((head or {}).items()):
        scope[f"_h{index}"] = value
        entries.append(f"{key!r}: _h{index}")
    for name in chosen:
        out = plain_of(by_name[name]).out if name in by_name and not as_is else None
        if out is None:
            entries.append(f"{name!r}: obj.{name}")
        else:
            scope[f"_o_{name}"] = out
            entries.append(f"{name!r}: _o_{name}(obj.{name})")
    source = "def write(obj):\n    return {" + ", ".join(entries) + "}\n"
    exec(source, scope)
    write: Callable[[T], dict[str, Any]] = scope["write"]
    write.__qualname__ = write.__name__ = f"{cls.__name__}_plain"
    return write


def read_plain(cls: type[T], data: Mapping[str, Any]) -> T:
    """An instance of ``cls`` from its plain data: each field read by its ``into``, a field
    written before it existed by its ``missing``; a ``KeyError`` for a required field that is
    absent. Entries that are no field are ignored (the caller checks them if it must)."""
    values: dict[str, Any] = {}
    for item in fields(cls):  # type: ignore[arg-type]
        plain = plain_of(item)
        if item.name in data:
            value = data[item.name]
            values[item.name] = value if plain.into is None else plain.into(value)
        elif plain.missing is not None:
            values[item.name] = plain.missing(data)
        else:
            raise KeyError(item.name)
    return cls(**values)


def replacer(cls: type[T], *changed: str) -> Callable[..., T]:
    """``dataclasses.replace(obj, **changes)`` for exactly the fields ``changed`` (keyword
    arguments, all required), at a third of its cost: the frozen instance is filled in as its
    ``__init__`` would, with no inspection of the fields per call."""
    every = names(cls)
    unknown = set(changed) - set(every)
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    params = f", *, {', '.join(changed)}" if changed else ""
    lines = [f"def replace(obj{params}):", "    new = _new(_cls)"]
    for name in every:
        value = name if name in changed else f"obj.{name}"
        lines.append(f"    _set(new, {name!r}, {value})")
    lines.append("    return new")
    scope: dict[str, Any] = {"_new": object.__new__, "_set": object.__setattr__, "_cls": cls}
    exec("\n".join(lines) + "\n", scope)
    replace: Callable[..., T] = scope["replace"]
    replace.__qualname__ = replace.__name__ = f"{cls.__name__}_replace"
    return replace
