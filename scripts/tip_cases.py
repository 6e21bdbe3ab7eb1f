"""List false tips, missed tips and late tips (> 300 ms) of dumped traces with the truth around
them, and classify them by cause (issue 14; /work/notes/tips.md has the counts of the tuned dumps).

usage: PYTHONPATH=. python scripts/tip_cases.py DIR [DIR...] [--cfg 80Hz-4cells] [--families a,b]
       [--replay] [-v]
DIR: a dump dir (DIR/<family>-<cfg>/<kind>-<seed>/{truth,events}.jsonl). --replay re-runs the
working tree's pipeline (instead of reading events.jsonl) to learn which test fired each tip.
"""
from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from companion.bench.sensing_score import match_in_window


def load(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


def replay(entry: Path) -> tuple[list[dict], dict[int, str]]:
    from companion.sensing import tips as tipsmod
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.trace import read_trace
    fired: dict[int, str] = {}
    orig = tipsmod.TipTests.decide

    def decide(self, sig, tipped, pv):
        r = orig(self, sig, tipped, pv)
        if r:
            fired[sig.t] = self.fired_by
        return r
    tipsmod.TipTests.decide = decide
    try:
        hdr, rows = read_trace(entry / "table.trace.csv")
        pipe = Pipeline(hdr)
        ev: list[dict] = []
        for s in rows:
            ev.extend(pipe.feed(s))
        ev.extend(pipe.finish())
    finally:
        tipsmod.TipTests.decide = orig
    return ev, fired


def near(truth: list[dict], kind: str, t: int, lo: int, hi: int) -> list[dict]:
    return [e for e in truth if e["event"] == kind and t + lo <= e["t_ms"] <= t + hi]


def ctx(truth: list[dict], t: int, lo: int = -3000, hi: int = 2000) -> str:
    out = []
    for e in truth:
        if e["event"] in ("scenario",) or not t + lo <= e["t_ms"] <= t + hi:
            continue
        d = e["t_ms"] - t
        extra = {k: v for k, v in e.items() if k in ("cause", "max_deg", "size", "kind", "duration_ms",
                                                        "amplitude_g", "by", "rim", "pinch_ms")}
        out.append(f"{e['event']}@{d:+d}{extra if extra else ''}")
    return " ".join(out)


def classify_false(truth, t, tips_true):
    # a true tip (missed) whose detection came after the window
    for tt in tips_true:
        later = tt["t_ms"] + 1500 < t <= tt["t_ms"] + 10000
        if later and not near(truth, "placed", t, tt["t_ms"] - t + 300, 0):
            return "late read of a true tip (>1.5 s)"
    hands = [h for h in truth if h["event"] == "hand"
             and h["t_ms"] - 500 <= t <= h["t_ms"] + h.get("duration_ms", 0) + 1000]
    if hands:
        return f"hand ({hands[0].get('kind')})"
    pl = near(truth, "placed", t, -2500, 300)
    wob = near(truth, "wobble", t, -2500, 300)
    if pl and wob:
        return "wobble after a placement"
    if pl:
        return "placement, no wobble in truth"
    if near(truth, "removed", t, -2500, 300):
        return "removal (pinch)"
    if near(truth, "bump", t, -800, 200):
        return "bump"
    if near(truth, "moved", t, -2500, 300):
        return "pawn moved"
    if near(truth, "fell", t, -3000, 300):
        return "slide-off / fall"
    return "other"


def bump_only_false(name, meta, truth, ev, fired, counts, verbose):
    """A bump-only trace (a table knocked, nobody playing): every event from quiet_from_ms is false;
    print each with the bumps around it (amplitude, time from the bump to the event)."""
    q = meta.get("quiet_from_ms", 0)
    for x in ev:
        if x.get("event") in (None, "scenario") or x["t_ms"] < q:
            continue
        counts[f"false {x['event']}"] += 1
        if x["event"] != "tipped":
            continue
        by = "explain(late)" if x.get("late") else fired.get(x["t_ms"], "?")
        counts[f"false tipped by {by}"] += 1
        bumps = [f"{b['t_ms'] - x['t_ms']:+d}:{b.get('amplitude_g')}g" for b in truth
                 if b["event"] == "bump" and -3000 <= b["t_ms"] - x["t_ms"] <= 500]
        print(f"FALSE {name} t={x['t_ms']} by={by} bumps={' '.join(bumps) or 'none'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--cfg")
    ap.add_argument("--families")
    ap.add_argument("--replay", action="store_true")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--bumps", action="store_true",
                    help="bump_only traces instead: every event at or after quiet_from_ms is false")
    a = ap.parse_args()
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for d in a.dirs:
        for cdir in sorted(Path(d).iterdir()):
            if not cdir.is_dir():
                continue
            fam = cdir.name.split("-80Hz")[0].split("-10Hz")[0]
            cfg = cdir.name[len(fam) + 1:]
            if a.cfg and cfg != a.cfg or a.families and fam not in a.families.split(","):
                continue
            for e in sorted(cdir.iterdir()):
                if not (e / "truth.jsonl").is_file():
                    continue
                truth = load(e / "truth.jsonl")
                meta = truth[0]
                if meta.get("kind") not in ("game", "faults", "bump_only"):
                    continue
                if a.bumps != (meta.get("kind") == "bump_only"):
                    continue
                truth = truth[1:]
                fired: dict[int, str] = {}
                if a.replay:
                    ev, fired = replay(e)
                else:
                    ev = load(e / "events.jsonl")
                if a.bumps:
                    bump_only_false(f"{cdir.name}/{e.name}", meta, truth, ev, fired, counts[cfg], a.v)
                    continue
                faults = [x["t_ms"] for x in truth if x["event"] == "fault"]
                cut = min(faults) if faults else 10**12
                truth = [x for x in truth if x["t_ms"] < cut]
                ev = [x for x in ev if x.get("t_ms", -1) < cut]
                tt = [x for x in truth if x["event"] == "tipped"]
                dt = [x for x in ev if x["event"] == "tipped"]
                m = match_in_window([x["t_ms"] for x in tt], [x["t_ms"] for x in dt], 200, 1500)
                used = {i for i in m if i is not None}
                name = f"{cdir.name}/{e.name}"

                def how(x, fired=fired):
                    if x.get("late"):
                        return "explain(late)"
                    return fired.get(x["t_ms"], "lying-tilted/other" if a.replay else "?")
                for tv, i in zip(tt, m, strict=True):
                    pl = near(truth, "placed", tv["t_ms"], -1500, 1500)
                    rel = f"release{pl[0]['t_ms'] - tv['t_ms']:+d}" if pl else "no placement"
                    cause = tv.get("cause")
                    if i is None:
                        later = [x["t_ms"] - tv["t_ms"] for x in dt if x["t_ms"] > tv["t_ms"] + 1500]
                        lat = later[0] if later else None
                        prev = [x["t_ms"] for x in tt if 0 < tv["t_ms"] - x["t_ms"] < 6000]
                        hands = [h for h in truth
                                 if h["event"] == "hand" and abs(h["t_ms"] - tv["t_ms"]) < 3000]
                        if prev:
                            k = "missed: within 6 s of an earlier tip"
                        elif lat is not None and lat < 10000:
                            k = "missed: read too late (>1.5 s)"
                        elif hands:
                            k = "missed: hand near"
                        else:
                            k = "missed: never read"
                        counts[cfg][k] += 1
                        print(f"MISSED {name} onset={tv['t_ms']} cause={cause} deg={tv.get('max_deg')} {rel} "
                              f"next_det={lat} [{k}]")
                        if a.v:
                            print("   ", ctx(truth, tv["t_ms"]))
                    else:
                        lat = dt[i]["t_ms"] - tv["t_ms"]
                        if lat > 300:
                            k = f"late >300: {how(dt[i])}"
                            counts[cfg][k] += 1
                            print(f"LATE {name} onset={tv['t_ms']} lat={lat} cause={cause} "
                                  f"deg={tv.get('max_deg')} {rel} by={how(dt[i])}")
                            if a.v:
                                print("   ", ctx(truth, tv["t_ms"]))
                        counts[cfg]["ok tips" if lat <= 300 else "late tips"] += 1
                for i, x in enumerate(dt):
                    if i in used:
                        continue
                    k = classify_false(truth, x["t_ms"], tt)
                    counts[cfg][f"false: {k}"] += 1
                    counts[cfg][f"false by {how(x)}"] += 1
                    print(f"FALSE {name} t={x['t_ms']} [{k}] by={how(x)}")
                    if a.v:
                        print("   ", ctx(truth, x["t_ms"]))
    for cfg, c in sorted(counts.items()):
        print(f"== {cfg}")
        for k, v in sorted(c.items()):
            print(f"  {v:4d}  {k}")


if __name__ == "__main__":
    main()
