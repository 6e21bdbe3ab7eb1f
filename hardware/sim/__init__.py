"""The physical simulator of the Dingo Disc table (see docs/simulator.md)."""

from hardware.sim.scenarios import KINDS, generate
from hardware.sim.table import TableSimulator

__all__ = ["KINDS", "TableSimulator", "generate"]
