"""Fast random playouts: whole turns on raw bit masks, the same rules and the same random choices as
random play through :func:`legal_actions` / :func:`apply` (a test plays both side by side).

Pure: the random source ``rng`` (``random.Random``-like, with ``choice``) is an input. Used by the
random-games benchmark and by the search's rollouts.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from companion.games.pinuid_dobbal.board import squares_of
from companion.games.pinuid_dobbal.rules import REMOVAL_LIMIT
from companion.games.pinuid_dobbal.state import Options, State

_ROLLS: dict[int, list[tuple[int, ...]]] = {f: list(product(range(1, f + 1), repeat=3)) for f in (3, 6)}


def _sides(o: Options) -> list[int]:
    w = o.width
    out = []
    for sq in range(w * o.height):
        col = sq % w
        out.append((1 << (sq - 1) if col > 0 else 0) | (1 << (sq + 1) if col < w - 1 else 0))
    return out


_SIDES: dict[Options, list[int]] = {}


def playout(o: Options, rng: Any, pins: tuple[int, int], play: int, current: int, removed: tuple[int, int],
            put_back: tuple[int, int], max_turns: int) -> tuple[int | None, int, tuple[int, int], int]:
    """Play random whole turns from a position waiting for ``current``'s roll.

    Returns ``(winner or None, turns played, pins, play-pin square)`` after a win or ``max_turns`` turns.
    Every decision is ``rng.choice`` over the list :func:`legal_actions` would give, in its order.
    """
    b = o.board()
    rays, nb = b.rays, b.neighbours
    backs = b.back_line
    sides = _SIDES.get(o)
    if sides is None:
        sides = _SIDES[o] = _sides(o)
    rolls = _ROLLS[o.faces]
    choice = rng.choice
    chosen = o.play_pin_die == "chosen"
    normal_ok = o.double_normal_turn
    own_back_ok = o.play_pin_own_back_line
    needs_all = o.win_needs_all_moves
    limit = o.removal_limit
    p = [pins[0], pins[1]]
    rem = [removed[0], removed[1]]
    back = [put_back[0], put_back[1]]
    cur = current
    for turn in range(1, max_turns + 1):
        d = choice(rolls)
        if chosen and not d[0] == d[1] == d[2]:
            v = choice(sorted(set(d)))
            rest = list(d)
            rest.remove(v)
            r1, r2, pd = rest[0], rest[1], v
        else:
            r1, r2, pd = d
        own, opp = p[cur], p[1 - cur]
        occ = own | opp | (1 << play)
        skipped = False
        # ---- step 1 (or the double's alternative)
        alt_r: list[int] = []
        alt_b: list[int] = []
        if r1 == r2:
            off_me = rem[1 - cur] - back[cur]
            if limit == "3-each":
                ok = rem[cur] < REMOVAL_LIMIT
            elif limit == "3-total":
                ok = rem[0] + rem[1] < REMOVAL_LIMIT
            else:
                ok = rem[cur] - back[1 - cur] < REMOVAL_LIMIT
            if ok and opp:
                alt_r = squares_of(opp)
            if off_me > 0:
                alt_b = squares_of(backs[cur] & ~occ)
        double = bool(alt_r or alt_b)
        moves: list[tuple[int, int]] = []
        n1 = 0
        if not (double and not normal_ok):
            m = own
            while m:
                low = m & -m
                sq = low.bit_length() - 1
                m ^= low
                for mask, t in rays[sq][r1]:
                    if not occ & mask:
                        moves.append((sq, t))
            n1 = len(moves)
            if r2 != r1:
                m = own
                while m:
                    low = m & -m
                    sq = low.bit_length() - 1
                    m ^= low
                    for mask, t in rays[sq][r2]:
                        if not occ & mask:
                            moves.append((sq, t))
        nm = len(moves)
        total = nm + len(alt_r) + len(alt_b)
        if total:
            i = choice(range(total))
            if i >= nm:  # the double's alternative ends the turn
                i -= nm
                if i < len(alt_r):
                    opp &= ~(1 << alt_r[i])
                    rem[cur] += 1
                else:
                    own |= 1 << alt_b[i - len(alt_r)]
                    back[cur] += 1
                p[cur], p[1 - cur] = own, opp
                if not needs_all and backs[1 - cur] >> play & 1 and sides[play] & own:
                    return cur, turn, (p[0], p[1]), play
                cur = 1 - cur
                continue
            f, t = moves[i]
            own ^= (1 << f) | (1 << t)
            occ ^= (1 << f) | (1 << t)
            left: tuple[int, ...] = (r2,) if i < n1 else (r1,)
        else:
            skipped = True
            left = (r1, r2) if r1 != r2 else (r1,)
        # ---- step 2: the play-pin
        if nb[play] & own:
            ban = 0 if own_back_ok else backs[cur]
            pm = [t for mask, t in rays[play][pd] if not occ & mask and not ban >> t & 1]
            if pm:
                t = choice(pm)
                occ ^= (1 << play) | (1 << t)
                play = t
            else:
                skipped = True
        else:
            skipped = True
        # ---- step 3
        moves = []
        for die in left:
            m = own
            while m:
                low = m & -m
                sq = low.bit_length() - 1
                m ^= low
                for mask, t in rays[sq][die]:
                    if not occ & mask:
                        moves.append((sq, t))
        if moves:
            f, t = choice(moves)
            own ^= (1 << f) | (1 << t)
        else:
            skipped = True
        p[cur] = own
        if (not skipped or not needs_all) and backs[1 - cur] >> play & 1 and sides[play] & own:
            return cur, turn, (p[0], p[1]), play
        cur = 1 - cur
    return None, max_turns, (p[0], p[1]), play


def playout_state(s: State, rng: Any, max_turns: int) -> tuple[int | None, int]:
    """:func:`playout` from a state waiting for a roll: ``(winner or None, turns)``."""
    if s.phase == "over":
        return s.winner, 0
    assert s.phase == "roll", "playouts start between turns"
    w, n, _, _ = playout(s.options, rng, s.pins, s.play, s.current, s.removed, s.put_back, max_turns)
    return w, n
