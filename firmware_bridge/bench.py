"""Benchmark of the host side of the bridge: ``python -m firmware_bridge.bench``.

Prints: parser cost per sample line; over a pseudo-terminal with a fake device streaming
4 cells at 80 Hz: latency from the device's write to ``SerialSource.read`` returning the
sample, the process CPU share while streaming, the time to report a silent device, and
the time from replug to the first sample.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.sensing.trace import Sample, TraceHeader
from firmware_bridge.protocol import encode, parse_line


def bench_parser(n: int = 20000) -> float:
    """Microseconds per 4-cell sample line."""
    lines = [encode(f"S,{i % 65536},{84201 + i},{-11873 - i},{230511},{-40012}").encode() for i in range(n)]
    start = time.perf_counter()
    for line in lines:
        parse_line(line)
    return (time.perf_counter() - start) / n * 1e6


class Device:
    """A fake bridge on a pty behind a symlink, writing at ``rate`` Hz and noting write times."""

    def __init__(self, link: Path, rate: float = 80.0) -> None:
        self.link = link
        self.rate = rate
        self.sent: dict[int, float] = {}
        self.seq = 0
        self.talk = threading.Event()
        self.talk.set()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.plug()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def plug(self) -> None:
        with self.lock:
            self.master, self.slave = os.openpty()
            os.symlink(os.ttyname(self.slave), self.link)

    def unplug(self) -> None:
        with self.lock:
            os.unlink(self.link)
            os.close(self.master)
            os.close(self.slave)
            self.master = -1

    def run(self) -> None:
        period = 1 / self.rate
        next_t = time.monotonic()
        while not self.stop.is_set():
            next_t += period
            time.sleep(max(0.0, next_t - time.monotonic()))
            with self.lock:
                if self.master < 0 or not self.talk.is_set():
                    continue
                seq = self.seq
                self.seq += 1
                line = encode(f"S,{seq % 65536},{seq},1,2,3").encode()
                self.sent[seq] = time.monotonic()
                with contextlib.suppress(OSError):
                    os.write(self.master, line)


def bench_link(seconds: float) -> dict[str, float]:
    """Latency, CPU share, silence detection and replug figures over a pty."""
    from companion.sensing.trace import CellSpec
    from hardware.sources.base import SourceFault
    from hardware.sources.serial_source import SerialSource

    header = TraceHeader(80.0, tuple(CellSpec(0, 0, 0, 1) for _ in range(4)), {"small": 2, "medium": 4,
                                                                                "large": 8})
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "bridge"
        device = Device(link)
        source = SerialSource(header, str(link), backoff_s=(0.05, 0.5))
        source.open()
        latencies: list[float] = []
        try:
            end = time.monotonic() + 0.5
            while time.monotonic() < end:
                source.read(0.05)
            cpu0, wall0 = time.process_time(), time.monotonic()
            end = wall0 + seconds
            while time.monotonic() < end:
                for item in source.read(0.05):
                    now = time.monotonic()
                    if isinstance(item, Sample) and item.raw[0] in device.sent:
                        latencies.append((now - device.sent[item.raw[0]]) * 1000)
            cpu_share = (time.process_time() - cpu0) / (time.monotonic() - wall0) * 100
            device.talk.clear()
            t0 = time.monotonic()
            silent_s = None
            while silent_s is None and time.monotonic() - t0 < 5:
                if any(isinstance(i, SourceFault) and i.kind == "silent" for i in source.read(0.05)):
                    silent_s = time.monotonic() - t0
            device.talk.set()
            device.unplug()
            time.sleep(0.3)
            device.plug()
            t0 = time.monotonic()
            replug_s = None
            while replug_s is None and time.monotonic() - t0 < 10:
                if any(isinstance(i, Sample) for i in source.read(0.05)):
                    replug_s = time.monotonic() - t0
        finally:
            source.close()
            device.stop.set()
            device.thread.join(1)
    latencies.sort()
    return {
        "samples": len(latencies),
        "latency_median_ms": statistics.median(latencies),
        "latency_p99_ms": latencies[int(len(latencies) * 0.99) - 1],
        "cpu_percent": cpu_share,
        "silent_detect_s": silent_s if silent_s is not None else float("nan"),
        "replug_first_sample_s": replug_s if replug_s is not None else float("nan"),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.bench", description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of 80 Hz streaming (default 5)")
    args = parser.parse_args(argv)
    us = bench_parser()
    print(f"parser: {us:.1f} us per 4-cell sample line ({1e6 / us:,.0f} lines/s; "
          f"{us * 80 / 1e4:.3f} % of one core at 80 Hz)")
    link = bench_link(args.seconds)
    print(f"pty link, 4 cells at 80 Hz for {args.seconds:g} s: {link['samples']} samples, "
          f"device write -> read() latency median {link['latency_median_ms']:.1f} ms, "
          f"p99 {link['latency_p99_ms']:.1f} ms; process CPU {link['cpu_percent']:.1f} % of one core")
    print(f"silent device reported after {link['silent_detect_s']:.2f} s; "
          f"first sample {link['replug_first_sample_s']:.2f} s after replug")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
