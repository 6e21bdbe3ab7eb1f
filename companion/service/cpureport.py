"""For benchmarks: ``DINGO_CPU_REPORT=<file>`` makes ``run`` write its CPU figures there each second.

The file holds ``{"wall_s", "process_cpu_s", "sim_cpu_s"}``: the process's CPU time and the part
spent stepping the simulated table (``SimSource.cpu_s``), so a benchmark can report the companion's
own cost apart from the simulator's, which a real table does not have.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any


def find_sim_source(source: Any) -> Any:
    """The ``SimSource`` inside ``source`` (through wrappers such as ``RetryingSource``), or None."""
    for _ in range(5):
        if source is None or hasattr(source, "cpu_s"):
            return source
        source = getattr(source, "inner", None) or getattr(source, "source", None)
    return None


def start_cpu_report(table: Any, environ: dict[str, str] | None = None) -> threading.Event | None:
    """Start the reporting thread if ``DINGO_CPU_REPORT`` is set; returns its stop event."""
    target = (os.environ if environ is None else environ).get("DINGO_CPU_REPORT")
    if not target:
        return None
    stop = threading.Event()
    t0 = time.monotonic()

    def write() -> None:
        while not stop.wait(1.0):
            loop = getattr(table, "loop", None)
            sim = find_sim_source(getattr(loop, "source", None))
            data = {"wall_s": time.monotonic() - t0, "process_cpu_s": time.process_time(),
                    "sim_cpu_s": getattr(sim, "cpu_s", 0.0) if sim is not None else 0.0}
            tmp = Path(target + ".tmp")
            with contextlib.suppress(OSError):
                tmp.write_text(json.dumps(data))
                os.replace(tmp, target)

    threading.Thread(target=write, name="dingo-cpu-report", daemon=True).start()
    return stop
