/* The tablet page: live state from the event stream, host controls through the JSON API. */
"use strict";

(function () {
  const SIZES = ["small", "medium", "large"];
  const $ = (id) => document.getElementById(id);
  const S = { msg: null, host: false, csrf: null, simSize: "medium", es: null, retry: 1000 };

  function h(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "onclick") node.addEventListener("click", v);
      else if (k === "class") node.className = v;
      else if (k === "style") Object.assign(node.style, v);
      else if (v != null) node.setAttribute(k, v);
    }
    for (const kid of kids.flat()) if (kid != null) node.append(kid);
    return node;
  }

  function toast(text, bad) {
    const t = $("toast");
    t.textContent = text;
    t.className = "toast" + (bad ? " bad" : "");
    clearTimeout(S.toastTimer);
    S.toastTimer = setTimeout(() => t.classList.add("hidden"), bad ? 6000 : 2500);
  }

  async function api(path, body) {
    const headers = { "Content-Type": "application/json" };
    if (S.csrf) headers["X-CSRF-Token"] = S.csrf;
    let resp;
    try {
      resp = await fetch(path, { method: "POST", headers, body: JSON.stringify(body || {}),
        credentials: "same-origin" });
    } catch (e) { setConn(false); toast("The companion does not answer: " + e.message, true); return null; }
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok && resp.status === 409 && path === "/api/actions") {   // a wrong answer: a way out
      DingoCards.refused(data, body, S.msg ? S.msg.version : null);
      rerender();
      return null;
    }
    if (!resp.ok) {
      toast((data && data.error) || `error ${resp.status}`, true);
      if (resp.status === 401) setHost(false, null);
      return null;
    }
    if (data && data.version !== undefined && data.state) { DingoCards.clearRefusal(); render(data); }
    return data;
  }
  const rerender = () => { if (S.msg) render(S.msg, true); };
  const act = (action) => api("/api/actions", action);

  function setHost(host, csrf) {
    S.host = host; S.csrf = csrf;
    document.body.classList.toggle("is-host", host);
    $("who").textContent = host ? "host" : "watching";
    $("login").classList.toggle("hidden", host);
    $("logout").classList.toggle("hidden", !host);
    if (S.msg) render(S.msg);
  }

  /* ---------- the event stream: snapshot on connect, then changes; reconnects by itself ---------- */
  function connect() {
    if (S.es) S.es.close();
    const es = new EventSource("/api/events");
    S.es = es;
    const onMsg = (fresh) => (ev) => { S.retry = 1000; setConn(true); render(JSON.parse(ev.data), fresh); };
    es.addEventListener("snapshot", onMsg(true));
    es.addEventListener("change", onMsg(false));
    es.addEventListener("live", (ev) => live(JSON.parse(ev.data)));
    es.addEventListener("open", () => setConn(true));
    es.addEventListener("error", () => {
      setConn(false);
      if (es.readyState === EventSource.CLOSED) {     // the browser gave up: we retry ourselves
        setTimeout(() => { refreshWho(); connect(); }, S.retry);
        S.retry = Math.min(S.retry * 2, 10000);
      }
    });
  }
  function setConn(on) {
    const c = $("conn");
    c.textContent = on ? "live" : "reconnecting…";
    c.className = "conn " + (on ? "conn-on" : "conn-off");
    // unreachable: say so plainly over the controls and disable them; it comes back by itself
    clearTimeout(S.offTimer);
    if (on) { showOffline(false); return; }
    S.offTimer = setTimeout(() => showOffline(true), 1500);   // a blink of the stream is not an outage
  }
  function showOffline(off) {
    document.body.classList.toggle("offline", off);
    $("offline").classList.toggle("hidden", !off);
    document.querySelector("main").inert = off;
    $("banner").inert = off;
  }
  async function refreshWho() {
    try {
      const r = await fetch("/api/whoami", { credentials: "same-origin" });
      const d = await r.json();
      setHost(!!d.host, d.csrf_token);
    } catch (e) { /* offline: the stream's retry will call us again */ }
  }

  /* ---------- rendering ---------- */
  function playerColour(state, seat) {
    const p = (state.players || [])[seat];
    if (p && p.colour) return DingoDisc.colourOf(p.colour);   // version 2: the player's own zone colour
    return DingoCards.seat(seat).colour;
  }
  function seatDot(state, seat) {
    const light = playerColour(state, seat) === DingoCards.SEATS[5].colour;
    return h("span", { class: "dot" + (light ? " dot-light" : ""), style: { background: playerColour(state, seat) },
      "aria-hidden": "true" }, DingoCards.seat(seat).mark);
  }
  const env = () => ({ h, btn, act, api, host: S.host, name, seatDot, openSetup, rerender });
  function name(state, seat) {
    const p = (state.players || [])[seat];
    return p ? p.name : "—";
  }

  const isDisc = (state) => !state.game || state.game === "dingo-disc";

  function render(msg, fresh) {
    // the stream's snapshot always wins (after a restart versions start again); otherwise never go back
    if (!fresh && S.msg && msg.version < S.msg.version) return;
    S.msg = msg;
    document.body.dataset.version = String(msg.version);   // which change the page shows (tests wait on it)
    const state = msg.state || {};
    const disc = isDisc(state);
    document.body.classList.toggle("is-sim", msg.mode === "sim");
    document.body.classList.toggle("game-disc", disc);
    document.body.classList.toggle("game-generic", !disc);
    if (disc) renderDiscGame(msg, state);
    else DingoGames.render(msg, { h, btn, act, api, toast, host: S.host, canUndo: msg.can_undo, openSetup });
    DingoCards.renderPending(msg, state, env());
    renderFeed(msg.feed || []);
    renderStatus(msg.status || {});
    const undo = document.querySelector(".panel-buttons [data-button=undo]");
    undo.disabled = msg.can_undo === false;
    undo.title = msg.can_undo === false && state.phase === "over"
      ? "the finished game is saved in the history: it can no longer be undone" : "";
  }

  /* ---------- the Dingo Disc's section: banner, dice, actions, players, the disc ---------- */
  function renderDiscGame(msg, state) {
    const exp = state.expected || {};
    renderBanner(state, exp);
    renderDice(state, exp);
    renderActions(state, exp);
    renderPlayers(state, exp);
    DingoDisc.draw($("disc"), msg.layout, state, msg.sensing, pick);
    live(msg);
  }

  function live(msg) {
    if (S.msg && !isDisc(S.msg.state || {})) return;
    const s = msg.sensing || {};
    if (typeof s.tilt === "number") {
      const f = $("tilt-fill");
      f.style.height = Math.round(s.tilt * 100) + "%";
      f.className = "tilt-fill" + (s.tilt > 0.6 ? " high" : s.tilt > 0.25 ? " mid" : "");
    }
    $("still").textContent = s.still === false ? "moving" : "still";
    $("still").className = "still" + (s.still === false ? " moving" : "");
    DingoDisc.live($("disc"), s);
  }

  function renderBanner(state, exp) {
    const banner = $("banner");
    let text, colour = "#444", seat = null;
    if (exp.kind === "none" || state.phase === "over") {
      text = state.draw ? "DRAW — match nul!" : `${name(state, state.winner)} wins!`;
      colour = state.draw ? "#444" : playerColour(state, state.winner);
    } else if (exp.kind === "new_game") {
      text = "Dingo Disc";
    } else if (exp.player !== null && exp.player !== undefined) {
      text = `${name(state, exp.player)}${exp.kind === "give" ? " gives" : "'s turn"}`;
      colour = playerColour(state, exp.player);
      seat = exp.player;
    } else {
      text = "Dingo Disc";
    }
    $("turn").textContent = text;
    $("turn-mark").replaceChildren(seat != null ? seatDot(state, seat) : "");
    $("prompt").textContent = exp.prompt || "";
    banner.style.background = colour;
    banner.classList.toggle("dark-text", colour === DingoDisc.COLOURS.yellow || colour === DingoCards.SEATS[5].colour);
  }

  function die(cls, ...kids) { return h("div", { class: "die " + cls }, ...kids); }

  function renderDice(state, exp) {
    const box = $("dice");
    box.replaceChildren();
    box.classList.remove("dice-old");
    const d = state.dice;
    // the dice on screen belong to the current turn: a roll step shows the last player's dice greyed
    // (while the fall window is open), then none once the next player takes the dice
    const rolling = exp.kind === "roll" || exp.kind === "roll_colour";
    const fw = state.fall_window;
    const old = rolling && d && fw && !exp.dice_taken;
    if (!d || (d.number == null && d.colour == null) || (rolling && !old) || exp.kind === "none") {
      box.append(h("div", { class: "dice-empty" }, rolling ? `${name(state, exp.player)} rolls next` : "No dice yet"));
      return;
    }
    box.classList.toggle("dice-old", !!old);
    if (old) box.append(h("div", { class: "dice-owner" }, `${name(state, fw.seat)}'s dice`));
    if (d.colour) {
      box.append(die("die-colour", h("div", { class: "swatch", style: { background: DingoDisc.colourOf(d.colour) } }),
        h("div", { class: "die-label" }, d.colour.toUpperCase())));
    }
    if (d.number === 1) {
      box.append(die("die-number penalty", h("div", { class: "die-face" }, "1"),
        h("div", { class: "die-label" }, "PENALTY")));
    } else if (d.number != null) {
      box.append(die("die-number", h("div", { class: "die-face" }, String(d.number)),
        h("div", { class: "die-label" }, "number")));
    }
  }

  function btn(label, onclick, cls) {
    return h("button", { type: "button", class: "act " + (cls || ""), onclick }, label);
  }

  function renderActions(state, exp) {
    const box = $("actions");
    // the same question as last time: keep the controls (and what the host is typing into them)
    const key = JSON.stringify([exp, S.host, state.players, state.phase === "over" ? S.msg && [S.msg.session_id,
      S.msg.summary, S.msg.can_undo] : null]);
    if (box.dataset.key === key && box.childElementCount) return;
    box.dataset.key = key;
    box.replaceChildren();
    if (exp.kind === "none" || state.phase === "over") { box.append(DingoCards.renderEnd(S.msg || {}, state, env())); return; }
    if (!S.host) return;
    const seat = exp.player;
    switch (exp.kind) {
      case "new_game":
        box.append(btn("Start a new game", openSetup, "big"));
        break;
      case "first_player":
        box.append(h("div", { class: "q" }, "Who plays first?"),
          h("div", { class: "row" }, (state.players || []).map((p) =>
            btn(p.name, () => act({ type: "first_player", seat: p.seat }))),
          btn("Draw at random", () => api("/api/roll"), "alt")));
        break;
      case "roll_colour":
        box.append(btn("Roll the colour die", () => api("/api/roll"), "big primary"),
          h("div", { class: "q" }, "or enter the colour rolled:"), colourButtons((c) => api("/api/roll", { colour: c })));
        break;
      case "roll":   // one way to roll (rolling takes the dice); physical dice are entered below
        box.append(btn(`${name(state, seat)}: roll the dice`, () => api("/api/roll"), "big primary"));
        box.append(enterDice(exp));
        break;
      case "give":
        box.append(h("div", { class: "q" }, `${name(state, seat)}: which size do you give ${name(state, exp.receiver)}?`),
          h("div", { class: "row" }, (exp.sizes || SIZES).map((s) =>
            btn(s, () => act({ type: "give", giver: seat, size: s }), "size"))));
        break;
      case "place":
        box.append(h("div", { class: "q" }, "Put the pawn on the disc; the sensors will see it. Or type it:"),
          h("div", { class: "row" }, (exp.sizes || SIZES).map((s) =>
            btn(`${s} placed`, () => act({ type: "place", size: s, sensed: false }), "size small-btn"))));
        break;
      case "review_placement":
        box.append(h("div", { class: "q" }, `The pawn stands on ${where(exp.sensed_zone, exp.sensed_number)}, ` +
          `the dice said ${where(exp.zone, exp.number)}.`),
          h("div", { class: "row" }, btn("Accept it", () => act({ type: "accept_placement" }), "big"),
            btn("Redo: pick it up", () => act({ type: "redo_placement" }), "alt")));
        break;
      case "confirm_fall":
        box.append(h("div", { class: "q" }, "What fell? The sensors are not sure."),
          fallForm(heldFall(JSON.stringify(exp), exp.pawns, exp.placed_fell), "Confirm the fall",
            (pawns, placedFell) => act({ type: "confirm_fall", pawns, placed_fell: placedFell })));
        break;
      case "end_game":
        box.append(btn("The disc is still: end the game", () => act({ type: "end_game" }), "big"));
        break;
      case "none":
        break;
      default:
        break;
    }
  }

  function where(zone, number) {
    return zone ? `${String(zone).toUpperCase()} ${number}` : "a line";
  }

  function colourButtons(onPick) {
    return h("div", { class: "row" }, Object.keys(DingoDisc.COLOURS).map((c) =>
      h("button", { type: "button", class: "swatch-btn", title: c, "aria-label": c,
        style: { background: DingoDisc.COLOURS[c] }, onclick: () => onPick(c) })));
  }

  function enterDice(exp) {
    const needColour = (exp.dice || ["colour", "number"]).includes("colour");
    const pick = { colour: null, number: null };
    const wrap = h("details", { class: "enter" }, h("summary", {}, "Physical dice? Enter them"));
    const send = btn("Enter", () => {
      if ((needColour && !pick.colour) || !pick.number) { toast("choose both dice first", true); return; }
      api("/api/roll", needColour ? pick : { number: pick.number });
    }, "alt");
    if (needColour) {
      const row = colourButtons((c) => {
        pick.colour = c;
        row.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b.title === c));
      });
      wrap.append(row);
    }
    const nums = h("div", { class: "row" }, [1, 2, 3, 4, 5, 6].map((n) =>
      h("button", { type: "button", class: "num-btn", "data-number": n, onclick: (ev) => {
        pick.number = n;
        nums.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b === ev.target));
      } }, n === 1 ? "1 ✖" : String(n))));
    wrap.append(nums, send);
    return wrap;
  }

  /* a fall form's counts follow the game's latest state; kept while the question is the same */
  const mostNow = (s) => DingoCounts.mostBefore((S.msg && S.msg.state) || {})(s);
  function fallForm(held, label, onSend) {
    return DingoCounts.fallForm(env(), held, mostNow, label, onSend);
  }
  function heldFall(key, pawns, placedFell) {
    if (!S.fall || S.fall.key !== key) S.fall = { key, pawns: { ...(pawns || {}) }, placed: placedFell !== false };
    return S.fall;
  }

  function renderPlayers(state, exp) {
    const box = $("players");
    box.replaceChildren();
    const players = state.players || [];
    if (!players.length) return;
    const rows = players.map((p) => {
      // one player highlighted everywhere: the one the banner names (e.g. whose fall is confirmed)
      const who = exp.player !== null && exp.player !== undefined ? exp.player : state.current;
      const current = who === p.seat && state.phase !== "over";
      const status = p.finished ? (p.rank === 1 ? (state.draw ? "draw" : "WINNER") : `#${p.rank || "✓"}`)
        : `${p.left} left`;
      return h("tr", { class: (current ? "current " : "") + (p.finished ? "finished" : "") },
        h("td", {}, seatDot(state, p.seat), p.name),
        SIZES.map((s) => h("td", { class: "num" }, h("span", { class: "pawn-icon pawn-" + s }), String((p.supply || {})[s] || 0))),
        h("td", { class: "st" + (p.rank === 1 ? " win" : "") }, status));
    });
    box.append(h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Player"),
      SIZES.map((s) => h("th", {}, s)), h("th", {}, ""))), h("tbody", {}, rows)));
  }

  function renderFeed(feed) {
    $("feed").replaceChildren(...feed.slice(0, 8).map((e) =>
      h("li", { class: "feed-" + e.kind }, e.text)));
  }

  function renderStatus(status) {
    const lines = Object.values(status);
    $("status").textContent = lines.join(" · ");
    $("status").classList.toggle("hidden", !lines.length);
  }

  /* ---------- simulator ---------- */
  function pick(zone, number) {
    if (!S.host || !S.msg || S.msg.mode !== "sim") return;
    api("/api/sim/place", { size: S.simSize, zone, number });
  }

  /* ---------- dialogs ---------- */
  function openSetup() {
    DingoGames.openSetup({ h });
    const count = $("setup-count");
    const names = $("setup-names");
    const fill = () => {
      const old = [...names.querySelectorAll("input")].map((i) => i.value);
      names.replaceChildren(...Array.from({ length: parseInt(count.value, 10) }, (_, i) =>
        h("input", { type: "text", maxlength: 20, value: old[i] || `Player ${i + 1}`, "aria-label": `player ${i + 1}` })));
    };
    count.onchange = fill;
    names.onfocusin = (ev) => { S.lastName = ev.target; };
    fill();
    DingoCards.recentPlayers().then((recent) => {   // names kept on the Pi: tap one, never type again
      const inputs = () => [...names.querySelectorAll("input")];
      if (recent.last && recent.last.length >= 2 && recent.last.length <= 6) {
        count.value = String(recent.last.length);
        fill();
        inputs().forEach((i, k) => { i.value = recent.last[k]; });
      }
      $("setup-recent").replaceChildren(...(recent.names || []).map((n) => btn(n, () => {
        if (inputs().some((i) => i.value === n)) return;
        const free = inputs().find((i) => /^Player \d+$/.test(i.value)) || S.lastName;
        if (free && free.parentNode === names) free.value = n;
      }, "name-chip small-btn")));
    });
    $("setup").showModal();
  }

  function openFix() {
    const st = (S.msg && S.msg.state) || {};
    const last = st.last_fall;   // the fall as it was counted: the host taps the difference
    $("fix-fall").replaceChildren(last ? "" : h("div", { class: "hint" }, "No fall has just settled."),
      fallForm({ pawns: { ...((last && last.pawns) || {}) }, placed: !last || last.placed_fell !== false },
        "Correct the fall", (pawns, pf) => { act({ type: "correct_fall", pawns, placed_fell: pf }); $("fix").close(); }));
    $("fix-size").replaceChildren(...SIZES.map((s) => btn(s, () => { act({ type: "correct_size", size: s }); $("fix").close(); }, "size")));
    $("fix-flags").replaceChildren(...(st.flags || []).map((f) => btn(`Dismiss: ${f.reason}`, () => act({ type: "dismiss_flag", id: f.id }))));
    $("fix").showModal();
  }

  async function openShare() {
    $("share-qr").src = "/api/share/qr.svg?t=" + Date.now();
    $("share-urls").replaceChildren(h("li", {}, "…"));
    $("share").showModal();
    try {
      const d = await (await fetch("/api/share", { credentials: "same-origin" })).json();
      $("share-urls").replaceChildren(...(d.urls || [d.error || "unknown"]).map((u) =>
        h("li", { class: u === d.url ? "best" : "" }, u)));
    } catch (e) { $("share-urls").replaceChildren(h("li", {}, "The companion does not answer")); }
  }

  function wire() {
    $("share-btn").addEventListener("click", openShare);
    DingoCalib.wire({ h, api, toast, csrf: () => S.csrf });
    $("login").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const pin = $("pin").value.trim();
      const d = await api("/api/login", { pin });
      if (d && d.host) { $("pin").value = ""; setHost(true, d.csrf_token); toast("You are the host"); }
    });
    $("logout").addEventListener("click", async () => { await api("/api/logout"); setHost(false, null); });
    $("setup-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (DingoGames.chosen() !== "dingo-disc") {
        api("/api/game", DingoGames.setupBody()).then((d) => { if (d) $("setup").close(); });
        return;
      }
      const players = [...$("setup-names").querySelectorAll("input")].map((i) => i.value.trim());
      const version = parseInt(document.querySelector("input[name=version]:checked").value, 10);
      const options = { draw_window: $("opt-draw-window").value, last_pawn_gift: $("opt-last-pawn-gift").value };
      api("/api/game", { game: "dingo-disc", version, players, options }).then((d) => { if (d) $("setup").close(); });
    });
    $("setup-cancel").addEventListener("click", () => $("setup").close());
    $("new-game-btn").addEventListener("click", openSetup);
    $("fix-btn").addEventListener("click", openFix);
    document.querySelectorAll("[data-button]").forEach((b) =>
      b.addEventListener("click", () => api(`/api/panel/${b.dataset.button}`)));
    $("sim-size").querySelectorAll("button").forEach((b) => b.addEventListener("click", () => {
      S.simSize = b.dataset.size;
      $("sim-size").querySelectorAll("button").forEach((x) => x.classList.toggle("on", x === b));
    }));
    $("sim-press").addEventListener("click", () => api("/api/sim/press", { x_mm: 40, y_mm: 30, grams: 400, duration_ms: 1500 }));
    $("sim-bump").addEventListener("click", () => api("/api/sim/bump"));
    $("sim-knock").addEventListener("click", () => api("/api/sim/knock"));
    $("sim-knock-base").addEventListener("click", () => api("/api/sim/knock_base"));
    $("sim-remove").addEventListener("click", () => api("/api/sim/remove"));
    $("sim-clear").addEventListener("click", () => api("/api/sim/clear"));
    $("sim-slide").addEventListener("click", () => api("/api/sim/slide"));
  }

  wire();
  refreshWho();
  connect();
})();
