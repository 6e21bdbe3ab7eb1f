"""Find the line of a key in TOML text (``tomllib`` gives no line numbers for values).

A light scanner, not a parser: it follows ``[table]`` and ``[[array.of.tables]]`` headers and
``key = value`` lines (dotted and quoted keys included), skips multi-line strings, and maps
each key path to its first line. Keys inside inline tables or arrays map to the line of the
key that holds them, which is where the reader should look anyway.
"""

from __future__ import annotations

import re

KeyPath = tuple[str | int, ...]

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY = rf"(?:{_BARE}|{_QUOTED})(?:\s*\.\s*(?:{_BARE}|{_QUOTED}))*"
_HEADER_RE = re.compile(rf"^\s*(\[\[?)\s*({_KEY})\s*\]\]?\s*(?:#.*)?$")
_ASSIGN_RE = re.compile(rf"^\s*({_KEY})\s*=(.*)$")
_PART_RE = re.compile(rf"{_BARE}|{_QUOTED}")


def _split_key(key: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]``."""
    parts = []
    for match in _PART_RE.finditer(key):
        part = match.group(0)
        parts.append(part[1:-1] if part[0] in "\"'" else part)
    return parts


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map every table header and key in ``text`` to its 1-based line number."""
    lines: dict[KeyPath, int] = {}
    prefix: KeyPath = ()
    counts: dict[KeyPath, int] = {}
    in_string: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        header = _HEADER_RE.match(line)
        if header:
            path = tuple(_split_key(header.group(2)))
            if header.group(1) == "[[":
                index = counts.get(path, 0)
                counts[path] = index + 1
                lines.setdefault(path, number)
                prefix = (*path, index)
            else:
                prefix = path
            lines.setdefault(prefix, number)
            continue
        assign = _ASSIGN_RE.match(line)
        if assign:
            lines.setdefault((*prefix, *_split_key(assign.group(1))), number)
            value = assign.group(2)
            for quote in ('"""', "'''"):
                if value.count(quote) % 2 == 1:
                    in_string = quote
    return lines


def line_of(text: str, path: KeyPath) -> int | None:
    """The line of ``path`` in ``text``, or of its nearest enclosing key; ``None`` if absent."""
    lines = key_lines(text)
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
