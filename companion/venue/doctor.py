"""``doctor``'s venue check: try the ``[venue]`` broker once with the configured login."""

from __future__ import annotations

from typing import Any, TextIO


def report_venue(config: Any, out: TextIO, timeout_s: float = 5.0) -> bool:
    """Print whether the venue broker accepts this table; True if fine (or no ``[venue]``)."""
    venue = getattr(config, "venue", None)
    if venue is None:
        return True
    where = f"{venue.host}:{venue.broker_port}{' (TLS)' if venue.use_tls else ''}"
    print(f"\nVenue broker {where}, as table {venue.table!r} of {venue.name!r}:", file=out, flush=True)
    try:
        from companion.venue.mqtt import probe

        problem = probe(venue, timeout_s)
    except ImportError as exc:
        problem = f"paho-mqtt is not installed ({exc}): pip install paho-mqtt"
    if problem is None:
        print(f"  ok: the broker accepted the login; topics {venue.topic_prefix()}*", file=out)
        return True
    print(f"  problem: {problem}", file=out)
    return False
