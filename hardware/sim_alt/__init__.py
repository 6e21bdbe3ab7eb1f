"""An independent table simulator (docs/simulator-alt.md) to catch overfitting to ``hardware.sim``.

Written from the trace spec and first principles, without reading ``hardware/sim`` or the
sensing pipeline. ``generate(seed, cells=, rate_hz=, noise_g=, kind=, minutes=)`` returns
``(header, samples, truth)`` in the same shapes and truth vocabulary as the main corpus.
"""

from hardware.sim_alt.scenarios import KINDS, generate

__all__ = ["KINDS", "generate"]
