"""QR codes of the page's address: as terminal text (start-up output) and as SVG (the page).

Both are drawn from the ``qrcode`` package's module matrix, so they always agree.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import qrcode
import qrcode.constants

_HALF_BLOCKS = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584", (True, True): "\u2588"}


def qr_matrix(text: str, border: int = 2) -> list[list[bool]]:
    """The QR code of ``text`` as rows of modules (``True`` = dark), with a quiet ``border``."""
    if not text:
        raise ValueError("nothing to encode: the QR text is empty")
    if not 0 <= border <= 10:
        raise ValueError(f"border must be 0..10 modules, got {border}")
    code = qrcode.QRCode(border=border, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(text)
    code.make(fit=True)
    return [list(row) for row in code.get_matrix()]


def qr_text(text: str, border: int = 2, invert: bool = True) -> str:
    """The QR code as text for a terminal, two module rows per line with half-block characters.

    ``invert=True`` (the default) draws light modules as blocks, which suits the usual light-on-
    dark terminal: the phone then sees dark modules on a light quiet zone.
    """
    matrix = qr_matrix(text, border)
    if invert:
        matrix = [[not cell for cell in row] for row in matrix]
    if len(matrix) % 2:
        matrix.append([False] * len(matrix[0]))
    lines = []
    for top, bottom in zip(matrix[0::2], matrix[1::2], strict=True):
        lines.append("".join(_HALF_BLOCKS[(a, b)] for a, b in zip(top, bottom, strict=True)))
    return "\n".join(lines) + "\n"


def qr_svg(text: str, border: int = 2, size_px: int | None = None, title: str | None = None) -> str:
    """The QR code as a standalone SVG document (one path, crisp edges, white background)."""
    matrix = qr_matrix(text, border)
    n = len(matrix)
    parts = []
    for y, row in enumerate(matrix):
        x = 0
        while x < n:  # one rectangle per run of dark modules
            if row[x]:
                start = x
                while x < n and row[x]:
                    x += 1
                parts.append(f"M{start} {y}h{x - start}v1h{start - x}z")
            else:
                x += 1
    size = f' width="{size_px}" height="{size_px}"' if size_px else ""
    raw = title if title is not None else text
    label, attr = escape(raw), escape(raw, {'"': "&quot;"})
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n} {n}"{size} '
        f'shape-rendering="crispEdges" role="img" aria-label="{attr}">'
        f"<title>{label}</title>"
        f'<rect width="{n}" height="{n}" fill="#fff"/>'
        f'<path fill="#000" d="{"".join(parts)}"/></svg>'
    )
