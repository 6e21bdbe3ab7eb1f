/* The page's big cards: the table's questions (the disc and the game disagree, clear the disc, ...),
   the way out of a refused answer, and the end of a game (podium, rematch, BG Stats, the saved game).
   app.js calls DingoCards.* with env = { h, btn, act, api, host, name, seatDot, openSetup }. */
"use strict";

window.DingoCards = (function () {
  /* seat colours that no zone has (zones: red, yellow, green, blue, purple, orange), each with a mark */
  const SEATS = [
    { colour: "#212529", mark: "●" }, { colour: "#8b5a2b", mark: "■" }, { colour: "#d6336c", mark: "▲" },
    { colour: "#6c757d", mark: "◆" }, { colour: "#0c8599", mark: "★" }, { colour: "#e9ecef", mark: "✚", dark: true },
  ];
  const seat = (n) => SEATS[((n % SEATS.length) + SEATS.length) % SEATS.length];
  const BIG_KINDS = ["reconcile", "clear_disc", "resume", "tip_no_fall"];
  const $ = (id) => document.getElementById(id);
  const C = { refusal: null, counts: {} };   // counts: what the host tapped so far, by prompt id

  /* ---------- the table's open questions: one card at a time, the most urgent first ---------- */
  function renderPending(msg, state, env) {
    const box = $("pending");
    box.replaceChildren();
    const pending = [...(msg.pending || [])].sort((a, b) =>
      (BIG_KINDS.includes(b.kind) ? 1 : 0) - (BIG_KINDS.includes(a.kind) ? 1 : 0));
    if (C.refusal && C.refusal.version !== msg.version) C.refusal = null;  // the game moved on
    if (C.refusal) box.append(refusalCard(env));
    for (const id of Object.keys(C.counts)) if (!pending.some((p) => p.id === id)) delete C.counts[id];
    pending.forEach((p, i) => {
      const big = i === 0 && !C.refusal;
      const answer = (c) => env.api(`/api/prompts/${encodeURIComponent(p.id)}`,
        p.counts && c === p.counts.choice ? { choice: c, pawns: C.counts[p.id] || {} } : { choice: c });
      box.append(env.h("div", { class: "prompt-card" + (big ? " card-big" : " card-small"), "data-kind": p.kind,
        role: big ? "alertdialog" : null },
        env.h("div", { class: "card-title" }, p.title), env.h("div", { class: "card-text" }, p.text),
        env.host && p.counts ? countRows(p, state, env) : null,
        env.host ? env.h("div", { class: "card-choices" }, p.choices.map((c, k) =>
          env.btn(c, () => answer(c), k === 0 && big && p.kind !== "clear_disc" ? "big" : "alt")))
          : env.h("div", { class: "hint" }, "The host answers on the tablet.")));
    });
    for (const f of state.flags || []) {
      box.append(env.h("div", { class: "prompt-card flag" }, env.h("b", {}, f.kind === "hand" ? "Hand on the disc! " : "Check: "),
        `${env.name(state, f.player)}: ${f.reason}`,
        env.host && f.kind !== "placement" ? env.btn("Dismiss", () => env.act({ type: "dismiss_flag", id: f.id }), "small-btn") : null));
    }
    document.body.classList.toggle("has-card", !!(C.refusal || pending.length));
  }

  /* ---------- a question answered with pawn counts: big − / + buttons per size (nobody types) ---------- */
  function countRows(p, state, env) {
    const counts = C.counts[p.id] = C.counts[p.id] || {};
    return DingoCounts.rows(env, counts, (s) => ((state.disc || p.counts.max || {})[s] || 0));
  }

  /* ---------- a refused answer: why, in plain words, and the legal answers closest to it ---------- */
  function refused(data, action, version) {
    C.refusal = { version, why: plain((data && (data.reason || data.error)) || "the rules refuse it"), action,
      alternatives: (data && data.alternatives) || [] };
  }
  function plain(reason) {
    return String(reason).replace(/\(rule: [^)]*\)/g, "").replace(/pawn\(s\)/g, "pawns")
      .replace(/^[a-z_]+: /, "").trim();
  }
  function refusalCard(env) {
    const r = C.refusal;
    const close = () => { C.refusal = null; env.rerender(); };
    const alts = r.alternatives.map((a, i) => env.btn(a.label, async () => {
      const d = await env.act(a.action);
      if (d) close();
    }, i === 0 ? "big" : "alt"));
    return env.h("div", { class: "prompt-card card-big refusal", "data-kind": "refused", role: "alertdialog" },
      env.h("div", { class: "card-title" }, "That cannot be"),
      env.h("div", { class: "card-text" }, `The game says: ${r.why}.`),
      alts.length ? env.h("div", { class: "card-text" }, "Did you mean:") : null,
      env.h("div", { class: "card-choices" }, alts, env.btn("Back", close, "alt")));
  }

  /* ---------- the end of a game ---------- */
  function duration(s) {
    if (typeof s !== "number" || !(s >= 0)) return null;
    const m = Math.round(s / 60);
    return m < 1 ? "under a minute" : m === 1 ? "1 minute" : m < 60 ? `${m} minutes`
      : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
  }
  function renderEnd(msg, state, env) {
    const sum = msg.summary || {};
    const players = [...(state.players || [])];
    players.sort((a, b) => (a.rank || 99) - (b.rank || 99) || a.seat - b.seat);
    const medals = ["1st", "2nd", "3rd"];
    const podium = env.h("ol", { class: "podium" }, players.map((p) => {
      const tips = (sum.tips || [])[p.seat], pen = (sum.penalties || [])[p.seat];
      return env.h("li", { class: "podium-" + (p.rank || "x") },
        env.h("span", { class: "podium-rank" }, p.rank ? (medals[p.rank - 1] || `#${p.rank}`) : "–"),
        env.seatDot(state, p.seat), env.h("span", { class: "podium-name" }, p.name),
        env.h("span", { class: "podium-facts" }, [tips != null ? `${tips} tip${tips === 1 ? "" : "s"}` : null,
          pen ? `${pen} penalt${pen === 1 ? "y" : "ies"}` : null].filter(Boolean).join(", ")));
    }));
    const facts = [];
    const len = duration(sum.started_at && sum.ended_at ? sum.ended_at - sum.started_at : null);
    if (len) facts.push(`The game lasted ${len}.`);
    const tips = sum.tips || [];
    const most = Math.max(0, ...tips);
    if (most > 0) {
      const who = tips.map((t, s) => (t === most ? env.name(state, s) : null)).filter(Boolean);
      facts.push(`Most tips: ${who.join(" and ")} (${most}).`);
    } else if (tips.length) facts.push("Nobody tipped the disc!");
    const box = env.h("div", { class: "end" }, podium, env.h("div", { class: "end-facts" }, facts.join(" ")));
    const row = env.h("div", { class: "row end-actions" });
    if (env.host) {
      row.append(env.btn("Rematch", () => rematch(state, env), "big"),
        env.btn("New game", env.openSetup, "alt"));
    }
    if (msg.session_id != null) {
      row.append(env.h("a", { class: "link-btn", id: "bgstats-link", href: `/sessions/${msg.session_id}/bgstats`,
        target: "_blank", rel: "noopener" }, "Send to BG Stats"),
      env.h("a", { class: "link-btn", id: "saved-link", href: `/sessions/${msg.session_id}` }, "The saved game"));
    }
    box.append(row);
    if (env.host) {
      box.append(env.h("div", { class: "hint" }, msg.can_undo
        ? "Ended by mistake? UNDO takes the last action back."
        : "This game is saved as finished in the history: it can no longer be undone."));
    }
    return box;
  }
  function rematch(state, env) {
    const players = [...(state.players || [])].sort((a, b) => a.seat - b.seat).map((p) => p.name);
    const options = {};
    for (const k of ["draw_window", "last_pawn_gift", "tip_attempt"]) {
      if (state.options && state.options[k] != null) options[k] = state.options[k];
    }
    env.api("/api/game", { game: state.game || "dingo-disc", version: state.version || 1, players, options });
  }

  /* ---------- remembered names for the start screen (kept on the Pi, in the session log) ---------- */
  async function recentPlayers() {
    try {
      const r = await fetch("/api/recent-players", { credentials: "same-origin" });
      return r.ok ? await r.json() : { names: [], last: [] };
    } catch (e) { return { names: [], last: [] }; }
  }

  return { SEATS, seat, renderPending, refused, renderEnd, recentPlayers, clearRefusal: () => { C.refusal = null; } };
})();
