"""HX711 readings with one bit flipped in transfer, told from load steps (used by ``cells.py``).

A reading garbled on the line often differs from the true code by one flipped bit, a jump of
exactly a power of two counts. Glitches are independent per cell, so now and then two cells
have one in the same row -- which, taken at face value, moves the moment as a tip does.
"""

from __future__ import annotations


def one_bit_off(code: int, last: int, tol: float) -> bool:
    """Is ``code`` (a signed 24-bit reading) within ``tol`` counts of ``last`` once one of its
    bits worth more than eight times ``tol`` is flipped back? Then it is most likely ``last`` with
    a bit flipped in transfer. A genuine load step lands there only by chance, when its size is
    within ``tol`` of a power of two; lower bits are not tried, as their windows (2 * tol wide)
    would cover a quarter or more of all step sizes."""
    u = code & 0xFFFFFF
    k = max(1, int(8.0 * tol)).bit_length()  # the lowest bit worth more than 8 * tol
    while k < 24:
        back = u ^ (1 << k)
        if back & 0x800000:
            back -= 1 << 24
        if abs(back - last) <= tol:
            return True
        k += 1
    return False
