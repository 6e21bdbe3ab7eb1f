"""Request JSON with a nesting limit: a deep body is a 400 that says so, never a RecursionError."""

from __future__ import annotations

import re
from typing import Any

from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest

MAX_DEPTH = 32
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (strings are skipped)."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class LimitedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, refusing bodies nested deeper than ``MAX_DEPTH`` with a 400."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """Parse ``s``; ``BadRequest`` if it is nested too deep."""
        text = s.decode("utf-8", "replace") if isinstance(s, bytes | bytearray) else s
        if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(text) > MAX_DEPTH:
            raise BadRequest(f"JSON body is nested deeper than {MAX_DEPTH} levels")
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise BadRequest(f"JSON body is nested deeper than {MAX_DEPTH} levels") from None
