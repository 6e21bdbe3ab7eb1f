"""The cells' noise, one block of raw rows a second, and the noisy-cell test (``CellFilter``'s).

Each block gives every cell a robust noise sigma (``noise_g``: the median step between successive
reads), and a cell is noisy when its noise is far above ``noisy_g`` and far above the other
cells' (physical loads move all cells together; noise is one cell's own) for ``noisy_ms``. The
block also says whether the cells are healthy enough to learn the stand-in model from. The fault
itself is recorded by ``CellFilter`` (it may replace the cell).
"""

from __future__ import annotations

from operator import sub as minus

from companion.sensing.settings import SensingSettings
from companion.sensing.stillness import StillLevels
from companion.sensing.trace import BAD_CODES

_BAD_CODES = BAD_CODES
_BAD = frozenset((None, *_BAD_CODES))
ALONE_RATIO = 50.0  # noise this far above every other cell's is no load's, whatever they do


class CellNoise:
    """Per-cell noise sigmas of the last block and the runs of noisy blocks of every cell."""

    def __init__(self, offsets: list[float], inv: list[float], settings: SensingSettings,
                 heaviest_g: float) -> None:
        self.n = n = len(inv)
        self._inv = inv
        self._scale = [abs(k) for k in inv]  # grams per count
        self._noisy_g = settings.noisy_g
        self._noisy_blocks = max(1, round(settings.noisy_ms / 1000.0))
        self.noisy_run = [0] * n  # blocks in a row each cell was noisy (0: not noisy)
        self._cols: list[tuple[int | None, ...]] = []  # the last block, one column per cell
        self._noise_g: list[float] | None = [0.0] * n  # its per-cell sigmas (None: not computed yet)
        self._still = StillLevels(offsets, inv, heaviest_g)

    @property
    def noise_g(self) -> list[float]:
        """Robust per-cell noise sigma in grams, from the last noise block (0.0 before one)."""
        if self._noise_g is None:
            self._noise_g = self._sigmas(self._cols)
        return self._noise_g

    def _sigmas(self, columns: list[tuple[int | None, ...]]) -> list[float]:
        """Per-cell noise sigma of a block (one column of raw codes per cell): the median
        |difference of successive reads|, which is 0.954 sigma for Gaussian noise."""
        sigmas = []
        for i, col in enumerate(columns):
            scale = abs(self._inv[i])
            if _BAD.isdisjoint(col):
                # scaling by a positive constant keeps the order: scale the median only
                steps = sorted(map(abs, map(minus, col[1:], col)))
                sigmas.append(steps[len(steps) // 2] * scale / 0.954 if len(steps) >= 4 else 0.0)
                continue
            diffs = sorted(abs(b - a) * scale for a, b in zip(col, col[1:], strict=False)
                           if a is not None and b is not None and a not in _BAD_CODES and b not in _BAD_CODES)
            sigmas.append(diffs[len(diffs) // 2] / 0.954 if len(diffs) >= 4 else 0.0)
        return sigmas

    def block(self, block: list[tuple[int | None, ...]], clean: bool, faults: dict[int, str],
              substituted: int | None) -> tuple[list[int], bool]:
        """A block of rows (``clean``: every row read in full, no suspicious code), with the cells
        known ``faults`` and the one ``substituted`` by its estimate: the cells noisy for long
        enough now (a ``noisy`` fault each, in order), and whether the stand-in model may learn."""
        n = self.n
        columns = list(zip(*block, strict=True)) if block else [()] * n
        self._cols = columns
        self._noise_g = None
        noisy_g = self._noisy_g
        for col, scale in zip(columns, self._scale, strict=True):
            # no step of a column exceeds its range: a small range bounds its median step, so
            # its sigma is certainly below ``noisy_g`` (then ``noise_g`` is computed on demand)
            if not clean or not col or (max(col) - min(col)) * scale / 0.954 >= noisy_g:
                break
        else:
            self.noisy_run = [0] * n
            self._still.note(columns)
            return [], n >= 4 and substituted is None
        sigmas = self.noise_g
        loudest = max(sigmas)
        # learn the stand-in model only while every cell is healthy
        model_ok = n >= 4 and substituted is None and loudest < noisy_g
        if loudest <= noisy_g:  # no cell above the noisy threshold: the loop below would clear all runs
            self.noisy_run = [0] * n
            self._still.note(columns)
            return [], model_ok
        levels = self._still.levels(columns)
        unused = set(faults) | ({substituted} if substituted is not None else set())
        noisy = []
        # a replaced cell's reading is constant or garbage: its share of a hand's tremor is
        # missing among the others, so a cell near the hand stands out more
        apart = 5.0 if substituted is None else 10.0
        run = self.noisy_run
        for i, sigma in enumerate(sigmas):
            others = sorted(sigmas[:i] + sigmas[i + 1:])
            # physical loads (a trembling hand) move several cells at once: a noisy cell stands alone
            loudest_other = others[-1] if others else 0.0
            if sigma > noisy_g * (1 if others else 3) and sigma > apart * loudest_other:
                others_now = self._still.others_now(i, levels, columns, unused, sigmas)
                if others_now == "moved":
                    run[i] = 0
                    continue
                if others_now == "busy" and sigma <= ALONE_RATIO * loudest_other:
                    # a press, or a hand whose tremor reaches the others weakly (over a cell near
                    # the rim their shares are small): this block says nothing either way
                    continue
                run[i] += 1
                if run[i] >= self._noisy_blocks:
                    noisy.append(i)
            else:
                run[i] = 0
        return noisy, model_ok
