"""Host reader for the Dingo bridge: finds the device, reads lines in its own thread.

``BridgeReader`` opens the serial device (a configured path, ``auto`` preferring
``/dev/serial/by-id/...``, or any pyserial URL such as ``loop://``), splits the
byte stream into lines, resynchronises after garbage (a bad line is counted and
skipped: the next newline starts afresh), turns sequence numbers into a
continuous sample index and counts gaps, reports a device that goes silent, and
reconnects with back-off when the device disappears. It never blocks its caller:
everything arrives through :meth:`BridgeReader.get`.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.protocol import (
    SEQ_MODULO,
    UPDATE_FIRMWARE,
    ErrorLine,
    Hello,
    ProtocolError,
    SampleLine,
    parse_line,
)

BY_ID_DIR = Path("/dev/serial/by-id")
PREFERRED_NAMES = ("dingo", "micropython", "pico", "rp2040", "arduino")
MAX_BUFFER = 4096


@dataclass(frozen=True)
class StreamSample:
    """A sample with its continuous slot index (slots of 1/rate s since the reader started)."""

    index: int
    values: tuple[int | None, ...]
    seq: int


@dataclass(frozen=True)
class LinkEvent:
    """Something about the link: connected, disconnected, silent, gap, hello, bad_line."""

    kind: str
    message: str
    count: int = 0


@dataclass
class LinkStats:
    """Counters kept by the reader (read them any time; plain ints)."""

    lines: int = 0
    samples: int = 0
    bad_lines: int = 0
    gaps: int = 0
    lost_samples: int = 0
    device_errors: int = 0
    silences: int = 0
    connects: int = 0
    disconnects: int = 0
    hello: Hello | None = None
    port: str | None = None
    error_kinds: dict[str, int] = field(default_factory=dict)


def find_device(port: str, by_id_dir: Path = BY_ID_DIR) -> str | None:
    """The device to open: ``port`` itself unless it is ``auto``.

    ``auto`` prefers a ``/dev/serial/by-id`` link whose name looks like a Pico or
    Arduino, then any by-id link, then any USB serial port pyserial lists.
    """
    if port != "auto":
        return port
    try:
        links = sorted(p for p in by_id_dir.iterdir())
    except OSError:
        links = []
    for link in links:
        if any(name in link.name.lower() for name in PREFERRED_NAMES):
            return str(link)
    if links:
        return str(links[0])
    try:
        from serial.tools import list_ports

        ports = sorted(p.device for p in list_ports.comports() if p.vid is not None)
    except Exception:  # noqa: BLE001 - listing ports is best effort
        ports = []
    return ports[0] if ports else None


def _default_opener(url: str, baud: int) -> Any:
    import serial

    return serial.serial_for_url(url, baudrate=baud, timeout=0.05, write_timeout=0.2)


class BridgeReader:
    """Reads the bridge in a background thread; results come out of :meth:`get`.

    Items are ``(monotonic_s, StreamSample | ErrorLine | LinkEvent)``.
    ``rate_hz`` converts silence into sample slots when a stream (re)starts.
    """

    def __init__(
        self,
        port: str,
        baud: int = 115200,
        *,
        rate_hz: float = 80.0,
        silence_s: float = 1.5,
        backoff_s: tuple[float, float] = (0.1, 2.0),
        by_id_dir: Path = BY_ID_DIR,
        opener: Callable[[str, int], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if silence_s <= 0 or silence_s > 2.0:
            raise ValueError(f"silence_s must be in (0, 2] s, got {silence_s}")
        if rate_hz <= 0:
            raise ValueError(f"rate_hz must be positive, got {rate_hz}")
        self.port = port
        self.baud = baud
        self.rate_hz = rate_hz
        self.silence_s = silence_s
        self.backoff_s = backoff_s
        self.by_id_dir = by_id_dir
        self.opener = opener or _default_opener
        self.clock = clock
        self.stats = LinkStats()
        self._told_old_firmware = False
        self._queue: queue.Queue[tuple[float, Any]] = queue.Queue(maxsize=100_000)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.t0 = clock()
        self._index = -1
        self._last_seq: int | None = None

    # -- public API -------------------------------------------------------------------------
    def start(self) -> None:
        """Start the reader thread (returns at once)."""
        if self._thread is not None:
            return
        self.t0 = self.clock()
        self._thread = threading.Thread(target=self._run, name="dingo-bridge-reader", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 1.0) -> None:
        """Ask the thread to finish and wait for it up to ``timeout_s``."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None

    def get(self, timeout_s: float) -> list[tuple[float, Any]]:
        """Everything received so far, waiting at most ``timeout_s`` for the first item."""
        items: list[tuple[float, Any]] = []
        try:
            items.append(self._queue.get(timeout=max(0.0, timeout_s)))
        except queue.Empty:
            return items
        while True:
            try:
                items.append(self._queue.get_nowait())
            except queue.Empty:
                return items

    # -- thread -----------------------------------------------------------------------------
    def _emit(self, item: Any) -> None:
        try:
            self._queue.put_nowait((self.clock(), item))
        except queue.Full:  # the consumer stopped reading: drop rather than grow without bound
            self.stats.lost_samples += 1

    def _run(self) -> None:
        delay = self.backoff_s[0]
        reported_missing = False
        while not self._stop.is_set():
            path = find_device(self.port, self.by_id_dir)
            device = None
            if path is not None:
                try:
                    device = self.opener(path, self.baud)
                except Exception as exc:  # noqa: BLE001 - SerialException, OSError, ValueError
                    error = f"cannot open {path}: {exc}"
                else:
                    error = ""
            else:
                error = "no serial device found (port = auto)"
            if device is None:
                if not reported_missing:
                    self._emit(LinkEvent("disconnected", error))
                    reported_missing = True
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_s[1])
                continue
            delay = self.backoff_s[0]
            reported_missing = False
            self.stats.connects += 1
            self.stats.port = path
            self._emit(LinkEvent("connected", f"opened {path}"))
            reason = self._pump(device)
            with contextlib.suppress(Exception):  # closing a vanished device may fail
                device.close()
            if reason is not None:
                self.stats.disconnects += 1
                self._emit(LinkEvent("disconnected", reason))
                reported_missing = True

    def _pump(self, device: Any) -> str | None:
        """Read from an open device until it fails (returns why) or the reader stops."""
        buffer = b""
        last_line = self.clock()
        silent = False
        self._last_seq = None
        self._ask_hello(device)
        while not self._stop.is_set():
            try:
                chunk = device.read(max(1, getattr(device, "in_waiting", 0) or 1))
            except Exception as exc:  # noqa: BLE001 - SerialException / OSError: unplugged
                return f"device lost: {exc}"
            now = self.clock()
            if chunk:
                buffer += chunk
                while b"\n" in buffer:
                    raw, buffer = buffer.split(b"\n", 1)
                    if self._handle(raw):
                        last_line = now
                        if silent:
                            silent = False
                            self._emit(LinkEvent("resumed", "the device talks again"))
                if len(buffer) > MAX_BUFFER:
                    self.stats.bad_lines += 1
                    buffer = b""
            if now - last_line >= self.silence_s and not silent:
                silent = True
                self.stats.silences += 1
                self._last_seq = None
                self._emit(LinkEvent("silent", f"no valid line for {now - last_line:.1f} s"))
                self._ask_hello(device)
        return None

    @staticmethod
    def _ask_hello(device: Any) -> None:
        with contextlib.suppress(Exception):  # a read failure will report the problem
            device.write(b"?\n")

    def _handle(self, raw: bytes) -> bool:
        """Parse and dispatch one line; True when it was a valid line."""
        if not raw.strip():
            return False
        try:
            msg = parse_line(raw)
        except ProtocolError as exc:
            self.stats.bad_lines += 1
            if UPDATE_FIRMWARE in str(exc) and not self._told_old_firmware:
                self._told_old_firmware = True  # once per link, not once per line
                self._emit(LinkEvent("old_firmware", str(exc)))
            return False
        self.stats.lines += 1
        if isinstance(msg, SampleLine):
            self._sample(msg)
        elif isinstance(msg, ErrorLine):
            self.stats.device_errors += 1
            self.stats.error_kinds[msg.kind] = self.stats.error_kinds.get(msg.kind, 0) + 1
            self._emit(msg)
        elif isinstance(msg, Hello):
            if self.stats.hello != msg:
                self._emit(LinkEvent("hello", f"fw={msg.fw} cells={msg.cells} rate={msg.rate_hz}"))
            self.stats.hello = msg
        return True

    def _sample(self, msg: SampleLine) -> None:
        now_slot = int((self.clock() - self.t0) * self.rate_hz)
        if self._last_seq is None:
            self._index = max(self._index + 1, now_slot)
        else:
            delta = (msg.seq - self._last_seq) % SEQ_MODULO
            if delta == 0:
                self.stats.bad_lines += 1  # a repeated line
                return
            if delta > SEQ_MODULO // 2:  # went backwards: the device restarted
                self._index = max(self._index + 1, now_slot)
            else:
                if delta > 1:
                    self.stats.gaps += 1
                    self.stats.lost_samples += delta - 1
                    self._emit(LinkEvent("gap", f"{delta - 1} sample(s) lost before seq {msg.seq}",
                                         delta - 1))
                self._index += delta
        self._last_seq = msg.seq
        self.stats.samples += 1
        self._emit(StreamSample(self._index, msg.values, msg.seq))


def probe(url: str, baud: int = 115200, timeout_s: float = 1.5,
          opener: Callable[[str, int], Any] | None = None) -> str:
    """Ask the device at ``url`` who it is (``?``) and describe the answer in one line."""
    try:
        device = (opener or _default_opener)(url, baud)
    except Exception as exc:  # noqa: BLE001 - any failure to open is the answer
        return f"cannot open: {exc}"
    received = 0
    buffer = b""
    try:
        device.write(b"?\n")
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            chunk = device.read(256)
            received += len(chunk)
            buffer = (buffer + chunk)[-MAX_BUFFER:]
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                try:
                    msg = parse_line(raw)
                except ProtocolError as exc:
                    if "unsupported protocol version" in str(exc) or UPDATE_FIRMWARE in str(exc):
                        return f"a Dingo bridge speaking another protocol: {exc}"
                    continue
                if isinstance(msg, Hello):
                    extra = "".join(f", {k}={v}" for k, v in msg.extra.items())
                    return (f"Dingo bridge (protocol {msg.protocol}, fw {msg.fw}, {msg.cells} cells, "
                            f"{msg.rate_hz} Hz{extra})")
    except Exception as exc:  # noqa: BLE001
        return f"error while reading: {exc}"
    finally:
        with contextlib.suppress(Exception):
            device.close()
    if received:
        return f"answers, but not with the Dingo protocol ({received} bytes in {timeout_s:g} s)"
    return f"no answer in {timeout_s:g} s"


def list_devices(by_id_dir: Path = BY_ID_DIR) -> list[tuple[str, str, bool]]:
    """Serial devices as (path, description, is_usb): by-id links first, then pyserial's list."""
    out: list[tuple[str, str, bool]] = []
    seen: set[str] = set()
    try:
        for link in sorted(by_id_dir.iterdir()):
            out.append((str(link), f"-> {link.resolve()}", True))
            seen.add(str(link.resolve()))
    except OSError:
        pass
    try:
        from serial.tools import list_ports

        for port in sorted(list_ports.comports(), key=lambda p: p.device):
            if port.device not in seen:
                out.append((port.device, port.description or "", port.vid is not None))
    except Exception:  # noqa: BLE001, S110 - listing is best effort
        pass
    return out
