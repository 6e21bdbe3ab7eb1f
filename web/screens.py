"""Screenshots of every screen of the tablet page at the three sizes, in real headless Chromium.

    python -m web.screens [--out docs/screens]

starts ``dingo-companion run`` on the simulated table (a fresh data dir), walks a game through its
screens (start, who plays first, roll, place, a card of the table, a refused answer, the end, offline)
and saves ``<screen>-<size>.png``; it prints, per shot, whether the page fits and what overflows.
The browser tests (tests/web/test_browser_page.py) drive the page with the same :class:`Table`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SIZES = {"landscape": (1280, 800), "portrait": (800, 1280), "phone": (390, 844)}

OVERFLOW_JS = """() => {
  const w = document.documentElement.clientWidth, out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('dialog:not([open])') || el.closest('.scroll')) continue;  // .scroll: scrolls in its box
    if (r.right > w + 1 || r.left < -1) out.push((el.id ? '#' + el.id : el.tagName.toLowerCase() + '.' +
      el.className) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  }
  return {overflow: out.slice(0, 10), scrollW: document.documentElement.scrollWidth, w,
          scrollH: document.documentElement.scrollHeight, h: window.innerHeight};
}"""


class Table:
    """A running ``dingo-companion run --source sim`` with a fresh data dir, driven over its API."""

    def __init__(self, workdir: Path, port: int = 0) -> None:
        """Start it (on ``port``, 0: a free one); ``url`` and ``pin`` are set once it listens."""
        workdir.mkdir(parents=True, exist_ok=True)
        config = workdir / "config.toml"
        config.write_text("# defaults\n")
        self.log = workdir / "companion.log"
        env = {k: v for k, v in os.environ.items() if k not in ("DINGO_CONFIG", "DINGO_SOURCE", "DINGO_PIN")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(workdir / "data"), "--source", "sim", "--config", str(config)],
            stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = self.log.read_text()
            url, pin = re.search(r"(http://127\.0\.0\.1:\d+/)", text), re.search(r"PIN[^:]*: (\d+)", text)
            pin_file = workdir / "data" / "table-pin"
            if url and (pin or pin_file.exists()):
                self.url, self.workdir = url.group(1), workdir
                self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
                self.pin = pin.group(1) if pin else pin_file.read_text().strip()
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.proc.kill()
        raise RuntimeError("the companion did not start:\n" + self.log.read_text())

    def stop(self) -> None:
        """Stop the companion."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def call(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        """POST (with a body) or GET an API path with the table PIN; (status, JSON)."""
        data = None if body is None else json.dumps(body).encode()
        method = "GET" if body is None else "POST"
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", "X-Table-PIN": self.pin,
                                              "Origin": self.url.rstrip("/")})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def state(self) -> dict:
        """The current message (``GET /api/state``)."""
        return self.call("/api/state")[1]

    def new_game(self, players: list[str], anyway: bool = True) -> dict:
        """A version 1 game of the Disc for ``players`` (``start_anyway``: whatever is on the disc)."""
        body = {"game": "dingo-disc", "version": 1, "players": players, "start_anyway": anyway}
        return self.call("/api/game", body)[1]

    def step(self) -> bool:
        """One typed step of the game towards its end (dice by the companion); False once it is over."""
        msg = self.state()
        state = msg["state"]
        if state.get("phase") in ("over", None, "setup"):
            return False
        for p in msg.get("pending") or []:  # the table's questions: the sensors are not part of it
            if "Ignore: the sensors are wrong" in p["choices"]:
                self.call(f"/api/prompts/{p['id']}", {"choice": "Ignore: the sensors are wrong"})
                return True
        legal = state.get("legal") or []
        if (state.get("expected") or {}).get("kind") == "roll":  # spots near the centre, all round:
            self._spin = (getattr(self, "_spin", -1) + 1) % 6     # the simulated disc stays level
            colour = ("red", "blue", "yellow", "purple", "green", "orange")[self._spin]
            self.call("/api/roll", {"colour": colour, "number": 2 + (self._spin // 2) % 2})
            return True
        if legal and all(la.get("chance") for la in legal):
            self.call("/api/roll", {})
            return True
        order = ["end_game", "accept_placement", "first_player", "confirm_fall", "give", "place", "take_dice"]
        choices = [la for la in legal if not la.get("chance")]
        choices.sort(key=lambda la: order.index(la["action"]["type"]) if la["action"]["type"] in order
                     else len(order))
        if not choices:
            return False
        action = dict(choices[0]["action"])
        if action["type"] == "place":
            sizes = [la["action"]["size"] for la in choices if la["action"]["type"] == "place"]
            action["size"] = sizes[0]
        self.call("/api/actions", action)
        return True

    def place_and_settle(self, size: str, zone: str, number: int, timeout: float = 15.0) -> dict:
        """Put a pawn on the simulated disc and wait until the sensors see it, still."""
        before = len((self.state().get("sensing") or {}).get("pawns") or [])
        self.call("/api/sim/place", {"size": size, "zone": zone, "number": number})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            sensing = self.state().get("sensing") or {}
            if len(sensing.get("pawns") or []) > before and sensing.get("still"):
                return sensing
            time.sleep(0.1)
        raise TimeoutError("the sensors did not see the pawn settle")

    def play_to_end(self, limit: int = 600) -> None:
        """Typed steps until the game is over."""
        for _ in range(limit):
            if not self.step():
                return


def login(page, table: Table) -> None:
    """Open the page and log in as the host."""
    page.goto(table.url)
    page.wait_for_selector("#conn.conn-on")
    page.fill("#pin", table.pin)
    page.click("#login button")
    page.wait_for_selector("body.is-host")


def measure(page) -> dict:
    """What overflows the width, and whether the page fits its height (scroll sizes)."""
    return page.evaluate(OVERFLOW_JS)


def shoot(out: Path) -> list[str]:
    """Every screen at every size into ``out``; returns one line per shot."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        table = Table(Path(tmp))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pages = {}
            for size, (w, h) in SIZES.items():
                page = browser.new_context(viewport={"width": w, "height": h}).new_page()
                login(page, table)
                pages[size] = page

            def snap(screen: str, prepare=None) -> None:
                for size, page in pages.items():
                    if prepare:
                        prepare(page)
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(out / f"{screen}-{size}.png"))
                    m = measure(page)
                    fits = m["scrollH"] <= m["h"] + 1
                    lines.append(f"{screen:>12} {size:>9}: {'fits' if fits else 'scrolls'}"
                                 f"{'' if not m['overflow'] else ' OVERFLOW ' + '; '.join(m['overflow'])}")
                    if page.locator("dialog[open]").count():
                        page.keyboard.press("Escape")

            snap("start", lambda pg: (pg.click("#new-game-btn"), pg.wait_for_selector("#setup[open]")))
            table.new_game(["Anna", "Ben", "Cleo"])
            snap("first-player")
            table.call("/api/actions", {"type": "first_player", "seat": 0})
            snap("roll")
            table.call("/api/roll", {"colour": "blue", "number": 2})
            snap("place")
            table.call("/api/actions", {"type": "place", "size": "large", "sensed": False})
            time.sleep(4.5)  # the sensors see an empty disc, the game one pawn: the card after 3 s
            snap("reconcile")
            st = table.state()
            for pr in st.get("pending") or []:
                table.call(f"/api/prompts/{pr['id']}", {"choice": "Ignore: the sensors are wrong"})
            table.call("/api/actions", {"type": "take_dice"})
            snap("next-roll")
            table.call("/api/roll", {"colour": "blue", "number": 3})
            table.call("/api/actions", {"type": "place", "size": "small", "sensed": False})
            table.call("/api/actions", {"type": "fall", "pawns": {"small": 1, "large": 1}, "tipped": True,
                                        "confident": False})

            def refuse(page) -> None:
                page.click(".fall-form .tap-row[data-size=small] button.tap-minus")
                page.click(".fall-form button.big")
                page.wait_for_selector(".refusal")
            snap("refused", refuse)
            table.call("/api/actions", {"type": "confirm_fall"})
            table.play_to_end()
            snap("end")
            sid = table.state().get("session_id")

            def history(page) -> None:
                page.goto(table.url.rstrip("/") + f"/sessions/{sid}")
            snap("history", history)
            for page in pages.values():
                page.goto(table.url)
                page.wait_for_selector("#conn.conn-on")
            table.call("/api/sim/clear", {})
            table.place_and_settle("large", "blue", 2)
            table.new_game(["Anna", "Ben", "Cleo"], anyway=False)
            snap("clear-disc")
            table.stop()
            snap("offline", lambda pg: pg.wait_for_selector("#offline:not(.hidden)", timeout=15000))
        finally:
            browser.close()
            if table.proc.poll() is None:
                table.stop()
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--out DIR`` (default docs/screens)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screens")
    args = ap.parse_args(argv)
    for line in shoot(args.out):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
