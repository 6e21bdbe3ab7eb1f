"""A private Mosquitto broker on a loopback port (for the tests and ``bench venue``).

``LocalBroker(workdir)`` writes a configuration (one loopback listener, persistence on so a
restart keeps retained messages and the hub's queued session, optional password file) and runs
``mosquitto -c``; ``stop()`` / ``start()`` simulate a broker restart or a network outage.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port nothing listens on right now (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def find_mosquitto() -> str | None:
    """The broker program (``/usr/sbin`` is not on every PATH)."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)


class LocalBroker:
    """One Mosquitto process in ``workdir``; ``users`` = ``{"name": "password"}`` turns logins on."""

    def __init__(self, workdir: str | Path, *, port: int | None = None, users: dict[str, str] | None = None,
                 max_queued: int = 100_000, tls: tuple[Path, Path, Path] | None = None) -> None:
        """Write the configuration (``start()`` runs the broker); ``tls`` = (CA, certificate, key) files."""
        program = find_mosquitto()
        if program is None:
            raise FileNotFoundError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.program = program
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        lines = [
            f"listener {self.port} 127.0.0.1",
            *([f"cafile {tls[0]}", f"certfile {tls[1]}", f"keyfile {tls[2]}"] if tls else []),
            "persistence true",
            f"persistence_location {self.dir}/",
            "autosave_interval 5",
            f"max_queued_messages {max_queued}",
            "max_inflight_messages 100",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if os.geteuid() == 0:  # else mosquitto drops to user "mosquitto", who cannot read this folder
            lines.append("user root")
        if users:
            pw = self.dir / "passwd"
            pw.write_text("")
            for name, password in users.items():
                subprocess.run([self._passwd_tool(), "-b", str(pw), name, password], check=True,
                               capture_output=True)
            lines += ["allow_anonymous false", f"password_file {pw}"]
        else:
            lines.append("allow_anonymous true")
        self.config = self.dir / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")

    def _passwd_tool(self) -> str:
        tool = shutil.which("mosquitto_passwd") or str(Path(self.program).with_name("mosquitto_passwd"))
        if not Path(tool).exists():
            tool = "/usr/bin/mosquitto_passwd"
        return tool

    @property
    def pid(self) -> int | None:
        """The running broker's process id."""
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def start(self, timeout_s: float = 10.0) -> None:
        """Run the broker and wait until it accepts connections."""
        log = open(self.dir / "mosquitto.log", "ab")  # noqa: SIM115 - kept open for the process
        self.proc = subprocess.Popen([self.program, "-c", str(self.config)], stdout=log, stderr=log)
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {(self.dir / 'mosquitto.log').read_text()[-500:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return
            time.sleep(0.05)
        raise TimeoutError(f"mosquitto did not listen on {self.port} within {timeout_s} s")

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop it the way ``systemctl stop`` does (SIGTERM: it saves its state first)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        """Stop and start again on the same port."""
        self.stop()
        self.start()

    def __enter__(self) -> LocalBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
