"""``dingo-companion config init|check|show|path|urls``: the configuration file and the page's address."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from companion.config import (
    Config,
    ConfigError,
    config_to_toml,
    default_config,
    default_config_path,
    load_config,
    save_config,
)

INIT_HEADER = """Dingo Companion configuration. Every key: docs/configuration.md.
Absent keys take their defaults. Check after editing: dingo-companion config check"""


def _path(args: argparse.Namespace) -> Path:
    """The file the command works on: ``--config`` or the default location."""
    return Path(args.config).expanduser() if args.config else default_config_path()


def _effective(path: Path, args: argparse.Namespace) -> Config | None:
    """The configuration in effect: the file's, or the defaults when the default file does not exist.

    ``None`` (after printing the error) when the file is refused.
    """
    try:
        return load_config(path) if (path.exists() or args.config) else default_config()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def _init(args: argparse.Namespace) -> int:
    """Write a default configuration file (refuses to overwrite without --force)."""
    path = _path(args)
    if path.exists() and not args.force:
        print(f"error: {path} already exists (use --force to overwrite it)", file=sys.stderr)
        return 1
    try:
        save_config(path, default_config(), header=INIT_HEADER)
    except OSError as exc:
        print(f"error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


def _check(args: argparse.Namespace) -> int:
    """Validate the file; print ``ok`` or the error with file and line."""
    path = _path(args)
    if not path.exists() and not args.config:
        print(f"{path}: no file, the defaults (a simulated table) are used")
        return 0
    try:
        config = load_config(path)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{path}: ok (source {config.source.kind}, {len(config.table.cells)} cells, "
          f"web port {config.web.port}, data in {config.data.dir})")
    if config.venue is not None:  # checked, not connected to: `dingo-companion doctor` tries the broker
        v = config.venue
        print(f"venue {v.name!r}, table {v.table!r}: broker {v.host}:{v.broker_port}"
              f"{' (TLS)' if v.use_tls else ''}, topics {v.topic_prefix()}*")
    return 0


def _show(args: argparse.Namespace) -> int:
    """Print the effective configuration (file + defaults) as TOML or JSON."""
    path = _path(args)
    config = _effective(path, args)
    if config is None:
        return 1
    if config.venue is not None and config.venue.password:  # never print the broker's password
        config = dataclasses.replace(config, venue=dataclasses.replace(config.venue, password="********"))
    if args.json:
        print(json.dumps(config.to_dict(), indent=2))
    else:
        origin = str(path) if path.exists() else f"defaults ({path} does not exist)"
        sys.stdout.write(config_to_toml(config, header=f"effective configuration from {origin}"))
    return 0


def _urls(args: argparse.Namespace) -> int:
    """Print the addresses of the tablet page (from [web] host/port) and a QR code to scan."""
    from companion.service.banner import qr_target, startup_banner
    from companion.service.qr import qr_svg

    path = _path(args)
    config = _effective(path, args)
    if config is None:
        return 1
    port = config.web.port or 8000
    if args.svg:
        from companion.service.addresses import page_urls

        print(qr_svg(qr_target(page_urls(port, config.web.host))))
    else:
        sys.stdout.write(startup_banner(port, config.web.host, qr=not args.no_qr))
    return 0


def _where(args: argparse.Namespace) -> int:
    """Print the configuration file's path (whether or not it exists)."""
    print(_path(args))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``config`` command and its ``init``, ``check``, ``show`` and ``path`` actions."""
    parser = subparsers.add_parser("config", help="create, check or show the configuration file")
    parser.add_argument("--config", metavar="PATH",
                        help="the configuration file (default: $DINGO_CONFIG, /etc/dingo-companion/"
                             "config.toml, or ~/.config/dingo-companion/config.toml)")
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    init = sub.add_parser("init", help="write a default configuration file")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.set_defaults(func=_init)
    check = sub.add_parser("check", help="validate the file (exit status 1 if it is refused)")
    check.set_defaults(func=_check)
    show = sub.add_parser("show", help="print the effective configuration")
    show.add_argument("--json", action="store_true", help="print JSON instead of TOML")
    show.set_defaults(func=_show)
    sub.add_parser("path", help="print the configuration file's path").set_defaults(func=_where)
    urls = sub.add_parser("urls", help="print the tablet page's addresses and a QR code")
    urls.add_argument("--no-qr", action="store_true", help="addresses only")
    urls.add_argument("--svg", action="store_true", help="print the QR code as an SVG document instead")
    urls.set_defaults(func=_urls)
    parser.set_defaults(func=lambda args: parser.print_help() or 0)
