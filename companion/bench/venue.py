"""``dingo-companion bench venue``: many tables publishing to one broker, one hub showing them.

Starts a private Mosquitto on a loopback port, the hub (``dingo-companion hub``, its own process)
and ``--tables`` simulated tables in this process: each the real controller, the real session log
on disk and the real venue publisher, playing random legal games at ``--every`` seconds per action
(with jitter; the first games start staggered). After ``--minutes`` the tables stop, the hub is
given time to drain, and the figures are printed: event-to-hub latency (the action logged on the
table -> stored at the hub, same clock) p50/p95/max, broker and hub CPU (% of one core, mean over
the run) and peak memory (RSS), messages per second in and out of the broker (its ``$SYS``
counters), whether every table showed on the hub (its API, and the page in headless Chromium when
it is installed), and whether every event reached the hub exactly once, in order.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

VENUE = "bench"
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench venue``."""
    p = subparsers.add_parser(
        "venue",
        help="N simulated tables -> one MQTT broker -> the hub: latency, CPU, memory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tables", type=int, default=50, help="simulated tables (default 50)")
    p.add_argument("--minutes", type=float, default=10.0, help="how long the tables play (default 10)")
    p.add_argument(
        "--every", type=float, default=2.0, help="seconds between two actions at a table (default 2)"
    )
    p.add_argument("--seed", type=int, default=1, help="random seed of the games")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--keep", type=Path, default=None, help="keep the broker, hub and table files in this folder"
    )
    p.set_defaults(func=main)


class ProcWatch:
    """Samples one process's CPU time and RSS from /proc every ``interval_s``."""

    def __init__(self, pid: int, interval_s: float = 2.0) -> None:
        self.pid = pid
        self.interval_s = interval_s
        self.peak_rss_kb = 0
        self.start_cpu = self._cpu()
        self.start_wall = time.monotonic()
        self.end_cpu = self.start_cpu
        self.end_wall = self.start_wall
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _cpu(self) -> float:
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / CLK_TCK
        except (OSError, IndexError, ValueError):
            return self.end_cpu if hasattr(self, "end_cpu") else 0.0

    def _rss(self) -> int:
        try:
            text = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return 0
        match = re.search(r"VmRSS:\s+(\d+) kB", text)
        return int(match.group(1)) if match else 0

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.peak_rss_kb = max(self.peak_rss_kb, self._rss())
            self.end_cpu, self.end_wall = self._cpu(), time.monotonic()

    def stop(self) -> dict[str, float]:
        self.peak_rss_kb = max(self.peak_rss_kb, self._rss())
        self.end_cpu, self.end_wall = self._cpu(), time.monotonic()
        self._stop.set()
        wall = max(1e-9, self.end_wall - self.start_wall)
        return {
            "cpu_percent": round(100.0 * (self.end_cpu - self.start_cpu) / wall, 1),
            "peak_rss_mb": round(self.peak_rss_kb / 1024, 1),
        }


class SysCounters:
    """The broker's ``$SYS/broker/messages/{received,sent}`` (packets of any kind), as they come."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt

        self.values: dict[str, tuple[float, int]] = {}
        self.first: dict[str, tuple[float, int]] = {}
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-sys")
        self.client.on_connect = lambda c, *_: c.subscribe("$SYS/broker/messages/+", 0)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, _c: Any, _u: Any, msg: Any) -> None:
        name = msg.topic.removeprefix("$SYS/broker/").replace("/messages/", "_").replace("messages/", "")
        try:
            value = (time.monotonic(), int(msg.payload))
        except ValueError:
            return
        self.first.setdefault(name, value)
        self.values[name] = value

    def rates(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for name in ("received", "sent"):
            a, b = self.first.get(name), self.values.get(name)
            out[name] = None if not a or not b or b[0] <= a[0] else round((b[1] - a[1]) / (b[0] - a[0]), 1)
        return out

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _start_hub(broker_port: int, data_dir: Path, log: Path) -> tuple[subprocess.Popen, int]:
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "hub",
        "--broker",
        "127.0.0.1",
        "--broker-port",
        str(broker_port),
        "--venue",
        VENUE,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        "--client-id",
        "bench-hub",
        "--since-hours",
        "0",
    ]
    out = open(log, "w")  # noqa: SIM115 - the hub's output, for the whole run
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=out, text=True)
    end = time.monotonic() + 30
    assert proc.stdout is not None
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        match = re.search(r"http://[^:]+:(\d+)/", line)
        if match:
            threading.Thread(target=lambda: [out.write(x) for x in proc.stdout], daemon=True).start()
            return proc, int(match.group(1))
    proc.kill()
    raise RuntimeError(f"the hub did not start: {log.read_text()[-800:]}")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:  # noqa: S310 - loopback only
        return json.loads(resp.read())


def _cards_in_browser(url: str, expected: int) -> dict[str, Any] | None:
    """The table cards the hub page shows in headless Chromium (None if Chromium is not available)."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(chromium).exists():
        return None
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    count = "['.card', '.card:not(.offline)'].map((s) => document.querySelectorAll(s).length)"
    error = None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=args)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            started = time.monotonic()
            page.goto(url, timeout=60000)
            try:
                page.wait_for_function(f"document.querySelectorAll('.card').length >= {expected}",
                                       timeout=60000)
            except Exception as exc:  # noqa: BLE001 - report what was seen
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            shown_s = time.monotonic() - started
            cards, online = page.evaluate(count)
        finally:
            browser.close()
    return {"cards": int(cards), "online": int(online), "seconds": round(shown_s, 2), "error": error}


def _latencies(hub_db: Path) -> tuple[list[float], dict[str, list[int]]]:
    db = sqlite3.connect(f"file:{hub_db}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT received_at - at FROM events WHERE kind='action' AND at IS NOT NULL"
        ).fetchall()
        seqs: dict[str, list[int]] = {}
        for table, seq in db.execute("SELECT table_id, seq FROM events ORDER BY table_id, stream, seq"):
            seqs.setdefault(table, []).append(seq)
    finally:
        db.close()
    return [float(r[0]) for r in rows], seqs


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run_bench(
    workdir: Path, n_tables: int, minutes: float, every_s: float, seed: int, say: Any = print
) -> dict[str, Any]:
    """Run the venue benchmark in ``workdir``; returns the figures."""
    from companion.config.venue import VenueConfig
    from companion.venue.broker import LocalBroker
    from companion.venue.simtable import SimulatedTable

    broker = LocalBroker(workdir / "broker")
    broker.start()
    hub = None
    tables: list[SimulatedTable] = []
    try:
        hub, hub_port = _start_hub(broker.port, workdir / "hub", workdir / "hub.log")
        sys_counters = SysCounters(broker.port)
        broker_watch, hub_watch = ProcWatch(broker.proc.pid), ProcWatch(hub.pid)
        self_watch = ProcWatch(os.getpid())
        for i in range(n_tables):
            venue = VenueConfig(name=VENUE, table=f"t{i + 1:02d}", host="127.0.0.1", port=broker.port)
            table = SimulatedTable(workdir / "tables" / venue.table, venue, seed=seed * 1000 + i)
            table.start()
            tables.append(table)
        say(
            f"{n_tables} tables, broker on {broker.port}, hub page http://127.0.0.1:{hub_port}/; "
            f"playing {minutes:g} min, one action per {every_s:g} s per table"
        )
        received_before = _get(f"http://127.0.0.1:{hub_port}/healthz")["broker"].get("received", 0)
        rng = random.Random(seed)
        due = [time.monotonic() + rng.uniform(0, every_s) for _ in tables]
        end = time.monotonic() + minutes * 60
        actions = 0
        lag_max = 0.0
        shown: dict[str, Any] = {}
        next_report = time.monotonic() + 60
        while time.monotonic() < end:
            i = min(range(len(due)), key=due.__getitem__)
            wait = due[i] - time.monotonic()
            if wait > 0:
                time.sleep(min(wait, 0.5))
                continue
            lag_max = max(lag_max, -wait)
            tables[i].step()
            actions += 1
            due[i] += every_s * rng.uniform(0.5, 1.5)
            if time.monotonic() >= next_report:
                next_report += 60
                say(f"  {actions} actions so far")
        # what the hub shows while the games are in progress
        view = _get(f"http://127.0.0.1:{hub_port}/api/tables")
        shown["api_online"] = sum(1 for t in view["tables"] if t["status"] == "online" and t["players"])
        shown["browser_cards"] = _cards_in_browser(f"http://127.0.0.1:{hub_port}/", n_tables)
        run_s = minutes * 60
        sent = sum(t.publisher.sent for t in tables)
        finished = sum(t.games_finished for t in tables)
        for t in tables:  # drain: every event acknowledged by the broker
            deadline = time.monotonic() + 30
            while t.publisher.acked < t.publisher.journal.last_seq and time.monotonic() < deadline:
                time.sleep(0.1)
        expected = {t.publisher.venue.table: t.publisher.journal.last_seq for t in tables}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            health = _get(f"http://127.0.0.1:{hub_port}/healthz")
            if health["events"] >= sum(expected.values()):
                break
            time.sleep(0.5)
        broker_fig, hub_fig, self_fig = broker_watch.stop(), hub_watch.stop(), self_watch.stop()
        rates = sys_counters.rates()
        sys_counters.stop()
        health = _get(f"http://127.0.0.1:{hub_port}/healthz")
        hub_received = health["broker"].get("received", 0) - received_before
    finally:
        for t in tables:
            t.stop()
        if hub is not None:
            hub.terminate()
            hub.wait(15)
        broker.stop()
    latencies, seqs = _latencies(workdir / "hub" / "hub.db")
    complete = all(seqs.get(name) == list(range(1, last + 1)) for name, last in expected.items())
    return {
        "tables": n_tables,
        "minutes": minutes,
        "every_s": every_s,
        "actions": actions,
        "games_finished": finished,
        "events": sum(expected.values()),
        "events_at_hub": sum(len(v) for v in seqs.values()),
        "exactly_once_in_order": complete,
        "latency_ms": {
            "p50": round(1000 * statistics.median(latencies), 1) if latencies else None,
            "p95": round(1000 * _pct(latencies, 0.95), 1) if latencies else None,
            "max": round(1000 * max(latencies), 1) if latencies else None,
            "n": len(latencies),
        },
        "broker": broker_fig,
        "hub": hub_fig,
        "tables_process": self_fig,
        "broker_messages_per_s": rates,
        "table_messages_per_s": round(sent / run_s, 1),
        "hub_received": health["broker"].get("received"),
        "hub_messages_per_s": round((hub_received or 0) / run_s, 1),
        "hub_duplicates": health["broker"].get("duplicates"),
        "shown": shown,
        "driver_lag_max_s": round(lag_max, 3),
    }


def print_figures(fig: dict[str, Any]) -> None:
    """The figures as text."""
    lat = fig["latency_ms"]
    print(
        f"tables {fig['tables']}, {fig['minutes']:g} min, one action per {fig['every_s']:g} s per table: "
        f"{fig['actions']} actions, {fig['games_finished']} games finished"
    )
    print(
        f"events: {fig['events']} published, {fig['events_at_hub']} at the hub; exactly once and in order: "
        f"{'yes' if fig['exactly_once_in_order'] else 'NO'} (duplicates received and dropped: "
        f"{fig['hub_duplicates']})"
    )
    print(f"event to hub: p50 {lat['p50']} ms, p95 {lat['p95']} ms, max {lat['max']} ms (n = {lat['n']})")
    for name in ("broker", "hub", "tables_process"):
        print(
            f"{name}: CPU {fig[name]['cpu_percent']} % of one core (mean), "
            f"peak RSS {fig[name]['peak_rss_mb']} MB"
        )
    rates = fig["broker_messages_per_s"]
    print(
        f"messages per second: tables -> broker {fig['table_messages_per_s']} (counted at the tables); "
        f"hub received {fig['hub_messages_per_s']} (counted at the hub); "
        f"broker packets of any kind (PUBLISH, PUBACK, PING; its $SYS counters) in {rates['received']}, "
        f"out {rates['sent']}"
    )
    shown = fig["shown"]
    seen = shown["browser_cards"]
    cards = "not run" if seen is None else (
        f"{seen['cards']} table cards, {seen['online']} online, shown {seen['seconds']} s after loading"
        + (f" ({seen['error']})" if seen["error"] else ""))
    print(f"hub shows: {shown['api_online']} of {fig['tables']} tables online with a game (API); "
          f"page in Chromium: {cards}")


def main(args: argparse.Namespace) -> int:
    """Entry point of ``bench venue``."""
    import logging

    from companion.venue.broker import find_mosquitto

    logging.basicConfig(level=logging.WARNING)
    if find_mosquitto() is None:
        print("error: mosquitto is not installed (Debian: apt-get install mosquitto)", file=sys.stderr)
        return 2
    if args.tables < 1 or args.minutes <= 0 or args.every <= 0:
        print("error: --tables, --minutes and --every must be positive", file=sys.stderr)
        return 2
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        fig = run_bench(args.keep, args.tables, args.minutes, args.every, args.seed)
    else:
        with tempfile.TemporaryDirectory(prefix="dingo-bench-venue-") as tmp:
            fig = run_bench(Path(tmp), args.tables, args.minutes, args.every, args.seed)
    if args.json:
        print(json.dumps(fig, indent=2))
    else:
        print_figures(fig)
    return 0 if fig["exactly_once_in_order"] else 1
