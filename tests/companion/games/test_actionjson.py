"""The shared action JSON layer: field specs, the validating parser and ``to_json``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import pytest

from companion.games.actionjson import KINDS, ActionTypes, Field, JsonAction, Kind, Schema, one_of
from companion.games.base import ActionFormatError

SHAPES = ("round", "square")


@dataclass(frozen=True, slots=True)
class _Base(JsonAction):
    kinds: ClassVar = {**KINDS, "shape": one_of(SHAPES), "pair": Kind(lambda v, w: tuple(v), list)}


@dataclass(frozen=True, slots=True)
class Mark(_Base):
    type: ClassVar[str] = "mark"
    schema: ClassVar[Schema] = {
        "seat": Field("int", required=True), "shape": Field("shape"), "x": Field("float", nullable=True),
        "names": Field("names"), "options": Field("options"), "pair": Field("pair"), "on": Field("bool")}
    seat: int = 0
    shape: str = "round"
    x: float | None = None
    names: tuple[str, ...] = ()
    options: tuple[tuple[str, object], ...] = ()
    pair: tuple[int, ...] = (1, 2)
    on: bool = False


@dataclass(frozen=True, slots=True)
class Stop(_Base):
    type: ClassVar[str] = "stop"


TYPES = ActionTypes((Mark, Stop))


def test_to_json_puts_type_first_then_the_fields_in_order_and_round_trips():
    a = Mark(seat=2, shape="square", x=1.5, names=("Ana",), options=(("k", 1),), pair=(3, 4), on=True)
    js = a.to_json()
    assert list(js) == ["type", "seat", "shape", "x", "names", "options", "pair", "on"]
    assert js == {"type": "mark", "seat": 2, "shape": "square", "x": 1.5, "names": ["Ana"],
                  "options": {"k": 1}, "pair": [3, 4], "on": True}
    assert TYPES.from_json(json.loads(json.dumps(js))) == a
    assert Mark(seat=1).to_json()["x"] is None
    assert TYPES.from_json({"type": "stop"}) == Stop()


def test_defaults_fill_missing_optional_fields_and_options_are_sorted():
    a = TYPES.from_json({"type": "mark", "seat": 0, "options": {"b": 2, "a": 1}, "x": 3})
    assert a == Mark(seat=0, options=(("a", 1), ("b", 2)), x=3.0)
    assert isinstance(a.x, float)


@pytest.mark.parametrize(("data", "message"), [
    ([1], "an action must be a JSON object, got list"),
    ({"seat": 1}, "unknown action type None; known: mark, stop"),
    ({"type": "jump"}, "unknown action type 'jump'; known: mark, stop"),
    ({"type": "mark"}, "mark: missing field 'seat'"),
    ({"type": "mark", "seat": 0, "colour": 1}, "mark: unknown field 'colour' (fields: seat, shape, x,"),
    ({"type": "stop", "now": True}, "stop: unknown field 'now' (fields: none)"),
    ({"type": "mark", "seat": None}, "mark.seat must not be null"),
    ({"type": "mark", "seat": True}, "mark.seat must be a whole number, got True"),
    ({"type": "mark", "seat": 0, "x": float("inf")}, "mark.x must be a finite number, got inf"),
    ({"type": "mark", "seat": 0, "shape": "oval"}, "mark.shape must be one of round, square, got 'oval'"),
    ({"type": "mark", "seat": 0, "names": ["A", 1]}, "mark.names must be a list of names"),
    ({"type": "mark", "seat": 0, "options": []}, "mark.options must be an object"),
    ({"type": "mark", "seat": 0, "on": 1}, "mark.on must be true or false, got 1"),
])
def test_errors_name_the_field_and_the_problem(data, message):
    with pytest.raises(ActionFormatError) as err:
        TYPES.from_json(data)
    assert str(err.value).startswith(message)


def test_a_schema_that_does_not_match_the_fields_is_refused_at_import():
    @dataclass(frozen=True, slots=True)
    class Half(_Base):
        type: ClassVar[str] = "half"
        schema: ClassVar[Schema] = {"a": Field("int")}
        a: int = 0
        b: int = 0

    @dataclass(frozen=True, slots=True)
    class Odd(_Base):
        type: ClassVar[str] = "odd"
        schema: ClassVar[Schema] = {"a": Field("colour")}
        a: str = ""

    for cls in (Half, Odd):
        with pytest.raises(TypeError, match=cls.__name__):
            ActionTypes((cls,))
