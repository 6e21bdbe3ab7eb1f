"""Families of simulated tables (docs/simulator-families.md): physics of the disc on its support,
free-running HX711 clocks, seedable per trace; ``generate(seed, family_name=...)``."""

from hardware.simfamily.families import FAMILIES, HELD_BACK, TUNED, family
from hardware.simfamily.generate import KINDS, generate

__all__ = ["FAMILIES", "HELD_BACK", "KINDS", "TUNED", "family", "generate"]
