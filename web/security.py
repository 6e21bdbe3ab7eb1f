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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from companion.service.addresses import interface_ipv4
from web.hostsessions import HostSessions

PIN_FILE = "table-pin"
SECRET_FILE = "secret-key"
PIN_DIGITS = 6


class AccessError(Exception):
    """A request may not do what it asks; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


def write_private(path: Path, data: bytes) -> None:
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
    write_private(path, key)
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
            write_private(path, pin.encode())
        return pin
    if path.exists():
        with contextlib.suppress(ValueError):
            pin = validate_pin(path.read_text().strip())
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
            return pin
    pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
    write_private(path, pin.encode())
    return pin


PRIVATE_FILES = (PIN_FILE, SECRET_FILE, "host-sessions", "sessions.db", "sessions.db-wal", "sessions.db-shm",
                 "config.toml")


def secure_data_dir(data_dir: Path) -> list[str]:
    """Make ``data_dir`` 0700 and its secrets and log 0600; returns what was changed (for the log)."""
    changed = []
    data_dir = Path(data_dir)
    if data_dir.stat().st_mode & 0o077:
        os.chmod(data_dir, 0o700)
        changed.append(f"{data_dir} -> 0700")
    for path in [data_dir / n for n in PRIVATE_FILES] + sorted(data_dir.glob("sessions.db.*")):
        with contextlib.suppress(FileNotFoundError):
            if path.is_file() and path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
                changed.append(f"{path.name} -> 0600")
    return changed


def pin_from_environment(pin_file: Path | None, environ: dict[str, str] | None = None) -> str | None:
    """The PIN given out of sight of ``ps``: ``--pin-file`` (first line) or ``$DINGO_PIN``."""
    env = os.environ if environ is None else environ
    if pin_file is not None:
        try:
            text = Path(pin_file).read_text().strip().splitlines()
        except OSError as exc:
            raise ValueError(f"cannot read the PIN file {pin_file}: {exc.strerror}") from None
        return validate_pin(text[0].strip() if text else "")
    if env.get("DINGO_PIN"):
        return validate_pin(env["DINGO_PIN"].strip())
    return None


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


class PinThrottle:
    """Limits on wrong PINs: per address, and for the whole table.

    Per address: ``max_failures`` wrong PINs within ``lockout_s`` lock that address out for the
    rest of the window. For the whole table, whatever the number of addresses: a bucket of
    ``global_burst`` wrong guesses, refilled at ``global_per_hour``; while it is empty no PIN is
    compared at all (a correct one included, or the refusal itself would tell the PIN), so at
    most ``global_burst + 24 * global_per_hour`` guesses fit in a day (1,460 by default: a
    6-digit PIN is found with a chance of 0.15 % in a day). A host already logged in (cookie) is
    never refused. The per-address table is bounded; evicting an entry never unlocks anything
    that the global limit would not.
    """

    def __init__(self, max_failures: int = 5, lockout_s: float = 30.0, global_burst: int = 20,
                 global_per_hour: float = 60.0, max_addresses: int = 1000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Set the limits (see the class docstring)."""
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.global_burst = global_burst
        self.global_per_hour = global_per_hour
        self.max_addresses = max_addresses
        self._clock = clock
        self._failures: dict[str, list[float]] = {}
        self._tokens = float(global_burst)
        self._refilled = clock()
        self._lock = threading.Lock()

    def _refill(self, now: float) -> None:
        self._tokens = min(float(self.global_burst),
                           self._tokens + (now - self._refilled) * self.global_per_hour / 3600.0)
        self._refilled = now

    def check(self, client: str) -> None:
        """``AccessError`` 429 if ``client`` may not try a PIN now."""
        now = self._clock()
        with self._lock:
            self._refill(now)
            if self._tokens < 1.0:
                wait = int((1.0 - self._tokens) * 3600.0 / self.global_per_hour) + 1
                raise AccessError(429, f"too many wrong PINs at this table; wait {wait} s and try again",
                                  retry_after=wait)
            recent = [t for t in self._failures.get(client, ()) if now - t < self.lockout_s]
            if recent:
                self._failures[client] = recent
            else:
                self._failures.pop(client, None)
            if len(recent) >= self.max_failures:
                wait = int(self.lockout_s - (now - recent[0])) + 1
                raise AccessError(429, f"too many wrong PINs; wait {wait} s and try again", retry_after=wait)

    def failed(self, client: str) -> None:
        """Count one wrong PIN from ``client``."""
        now = self._clock()
        with self._lock:
            self._refill(now)
            self._tokens = max(0.0, self._tokens - 1.0)
            self._failures.setdefault(client, []).append(now)
            if len(self._failures) > self.max_addresses:
                # forget an address that is not locked out (the oldest); only if all are, the oldest
                unlocked = [k for k, v in self._failures.items() if len(v) < self.max_failures]
                pool = unlocked or list(self._failures)
                self._failures.pop(min(pool, key=lambda k: self._failures[k][-1]))

    def succeeded(self, client: str) -> None:
        """A correct PIN from ``client``: its own failures are forgotten."""
        with self._lock:
            self._failures.pop(client, None)


@dataclass
class Guard:
    """The table's access rules; one per app (no module state)."""

    pin: str
    allowed_hosts: set[str] = field(default_factory=set)
    max_failures: int = 5
    lockout_s: float = 30.0
    throttle: PinThrottle | None = None
    sessions: HostSessions = field(default_factory=HostSessions)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.throttle is None:
            self.throttle = PinThrottle(self.max_failures, self.lockout_s)

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
        """Compare a PIN in constant time, within the limits of :class:`PinThrottle`."""
        assert self.throttle is not None
        self.throttle.check(client)
        with self._lock:
            pin = self.pin
        ok = isinstance(candidate, str) and hmac.compare_digest(candidate.encode(), pin.encode())
        if ok:
            self.throttle.succeeded(client)
        else:
            self.throttle.failed(client)
        return ok

    def change_pin(self, new_pin: str) -> None:
        """Use ``new_pin`` from now on; every host session ends."""
        pin = validate_pin(new_pin)
        with self._lock:
            self.pin = pin
        self.sessions.revoke_all(pin)


def new_csrf_token() -> str:
    """A fresh random CSRF token for one session."""
    return secrets.token_urlsafe(24)


def tokens_equal(a: object, b: object) -> bool:
    """Constant-time equality of two string tokens (False if either is missing)."""
    return isinstance(a, str) and isinstance(b, str) and bool(a) and hmac.compare_digest(a, b)
