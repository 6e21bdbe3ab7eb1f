"""Every 1-, 2- and 3-bit corruption of a protocol line, through the real parser.

``flip_report(line, bits)`` flips every set of ``bits`` bit positions of the framed line (CRLF
included, as on the wire) and counts how many variants the parser accepts. A variant with a
byte the parser refuses on sight (outside printable ASCII, before the trailing CR/LF) is counted
as rejected without calling it: that is the parser's own first check (``_split_frame``), applied
to each byte once instead of to each of the millions of variants. Every other variant goes
through :func:`firmware_bridge.protocol.parse_line`.

A variant that parses to the very message of the original line is not a corruption let through:
with 3 flips the line end CR LF can become LF LF or CR CR (0x0D ^ 0x0A = 3 bits), which the
parser strips like CR LF. Those are counted apart (``same_message``).

``python -m firmware_bridge.bitflips [max_bits]`` prints the counts for the golden lines.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.protocol import ProtocolError, parse_line

GOLDEN = Path(__file__).resolve().parent / "golden" / "valid.txt"


@dataclass
class FlipReport:
    """How the parser answered every ``bits``-bit corruption of one line."""

    line: bytes
    bits: int
    variants: int = 0
    parsed: int = 0  # variants that reached the parser (the rest fail its printable-bytes check)
    accepted: int = 0  # parsed to a different message: a corruption let through
    same_message: int = 0  # parsed to the very same message (only the CR/LF line end changed)
    accepted_examples: tuple[bytes, ...] = ()

    @property
    def rejected(self) -> int:
        """Variants the parser refused."""
        return self.variants - self.accepted - self.same_message


def golden_lines(path: Path = GOLDEN) -> list[bytes]:
    """The golden valid lines, framed as on the wire (``...*CCCC\\r\\n``)."""
    out = []
    for row in path.read_text().splitlines():
        if row and not row.startswith("#"):
            out.append(row.split("\t", 1)[0].encode("ascii") + b"\r\n")
    return out


def _masks(popcount: int) -> list[int]:
    return [m for m in range(1, 256) if bin(m).count("1") == popcount]


def _partitions(bits: int) -> list[tuple[int, ...]]:
    """Ways to share ``bits`` flips among distinct bytes (popcounts in non-increasing order)."""
    out: list[tuple[int, ...]] = []

    def rec(left: int, most: int, acc: tuple[int, ...]) -> None:
        if left == 0:
            out.append(acc)
            return
        for k in range(min(left, most), 0, -1):
            rec(left - k, k, (*acc, k))

    rec(bits, bits, ())
    return out


def flip_report(line: bytes, bits: int, parser: Callable[[bytes], Any] = parse_line) -> FlipReport:
    """Flip every ``bits``-subset of the bit positions of ``line``; count what the parser accepts."""
    original = parser(line)
    n = len(line)
    report = FlipReport(line, bits, variants=math.comb(8 * n, bits))
    tail = len(line) - len(line.rstrip(b"\r\n"))  # the CR/LF the parser strips: any value may do there

    def survivors(pos: int, pop: int) -> list[int]:
        """Masks of ``pop`` bits at ``pos`` whose result the parser does not refuse on sight."""
        keep = []
        for m in _masks(pop):
            b = line[pos] ^ m
            if pos >= n - tail or 0x20 <= b <= 0x7E or b in (0x0D, 0x0A):
                keep.append(m)
        return keep

    table = {(p, k): survivors(p, k) for p in range(n) for k in range(1, bits + 1)}
    examples: list[bytes] = []
    for shape in _partitions(bits):
        for positions in itertools.permutations(range(n), len(shape)):
            # each set of bytes once: equal popcounts in increasing position order
            if any(shape[i] == shape[i + 1] and positions[i] > positions[i + 1]
                   for i in range(len(shape) - 1)):
                continue
            choices = [table[(p, k)] for p, k in zip(positions, shape, strict=True)]
            if not all(choices):
                continue
            for masks in itertools.product(*choices):
                bad = bytearray(line)
                for p, m in zip(positions, masks, strict=True):
                    bad[p] ^= m
                report.parsed += 1
                try:
                    got = parser(bytes(bad))
                except ProtocolError:
                    continue
                if got == original:
                    report.same_message += 1
                    continue
                report.accepted += 1
                if len(examples) < 5:
                    examples.append(bytes(bad))
    report.accepted_examples = tuple(examples)
    return report


def main(argv: list[str] | None = None) -> int:
    """Print the rejection counts of every golden line for 1, 2 and 3 flipped bits."""
    args = argv if argv is not None else sys.argv[1:]
    max_bits = int(args[0]) if args else 3
    total: dict[int, list[int]] = {}
    t0 = time.perf_counter()
    for line in golden_lines():
        for bits in range(1, max_bits + 1):
            r = flip_report(line, bits)
            acc = total.setdefault(bits, [0, 0, 0, 0])
            acc[0] += r.variants
            acc[1] += r.rejected
            acc[2] += r.parsed
            acc[3] += r.same_message
            if r.accepted:
                print(f"ACCEPTED {bits}-bit flips of {line!r}: {r.accepted}, e.g. {r.accepted_examples[:2]}")
    for bits, (variants, rejected, parsed, same) in sorted(total.items()):
        print(f"{bits}-bit flips of {len(golden_lines())} golden lines: {variants} variants, "
              f"{rejected} rejected, "
              f"{variants - rejected - same} accepted as another message, {same} read as the same message "
              f"(CR<->LF line end only); {parsed} went through the parser")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0 if all(v == r + same for v, r, _, same in total.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
