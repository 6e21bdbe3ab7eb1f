"""Typed game actions with a JSON form: field specs, one validating parser, one ``to_json``.

A game's actions are frozen dataclasses deriving from :class:`JsonAction`. Each class names its JSON
tag (``type``) and its fields' specs (``schema``: field -> :class:`Field`); a field's ``kind`` is
looked up in the game's ``kinds`` table (the basic :data:`KINDS` plus the game's own, e.g. a pawn
size or a card). :class:`ActionTypes` turns a JSON object into the typed action, raising
:class:`~companion.games.base.ActionFormatError` with a message naming the field and the problem
("place.size must be one of small, medium, large, got 'huge'"). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

from companion.games.base import ActionFormatError


def _same(value: Any) -> Any:
    return value


class Kind(NamedTuple):
    """How one kind of field is read from JSON and written back.

    ``parse(value, where)`` checks a (non-null) JSON value and returns the Python value, raising
    ActionFormatError that names ``where`` ("roll.number"); ``dump`` turns the Python value back into
    its JSON form.
    """

    parse: Callable[[Any, str], Any]
    dump: Callable[[Any], Any] = _same


class Field(NamedTuple):
    """One field of an action: its ``kind`` (a key of the game's kinds), whether the JSON must give
    it (``required``; else the dataclass default fills it) and whether it may be null (``nullable``)."""

    kind: str
    required: bool = False
    nullable: bool = False


Schema = Mapping[str, Field]
"""An action class's field specs: field name -> :class:`Field` (every dataclass field, once)."""


def parse_int(value: Any, where: str) -> int:
    """A whole number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ActionFormatError(f"{where} must be a whole number, got {value!r}")
    return value


def parse_float(value: Any, where: str) -> float:
    """A finite number (whole numbers become floats; not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ActionFormatError(f"{where} must be a finite number, got {value!r}")
    return float(value)


def parse_str(value: Any, where: str) -> str:
    """A string."""
    if not isinstance(value, str):
        raise ActionFormatError(f"{where} must be a string, got {value!r}")
    return value


def parse_bool(value: Any, where: str) -> bool:
    """``true`` or ``false`` (not 0 or 1)."""
    if not isinstance(value, bool):
        raise ActionFormatError(f"{where} must be true or false, got {value!r}")
    return value


def parse_names(value: Any, where: str) -> tuple[str, ...]:
    """A list of strings -> a tuple."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ActionFormatError(f"{where} must be a list of names, got {value!r}")
    return tuple(value)


def parse_options(value: Any, where: str) -> tuple[tuple[str, Any], ...]:
    """An object with string keys -> its items sorted by key (hashable; ``dict()`` gives it back)."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ActionFormatError(f"{where} must be an object, got {value!r}")
    return tuple(sorted(value.items()))


def one_of(choices: tuple[str, ...]) -> Kind:
    """A kind whose value is one of ``choices`` (a pawn size, a colour...)."""
    shown = ", ".join(choices)

    def parse(value: Any, where: str) -> str:
        if value not in choices:
            raise ActionFormatError(f"{where} must be one of {shown}, got {value!r}")
        return value

    return Kind(parse)


KINDS: Mapping[str, Kind] = MappingProxyType({
    "int": Kind(parse_int),
    "float": Kind(parse_float),
    "str": Kind(parse_str),
    "bool": Kind(parse_bool),
    "names": Kind(parse_names, list),
    "options": Kind(parse_options, dict),
})
"""The kinds every game may use; a game adds its own with ``{**KINDS, "size": one_of(SIZES)}``."""


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


class JsonAction:
    """Base of a game's action dataclasses: ``type`` is the JSON tag, ``schema`` the field specs,
    ``kinds`` the game's kinds table (set once on the game's base action class)."""

    __slots__ = ()

    type: ClassVar[str] = ""
    schema: ClassVar[Schema] = {}
    kinds: ClassVar[Mapping[str, Kind]] = KINDS

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this action: ``type`` first, then the fields in declaration order."""
        cls = type(self)
        names = _FIELD_NAMES.get(cls)
        if names is None:
            names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(self))  # type: ignore[arg-type]
        out: dict[str, Any] = {"type": self.type}
        for name in names:
            value = getattr(self, name)
            out[name] = None if value is None else self.kinds[self.schema[name].kind].dump(value)
        return out


class ActionTypes:
    """A game's action classes by JSON tag, and the one parser of their JSON objects."""

    def __init__(self, classes: Iterable[type[JsonAction]]) -> None:
        self.by_type: Mapping[str, type[JsonAction]] = MappingProxyType({c.type: c for c in classes})
        for cls in self.by_type.values():
            declared = {f.name for f in fields(cls)}  # type: ignore[arg-type]
            if declared != set(cls.schema) or any(f.kind not in cls.kinds for f in cls.schema.values()):
                raise TypeError(f"{cls.__name__}: schema must list each field once with a known kind")

    def from_json(self, data: Any) -> Any:
        """The typed action of a JSON object; raise ActionFormatError naming the problem.

        Checks in this order: an object, a known ``type``, then each given field (unknown, null
        where not allowed, or a bad value), then the required fields that are missing.
        """
        if not isinstance(data, dict):
            raise ActionFormatError(f"an action must be a JSON object, got {type(data).__name__}")
        tag = data.get("type")
        cls = self.by_type.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise ActionFormatError(f"unknown action type {tag!r}; known: {', '.join(self.by_type)}")
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key == "type":
                continue
            spec = cls.schema.get(key)
            if spec is None:
                known = ", ".join(cls.schema) or "none"
                raise ActionFormatError(f"{tag}: unknown field {key!r} (fields: {known})")
            where = f"{tag}.{key}"
            if value is None:
                if not spec.nullable:
                    raise ActionFormatError(f"{where} must not be null")
                kwargs[key] = None
            else:
                kwargs[key] = cls.kinds[spec.kind].parse(value, where)
        for key, spec in cls.schema.items():
            if spec.required and key not in kwargs:
                raise ActionFormatError(f"{tag}: missing field {key!r}")
        return cls(**kwargs)
