"""Host sessions the server can revoke: logout, a PIN change and a restart with a new PIN end them.

The session cookie only carries a random session id; the ids that are valid are kept here (and
in ``<data dir>/host-sessions``, mode 0600, so a restart with the same PIN keeps the host logged
in). The file is bound to the PIN by an HMAC under the secret key: after a restart with another
PIN every stored id is dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import threading
import time
from pathlib import Path

MAX_SESSIONS = 64
HOST_SESSIONS_FILE = "host-sessions"


def pin_fingerprint(key: bytes, pin: str) -> str:
    """An HMAC of the PIN under the secret key (never the PIN itself)."""
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()


class HostSessions:
    """The valid host session ids (thread-safe)."""

    def __init__(self, path: Path | None = None, key: bytes = b"", pin: str = "") -> None:
        """Load the ids kept at ``path`` for this ``pin`` (none if the PIN changed)."""
        self._path = path
        self._key = key or secrets.token_bytes(32)
        self._fp = pin_fingerprint(self._key, pin)
        self._ids: dict[str, float] = {}
        self._lock = threading.Lock()
        if path is not None and path.exists():
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                data = json.loads(path.read_text())
                if hmac.compare_digest(str(data.get("pin", "")), self._fp):
                    self._ids = {str(k): float(v) for k, v in dict(data.get("ids", {})).items()}
        self._save()

    def new(self) -> str:
        """A fresh session id, valid until revoked."""
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._ids[sid] = time.time()
            while len(self._ids) > MAX_SESSIONS:
                self._ids.pop(min(self._ids, key=self._ids.__getitem__))
            self._save_locked()
        return sid

    def valid(self, sid: object) -> bool:
        """True if ``sid`` is a live host session."""
        if not isinstance(sid, str) or not sid:
            return False
        with self._lock:
            return any(hmac.compare_digest(sid, known) for known in self._ids)

    def revoke(self, sid: object) -> None:
        """End one session (logout)."""
        with self._lock:
            if isinstance(sid, str) and self._ids.pop(sid, None) is not None:
                self._save_locked()

    def revoke_all(self, new_pin: str | None = None) -> None:
        """End every session (and bind the file to ``new_pin`` when the PIN changed)."""
        with self._lock:
            self._ids.clear()
            if new_pin is not None:
                self._fp = pin_fingerprint(self._key, new_pin)
            self._save_locked()

    def __len__(self) -> int:
        """Live sessions."""
        with self._lock:
            return len(self._ids)

    def _save(self) -> None:
        with self._lock:
            self._save_locked()

    def _save_locked(self) -> None:
        if self._path is None:
            return
        from web.security import write_private

        with contextlib.suppress(OSError):
            write_private(self._path, json.dumps({"pin": self._fp, "ids": self._ids}).encode())
