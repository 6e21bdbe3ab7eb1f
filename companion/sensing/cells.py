"""Per-cell conditioning of raw HX711 codes: calibration, glitch rejection and fault detection.

A reading becomes grams with ``(raw - offset) / counts_per_gram``. Glitches (single samples
with flipped high bits, the rails ``8388607``/``-8388608``, ``-1``, lone spikes) are rejected
without dropping genuine steps: a jump larger than ``glitch_jump_g`` is held for one reading
and accepted only if the next reading confirms it (same side). Missed reads keep the last
value. Faults are judged on the raw stream of each cell (see ``docs/sensing.md``): stuck, rail and
missed-read runs here, the noise blocks and the noisy test in ``cellnoise.py``; a failed cell of
four or more is replaced by its estimate from the others (``substitute.py``).
"""

from __future__ import annotations

from operator import eq, mul

from companion.sensing.bitflips import one_bit_off
from companion.sensing.cellnoise import CellNoise
from companion.sensing.settings import SensingSettings
from companion.sensing.substitute import CellModel
from companion.sensing.trace import BAD_CODES, RAW_MAX, RAW_MIN, TraceHeader

_BAD_CODES = BAD_CODES
_BAD = frozenset((None, *_BAD_CODES))  # a row holding none of these may take the fast path
BIG_JUMP_G = 40.0  # a per-sample jump this big, far above the other cells', is held as a glitch


class CellFilter:
    """Cleans the raw readings of all cells; keeps the total force ``F`` and moments ``X``, ``Y``.

    ``ok`` is the last accepted raw code of every cell (held through missed reads and glitches).
    """

    def __init__(self, header: TraceHeader, settings: SensingSettings) -> None:
        n = len(header.cells)
        self.n = n
        self._offset = [c.offset for c in header.cells]
        self._inv = [1.0 / c.counts_per_gram for c in header.cells]
        xs = [c.x_mm for c in header.cells]
        ys = [c.y_mm for c in header.cells]
        self._kf = list(self._inv)
        self._kx = [k * x for k, x in zip(self._inv, xs, strict=True)]
        self._ky = [k * y for k, y in zip(self._inv, ys, strict=True)]
        self._cf = sum(o * k for o, k in zip(self._offset, self._kf, strict=True))
        self._cx = sum(o * k for o, k in zip(self._offset, self._kx, strict=True))
        self._cy = sum(o * k for o, k in zip(self._offset, self._ky, strict=True))
        self._xs, self._ys = xs, ys
        # a faulty cell is sure only after its fault's own time span: learn nothing younger
        hold = max(settings.stuck_ms, settings.noisy_ms, settings.rail_ms, settings.disconnected_ms) + 1000.0
        self._model = CellModel(list(zip(xs, ys, strict=True)), hold)
        self._slow_f = 0.0
        self._model_ok = False  # set after the first noise block shows healthy cells
        self.substituted: int | None = None  # the failed cell replaced by its estimate
        self.remapped: tuple[float, float, float] | None = None  # (dF, dX, dY) when a cell was replaced
        self._jump = settings.glitch_jump_g
        self._jump_m = settings.glitch_jump_g * max([1.0] + [abs(v) for v in xs + ys])
        self._jump_counts = [self._jump * abs(1.0 / k) for k in self._inv]  # per cell, as in ``_slow``
        self.F = self.X = self.Y = 0.0
        self.ok: list[int] = [int(o) for o in self._offset]
        self._init = [False] * n
        self._clean = False  # every cell has had a valid reading and no jump is pending
        self._fast = False  # clean and no cell replaced: the fast path of ``update`` applies
        self._set_coefficients()
        self._pending: list[int | None] = [None] * n
        self.glitches = 0
        self.suspect = False  # True when this row had a lone jump held for confirmation
        s = settings
        self._s = s
        dt = 1000.0 / header.rate_hz
        self._stride = max(1, round(100.0 / dt))  # stuck check every ~100 ms
        self._stuck_checks = max(s.stuck_min_samples // self._stride,
                                 round(s.stuck_ms / (dt * self._stride)), 3)
        self._rail_n = max(s.rail_min_samples, round(s.rail_ms / dt))
        self._dead_n = max(s.disconnected_min_samples, round(s.disconnected_ms / dt))
        self._block_n = max(8, round(1000.0 / dt))
        self._due = min(self._stride, self._block_n)  # next row count with a stuck check or block
        self._stuck_val: list[int | None] = [None] * n
        self._same = [0] * n
        self._rail = [0] * n
        self._rail_t = [0] * n
        self._dead = [0] * n
        self._dead_t = [0] * n
        self._runs = False  # some rail/dead run is open
        self._block: list[tuple[int | None, ...]] = []
        self._block_clean = True  # no row of the block had a missed read or a suspicious code
        self._rows = 0
        self._noise = CellNoise(self._offset, self._inv, s, max(header.pawn_mass_g.values(), default=8.0))
        self._scale = [abs(k) for k in self._inv]  # grams per count
        self.faults: dict[int, str] = {}
        self._fault_bad_t: dict[int, int] = {}

    def grams(self) -> list[float]:
        """Current calibrated grams per cell."""
        return self.grams_of(self.ok)

    def grams_of(self, raw: list[int] | tuple[int, ...]) -> list[float]:
        """Calibrated grams of a row of valid raw codes."""
        return [(v - o) * k for v, o, k in zip(raw, self._offset, self._inv, strict=True)]

    def _substitute(self, j: int) -> None:
        """Replace failed cell ``j`` by its linear estimate from the others (4+ cells only)."""
        if self.substituted is not None:
            return
        fit = self._model.coefficients(j)
        if fit is None:
            return
        a0, a = fit
        before = (self.F, self.X, self.Y)
        kf, kx, ky = [0.0] * self.n, [0.0] * self.n, [0.0] * self.n
        cf, cx, cy = a0, a0 * self._xs[j], a0 * self._ys[j]
        cf, cx, cy = -cf, -cx, -cy
        for i in range(self.n):
            if i == j:
                continue
            inv, off = self._inv[i], self._offset[i]
            kf[i] = (1.0 + a[i]) * inv
            kx[i] = (self._xs[i] + a[i] * self._xs[j]) * inv
            ky[i] = (self._ys[i] + a[i] * self._ys[j]) * inv
            cf += kf[i] * off
            cx += kx[i] * off
            cy += ky[i] * off
        self._kf, self._kx, self._ky = kf, kx, ky
        self._cf, self._cx, self._cy = cf, cx, cy
        self._set_coefficients()
        self.substituted = j
        self._fast = False
        self._pending[j] = None
        self._compute(self.ok)
        self.remapped = (self.F - before[0], self.X - before[1], self.Y - before[2])

    def _compute(self, ok: list[int]) -> None:
        self.F = sum(map(mul, ok, self._kf)) - self._cf
        self.X = sum(map(mul, ok, self._kx)) - self._cx
        self.Y = sum(map(mul, ok, self._ky)) - self._cy

    def _set_coefficients(self) -> None:
        """Pack the calibration sums for the fast path of ``update`` (after any change to them)."""
        self._k = (*self._kf, *self._kx, *self._ky, self._cf, self._cx, self._cy)

    def update(self, t_ms: int, raw: tuple[int | None, ...]) -> list[dict] | None:
        """Take one row of raw codes; update ``F``, ``X``, ``Y``; return fault events (or None)."""
        if self._fast and _BAD.isdisjoint(raw):
            # the common row: every cell read, no suspicious code, nothing held, no cell replaced
            # (``suspect`` is False: a row that sets it holds a jump, which ends ``_fast``).
            # The sums are written out for 3 and 4 cells, in the order of ``sum(map(mul, raw, k))``
            # (which starts from 0); ``int * float`` converts the int exactly as ``float()`` does,
            # so F, X and Y are bit-identical to ``_compute``.
            n = self.n
            if n == 4:
                f0, f1, f2, f3, x0, x1, x2, x3, y0, y1, y2, y3, cf, cx, cy = self._k
                a, b, c, d = raw  # type: ignore[misc]
                f = 0.0 + a * f0 + b * f1 + c * f2 + d * f3 - cf
                x = 0.0 + a * x0 + b * x1 + c * x2 + d * x3 - cx
                y = 0.0 + a * y0 + b * y1 + c * y2 + d * y3 - cy
            elif n == 3:
                f0, f1, f2, x0, x1, x2, y0, y1, y2, cf, cx, cy = self._k
                a, b, c = raw  # type: ignore[misc]
                f = 0.0 + a * f0 + b * f1 + c * f2 - cf
                x = 0.0 + a * x0 + b * x1 + c * x2 - cx
                y = 0.0 + a * y0 + b * y1 + c * y2 - cy
            else:
                f = sum(map(mul, raw, self._kf)) - self._cf
                x = sum(map(mul, raw, self._kx)) - self._cx
                y = sum(map(mul, raw, self._ky)) - self._cy
            j = self._jump
            jm = self._jump_m
            if -j <= f - self.F <= j and -jm <= x - self.X <= jm and -jm <= y - self.Y <= jm:
                self.F, self.X, self.Y = f, x, y
                if self._model_ok:
                    slow = self._slow_f
                    slow += 0.01 * (f - slow)
                    self._slow_f = slow
                    if f - slow > 15.0 or f - slow < -15.0:
                        self._model.observe(self.grams_of(raw), t_ms)  # type: ignore[arg-type]
                self.ok = raw  # type: ignore[assignment]
                if self._runs:
                    self._runs = False
                    self._rail = [0] * n
                    self._dead = [0] * n
                self._block.append(raw)
                rows = self._rows = self._rows + 1
                if rows >= self._due:
                    return self._bookkeeping(t_ms, raw, None)
                if self.faults:
                    self._maybe_clear(t_ms)
                return None
            if self._calm(raw):
                # the sums moved beyond the glitch bounds (a press), but no cell jumped on its
                # own: what ``_slow`` does with such a row (its sums are these, to the bit)
                self.F, self.X, self.Y = f, x, y
                self.ok = raw  # type: ignore[assignment]
                if self._runs:
                    self._runs = False
                    self._rail = [0] * n
                    self._dead = [0] * n
                events = None
            else:
                events = self._slow(t_ms, raw)
        else:
            self.suspect = False
            self._block_clean = False
            sub = self.substituted
            if sub is not None:
                # a failed cell's reading is not used
                used = raw[:sub] + (0,) + raw[sub + 1:]
                if self._clean and _BAD.isdisjoint(used):
                    events = self._replaced(t_ms, used)
                else:
                    events = self._slow(t_ms, used)
            else:
                events = self._slow(t_ms, raw)
        self._block.append(raw)  # type: ignore[arg-type]
        self._rows += 1
        if self._rows >= self._due:
            return self._bookkeeping(t_ms, raw, events)
        if self.faults and events is None:
            self._maybe_clear(t_ms)
        return events

    def _calm(self, raw: tuple[int, ...]) -> bool:
        """Is every cell's reading within its jump tolerance of its last one (``_slow``'s test;
        only while clean: every cell read before, nothing held)?"""
        ok = self.ok
        if self.n == 4:
            a, b, c, d = raw
            oa, ob, oc, od = ok
            ja, jb, jc, jd = self._jump_counts
            return -ja <= a - oa <= ja and -jb <= b - ob <= jb and -jc <= c - oc <= jc and -jd <= d - od <= jd
        return all(-j <= v - o <= j for v, o, j in zip(raw, ok, self._jump_counts, strict=True))

    def _replaced(self, t_ms: int, used: tuple[int, ...]) -> list[dict] | None:
        """A clean row while a failed cell is replaced by its estimate (its reading zeroed)."""
        if self.n == 4:  # written out as in ``update`` (the same sums, to the bit)
            f0, f1, f2, f3, x0, x1, x2, x3, y0, y1, y2, y3, cf, cx, cy = self._k
            a, b, c, d = used
            f = 0.0 + a * f0 + b * f1 + c * f2 + d * f3 - cf
            x = 0.0 + a * x0 + b * x1 + c * x2 + d * x3 - cx
            y = 0.0 + a * y0 + b * y1 + c * y2 + d * y3 - cy
        else:
            f = sum(map(mul, used, self._kf)) - self._cf
            x = sum(map(mul, used, self._kx)) - self._cx
            y = sum(map(mul, used, self._ky)) - self._cy
        j, jm = self._jump, self._jump_m
        if not (-j <= f - self.F <= j and -jm <= x - self.X <= jm and -jm <= y - self.Y <= jm):
            return self._slow(t_ms, used)
        self.F, self.X, self.Y = f, x, y
        if self._model_ok:  # until the next noise block notices the replacement
            self._slow_f += 0.01 * (f - self._slow_f)
            if f - self._slow_f > 15.0 or f - self._slow_f < -15.0:
                self._model.observe(self.grams_of(used), t_ms)
        self.ok = used  # type: ignore[assignment]
        if self._runs:
            self._runs = False
            self._rail = [0] * self.n
            self._dead = [0] * self.n
        return None

    def _bookkeeping(self, t_ms: int, raw: tuple[int | None, ...],
                     events: list[dict] | None) -> list[dict] | None:
        """The stuck check every ``_stride`` rows and the noise block every ``_block_n`` rows
        (then the due row of the next one); finally the fault clearing of ``update``."""
        rows = self._rows
        stride = self._stride
        if rows % stride == 0:
            if self.substituted is None and _BAD.isdisjoint(raw) and not any(map(eq, raw, self._stuck_val)):
                # the common case of ``_stuck_check``: every cell read a new code (no run of repeats)
                self._stuck_val = list(raw)
                self._same = [0] * self.n
            else:
                ev = self._stuck_check(t_ms, raw)
                if ev:
                    events = (events or []) + ev
        block_n = self._block_n
        if rows >= block_n:
            ev = self._noise_blocks(t_ms)
            if ev:
                events = (events or []) + ev
            rows = 0
        due = (rows // stride + 1) * stride
        self._due = due if due < block_n else block_n
        if self.faults and events is None:
            self._maybe_clear(t_ms)
        return events

    def _slow(self, t_ms: int, raw: tuple[int | None, ...]) -> list[dict] | None:
        """The careful per-cell path: missed reads, bad codes, jumps held for confirmation."""
        self.suspect = False
        ok = list(self.ok)
        pending = self._pending
        events: list[dict] | None = None
        jumps: list[tuple[int, int]] | None = None
        sub = self.substituted
        for i, v in enumerate(raw):
            if i == sub:
                ok[i] = 0
                continue
            if v is None or v in _BAD_CODES:
                ev = self._bad(i, t_ms, v)
                if ev is not None:
                    events = (events or []) + [ev]
                continue
            if self._dead[i] or self._rail[i]:
                self._dead[i] = 0
                self._rail[i] = 0
            if not self._init[i]:
                self._init[i] = True
                ok[i] = v
                continue
            jump = self._jump * abs(1.0 / self._inv[i])  # in counts
            dx = v - ok[i]
            if -jump <= dx <= jump:
                ok[i] = v
                pending[i] = None
                continue
            p = pending[i]
            if p is not None and (dx > 0) == (p > ok[i]):
                ok[i] = v  # the jump is confirmed by a second reading on the same side
                pending[i] = None
                continue
            if p is not None:
                self.glitches += 1
            if jumps is None:
                jumps = []
            jumps.append((i, v))
        if jumps is not None:
            # readings each one flipped bit away from their cell's last code, with no other
            # cell jumping, are the HX711's own glitches (a bit lost on the line), however many
            # cells have one at once: held for confirmation like a lone jump. A load moves the
            # cells by amounts a single flip each explains only by chance (within three sigmas
            # of the noise of each), and then costs one reading of confirmation.
            flips = len(jumps) >= 2 and self._flips(jumps, ok)  # (a lone jump is held anyway)
            if not flips and len(jumps) >= 2 and len(jumps) * 2 >= self.n:
                # several cells moved together: a real load change -- but a glitch riding on it
                # stands out as one jump far larger than all the others
                size = sorted((abs((v - ok[i]) * self._inv[i]), i) for i, v in jumps)
                top_g, top_i = size[-1]
                odd = top_i if top_g > BIG_JUMP_G and top_g > 3.0 * size[-2][0] else None
                for i, v in jumps:
                    if i == odd:
                        self.suspect = True
                        pending[i] = v
                    else:
                        ok[i] = v
                        pending[i] = None
            else:
                self.suspect = True  # one cell jumped alone: hold it until the next reading
                for i, v in jumps:
                    pending[i] = v
        self._clean = all(self._init) and all(p is None for p in pending)
        self._fast = self._clean and self.substituted is None
        self._runs = any(self._rail) or any(self._dead)
        self.ok = ok
        self._compute(ok)
        return events

    def _flip_tol(self, i: int) -> float:
        """How close (counts) a reading of cell ``i`` with one bit flipped back must come to its
        last code to be that code: three sigmas of a difference of two readings, at least 1 g
        (a cell's noise may be up to 0.25 g) and at most half the jump tolerance."""
        sigma = self.noise_g[i]
        tol_g = min(0.5 * self._jump, max(1.0, 3.0 * 1.414 * sigma)) if sigma > 0.0 else 0.5 * self._jump
        return tol_g / self._scale[i]

    def _flips(self, jumps: list[tuple[int, int]], ok: list[int]) -> bool:
        """Are all the ``jumps`` of this row (cell, code) one flipped bit from their last codes?"""
        return all(one_bit_off(v, ok[i], self._flip_tol(i)) for i, v in jumps)

    def _stuck_check(self, t_ms: int, raw: tuple[int | None, ...]) -> list[dict] | None:
        """Every ~100 ms: a cell whose raw code has not changed at all for ``stuck_ms`` is stuck."""
        if self.substituted is None and _BAD.isdisjoint(raw) and not any(map(eq, raw, self._stuck_val)):
            # the common case: every cell read, each a new code (any run of repeats ends)
            self._stuck_val = list(raw)
            self._same = [0] * self.n
            return None
        events = None
        for i, v in enumerate(raw):
            if v is None or v in _BAD_CODES or i == self.substituted:
                continue
            if v == self._stuck_val[i]:
                self._same[i] += 1
                if self._same[i] >= self._stuck_checks:
                    ev = self._fault(i, t_ms, "stuck")
                    if ev is not None:
                        events = (events or []) + [ev]
            else:
                self._stuck_val[i] = v
                self._same[i] = 0
        return events

    def _bad(self, i: int, t_ms: int, v: int | None) -> dict | None:
        """A missed read or a suspicious code (rail or -1): counts toward a fault, value held."""
        if v in (RAW_MAX, RAW_MIN):
            if self._rail[i] == 0:
                self._rail_t[i] = t_ms
            self._rail[i] += 1
            self._dead[i] = 0
            if self._rail[i] >= self._rail_n and t_ms - self._rail_t[i] >= self._s.rail_ms:
                return self._fault(i, t_ms, "saturated")
            return None
        if self._dead[i] == 0:
            self._dead_t[i] = t_ms
        self._dead[i] += 1
        self._rail[i] = 0
        if self._dead[i] >= self._dead_n and t_ms - self._dead_t[i] >= self._s.disconnected_ms:
            return self._fault(i, t_ms, "disconnected")
        return None

    @property
    def noise_g(self) -> list[float]:
        """Robust per-cell noise sigma in grams, from the last noise block (0.0 before one)."""
        return self._noise.noise_g

    def _noise_blocks(self, t_ms: int) -> list[dict]:
        """Every second: the block of rows to ``CellNoise`` (per-cell noise, the noisy test);
        a cell noisy for long enough is a fault."""
        self._rows = 0
        block = self._block[::3] if len(self._block) >= 48 else self._block  # every third row suffices
        self._block = []
        clean = self._block_clean  # every row of the block was read in full, with no suspicious code
        self._block_clean = True
        noisy, self._model_ok = self._noise.block(block, clean, self.faults, self.substituted)
        events = []
        for i in noisy:
            ev = self._fault(i, t_ms, "noisy")
            if ev is not None:
                events.append(ev)
        return events

    def _fault(self, i: int, t_ms: int, kind: str) -> dict | None:
        """Record a fault; return the event the first time it is seen (until it clears)."""
        self._fault_bad_t[i] = t_ms
        if self.faults.get(i) == kind:
            return None
        self.faults[i] = kind
        self._model.discard_recent(t_ms)
        self._substitute(i)
        return {"event": "fault", "t_ms": t_ms, "cell": i, "kind": kind}

    def _maybe_clear(self, t_ms: int) -> None:
        """Forget faults of cells that have behaved for ``fault_clear_ms``."""
        limit = self._s.fault_clear_ms
        runs = {"stuck": self._same, "saturated": self._rail, "disconnected": self._dead,
                "noisy": self._noise.noisy_run}
        for i in list(self.faults):
            kind = self.faults[i]
            bad = runs[kind][i] > 0
            if bad:
                self._fault_bad_t[i] = t_ms
            elif t_ms - self._fault_bad_t[i] >= limit:
                del self.faults[i]
