"""Dingo Companion: referees a Dingo Disc game from load cells under the disc."""

__version__ = "0.1.0"
