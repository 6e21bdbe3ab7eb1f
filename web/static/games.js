/* The generic game section of the tablet page (every game but the Dingo Disc's own section):
   - the start screen's choice of the game and its setup from the game's setup spec (big buttons),
   - big buttons built from the state's "legal" (chance outcomes: "the companion draws", or enter them),
   - the game's own view, web/static/games/<name>.js, which registers
     window.DingoViews[name] = { render(state, el, ctx) } (ctx.send(actionJson) posts an action).
   app.js calls DingoGames.render(msg, env) for a game that is not the Disc. */
"use strict";

window.DingoViews = window.DingoViews || {};

window.DingoGames = (function () {
  const SEAT_COLOURS = window.DingoCards ? DingoCards.SEATS.map((x) => x.colour)
    : ["#212529", "#8b5a2b", "#d6336c", "#6c757d", "#0c8599", "#e9ecef"];
  const G = { catalogue: null, chosen: "dingo-disc", count: null, options: {}, loading: {} };
  const $ = (id) => document.getElementById(id);

  async function catalogue() {
    if (G.catalogue) return G.catalogue;
    try {
      const r = await fetch("/api/games", { credentials: "same-origin" });
      G.catalogue = (await r.json()).games || [];
    } catch (e) { return []; }
    return G.catalogue;
  }
  const info = (name) => (G.catalogue || []).find((g) => g.name === name) || null;
  const nameOf = (state, seat) => {
    const p = (state.players || [])[seat];
    return p == null ? "—" : (typeof p === "string" ? p : p.name);
  };
  const names = (state) => (state.players || []).map((p, i) => nameOf(state, i));

  /* ---------- the start screen: which game, then its players and options ---------- */
  async function openSetup(env) {
    const games = await catalogue();
    const box = $("setup-games");
    const pick = (name) => {
      G.chosen = name;
      box.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b.dataset.game === name));
      $("setup-disc").classList.toggle("hidden", name !== "dingo-disc");
      $("setup-generic").classList.toggle("hidden", name === "dingo-disc");
      if (name !== "dingo-disc") fillGeneric(env, info(name));
    };
    box.replaceChildren(...games.map((g) => env.h("button", { type: "button", class: "game-btn",
      "data-game": g.name, onclick: () => pick(g.name) }, g.title)));
    box.classList.toggle("hidden", games.length < 2);
    pick(info(G.chosen) ? G.chosen : "dingo-disc");
  }

  function fillGeneric(env, game) {
    const spec = game.setup;
    if (G.count == null || G.count < spec.min_players || G.count > spec.max_players) G.count = spec.min_players;
    G.options = {};
    for (const o of spec.options) G.options[o.name] = o.default;
    const counts = $("setup-gcount");
    const names = $("setup-gnames");
    const fillNames = () => {
      const old = [...names.querySelectorAll("input")].map((i) => i.value);
      names.replaceChildren(...Array.from({ length: G.count }, (_, i) => env.h("input", { type: "text",
        maxlength: 20, value: old[i] || `Player ${i + 1}`, "aria-label": `player ${i + 1}` })));
      counts.querySelectorAll("button").forEach((b) => b.classList.toggle("on", +b.dataset.count === G.count));
    };
    const range = [];
    for (let n = spec.min_players; n <= spec.max_players; n++) range.push(n);
    counts.replaceChildren(...range.map((n) => env.h("button", { type: "button", class: "count-btn",
      "data-count": n, onclick: () => { G.count = n; fillNames(); } }, `${n} players`)));
    fillNames();
    $("setup-goptions").replaceChildren(...spec.options.map((o) => {
      const seg = env.h("div", { class: "row seg-big" }, o.choices.map((c) => env.h("button", {
        type: "button", class: "opt-btn" + (c === o.default ? " on" : ""), "data-option": o.name,
        "data-value": String(c), onclick: (ev) => {
          G.options[o.name] = c;
          seg.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b === ev.target));
        } }, String(c))));
      return env.h("div", { class: "option" }, env.h("div", { class: "q" }, o.name.replace(/_/g, " ")),
        o.help ? env.h("div", { class: "hint" }, o.help) : null, seg);
    }));
  }

  function chosen() { return G.chosen; }

  function setupBody() {
    const players = [...$("setup-gnames").querySelectorAll("input")].map((i) => i.value.trim());
    return { type: "new_game", game: G.chosen, players, options: Object.assign({}, G.options) };
  }

  /* ---------- playing: banner, big buttons from "legal", players, the game's view ---------- */
  function render(msg, env) {
    const state = msg.state || {};
    renderBanner(state, env);
    renderActions(state, env, msg.computer);
    renderPlayers(state, env);
    renderView(state, env);
  }

  function renderBanner(state, env) {
    const out = state.outcome;
    const seats = (state.to_move && state.to_move.seats) || [];
    let text = state.title || "";
    let colour = "#444";
    if (out) {
      text = out.draw ? "DRAW!" : out.winners.map((s) => nameOf(state, s)).join(" & ") + (out.winners.length > 1 ? " win!" : " wins!");
      if (out.winners.length === 1) colour = SEAT_COLOURS[out.winners[0] % SEAT_COLOURS.length];
    } else if (seats.length === 1) {
      text = `${nameOf(state, seats[0])}'s turn`;
      colour = SEAT_COLOURS[seats[0] % SEAT_COLOURS.length];
    }
    $("turn").textContent = text;
    $("prompt").textContent = state.next || "";
    $("banner").style.background = colour;
    $("banner").classList.remove("dark-text");
    $("next").textContent = state.next || "";
  }

  /* A seat the computer plays: "Computer is thinking", the move it made, "play on" after an undo. */
  function computerBox(state, env, cpu) {
    if (!cpu) return { box: null, busy: false };
    const seats = (state.to_move && state.to_move.seats) || [];
    const mine = !state.outcome && seats.length === 1 && cpu.seats[String(seats[0])] != null;
    const lines = [];
    if (cpu.thinking) lines.push(env.h("div", { class: "computer-thinking" }, `Computer is thinking (${cpu.thinking.name})...`));
    else if (mine && cpu.paused && env.host) {
      lines.push(env.h("div", { class: "hint" }, "The computer waits after the undo."),
        env.btn("Computer, play on", () => env.api("/api/computer", { strength: cpu.seats[String(seats[0])] }), "big"));
    }
    if (cpu.last) lines.push(env.h("div", { class: "computer-last" }, cpu.last.text));
    return { box: lines.length ? env.h("div", { class: "computer" }, lines) : null, busy: mine && !cpu.paused };
  }

  function renderActions(state, env, cpu) {
    const box = $("actions");
    box.replaceChildren();
    const computer = computerBox(state, env, cpu);
    if (computer.box) box.append(computer.box);
    if (!env.host || computer.busy) return;
    const legal = state.legal || [];
    const choices = legal.filter((la) => !la.chance);
    const chance = legal.filter((la) => la.chance);
    if (state.outcome) {
      box.append(env.btn("New game", env.openSetup, "big"),
        env.h("div", { class: "hint" }, env.canUndo ? "Ended by mistake? UNDO takes the last action back."
          : "This game is saved as finished in the history."));
      return;
    }
    if (chance.length) {
      box.append(env.btn("Let the companion draw", () => env.api("/api/roll"), "big chance"));
      box.append(env.h("details", { class: "enter" }, env.h("summary", {}, "Real dice or cards? Enter what came"),
        env.h("div", { class: "row" }, chance.map((la) => env.btn(la.label, () => env.act(la.action), "legal alt")))));
    }
    if (choices.length) {
      box.append(env.h("div", { class: "row legal-row" }, choices.map((la) =>
        env.btn(la.label, () => env.act(la.action), "big legal"))));
    }
  }

  function renderPlayers(state, env) {
    const box = $("players");
    box.replaceChildren();
    const list = names(state);
    if (!list.length) return;
    const seats = (state.to_move && state.to_move.seats) || [];
    const out = state.outcome;
    const rank = {};
    if (out) out.ranking.forEach((group, i) => group.forEach((s) => { rank[s] = i + 1; }));
    const rows = list.map((n, seat) => env.h("tr", { class: seats.includes(seat) && !out ? "current" : "" },
      env.h("td", {}, env.h("span", { class: "dot", style: { background: SEAT_COLOURS[seat % SEAT_COLOURS.length] } }), n),
      env.h("td", { class: "num" }, out && out.scores ? String(out.scores[seat]) : ""),
      env.h("td", { class: "st" + (rank[seat] === 1 ? " win" : "") }, out ? (rank[seat] === 1 ? "WINNER" : `#${rank[seat]}`) : "")));
    box.append(env.h("table", {}, env.h("thead", {}, env.h("tr", {}, env.h("th", {}, "Player"),
      env.h("th", {}, out && out.scores ? "score" : ""), env.h("th", {}, ""))), env.h("tbody", {}, rows)));
  }

  function loadView(game, then) {
    const g = info(game);
    if (!g || !g.view) return false;
    if (window.DingoViews[game]) return true;
    if (!G.loading[game]) {
      G.loading[game] = true;
      if (g.css) document.head.append(Object.assign(document.createElement("link"), { rel: "stylesheet", href: g.css }));
      const s = document.createElement("script");
      s.src = g.view;
      s.onload = then;
      document.head.append(s);
    }
    return false;
  }

  function renderView(state, env) {
    const el = $("view");
    const game = state.game;
    const draw = () => {
      const view = window.DingoViews[game];
      if (!view) return;
      try {
        view.render(state, el, { send: env.act, host: env.host, names: names(state), roll: () => env.api("/api/roll"),
          hint: () => env.api("/api/hint"), computer: (strength) => env.api("/api/computer", { strength }) });
      } catch (e) { el.textContent = "The game's view failed: " + e.message; }
    };
    if (!G.catalogue) { catalogue().then(() => renderView(state, env)); return; }
    if (el.dataset.game !== game) { el.replaceChildren(); el.dataset.game = game; }
    if (loadView(game, draw)) draw();
  }

  return { openSetup, chosen, setupBody, render, catalogue };
})();
