"""``dingo-companion bench stream``: event-stream latency to N clients, CPU share and memory.

Starts the real ``dingo-companion run`` on the simulated table (4 cells at 80 Hz by default) in
a child process on a free loopback port, then measures:

- **idle**: the companion's CPU share (of one core) and resident memory with no page open,
  the simulated cells streaming, nothing happening on the table;
- **latency**: ``--clients`` event-stream clients connected; the disc is knocked over through
  the simulator API ``--events`` times; for each knock, the time from the request that causes
  the physical event to the arrival of the sensed ``tipped`` at every client (end to end:
  simulator, sensing pipeline, controller, SSE), and the stream's own part (from the
  controller publishing the change to its arrival);
- **streaming**: CPU share and memory during the latency run (clients connected, live
  centre-of-pressure messages ~10/s to each, cells streaming).

CPU and memory are read from ``/proc/<pid>`` (Linux).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench stream``."""
    p = subparsers.add_parser("stream", help="event-stream latency to N clients, CPU and memory")
    p.add_argument("--clients", type=int, default=10, help="event-stream clients (default 10)")
    p.add_argument("--events", type=int, default=20, help="physical events to time (default 20)")
    p.add_argument("--idle-s", type=float, default=5.0, help="seconds to measure idle CPU (default 5)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=run)


def _proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def _proc_rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            key, kb = line.split()[:2]
            values[key] = int(kb) / 1024
    return values.get("VmRSS:", 0.0), values.get("VmHWM:", 0.0)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class Client(threading.Thread):
    """One event-stream client recording when each ``tipped`` feed entry arrives."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrivals: dict[float, tuple[float, float]] = {}  # entry "at" -> (arrival time, at)
        self.connected = threading.Event()
        self.sensing: dict = {}
        self.live: list[tuple[float, bool]] = []  # (arrival time, disc still and level) per live message
        self.settled: list[float] = []  # arrival times of ``settled`` feed entries
        self._sock = None

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/api/events")
        self._sock = conn.sock
        resp = conn.getresponse()
        self.connected.set()
        kind = None
        try:
            while True:
                line = resp.readline()
                if not line:
                    return
                text = line.decode().rstrip("\n")
                if text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("data: ") and kind == "live":
                    self.sensing = json.loads(text[6:]).get("sensing") or {}
                    level = bool(self.sensing.get("still")) and self.sensing.get("tilt", 1) < 0.05
                    self.live.append((time.time(), level))
                    del self.live[:-200]
                elif text.startswith("data: ") and kind == "change":
                    now = time.time()
                    for entry in json.loads(text[6:]).get("events", []):
                        if entry.get("kind") == "tipped":
                            self.arrivals.setdefault(entry["at"], (now, entry["at"]))
                        elif entry.get("kind") == "settled":
                            self.settled.append(now)
                            del self.settled[:-50]
        except (OSError, ValueError, http.client.HTTPException):
            return

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()


BENCH_PIN = "246813"


def _start(tmp: Path, extra_env: dict[str, str] | None = None) -> tuple[subprocess.Popen, int, str]:
    config = tmp / "config.toml"
    config.write_text("# defaults: simulated table, 4 cells at 80 Hz\n")
    log = tmp / "companion.log"
    env = {k: v for k, v in os.environ.items() if k not in ("DINGO_CONFIG", "DINGO_SOURCE")}
    env["DINGO_PIN"] = BENCH_PIN  # the PIN is printed only on a terminal: give it
    env.update(extra_env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0", "--source", "sim",
         "--data-dir", str(tmp / "data"), "--config", str(config)],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = log.read_text()
        port = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
        if port and "Table PIN" in text:
            return proc, int(port.group(1)), BENCH_PIN
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the companion did not start:\n" + log.read_text())


def _request(port: int, method: str, path: str, pin: str | None = None) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if pin:
        headers["X-Table-PIN"] = pin
    conn.request(method, path, body="{}" if method == "POST" else None, headers=headers)
    resp = conn.getresponse()
    data = json.loads(resp.read() or b"{}")
    conn.close()
    if resp.status >= 400:
        raise RuntimeError(f"{method} {path}: {resp.status} {data}")
    return data


LEVEL_FOR_S = 1.0  # the disc must read still and level this long before the next knock
REFRACTORY_MARGIN_S = 0.5  # ... and the pipeline's tip refractory window must be over by this much


def _refractory_s() -> float:
    """How long after a ``settled`` the sensing pipeline reads no new tip without a placement
    (the disc righting itself swings the moment: ``SensingSettings.tip_refractory_ms``)."""
    from companion.sensing.settings import SensingSettings

    return SensingSettings().tip_refractory_ms / 1000.0


def _wait_level(reader: Client, since: float | None = None, timeout_s: float = 15.0) -> None:
    """Wait until the disc is still and level again after the knock whose ``tipped`` arrived at ``since``.

    The tip episode must have ended (a ``settled`` arrived after ``since``) and the pipeline's
    tip refractory window after it must be over: a knock inside it, with no pawn placed since,
    is not read as a tip (the disc righting itself swings the moment for a second or two), and
    every other knock used to go unseen (10 of 20). Then fresh live messages must show the disc
    still and level for a whole second (``LEVEL_FOR_S``), as a player would wait.
    (Reading the last live view alone once let the next knock go out ~0.2 s after a ``tipped``,
    while the view was still the one from before the tip, and the knock found the disc tipped.)
    """
    deadline = time.monotonic() + timeout_s
    if since is not None:
        while time.monotonic() < deadline:
            done = [at for at in list(reader.settled) if at > since]
            if done:
                rest = done[0] + _refractory_s() + REFRACTORY_MARGIN_S - time.time()
                if rest > 0:
                    time.sleep(min(rest, max(0.0, deadline - time.monotonic())))
                break
            time.sleep(0.05)
    while time.monotonic() < deadline:
        fresh = [(at, level) for at, level in list(reader.live) if since is None or at > since]
        if since is not None:
            gone = next((i for i, (_, level) in enumerate(fresh) if not level), None)
            if gone is None and time.time() - since < 2.0:
                time.sleep(0.05)
                continue
            fresh = fresh[gone + 1:] if gone is not None else fresh
        run = 0
        for _, level in reversed(fresh):
            if not level:
                break
            run += 1
        if run >= 3 and fresh[-1][0] - fresh[-run][0] >= LEVEL_FOR_S:
            return
        time.sleep(0.05)


def measure(clients: int, events: int, idle_s: float) -> dict:
    """Run the benchmark and return the figures."""
    with tempfile.TemporaryDirectory(prefix="dingo-bench-stream-") as tmpdir:
        proc, port, pin = _start(Path(tmpdir))
        try:
            time.sleep(1.5)  # warm up: imports done, pipeline past its start
            c0, w0 = _proc_cpu_s(proc.pid), time.monotonic()
            time.sleep(idle_s)
            idle_cpu = (_proc_cpu_s(proc.pid) - c0) / (time.monotonic() - w0) * 100
            idle_rss = _proc_rss_mb(proc.pid)[0]

            readers = [Client(port) for _ in range(clients)]
            for r in readers:
                r.start()
            for r in readers:
                r.connected.wait(10)
            c0, w0 = _proc_cpu_s(proc.pid), time.monotonic()
            end_to_end: list[float] = []
            stream_only: list[float] = []
            missed = 0
            last_tip: float | None = None
            for _ in range(events):
                _wait_level(readers[0], last_tip)
                t0 = time.time()
                _request(port, "POST", "/api/sim/knock", pin)
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    got = [[v for k, v in r.arrivals.items() if k >= t0 - 0.001] for r in readers]
                    if all(got):
                        break
                    time.sleep(0.005)
                else:
                    missed += 1
                    last_tip = time.time()  # wait for a fresh level view before the next knock
                    continue
                for arrivals in got:
                    arrival, at = arrivals[0]
                    end_to_end.append((arrival - t0) * 1000)
                    stream_only.append((arrival - at) * 1000)
                last_tip = max(arrivals[0][0] for arrivals in got)
                for r in readers:
                    r.arrivals.clear()
            stream_cpu = (_proc_cpu_s(proc.pid) - c0) / (time.monotonic() - w0) * 100
            stream_rss, peak_rss = _proc_rss_mb(proc.pid)
            for r in readers:
                r.close()
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return {
        "clients": clients, "events": events, "missed_events": missed,
        "end_to_end_ms": {"p50": _percentile(end_to_end, 0.5), "p95": _percentile(end_to_end, 0.95),
                          "max": max(end_to_end, default=float("nan")), "n": len(end_to_end)},
        "stream_ms": {"p50": _percentile(stream_only, 0.5), "p95": _percentile(stream_only, 0.95),
                      "max": max(stream_only, default=float("nan"))},
        "idle": {"cpu_percent": idle_cpu, "rss_mb": idle_rss},
        "streaming": {"cpu_percent": stream_cpu, "rss_mb": stream_rss, "peak_rss_mb": peak_rss},
        "mean_end_to_end_ms": statistics.fmean(end_to_end) if end_to_end else float("nan"),
    }


def run(args: argparse.Namespace) -> int:
    """Print the figures (and whether they meet the targets)."""
    if args.clients < 1 or args.events < 1 or args.idle_s <= 0:
        print("error: --clients and --events must be >= 1 and --idle-s > 0", file=sys.stderr)
        return 2
    if not Path("/proc/self/stat").exists():
        print("error: this benchmark reads /proc (Linux only)", file=sys.stderr)
        return 2
    r = measure(args.clients, args.events, args.idle_s)
    if args.json:
        print(json.dumps(r))
        return 0
    e, s = r["end_to_end_ms"], r["stream_ms"]
    ok = (e["p95"] < 150 and r["idle"]["cpu_percent"] < 5 and r["streaming"]["cpu_percent"] < 5
          and r["streaming"]["peak_rss_mb"] < 100 and not r["missed_events"])
    print(f"simulated table, 4 cells at 80 Hz; {r['clients']} event-stream clients; "
          f"{e['n']} arrivals of {r['events']} knocks ({r['missed_events']} missed)")
    print(f"knock -> 'tipped' at every client (end to end): p50 {e['p50']:.1f} ms, p95 {e['p95']:.1f} ms, "
          f"max {e['max']:.1f} ms   (target p95 < 150 ms)")
    print(f"  of which controller publish -> client arrival: p50 {s['p50']:.1f} ms, p95 {s['p95']:.1f} ms")
    print(f"idle (no page open, cells streaming): CPU {r['idle']['cpu_percent']:.1f}% of one core, "
          f"RSS {r['idle']['rss_mb']:.1f} MB   (target < 5%, < 100 MB)")
    print(f"streaming to {r['clients']} clients: CPU {r['streaming']['cpu_percent']:.1f}% of one core, "
          f"RSS {r['streaming']['rss_mb']:.1f} MB, peak {r['streaming']['peak_rss_mb']:.1f} MB"
          "  (same targets)")
    print("targets met" if ok else "TARGETS NOT MET")
    return 0
