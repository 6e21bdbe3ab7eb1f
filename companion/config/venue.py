"""``[venue]``: publish this table to a venue's MQTT broker (docs/venue.md). Absent = off.

Kept in its own module so the venue settings and their cross-checks live in one place;
``model.Config.venue`` is ``None`` when the file has no ``[venue]`` section.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_PREFIX = "dingo/{venue}/tables/{table}/"
MQTT_PORT, MQTTS_PORT = 1883, 8883
_FORBIDDEN = set("+#/") | {chr(c) for c in range(32)} | {"\x7f"}


def _f(default: Any = None, **meta: Any) -> Any:
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class VenueConfig:
    """``[venue]``: the venue's name, this table's id, the broker and its credentials."""

    name: str = _f("", nonempty=True, doc="the venue (part of every topic), e.g. club-north")
    table: str = _f("", nonempty=True, doc="this table's id, unique in the venue, e.g. t07")
    host: str = _f("", nonempty=True, doc="the MQTT broker's host name or address")
    port: int = _f(0, min=0, max=65535, doc="the broker's port (0 = 1883, or 8883 with TLS)")
    username: str = _f("", doc='user name at the broker ("" = none)')
    password: str = _f("", doc='password at the broker ("" = none)')
    ca_file: str = _f("", doc='CA certificate (PEM) of the broker: turns TLS on ("" = no TLS unless tls)')
    tls: bool = _f(False, doc="TLS with the system's CA certificates (implied by ca_file)")
    prefix: str = _f(DEFAULT_PREFIX, nonempty=True,
                     doc="topic prefix; {venue} and {table} are replaced, must contain {table}")

    @property
    def use_tls(self) -> bool:
        """True when the connection is encrypted (``ca_file`` or ``tls``)."""
        return bool(self.ca_file) or self.tls

    @property
    def broker_port(self) -> int:
        """The port to connect to (1883, or 8883 with TLS, when ``port`` is 0)."""
        return self.port or (MQTTS_PORT if self.use_tls else MQTT_PORT)

    def topic_prefix(self) -> str:
        """The prefix with ``{venue}`` and ``{table}`` filled in, ending with ``/``."""
        prefix = self.prefix.replace("{venue}", self.name).replace("{table}", self.table)
        return prefix if prefix.endswith("/") else prefix + "/"


def bad_name(value: str) -> str | None:
    """Why ``value`` cannot be one level of an MQTT topic, or None."""
    bad = sorted(set(value) & _FORBIDDEN)
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        return f"{value!r} may not contain {shown} (it is one level of an MQTT topic)"
    if value.startswith("$"):
        return f"{value!r} may not start with '$' (reserved by MQTT brokers)"
    return None


def check_venue(venue: VenueConfig | None, invalid: Any) -> None:
    """Cross-field checks of ``[venue]``; raises ``invalid(path, reason)``."""
    if venue is None:
        return
    for key in ("name", "table", "host"):
        if not getattr(venue, key).strip():
            raise invalid(("venue", key), f"must not be empty: [venue] needs a {key} (see docs/venue.md)")
    for key in ("name", "table"):
        reason = bad_name(getattr(venue, key))
        if reason:
            raise invalid(("venue", key), reason)
    if "{table}" not in venue.prefix:
        raise invalid(("venue", "prefix"), "must contain {table} (else every table would share its topics)")
    if set(venue.prefix) & set("+#"):
        raise invalid(("venue", "prefix"), "may not contain the MQTT wildcards + or #")
    if venue.password and not venue.username:
        raise invalid(("venue", "password"), "a password needs a username")
    if Path(venue.ca_file).expanduser().is_absolute():
        check_venue_files(venue, invalid)


def check_venue_files(venue: VenueConfig | None, invalid: Any) -> None:
    """``ca_file`` must be a readable file (relative paths once taken from the file's folder)."""
    if venue is None or not venue.ca_file:
        return
    path = Path(venue.ca_file).expanduser()
    if not path.is_file():
        raise invalid(("venue", "ca_file"), f"no such file: {path}")
