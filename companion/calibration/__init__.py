"""Calibration and diagnosis: pure math and sanity checks (no I/O, no clock).

``window`` summarises raw samples per cell; ``solve`` turns guided steps into offsets,
counts per gram and pawn masses (one pawn of each of ``SIZES``) with physical checks;
``diagnose`` gives the doctor's per-cell verdicts; ``apply`` writes a result into a ``Config``.
"""

from companion.calibration.apply import Calibration, apply_calibration
from companion.calibration.diagnose import CellReport, diagnose_cell
from companion.calibration.solve import (
    SIZES,
    CalibrationError,
    Issue,
    ScaleResult,
    offsets_from,
    pawn_masses_from,
    rest_check,
    scales_from,
    stillness_issues,
)
from companion.calibration.window import CellWindow, Window, cell_window, summarise

__all__ = ["SIZES", "CalibrationError", "Calibration", "CellReport", "CellWindow", "Issue", "ScaleResult",
           "Window", "apply_calibration", "cell_window", "diagnose_cell", "offsets_from", "pawn_masses_from",
           "rest_check", "scales_from", "stillness_issues", "summarise"]
