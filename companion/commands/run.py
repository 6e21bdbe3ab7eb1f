"""``dingo-companion run``: the companion itself (source, sensing, rules, panel, log, tablet page).

With no hardware configured it runs the simulated table. Serves the page with waitress (a
production WSGI server) and prints the address(es) to open and the table PIN at start-up.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

log = logging.getLogger("dingo-companion")

WSGI_THREADS = 8  # requests only: event streams are served by web.streams without a thread each


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``run`` command."""
    p = subparsers.add_parser("run", help="run the companion and serve the tablet page")
    p.add_argument("--host", default=None, help="address to listen on (default: [web] host, all interfaces)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default: [web] port, 8000)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where sessions, the PIN and the secret key live (default: the user's data dir)")
    p.add_argument("--config", type=Path, default=None, help="configuration file (TOML)")
    p.add_argument("--source", choices=("sim", "serial", "gpio", "trace"), default=None,
                   help="sample source, overriding [source] kind")
    p.add_argument("--pin", default=None,
                   help="set the table PIN (4-12 digits); visible to every user in ps: prefer --pin-file or "
                        "$DINGO_PIN")
    p.add_argument("--pin-file", type=Path, default=None,
                   help="read the table PIN (4-12 digits) from this file's first line")
    p.set_defaults(func=run)


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/dingo-companion`` or ``~/.local/share/dingo-companion``."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not base or not os.path.isabs(base):
        base = str(Path.home() / ".local" / "share")
    return Path(base) / "dingo-companion"


def config_path_in_use(explicit: Path | None, data_dir: Path | None) -> Path | None:
    """The configuration file to read, and for the page's calibration to save to.

    ``--config``; else ``$DINGO_CONFIG`` or the usual file when it exists; else
    ``<data dir>/config.toml`` when the page saved a calibration there; else None (the defaults).
    """
    from companion.config import default_config_path
    from companion.config import default_data_dir as config_data_dir

    if explicit is not None:
        return explicit
    usual = default_config_path()
    if os.environ.get("DINGO_CONFIG") or usual.exists():
        return usual
    saved = Path(data_dir or config_data_dir()).expanduser() / "config.toml"
    return saved if saved.exists() else None


def load(config_path: Path | None, notifier: Any = None) -> Any:
    """Load the configuration; under systemd a refused file is reported and waited out.

    Outside systemd a ``ConfigError`` (naming file, line and reason) propagates. Returns ``None``
    only if the wait was stopped.
    """
    from companion.service.configwait import load_or_wait

    return load_or_wait(config_path, notifier)


class _Service:
    """systemd notification (READY/STATUS/STOPPING) and watchdog, if ``companion.service`` is there."""

    def __init__(self) -> None:
        self.notifier: Any = None
        self.watchdog: Any = None
        try:
            from companion.service.notify import Notifier, Watchdog

            self.notifier = Notifier()
            self.watchdog = Watchdog(self.notifier)
        except (ImportError, ValueError) as exc:
            log.warning("systemd notification unavailable: %s", exc)

    def kick(self) -> None:
        """Called by the read loop once per healthy iteration: pings WATCHDOG=1 when due."""
        if self.watchdog is not None:
            self.watchdog.kick()

    def ready(self, status: str) -> None:
        """READY=1: the web server listens and the source is open."""
        if self.notifier is not None:
            self.notifier.ready(status)

    def status(self, text: str) -> None:
        """STATUS=: what ``systemctl status`` shows."""
        if self.notifier is not None:
            self.notifier.status(text)

    def stopping(self) -> None:
        """STOPPING=1."""
        if self.notifier is not None:
            self.notifier.stopping("shutting down")


def source_unavailable(problem: str) -> str:
    """The line that says the sample source cannot be set up (it is retried)."""
    from companion.table.retry import unavailable_text

    return unavailable_text(problem)


def banner(host: str, port: int) -> str:
    """The addresses to open (with a QR code on a wildcard address), from companion.service."""
    try:
        from companion.service.banner import startup_banner

        text = startup_banner(port, host, qr=host in ("0.0.0.0", "::", ""))
    except (ImportError, ValueError, OSError):
        text = "Open the Dingo Companion page on the tablet:\n" + "".join(
            f"  {u}\n" for u in addresses(host, port))
    if host in ("0.0.0.0", "::", ""):
        text += f"  (on this machine: http://localhost:{port}/)\n"
    return text


def addresses(host: str, port: int) -> list[str]:
    """The URLs a person can open: the bound address, or every interface's for 0.0.0.0."""
    from web.security import machine_host_names

    if host not in ("0.0.0.0", "::", ""):
        return [f"http://{'[' + host + ']' if ':' in host else host}:{port}/"]
    urls = [f"http://localhost:{port}/"]
    short = socket.gethostname().split(".")[0]
    if short and short != "localhost":
        urls.append(f"http://{short}.local:{port}/")
    from web.security import is_ip

    for name in sorted(machine_host_names()):
        if is_ip(name) and ":" not in name and not name.startswith("127."):
            urls.append(f"http://{name}:{port}/")
    return urls


def make_guard(pin: str, host: str, allowed_hosts: Any = ()) -> Any:
    """The access guard: the PIN, and the Host names answered to.

    Those are always the machine's own names and addresses, the listening address and the
    ``[web] allowed_hosts`` names; ``[]`` adds none. Any other Host header is refused, never "any".
    """
    from web.security import Guard, machine_host_names

    extra = [str(h) for h in (allowed_hosts or ())]
    if host not in ("0.0.0.0", "::", ""):
        extra.append(host)
    return Guard(pin=pin, allowed_hosts=machine_host_names(extra))


def run(args: argparse.Namespace) -> int:
    """Start everything, serve until SIGINT/SIGTERM, stop cleanly."""
    from companion.config import CONFIG_ERROR_EXIT, ConfigError
    from companion.table.build import build_table
    from web.app import create_app
    from web.hostsessions import HOST_SESSIONS_FILE, HostSessions
    from web.security import (
        PIN_FILE,
        load_or_create_pin,
        load_or_create_secret_key,
        pin_from_environment,
        secure_data_dir,
    )
    from web.server import make_server

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    os.umask(0o077)  # the session log, the PIN and the keys are created private
    service = _Service()
    try:
        # Under systemd a refused file does not end the process (no crash loop): it is reported
        # once (journal + STATUS=) and waited out; interactively the error ends the command.
        config_path = config_path_in_use(args.config, args.data_dir)
        config = load(config_path, service.notifier)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        print("check it with: dingo-companion config check", file=sys.stderr)
        return CONFIG_ERROR_EXIT
    except Exception as exc:  # noqa: BLE001 - a clear one-line message, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if config is None:
        return CONFIG_ERROR_EXIT
    web_cfg = getattr(config, "web", None)
    host = args.host or getattr(web_cfg, "host", "0.0.0.0")
    port = args.port if args.port is not None else int(getattr(web_cfg, "port", 8000))
    data_dir = args.data_dir or getattr(getattr(config, "data", None), "dir", None) or default_data_dir()
    data_dir = Path(data_dir).expanduser()
    try:
        given_pin = pin_from_environment(args.pin_file)
    except ValueError as exc:
        print(f"configuration error: --pin-file / DINGO_PIN: {exc}", file=sys.stderr)
        return CONFIG_ERROR_EXIT
    if args.pin:
        print("warning: --pin is visible to every user in ps; use --pin-file or $DINGO_PIN", file=sys.stderr)
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        for change in secure_data_dir(data_dir):
            log.warning("file mode fixed: %s", change)
        pin = load_or_create_pin(data_dir, given_pin or args.pin or getattr(web_cfg, "pin", "") or None)
        secret = load_or_create_secret_key(data_dir)
    except ValueError as exc:
        print(f"configuration error: table PIN: {exc}", file=sys.stderr)
        return CONFIG_ERROR_EXIT
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        table = build_table(config, data_dir, source_kind=args.source, heartbeat=service.kick,
                            config_path=config_path)
    except Exception as exc:  # noqa: BLE001
        print(f"error: cannot set up the table: {exc}", file=sys.stderr)
        return 2
    guard = make_guard(pin, host, getattr(web_cfg, "allowed_hosts", ()))
    guard.sessions = HostSessions(data_dir / HOST_SESSIONS_FILE, secret, pin)
    app = create_app(table.controller, secret_key=secret, guard=guard, session_store=table.store,
                     calibration=table.calibration)
    app.extensions["dingo"]["pin_file"] = data_dir / PIN_FILE
    try:
        server, streams = make_server(app, host=host, port=port, controller=table.controller, guard=guard,
                                      threads=WSGI_THREADS, channel_timeout=60, ident="dingo-companion")
    except OSError as exc:
        table.stop()
        if isinstance(exc, socket.gaierror) or exc.errno in (errno.EADDRNOTAVAIL, errno.EACCES):
            # the configured address cannot be used here: retrying will not help
            print(f"configuration error: [web] host/port: cannot listen on {host}:{port}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return CONFIG_ERROR_EXIT
        print(f"error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    real_port = server.effective_port if hasattr(server, "effective_port") else port
    app.extensions["dingo"]["listen"] = (host, int(real_port))  # for the page's share view
    try:
        table.start()
    except Exception as exc:  # noqa: BLE001
        print(f"error: cannot open the sample source: {exc}", file=sys.stderr)
        streams.stop()
        server.close()
        table.stop()
        return 2
    problem = table.source_problem
    print(f"Dingo Companion is running ({table.source_kind or 'no'} table).")
    print(banner(host, int(real_port)), end="")
    if sys.stdout.isatty():  # never into a journal or a log file
        print(f"Table PIN (to change the game from the page): {pin}")
    else:
        print(f"Table PIN: in {data_dir / PIN_FILE} (readable by this user only; shown on a terminal)")
    for warning in table.warnings:
        print(f"warning: {warning}")
    if getattr(table, "venue", None) is not None:  # [venue]: docs/venue.md
        v = table.venue.venue
        print(f"Venue: table {v.table!r} of {v.name!r}, publishing to {v.host}:{v.broker_port}")
    sys.stdout.flush()
    if problem is None:
        service.ready(f"listening on {host}:{real_port}, {table.source_kind} source open")
    else:  # no crash loop: serve the page, say why, and keep retrying the source
        print(f"error: {source_unavailable(problem)}; the page is served and the source is retried",
              file=sys.stderr, flush=True)
        service.ready(f"listening on {host}:{real_port}, {source_unavailable(problem)}")
    from companion.service.cpureport import start_cpu_report

    cpu_report = start_cpu_report(table)
    table.watch_source(lambda now: service.status(
        f"listening on {host}:{real_port}, "
        + (f"{table.source_kind} source open" if now is None else source_unavailable(now))))

    def shutdown(*_: Any) -> None:
        raise KeyboardInterrupt  # unwinds waitress's loop in the main thread

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    try:
        server.run()  # returns after shutting its worker threads down on KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    finally:
        service.stopping()
        if cpu_report is not None:
            cpu_report.set()
        streams.stop()
        table.stop()
        server.close()
    print("Dingo Companion stopped.")
    return 0
