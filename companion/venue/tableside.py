"""Wiring the venue publisher into a running table (``build_table`` calls :func:`open_venue`)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def open_venue(config: Any, controller: Any, store: Any, data_dir: Path, warnings: list[str]) -> Any:
    """A :class:`VenuePublisher` for ``[venue]`` (not started), or None (off, or it cannot run).

    Its connection problems (unreachable broker, refused login) become the ``venue`` status line
    of the page; nothing here can stop the table.
    """
    venue = getattr(config, "venue", None)
    if venue is None:
        return None
    report = getattr(store, "report", None)
    if store is None or getattr(report, "status", "") == "memory":
        warnings.append("venue: no session log on disk, so nothing is published to the venue broker")
        return None
    try:
        from companion.table.prompts import describe_event
        from companion.venue.publisher import STATUS_KEY, VenuePublisher

        def on_status(problem: str | None) -> None:
            if problem is None:
                controller.clear_status(STATUS_KEY)
            else:
                controller.add_status(STATUS_KEY, f"venue: {problem}")

        describe = getattr(getattr(controller, "_game", None), "describe", None)
        publisher = VenuePublisher(venue, controller, store.path, data_dir, describe=describe,
                                   describe_event=describe_event, on_status=on_status)
    except Exception as exc:  # noqa: BLE001 - e.g. paho-mqtt missing: the table runs on without it
        log.exception("venue publisher unavailable")
        warnings.append(f"venue publisher unavailable ({exc}); this table is not shown at the venue hub")
        return None
    return publisher
