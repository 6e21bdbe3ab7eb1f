"""paho-mqtt set-up shared by the table's publisher, the hub, ``doctor`` and the benchmark.

``make_client`` applies the ``[venue]`` credentials and TLS; ``connect_problem`` turns a CONNACK
reason into a sentence a host can act on; ``probe`` tries one connection (for ``doctor``).
"""

from __future__ import annotations

import contextlib
import ssl
import threading
from typing import Any

import paho.mqtt.client as mqtt

KEEPALIVE_S = 10
"""The broker publishes a table's last will (``offline``) after 1.5 times this without a word."""


def make_client(client_id: str, *, username: str = "", password: str = "", ca_file: str = "",
                tls: bool = False, clean_session: bool = True) -> mqtt.Client:
    """A paho client (MQTT 3.1.1) with the credentials and TLS of ``[venue]``."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=clean_session, protocol=mqtt.MQTTv311)
    if username:
        client.username_pw_set(username, password or None)
    if ca_file or tls:
        client.tls_set(ca_certs=ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(1, 10)
    return client


def client_for(venue: Any, client_id: str, *, clean_session: bool = True) -> mqtt.Client:
    """``make_client`` from a ``VenueConfig``-like object."""
    return make_client(client_id, username=venue.username, password=venue.password, ca_file=venue.ca_file,
                       tls=bool(getattr(venue, "tls", False)), clean_session=clean_session)


def connect_problem(reason_code: Any, host: str, port: int) -> str | None:
    """None for a successful CONNACK, else what is wrong in plain words."""
    if not getattr(reason_code, "is_failure", False) and str(reason_code) in ("Success", "0"):
        return None
    text = str(reason_code)
    lowered = text.lower()
    if "not authorized" in lowered or "bad user name" in lowered or "password" in lowered:
        return (f"the broker at {host}:{port} refused the login ({text}): "
                "check [venue] username and password")
    return f"the broker at {host}:{port} refused the connection: {text}"


def unreachable(host: str, port: int, error: Any = None) -> str:
    """The sentence for a broker that cannot be reached."""
    why = f" ({error})" if error else ""
    return f"cannot reach the broker at {host}:{port}{why}; retrying"


def probe(venue: Any, timeout_s: float = 5.0) -> str | None:
    """Connect once with ``venue``'s settings; None if the broker accepted, else the problem."""
    host, port = venue.host, venue.broker_port
    client = client_for(venue, f"dingo-doctor-{venue.table}")
    done = threading.Event()
    result: dict[str, str | None] = {"problem": unreachable(host, port, "no answer")}

    def on_connect(_c: Any, _u: Any, _f: Any, reason_code: Any, _p: Any = None) -> None:
        result["problem"] = connect_problem(reason_code, host, port)
        done.set()

    client.on_connect = on_connect
    try:
        client.connect(host, port, keepalive=KEEPALIVE_S)
    except (OSError, ssl.SSLError, ValueError) as exc:
        return unreachable(host, port, exc)
    client.loop_start()
    try:
        done.wait(timeout_s)
    finally:
        with contextlib.suppress(Exception):
            client.disconnect()
        client.loop_stop()
    return result["problem"]
