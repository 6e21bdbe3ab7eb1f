/* Dodos Riding Dinos on the tablet: the track(s) as a loop of hexes with the racers on them, a table
   the whole table reads (position, lap, hand, damage, card, marker) and big buttons for the entries.
   Plain JS, no build step, nothing from the internet; names are set as text, never as HTML. */
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const COLOURS = ["#d62828", "#1f5fbf", "#2b9348", "#f07c00", "#7b3fa0", "#f2c200", "#0f9db0",
                   "#a0522d", "#e0559a", "#555"];

  function h(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function s(tag, attrs, parent, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function initials(name) {
    const parts = String(name).split(/\s+/);
    if (parts.length > 1 && /^\d+$/.test(parts[1])) return "C" + parts[1];
    return String(name).slice(0, 2);
  }

  /* One loop of hexes on an ellipse; hex 0 just past the finish line at the bottom. */
  function drawTrack(svg, track, cx, cy, rx, ry, racers, view) {
    const n = track.hexes;
    const at = (k) => {
      const a = Math.PI / 2 + (2 * Math.PI * (k + 0.5)) / n;  // hex 0 at the bottom, then clockwise
      return [cx + rx * Math.cos(a), cy + ry * Math.sin(a)];
    };
    const flames = new Set(track.flames);
    const signals = new Set(track.shortcuts.map((x) => x.signal));
    const ramps = new Set(track.glass_ramps.map((x) => x.ramp));
    const landings = new Set(track.glass_ramps.flatMap((x) => x.landings));
    const r = Math.max(4, Math.min(12, (Math.PI * (rx + ry)) / n / 2.2));
    for (let k = 0; k < n; k++) {
      const [x, y] = at(k);
      let cls = "ddr-hex";
      if (flames.has(k)) cls += " ddr-flame";
      if (signals.has(k)) cls += " ddr-signal";
      if (ramps.has(k)) cls += " ddr-ramp";
      if (landings.has(k)) cls += " ddr-landing";
      if (k >= n - 3) cls += " ddr-start";
      const c = s("circle", { cx: x, cy: y, r: r, class: cls }, svg);
      s("title", {}, c, `hex ${k}`);
    }
    for (const sc of track.shortcuts) {  // the shortcut as a dashed chord from its signal to the rejoin hex
      const [x1, y1] = at(sc.signal), [x2, y2] = at(sc.rejoin);
      s("line", { x1, y1, x2, y2, class: "ddr-shortcut" }, svg);
    }
    for (const gr of track.glass_ramps) {  // the jump across the sky
      const [x1, y1] = at(gr.ramp), [x2, y2] = at(gr.smallest_paw);
      s("line", { x1, y1, x2, y2, class: "ddr-sky" }, svg);
    }
    const [fx, fy] = at(-0.5);
    s("line", { x1: fx, y1: fy - 2 * r, x2: fx, y2: fy + 2 * r, class: "ddr-line" }, svg);
    // racers: stacked on their hex
    const stack = {};
    racers.forEach((racer, i) => {
      const v = view.racers[i];
      if (v.side !== track.side || racer.finished) return;
      const k = v.hex;
      const depth = (stack[k] = (stack[k] || 0) + 1) - 1;
      const [x, y] = at(k);
      const dx = (x - cx) / rx, dy = (y - cy) / ry;
      const px = x - dx * (r * 1.9) * depth, py = y - dy * (r * 1.9) * depth;  // stacked inwards
      const g = s("g", { class: "ddr-token" + (v.turn ? " ddr-turn" : "") }, svg);
      s("circle", { cx: px, cy: py, r: r * 0.95, fill: COLOURS[i % COLOURS.length] }, g);
      s("text", { x: px, y: py + r * 0.35, "font-size": r, class: "ddr-token-text" }, g, initials(racer.name));
      if (v.marker) s("text", { x: px + r, y: py - r * 0.6, "font-size": r, class: "ddr-marker" }, g, "★");
    });
  }

  function drawTracks(root, state) {
    const view = state.view;
    const sides = Object.keys(view.tracks);
    const svg = s("svg", { viewBox: "0 0 360 240", class: "ddr-board", role: "img" }, root);
    s("title", {}, svg, "The track with every racer");
    if (sides.length === 1) {
      drawTrack(svg, view.tracks[sides[0]], 180, 120, 150, 95, state.racers, view);
    } else {
      drawTrack(svg, view.tracks.outer, 180, 120, 160, 105, state.racers, view);
      drawTrack(svg, view.tracks.inner, 180, 120, 95, 55, state.racers, view);
    }
  }

  function cardText(card) {
    if (!card) return "";
    if (card.kind === "none") return "no card";
    return `${card.kind[0].toUpperCase()}${card.speed}${card.red_kiwi ? " kiwi" : ""}`;
  }

  function drawTable(root, state) {
    const cup = state.mode === "cup", derby = state.mode === "derby";
    const table = h("table", { class: "ddr-table" }, root);
    const head = h("tr", {}, h("thead", {}, table));
    const cols = ["Racer", "Hex", "Lap", "Hand", "Dmg", "Card"];
    if (cup) cols.push("Fans", "P-up");
    if (derby) cols.push("Team");
    cols.forEach((c) => h("th", {}, head, c));
    const body = h("tbody", {}, table);
    state.racers.forEach((racer, i) => {
      const v = state.view.racers[i];
      const tr = h("tr", { class: (v.turn ? "ddr-row-turn " : "") + (racer.enraged ? "ddr-enraged" : "") }, body);
      const name = h("td", { class: "ddr-name" }, tr);
      h("span", { class: "ddr-dot", style: `background:${COLOURS[i % COLOURS.length]}` }, name);
      name.appendChild(document.createTextNode((v.marker ? "★ " : "") + racer.name));
      let where = racer.p < 0 ? `start ${racer.p}` : String(v.hex);
      if (v.shortcut) where += " sc";
      if (racer.finished) where = "done";
      h("td", {}, tr, where);
      h("td", {}, tr, v.past > 0 ? `+${v.past}` : String(v.lap));
      h("td", { class: "ddr-hand" }, tr, String(racer.hand));
      h("td", {}, tr, String(racer.damage));
      h("td", {}, tr, cardText(racer.played) + (racer.enraged ? " 😠" : ""));
      if (cup) { h("td", {}, tr, String(racer.fans)); h("td", {}, tr, String(racer.power_ups)); }
      if (derby) h("td", {}, tr, String(racer.team + 1));
    });
  }

  /* Buttons from the legal actions; a reveal or Challenger card is a grid (type row, Speed buttons). */
  function drawEntries(root, state, ctx) {
    const legal = state.legal || [];
    if (!legal.length) return;
    const p = state.prompt || {};
    const box = h("div", { class: "ddr-entries" }, root);
    const send = (a) => () => ctx.send(a);
    if (p.kind === "reveal" || p.kind === "challenger_card") {
      const groups = new Map();
      for (const la of legal) {
        const a = la.action;
        const who = a.seat !== undefined ? a.seat : a.racer;
        const key = `${who}|${a.kind}|${a.red_kiwi ? 1 : 0}`;
        if (!groups.has(key)) groups.set(key, { who, label: la.label.replace(/ \d+( \(Red Kiwi\))?$/, "$1"), items: [] });
        groups.get(key).items.push(la);
      }
      for (const g of groups.values()) {
        const row = h("div", { class: "ddr-row" }, box);
        h("div", { class: "ddr-row-label" }, row, g.label);
        const btns = h("div", { class: "ddr-speeds" }, row);
        for (const la of g.items) {
          const b = h("button", { class: "ddr-btn ddr-speed", type: "button" }, btns,
                      la.action.kind === "none" ? "none" : String(la.action.speed));
          b.addEventListener("click", send(la.action));
        }
      }
      return;
    }
    if (p.kind === "window" && legal.length > 3) {  // open entries: "Done" first, then one row per racer
      const done = legal.find((la) => la.action.type === "done");
      if (done) h("button", { class: "ddr-btn ddr-big", type: "button" }, box, done.label)
        .addEventListener("click", send(done.action));
      const rows = new Map();
      for (const la of legal) {
        if (la.action.type === "done") continue;
        const a = la.action;
        const who = a.seat !== undefined ? a.seat : a.racer;
        const name = who !== undefined && state.racers[who] ? state.racers[who].name : "";
        if (!rows.has(name)) rows.set(name, []);
        rows.get(name).push(la);
      }
      for (const [name, items] of rows) {
        const row = h("div", { class: "ddr-row" }, box);
        h("div", { class: "ddr-row-label" }, row, name);
        const btns = h("div", { class: "ddr-speeds" }, row);
        for (const la of items) {
          const text = name && la.label.startsWith(name + " ") ? la.label.slice(name.length + 1) : la.label;
          h("button", { class: "ddr-btn ddr-entry", type: "button" }, btns, text)
            .addEventListener("click", send(la.action));
        }
      }
      return;
    }
    const big = ["glass", "glass_fail", "flame", "shortcut", "challenger_dice", "tiebreak", "challenger_draw"];
    const cls = big.includes(p.kind) || legal.length <= 3 ? "ddr-btn ddr-big" : "ddr-btn";
    if (big.includes(p.kind)) h("div", { class: "ddr-hexprompt" }, box, state.next || "");
    for (const la of legal) {
      const b = h("button", { class: cls + (la.chance ? " ddr-chance" : ""), type: "button" }, box, la.label);
      b.addEventListener("click", send(la.action));
    }
  }

  function render(state, el, ctx) {
    while (el.firstChild) el.removeChild(el.firstChild);
    const root = h("div", { class: "ddr" }, el);
    const sides = Object.values(state.view.tracks);
    const title = sides[0] ? sides[0].title : state.track;
    let head = `${title} (${state.mode === "derby" ? "inner + outer" : state.side})`;
    if (state.mode === "cup") head += ` · race ${state.race} of 4`;
    head += ` · round ${state.round}`;
    h("div", { class: "ddr-head" }, root, head);
    if (sides.some((t) => t.placeholder)) {
      h("div", { class: "ddr-note" }, root, "Placeholder track: hex counts not measured on your board yet");
    }
    h("div", { class: "ddr-next" }, root, state.next || "");
    drawTracks(root, state);
    drawTable(root, state);
    const counts = `Deck ${state.deck} · discard ${state.discard}` +
      (state.mode === "cup" ? ` · Fans left ${state.fans_reserve} · Power-ups left ${state.pu_deck}` : "");
    h("div", { class: "ddr-counts" }, root, counts);
    if (state.log && state.log.length) h("div", { class: "ddr-log" }, root, state.log[state.log.length - 1]);
    if (ctx && ctx.send) drawEntries(root, state, ctx);
  }

  window.DingoViews = window.DingoViews || {};
  window.DingoViews["dodos-riding-dinos"] = { render };
})();
