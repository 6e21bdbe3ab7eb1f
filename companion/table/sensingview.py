"""The sensing pipeline as the table sees it: its live snapshot and its trace header (the layout)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class SensingView:
    """The pipeline's ``snapshot()`` (a failing one reads as empty: the page must keep working) and the
    trace header; both are replaced together when a new pipeline starts (e.g. after a calibration)."""

    def __init__(self, header: Any, sensing: Callable[[], dict] | None) -> None:
        """``header``: the trace header (or None); ``sensing``: the snapshot (None: nothing sensed)."""
        self.use(header, sensing or (lambda: {}))

    def use(self, header: Any, sensing: Callable[[], dict]) -> None:
        """A new pipeline: its header and its snapshot."""
        self.header, self._sensing = header, sensing

    def snapshot(self) -> dict:
        """The live sensing view ({} if the pipeline misbehaves; logged)."""
        try:
            return self._sensing() or {}
        except Exception:  # noqa: BLE001 - the page must keep working if sensing misbehaves
            log.exception("sensing snapshot failed")
            return {}

    def layout(self) -> Any:
        """The disc's layout (None without a header)."""
        return self.header.layout if self.header is not None else None

    def layout_json(self) -> dict | None:
        """The layout as the page gets it (None without one)."""
        layout = getattr(self.header, "layout", None)
        return layout.to_json() if layout is not None else None
