"""Sample sources (contract 5): serial bridge, GPIO, simulator, trace file.

>>> source = make_source(config)          # kind: argument > $DINGO_SOURCE > [source] kind
>>> source.open()
>>> for item in source.read(0.1): ...    # Sample or SourceFault; never blocks > 0.1 s
>>> source.close()
"""

from hardware.sources.base import FAULT_KINDS, Item, SampleSource, SourceError, SourceFault
from hardware.sources.factory import ENV_VAR, SOURCE_KINDS, make_source, resolve_kind

__all__ = ["ENV_VAR", "FAULT_KINDS", "SOURCE_KINDS", "Item", "SampleSource", "SourceError", "SourceFault",
           "make_source", "resolve_kind"]
