"""``dingo-companion bench runcpu``: ``run``'s CPU with a game and N tablets, the simulator apart.

Starts the real ``dingo-companion run`` on the simulated table (4 cells at 80 Hz) in a child
process, starts a game through the API, opens ``--clients`` event streams (the tablets) and
measures ``--seconds`` of play-less table time: the process's CPU share of one core, the share of
each thread (from ``/proc/<pid>/task``), and the simulator's own share (``SimSource.cpu_s``,
reported by the child through ``DINGO_CPU_REPORT``). The figure that counts for a real table is
the process share minus the simulator's: a real table has HX711s, not a simulator.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
from pathlib import Path

from companion.bench.stream import Client, _proc_cpu_s, _start

GOAL_PERCENT = 2.0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench runcpu``."""
    p = subparsers.add_parser("runcpu", help="run's CPU with a game and N tablets, the simulator apart")
    p.add_argument("--clients", type=int, default=10, help="event-stream clients (default 10)")
    p.add_argument("--seconds", type=float, default=30.0, help="measured seconds (default 30)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=run)


def _threads(pid: int) -> dict[str, float]:
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return out


def _report(path: Path) -> dict:
    for _ in range(50):
        with contextlib.suppress(OSError, ValueError):
            return json.loads(path.read_text())
        time.sleep(0.1)
    raise RuntimeError(f"no CPU report in {path}")


def measure(clients: int, seconds: float) -> dict:
    """Run the benchmark and return the figures."""
    import http.client

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        report = tmp / "cpu.json"
        proc, port, pin = _start(tmp, {"DINGO_CPU_REPORT": str(report)})
        readers: list[Client] = []
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            game = {"version": 1, "players": ["Ann", "Bob", "Cy"]}
            conn.request("POST", "/api/game", body=json.dumps(game),
                         headers={"Content-Type": "application/json", "X-Table-PIN": pin})
            status = conn.getresponse().status
            conn.close()
            if status != 200:
                raise RuntimeError(f"POST /api/game: {status}")
            readers = [Client(port) for _ in range(clients)]
            for r in readers:
                r.start()
            for r in readers:
                r.connected.wait(10)
            time.sleep(2.0)  # settle
            r0, c0, t0, th0 = _report(report), _proc_cpu_s(proc.pid), time.monotonic(), _threads(proc.pid)
            time.sleep(seconds)
            time.sleep(1.1)  # one more report
            r1, c1, t1, th1 = _report(report), _proc_cpu_s(proc.pid), time.monotonic(), _threads(proc.pid)
        finally:
            for r in readers:
                r.close()
            proc.terminate()
            try:
                proc.wait(10)
            except Exception:  # noqa: BLE001
                proc.kill()
    wall = t1 - t0
    sim = (r1["sim_cpu_s"] - r0["sim_cpu_s"]) / max(1e-9, r1["wall_s"] - r0["wall_s"]) * 100
    total = (c1 - c0) / wall * 100
    threads = {k: (th1.get(k, 0.0) - th0.get(k, 0.0)) / wall * 100 for k in th1}
    return {"clients": clients, "seconds": round(wall, 1), "process_percent": total, "sim_percent": sim,
            "without_sim_percent": total - sim, "threads_percent": threads}


def run(args: argparse.Namespace) -> int:
    """Print the figures."""
    r = measure(args.clients, args.seconds)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"run on the simulated table, a game, {r['clients']} tablets, {r['seconds']} s:")
        print(f"  process: {r['process_percent']:.2f} % of one core")
        print(f"  the simulator's own share: {r['sim_percent']:.2f} %")
        print(f"  everything but the simulator: {r['without_sim_percent']:.2f} % "
              f"(goal <= {GOAL_PERCENT:g} %)")
        busy = sorted(r["threads_percent"].items(), key=lambda kv: -kv[1])
        print("  threads (by OS name): " + ", ".join(f"{k} {v:.2f} %" for k, v in busy if v >= 0.01))
    return 0 if r["without_sim_percent"] <= GOAL_PERCENT else 1
