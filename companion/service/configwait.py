"""Hold the service in a "configuration error" state instead of crash-looping.

When ``dingo-companion run`` finds its configuration refused, it calls :func:`wait_for_config`:
the error goes to stderr (the journal) once, systemd is told the service is up but unhappy
(``READY=1`` + ``STATUS=configuration error: ...``, shown by ``systemctl status``), the watchdog
is kept fed, and the file is re-read whenever it changes. As soon as it is valid the new
``Config`` is returned and start-up continues; no restart burst, no unit left ``failed``.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TextIO

from companion.config import Config, ConfigError, load_config
from companion.service.notify import Notifier, watchdog_interval


def _stamp(path: Path) -> tuple[float, int] | None:
    """The file's (mtime, size), or None when it is missing."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime, st.st_size)


def wait_for_config(
    path: str | Path,
    error: ConfigError,
    notifier: Notifier | None = None,
    *,
    poll_s: float = 2.0,
    stop: threading.Event | None = None,
    err: TextIO | None = None,
) -> Config | None:
    """Report ``error`` and wait until ``path`` holds a valid configuration.

    Returns the new ``Config``, or ``None`` if ``stop`` was set first. Each different error
    (after an edit that is still wrong) is reported once; the watchdog is pinged meanwhile.
    """
    if not poll_s > 0:
        raise ValueError(f"poll_s must be > 0, got {poll_s}")
    file = Path(path)
    notifier = notifier or Notifier()
    stop = stop or threading.Event()
    out = err or sys.stderr
    interval = watchdog_interval()
    if interval is not None:
        poll_s = min(poll_s, interval)
    reported = ""

    def report(problem: ConfigError) -> None:
        nonlocal reported
        if str(problem) == reported:
            return  # the same error again: said once is enough
        reported = str(problem)
        print(f"configuration error: {problem}", file=out, flush=True)
        print(f"waiting for {file} to be fixed (check it with: dingo-companion config check)",
              file=out, flush=True)
        notifier.ready(f"configuration error: {problem} (waiting for a fix)")

    report(error)
    last: tuple[float, int] | None = (-1.0, -1)  # re-read at the first poll: no early edit is missed
    while not stop.wait(poll_s):
        if interval is not None:
            notifier.watchdog()
        now = _stamp(file)
        if now == last:
            continue
        last = now
        try:
            config = load_config(file)
        except ConfigError as problem:
            report(problem)
            continue
        print(f"{file}: configuration fixed, starting", file=out, flush=True)
        notifier.status("configuration fixed, starting")
        return config
    return None


def load_or_wait(path: str | Path | None = None, notifier: Notifier | None = None,
                 *, poll_s: float = 2.0, stop: threading.Event | None = None) -> Config | None:
    """``load_config(path)``; under systemd a refused file is reported and waited out instead.

    Outside systemd (no ``NOTIFY_SOCKET``) the ``ConfigError`` propagates, so an interactive
    ``dingo-companion run`` stops at once with the message. Returns ``None`` only if ``stop`` is set.
    """
    from companion.config import default_config_path

    notifier = notifier or Notifier()
    try:
        return load_config(path)
    except ConfigError as error:
        if not notifier.enabled:
            raise
        file = Path(path) if path is not None else default_config_path()
        return wait_for_config(file, error, notifier, poll_s=poll_s, stop=stop)
