"""``dingo-companion hub --broker HOST``: the venue's hub page (every table live, the results).

Subscribes to every table of the venue at the MQTT broker, keeps what it receives in SQLite
(``<data dir>/hub/hub.db``: a restart loses nothing delivered) and serves the page. See docs/venue.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from companion.config.venue import DEFAULT_PREFIX, MQTT_PORT, MQTTS_PORT, bad_name

HUB_PORT = 8100


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``hub`` command."""
    p = subparsers.add_parser(
        "hub",
        help="the venue hub: every table's game live, the evening's results",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--broker", required=True, metavar="HOST", help="the venue's MQTT broker")
    p.add_argument("--broker-port", type=int, default=0, help="its port (default 1883, 8883 with TLS)")
    p.add_argument("--venue", default="", help="only this venue (default: every venue on the broker)")
    p.add_argument(
        "--prefix", default=DEFAULT_PREFIX, help=f"topic prefix of the tables (default {DEFAULT_PREFIX})"
    )
    p.add_argument("--username", default="", help="user name at the broker")
    p.add_argument(
        "--password",
        default=None,
        help="password at the broker (better: the environment variable DINGO_BROKER_PASSWORD)",
    )
    p.add_argument("--ca-file", default="", help="the broker's CA certificate (PEM): turns TLS on")
    p.add_argument("--tls", action="store_true", help="TLS with the system's CA certificates")
    p.add_argument("--host", default="0.0.0.0", help="address the page listens on (default every interface)")
    p.add_argument("--port", type=int, default=HUB_PORT, help=f"the page's TCP port (default {HUB_PORT})")
    p.add_argument("--data-dir", type=Path, default=None, help="where hub.db lives (default <data dir>/hub)")
    p.add_argument("--client-id", default="", help="MQTT client id (default dingo-hub-<venue>-<host name>)")
    p.add_argument(
        "--since-hours",
        type=float,
        default=12.0,
        help="results show the games that ended in the last N hours (0 = all; default 12)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Receive, store and serve until SIGINT/SIGTERM."""
    from waitress import create_server

    from companion.config.paths import default_data_dir
    from companion.venue.hubstore import HubStore
    from companion.venue.receiver import Receiver
    from companion.venue.view import LiveView
    from web.hub.app import create_hub_app

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.venue and bad_name(args.venue):
        print(f"error: --venue: {bad_name(args.venue)}", file=sys.stderr)
        return 2
    if args.ca_file and not Path(args.ca_file).is_file():
        print(f"error: --ca-file: no such file: {args.ca_file}", file=sys.stderr)
        return 2
    if "{table}" not in args.prefix:
        print("error: --prefix must contain {table}", file=sys.stderr)
        return 2
    tls = bool(args.ca_file) or args.tls
    broker_port = args.broker_port or (MQTTS_PORT if tls else MQTT_PORT)
    data_dir = (args.data_dir or default_data_dir() / "hub").expanduser()
    password = args.password if args.password is not None else os.environ.get("DINGO_BROKER_PASSWORD", "")
    try:
        store = HubStore(data_dir)
    except Exception as exc:  # noqa: BLE001 - one clear line
        print(f"error: cannot open the hub store in {data_dir}: {exc}", file=sys.stderr)
        return 2
    view = LiveView(store)
    client_id = args.client_id or f"dingo-hub-{args.venue or 'all'}-{socket.gethostname().split('.')[0]}"
    receiver = Receiver(
        store,
        args.broker,
        broker_port,
        venue=args.venue,
        prefix=args.prefix,
        client_id=client_id,
        username=args.username,
        password=password,
        ca_file=args.ca_file,
        tls=tls,
        on_change=view.changed,
    )
    app = create_hub_app(view, receiver, venue=args.venue, since_hours=args.since_hours)
    try:
        server = create_server(
            app, host=args.host, port=args.port, threads=24, channel_timeout=60, ident="dingo-hub"
        )
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    port = int(getattr(server, "effective_port", args.port))
    view.start()
    receiver.start()
    print(
        f"Dingo Companion hub: {args.venue or 'every venue'} at {args.broker}:{broker_port}"
        f"{' (TLS)' if tls else ''}; stored in {store.path}"
    )
    shown = "localhost" if args.host in ("0.0.0.0", "::", "") else args.host
    print(f"Open the hub page: http://{shown}:{port}/", flush=True)

    def shutdown(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        receiver.stop()
        view.stop()
        server.close()
        store.close()
    print("hub stopped.")
    return 0
