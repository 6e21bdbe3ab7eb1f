"""Scoring for the sensing benchmark: match sensed events to the simulator's ground truth.

Matching windows (times in ms, truth time -> accepted detection times):

- ``placed``: truth at the finger release ``t``; a detected ``placed`` in ``[t-250, t+2500]``,
  one-to-one, nearest in time first. Precision = matched / all detected ``placed``. Zone and
  number are scored for pawns not on a line, and not at all on 1-cell tables (mass only).
- ``tipped``: truth onset ``t``; a detected ``tipped`` in ``[t-200, t+1500]``; latency = detection - onset.
  For tips where pawns fell, also: was the tip detected before the first pawn hit the table
  (truth ``lands_t_ms`` of the first fall of that tip)?
- falls: one *episode* per truth ``tipped`` (its falls are the truth ``fell`` events after the onset
  and before the next tip, within 8 s) and one per lone slide-off ``fell``. The detected ``fell``
  events from the episode start (onset, or fall - 500) to 2500 ms after its last truth fall (and
  before the next episode) are summed by size and compared with the truth sums. Only episodes
  with at least one truth fall are scored. "Wrong but confident": the sums differ and no detected
  ``fell`` in the window carries ``"confident": false`` (a missed fall counts as confident).
  Calibration of ``confident`` (``fall_confident_precision``): of the confident reports, the share
  exactly right; a confident report is an episode with detected falls none of which says
  ``"confident": false``, or a ``fell`` outside every episode not marked unsure (always wrong).
- ``hand``: truth start ``s``, duration ``d``; a detected ``hand`` in ``[s, s+d+3000]``.
- ``removed``: truth ``t``; a detected ``removed`` in ``[t-250, t+2500]``.
- ``fault``: truth onset ``t`` on cell ``c``; a detected ``fault`` for cell ``c`` in ``[t, t+5000]``.
  ``false_faults`` counts detected ``fault`` events on a cell with no truth fault before them.
- bump-only traces: every detected event at or after ``quiet_from_ms`` is false.
- false events during play (game and fault traces, up to the first fault): detected ``placed``,
  ``removed``, ``tipped`` and ``hand`` events that matched no truth event in the windows above,
  and detected ``fell`` events outside every fall episode's window; per hour of that play.
- once a cell has failed (a truth ``fault``) the table cannot weigh reliably any more: events
  (truth and detected, except ``fault``) from the first fault onset on are left out of the other
  figures, except a detection that falls in the matching window of a truth event of its kind from
  before the onset (a placement made just before the fault and reported after it). On tables
  of 4 or more cells the failed cell is replaced by its estimate from the others, so placements
  from 5 s after the first fault (time to report it) to the trace's end are scored separately:
  ``after_fault_*`` (recall, precision, size, zone and number).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

SIZES = ("small", "medium", "large")


def _counts(pawns: Any) -> dict[str, int]:
    out = dict.fromkeys(SIZES, 0)
    if isinstance(pawns, dict):
        for size, n in pawns.items():
            out[size] = out.get(size, 0) + int(n)
    return out


def _add_counts(a: dict[str, int], b: dict[str, int]) -> None:
    for k, v in b.items():
        a[k] = a.get(k, 0) + v


def match_in_window(truth_times: list[int], det_times: list[int], before: int,
                    after: int) -> list[int | None]:
    """One-to-one matching: for each truth time (in order) the index of the nearest unused
    detection within ``[t - before, t + after]``, or None."""
    used = [False] * len(det_times)
    out: list[int | None] = []
    for t in truth_times:
        best, best_d = None, math.inf
        for i, d in enumerate(det_times):
            if used[i] or d < t - before or d > t + after:
                continue
            if abs(d - t) < best_d:
                best, best_d = i, abs(d - t)
        if best is not None:
            used[best] = True
        out.append(best)
    return out


@dataclass
class Tally:
    """Raw counts accumulated over traces; ``figures()`` turns them into the report."""

    placed_true: int = 0
    placed_det: int = 0
    placed_matched: int = 0
    size_ok: int = 0
    zone_eval: int = 0
    zone_ok: int = 0
    pos_err_mm: list[float] = field(default_factory=list)
    tips_true: int = 0
    tips_matched: int = 0
    tips_det: int = 0
    tip_latency_ms: list[int] = field(default_factory=list)
    tips_with_landing: int = 0
    tips_before_landing: int = 0
    fall_episodes: int = 0
    fall_exact: int = 0
    fall_wrong_confident: int = 0
    fall_flagged: int = 0
    fall_confident: int = 0  # confident reports: episodes whose detected falls are all confident, plus
    fall_confident_exact: int = 0  # ... confident ``fell`` events outside every episode (all wrong)
    hands_true: int = 0
    hands_matched: int = 0
    hands_det: int = 0
    removed_true: int = 0
    removed_matched: int = 0
    faults_true: int = 0
    faults_matched: int = 0
    fault_kind_ok: int = 0
    faults_false: int = 0
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    faults_missed_by_kind: dict[str, int] = field(default_factory=dict)
    after_fault_true: int = 0
    after_fault_det: int = 0
    after_fault_matched: int = 0
    after_fault_size_ok: int = 0
    after_fault_zone_eval: int = 0
    after_fault_zone_ok: int = 0
    quiet_ms: int = 0
    quiet_false: int = 0
    quiet_false_kinds: dict[str, int] = field(default_factory=dict)
    play_ms: int = 0
    play_false: int = 0
    play_false_kinds: dict[str, int] = field(default_factory=dict)
    trace_realtime: list[float] = field(default_factory=list)
    feed_us: list[float] = field(default_factory=list)
    trace_ms: int = 0
    cpu_s: float = 0.0
    parse_trace_ms: int = 0
    parse_cpu_s: float = 0.0

    def merge(self, other: Tally) -> None:
        """Add another tally's counts into this one."""
        for name in self.__dataclass_fields__:
            mine, theirs = getattr(self, name), getattr(other, name)
            if name == "feed_us":
                if theirs and (not mine or pct_of(theirs, 0.999) > pct_of(mine, 0.999)):
                    self.feed_us = list(theirs)   # the worst trace's distribution
            elif isinstance(mine, list):
                mine.extend(theirs)
            elif isinstance(mine, dict):
                _add_counts(mine, theirs)
            else:
                setattr(self, name, mine + theirs)

    def figures(self) -> dict[str, float | None]:
        """The benchmark figures (None where nothing was there to measure)."""
        def ratio(a: int, b: int) -> float | None:
            return a / b if b else None

        def pct(values: list, q: float) -> float | None:
            if not values:
                return None
            xs = sorted(values)
            return float(xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))])
        hours = self.quiet_ms / 3_600_000
        return {
            "placement_recall": ratio(self.placed_matched, self.placed_true),
            "placement_precision": ratio(self.placed_matched, self.placed_det),
            "size_accuracy": ratio(self.size_ok, self.placed_matched),
            "zone_number_accuracy": ratio(self.zone_ok, self.zone_eval),
            "position_error_p50_mm": pct(self.pos_err_mm, 0.5),
            "position_error_p95_mm": pct(self.pos_err_mm, 0.95),
            "tip_recall": ratio(self.tips_matched, self.tips_true),
            "tip_precision": ratio(self.tips_matched, self.tips_det),
            "tip_latency_p50_ms": pct(self.tip_latency_ms, 0.5),
            "tip_latency_p95_ms": pct(self.tip_latency_ms, 0.95),
            "tip_before_first_landing": ratio(self.tips_before_landing, self.tips_with_landing),
            "fall_counts_exact": ratio(self.fall_exact, self.fall_episodes),
            "fall_wrong_confident": ratio(self.fall_wrong_confident, self.fall_episodes),
            "fall_confident_precision": ratio(self.fall_confident_exact, self.fall_confident),
            "hand_recall": ratio(self.hands_matched, self.hands_true),
            "hand_precision": ratio(self.hands_matched, self.hands_det),
            "removed_recall": ratio(self.removed_matched, self.removed_true),
            "fault_recall_5s": ratio(self.faults_matched, self.faults_true),
            "fault_kind_accuracy": ratio(self.fault_kind_ok, self.faults_matched),
            "false_faults": float(self.faults_false),
            "after_fault_placement_recall": ratio(self.after_fault_matched, self.after_fault_true),
            "after_fault_placement_precision": ratio(self.after_fault_matched, self.after_fault_det),
            "after_fault_size_accuracy": ratio(self.after_fault_size_ok, self.after_fault_matched),
            "after_fault_zone_number_accuracy": ratio(self.after_fault_zone_ok, self.after_fault_zone_eval),
            "false_events_per_hour": (self.quiet_false / hours) if hours else None,
            "false_events_per_hour_play": (self.play_false / (self.play_ms / 3_600_000)
                                           if self.play_ms else None),
            "slowest_trace_realtime_factor": min(self.trace_realtime) if self.trace_realtime else None,
            "feed_p999_ms": pct(self.feed_us, 0.999) / 1000 if self.feed_us else None,
            "feed_max_ms": max(self.feed_us) / 1000 if self.feed_us else None,  # the slowest call of all
            "realtime_factor": (self.trace_ms / 1000 / self.cpu_s) if self.cpu_s > 0 else None,
            "parse_only_realtime_factor": (self.parse_trace_ms / 1000 / self.parse_cpu_s
                                           if self.parse_cpu_s > 0 else None),
        }


def pct_of(values: list, q: float) -> float:
    """The ``q`` quantile (nearest rank) of a non-empty list."""
    xs = sorted(values)
    return float(xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))])


def _false(tally: Tally, kind: str, n: int) -> None:
    if n > 0:
        tally.play_false += n
        tally.play_false_kinds[kind] = tally.play_false_kinds.get(kind, 0) + n


def _of(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e.get("event") == name]


def _fall_episodes(truth: list[dict]) -> list[tuple[int, int, dict[str, int]]]:
    """(start, end, counts) per fall episode: each tip with its falls, each lone slide-off."""
    tips = sorted(e["t_ms"] for e in _of(truth, "tipped"))
    episodes: list[list[Any]] = [[t, t, dict.fromkeys(SIZES, 0), 0] for t in tips]
    for fell in sorted(_of(truth, "fell"), key=lambda e: e["t_ms"]):
        t = fell["t_ms"]
        owner = None
        for ep in episodes[: len(tips)]:
            if ep[0] <= t <= ep[0] + 8000:
                owner = ep  # the latest tip before it wins
        if owner is None:
            episodes.append([t - 500, t, dict.fromkeys(SIZES, 0), 0])
            owner = episodes[-1]
        _add_counts(owner[2], _counts(fell.get("pawns")))
        owner[1] = max(owner[1], t)
        owner[3] += 1
    return sorted((s, e, c) for s, e, c, n in episodes if n > 0)


def _late_for(event: dict, truth: list[dict]) -> bool:
    """A detection after the first fault's onset that falls in the matching window of a truth
    event of its kind from before the onset (a placement just before the fault, reported after)."""
    kind, t = event.get("event"), event.get("t_ms", -1)
    for e in truth:
        if e.get("event") != kind:
            continue
        s = e["t_ms"]
        if kind in ("placed", "removed") and s - 250 <= t <= s + 2500:
            return True
        if kind == "tipped" and s - 200 <= t <= s + 1500:
            return True
        if kind == "hand" and s <= t <= s + int(e.get("duration_ms", 0)) + 3000:
            return True
        if kind == "fell" and s - 500 <= t <= s + 2500:
            return True
    return False


def _score_after_fault(tally: Tally, truth: list[dict], events: list[dict], start: int) -> None:
    """Placements from ``start`` on (a cell has failed and been reported by then)."""
    tp = [e for e in _of(truth, "placed") if e["t_ms"] >= start]
    dp = [e for e in _of(events, "placed") if e["t_ms"] >= start]
    tally.after_fault_true += len(tp)
    tally.after_fault_det += len(dp)
    matches = match_in_window([e["t_ms"] for e in tp], [e["t_ms"] for e in dp], 250, 2500)
    for t_ev, idx in zip(tp, matches, strict=True):
        if idx is None:
            continue
        d = dp[idx]
        tally.after_fault_matched += 1
        tally.after_fault_size_ok += d.get("size") == t_ev["size"]
        if not t_ev.get("on_line") and t_ev.get("zone") is not None:
            tally.after_fault_zone_eval += 1
            tally.after_fault_zone_ok += (d.get("zone"), d.get("number")) == (t_ev["zone"], t_ev["number"])


def score_trace(truth: list[dict], events: list[dict]) -> Tally:
    """Score one trace's detected ``events`` against its ``truth`` records."""
    tally = Tally()
    meta = next((e for e in truth if e.get("event") == "scenario"), {})
    truth = [e for e in truth if e.get("event") != "scenario"]
    if meta.get("kind") == "bump_only":
        quiet_from = int(meta.get("quiet_from_ms", 0))
        tally.quiet_ms = max(0, int(meta.get("duration_ms", 0)) - quiet_from)
        for e in events:
            if e.get("t_ms", -1) >= quiet_from:
                tally.quiet_false += 1
                kind = str(e.get("event"))
                tally.quiet_false_kinds[kind] = tally.quiet_false_kinds.get(kind, 0) + 1
        events = [e for e in events if e.get("t_ms", -1) < quiet_from]
        truth = [e for e in truth if e["t_ms"] < quiet_from]
    faults_true = _of(truth, "fault")
    if faults_true:
        cut = min(e["t_ms"] for e in faults_true)
        if int(meta.get("cells", 0)) >= 4:
            _score_after_fault(tally, truth, events, cut + 5000)
        truth = [e for e in truth if e["event"] == "fault" or e["t_ms"] < cut]
        events = [e for e in events if e.get("event") == "fault" or e.get("t_ms", -1) < cut
                  or _late_for(e, truth)]
    positional = meta.get("cells") != 1  # one cell weighs but cannot locate
    in_play = meta.get("kind") in ("game", "faults")
    if in_play:
        end = int(meta.get("duration_ms", 0))
        if faults_true:
            end = min(end, min(e["t_ms"] for e in faults_true))
        tally.play_ms = max(0, end)
    # placements
    tp, dp = _of(truth, "placed"), _of(events, "placed")
    tally.placed_true, tally.placed_det = len(tp), len(dp)
    placed_matches = match_in_window([e["t_ms"] for e in tp], [e["t_ms"] for e in dp], 250, 2500)
    if in_play:
        _false(tally, "placed", len(dp) - sum(i is not None for i in placed_matches))
    for t_ev, idx in zip(tp, placed_matches, strict=True):
        if idx is None:
            continue
        d = dp[idx]
        tally.placed_matched += 1
        tally.size_ok += d.get("size") == t_ev["size"]
        if d.get("x_mm") is not None and d.get("y_mm") is not None:
            tally.pos_err_mm.append(math.hypot(d["x_mm"] - t_ev["x_mm"], d["y_mm"] - t_ev["y_mm"]))
        if positional and not t_ev.get("on_line") and t_ev.get("zone") is not None:
            tally.zone_eval += 1
            tally.zone_ok += (d.get("zone"), d.get("number")) == (t_ev["zone"], t_ev["number"])
    # tips
    tt, dt = _of(truth, "tipped"), _of(events, "tipped")
    tally.tips_true, tally.tips_det = len(tt), len(dt)
    tip_times = sorted(e["t_ms"] for e in tt)
    tip_matches = match_in_window([e["t_ms"] for e in tt], [e["t_ms"] for e in dt], 200, 1500)
    if in_play:
        _false(tally, "tipped", len(dt) - sum(i is not None for i in tip_matches))
    for t_ev, idx in zip(tt, tip_matches, strict=True):
        if idx is not None:
            tally.tips_matched += 1
            tally.tip_latency_ms.append(dt[idx]["t_ms"] - t_ev["t_ms"])
        nxt = min((t for t in tip_times if t > t_ev["t_ms"]), default=t_ev["t_ms"] + 8000)
        lands = [e["lands_t_ms"] for e in _of(truth, "fell")
                 if "lands_t_ms" in e and t_ev["t_ms"] <= e["t_ms"] < min(nxt, t_ev["t_ms"] + 8000)]
        if lands:
            tally.tips_with_landing += 1
            tally.tips_before_landing += idx is not None and dt[idx]["t_ms"] < min(lands)
    # falls
    episodes = _fall_episodes(truth)
    det_falls = sorted(_of(events, "fell"), key=lambda e: e["t_ms"])
    explained: set[int] = set()
    for i, (start, end, counts) in enumerate(episodes):
        stop = end + 2500
        if i + 1 < len(episodes):
            stop = min(stop, episodes[i + 1][0] - 1)
        window = [e for e in det_falls if start <= e["t_ms"] <= stop]
        explained.update(id(e) for e in window)
        got = dict.fromkeys(SIZES, 0)
        for e in window:
            _add_counts(got, _counts(e.get("pawns")))
        tally.fall_episodes += 1
        flagged = any(e.get("confident") is False for e in window)
        tally.fall_flagged += flagged
        if got == counts:
            tally.fall_exact += 1
        elif not flagged:
            tally.fall_wrong_confident += 1
        if window and not flagged:
            tally.fall_confident += 1
            tally.fall_confident_exact += got == counts
    if in_play:
        stray = [e for e in det_falls if id(e) not in explained]
        _false(tally, "fell", len(stray))
        tally.fall_confident += sum(1 for e in stray if e.get("confident") is not False)
    # hands
    th, dh = _of(truth, "hand"), _of(events, "hand")
    tally.hands_true, tally.hands_det = len(th), len(dh)
    used: set[int] = set()
    for t_ev in th:
        lo, hi = t_ev["t_ms"], t_ev["t_ms"] + t_ev.get("duration_ms", 0) + 3000
        for i, d in enumerate(dh):
            if i not in used and lo <= d["t_ms"] <= hi:
                used.add(i)
                tally.hands_matched += 1
                break
    if in_play:
        _false(tally, "hand", len(dh) - len(used))
    # removals
    tr, dr = _of(truth, "removed"), _of(events, "removed")
    tally.removed_true = len(tr)
    tally.removed_matched = sum(
        i is not None for i in match_in_window([e["t_ms"] for e in tr], [e["t_ms"] for e in dr], 250, 2500))
    if in_play:
        _false(tally, "removed", len(dr) - tally.removed_matched)
    # faults
    for t_ev in _of(truth, "fault"):
        tally.faults_true += 1
        hits = [d for d in _of(events, "fault")
                if d.get("cell") == t_ev["cell"] and t_ev["t_ms"] <= d["t_ms"] <= t_ev["t_ms"] + 5000]
        kind = str(t_ev["kind"])
        tally.faults_by_kind[kind] = tally.faults_by_kind.get(kind, 0) + 1
        if hits:
            tally.faults_matched += 1
            tally.fault_kind_ok += any(d.get("kind") == t_ev["kind"] for d in hits)
        else:
            tally.faults_missed_by_kind[kind] = tally.faults_missed_by_kind.get(kind, 0) + 1
    # a fault reported on a cell that had not failed (a hand's tremor over one cell, say) stops
    # the table weighing for seconds
    failed = [(e["cell"], e["t_ms"]) for e in _of(truth, "fault")]
    tally.faults_false += sum(1 for d in _of(events, "fault")
                              if not any(c == d.get("cell") and t <= d["t_ms"] for c, t in failed))
    return tally
