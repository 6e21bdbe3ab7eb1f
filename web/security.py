"""Access control for the tablet page: table PIN, secret key, CSRF, allowed Host names.

Watching is open to anyone on the table's network. Changing the game needs the *host*: the
table PIN (sent once to ``POST /api/login``, which gives a session cookie and a CSRF token, or
sent on each request in the ``X-Table-PIN`` header by scripts). State-changing requests made
with the cookie must carry the CSRF token in ``X-CSRF-Token``; any request carrying an
``Origin`` header must come from the page's own origin. Unknown ``Host`` headers are refused
(DNS-rebinding protection).
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from companion.service.addresses import interface_ipv4

PIN_FILE = "table-pin"
SECRET_FILE = "secret-key"
PIN_DIGITS = 6


class AccessError(Exception):
    """A request may not do what it asks; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _write_private(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 (never readable by others, even for a moment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def load_or_create_secret_key(data_dir: Path) -> bytes:
    """The Flask secret key kept in ``data_dir`` (generated on first start, mode 0600)."""
    path = Path(data_dir) / SECRET_FILE
    if path.exists():
        key = path.read_bytes()
        if len(key) >= 32:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
            return key
    key = secrets.token_bytes(32)
    _write_private(path, key)
    return key


def validate_pin(pin: str) -> str:
    """Return ``pin`` if it is a usable table PIN (4 to 12 digits), else raise ValueError."""
    if not isinstance(pin, str) or not pin.isdigit() or not pin.isascii() or not 4 <= len(pin) <= 12:
        raise ValueError(f"table PIN must be 4 to 12 digits, got {pin!r}")
    return pin


def load_or_create_pin(data_dir: Path, configured: str | None = None) -> str:
    """The table PIN: ``configured`` if given (and stored), else the stored one, else a new one."""
    path = Path(data_dir) / PIN_FILE
    if configured:
        pin = validate_pin(str(configured))
        if not path.exists() or path.read_text().strip() != pin:
            _write_private(path, pin.encode())
        return pin
    if path.exists():
        with contextlib.suppress(ValueError):
            return validate_pin(path.read_text().strip())
    pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
    _write_private(path, pin.encode())
    return pin


def machine_host_names(extra: Iterable[str] = ()) -> set[str]:
    """Host names the page may be reached by: loopback, this machine's names and addresses, ``extra``."""
    names = {"localhost", "127.0.0.1", "::1"}
    try:
        host = socket.gethostname()
    except OSError:
        host = ""
    if host:
        short = host.split(".")[0]
        names.update({host, short, f"{short}.local"})
        with contextlib.suppress(OSError):
            names.add(socket.getfqdn())
        with contextlib.suppress(OSError):
            for info in socket.getaddrinfo(host, None):
                names.add(str(info[4][0]))
    names.update(interface_ipv4().values())
    names.update(n for n in extra if n)
    return {n.lower().strip("[]") for n in names}


def host_only(host_header: str) -> str:
    """The name part of a Host header (no port, no IPv6 brackets), lower case."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host


def is_ip(name: str) -> bool:
    """True if ``name`` is a literal IP address."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass
class Guard:
    """The table's access rules; one per app (no module state)."""

    pin: str
    allowed_hosts: set[str] = field(default_factory=set)
    max_failures: int = 5
    lockout_s: float = 30.0
    _failures: dict[str, list[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check_host(self, host_header: str | None) -> None:
        """Refuse a request whose Host header names a host we do not answer to."""
        if not host_header:
            raise AccessError(400, "missing Host header")
        if self.allowed_hosts and host_only(host_header) not in self.allowed_hosts:
            raise AccessError(400, f"unknown Host header {host_header!r}; add it to [web] allowed_hosts")

    def check_origin(self, origin: str | None, host_header: str | None) -> None:
        """Refuse a cross-site request: a present Origin must be this page's own origin."""
        if origin is None:
            return
        if origin == "null":
            raise AccessError(403, "cross-site request refused (Origin: null)")
        bare = origin.split("://", 1)[-1].rstrip("/")
        if (host_header or "").lower() != bare.lower():
            raise AccessError(403, f"cross-site request refused: Origin {origin!r} is not this table")

    def pin_matches(self, candidate: object, client: str) -> bool:
        """Compare a PIN in constant time, with a lockout after repeated failures per client."""
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._failures.get(client, []) if now - t < self.lockout_s]
            self._failures[client] = recent
            if len(recent) >= self.max_failures:
                raise AccessError(429, f"too many wrong PINs; wait {int(self.lockout_s)} s and try again")
        ok = isinstance(candidate, str) and hmac.compare_digest(candidate.encode(), self.pin.encode())
        if not ok:
            with self._lock:
                self._failures.setdefault(client, []).append(now)
                if len(self._failures) > 1000:  # bound memory
                    self._failures.pop(next(iter(self._failures)))
        return ok


def new_csrf_token() -> str:
    """A fresh random CSRF token for one session."""
    return secrets.token_urlsafe(24)


def tokens_equal(a: object, b: object) -> bool:
    """Constant-time equality of two string tokens (False if either is missing)."""
    return isinstance(a, str) and isinstance(b, str) and bool(a) and hmac.compare_digest(a, b)
