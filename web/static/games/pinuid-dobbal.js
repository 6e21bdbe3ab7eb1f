/* Pinuid Dobbal on the tablet: the board, the dice, the steps of the turn, taps that move pins.
 *
 * window.DingoViews["pinuid-dobbal"].render(state, el, ctx): `state` is GET /api/state (the game's
 * JSON + "legal", "to_move", "next", "outcome"); `ctx.send(actionJson)` posts an action. Optional:
 * `ctx.hint()` -> Promise of {action, text} ("show the best move"; see docs/rules-pinuid-dobbal.md).
 * Everything a tap may do comes from state.legal, so the view never decides a rule itself.
 */
"use strict";

(function () {
  window.DingoViews = window.DingoViews || {};

  const SEAT_CLASS = ["pd-blue", "pd-red"];
  const ui = { selected: null, mode: "move", hint: null, key: "", dice: [null, null, null] };

  function h(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function squareName(col, row) { return String.fromCharCode(97 + col) + (row + 1); }

  /* What the legal actions allow now: moves by origin, removals, put-backs, rolls, assignments. */
  function analyse(state) {
    const out = { moves: {}, remove: new Set(), back: new Set(), rolls: [], assign: [] };
    for (const item of state.legal || []) {
      const a = item.action;
      if (a.type === "move") (out.moves[a.from] = out.moves[a.from] || []).push(a.to);
      else if (a.type === "remove") out.remove.add(a.at);
      else if (a.type === "put_back") out.back.add(a.at);
      else if (a.type === "roll") out.rolls.push(a);
      else if (a.type === "assign") out.assign.push(a);
    }
    return out;
  }

  function randomIndex(n) {
    const buf = new Uint32Array(1);
    (window.crypto || window.msCrypto).getRandomValues(buf);
    return buf[0] % n;
  }

  function diceBar(state, root, legal, ctx) {
    const bar = h("div", { class: "pd-dice" }, root);
    const dice = state.dice || [];
    const labels = state.options.play_pin_die === "coloured" || state.phase === "move"
      ? ["run", "run", "play-pin"] : ["die", "die", "die"];
    if (state.phase !== "roll" && dice.length === 3) {
      dice.forEach((d, i) => {
        const used = state.phase === "move" && i < 2 && !state.running_dice_left.includes(d);
        h("span", { class: "pd-die" + (i === 2 ? " pd-die-play" : "") + (used ? " pd-used" : ""),
          title: labels[i] }, bar, String(d));
      });
    }
    if (state.phase === "roll") {
      const faces = state.options.dice === "1-6" ? 6 : 3;
      const rows = state.options.play_pin_die === "coloured"
        ? ["running die", "running die", "play-pin die (coloured)"] : ["die", "die", "die"];
      rows.forEach((title, i) => {
        const row = h("div", { class: "pd-face-row" }, bar);
        h("span", { class: "pd-face-title" }, row, title);
        for (let f = 1; f <= faces; f++) {
          const b = h("button", { class: "pd-face" + (ui.dice[i] === f ? " pd-on" : ""), type: "button",
            onclick: () => { ui.dice[i] = f; rerender(); } }, row, String(f));
          b.dataset.die = i; b.dataset.face = f;
        }
      });
      const ready = ui.dice.every((d) => d !== null);
      const enter = h("button", { class: "pd-big pd-enter", type: "button",
        onclick: () => { const d = ui.dice.slice(); ui.dice = [null, null, null];
          ctx.send({ type: "roll", dice: d }); } }, bar, ready ? "Enter " + ui.dice.join("-") : "Enter the dice");
      enter.disabled = !ready;
      h("button", { class: "pd-big pd-roll", type: "button",
        onclick: () => {  // the companion rolls (ctx.roll, the platform's chance roll) or, else, the browser
          if (ctx.roll) ctx.roll();
          else if (legal.rolls.length) ctx.send(legal.rolls[randomIndex(legal.rolls.length)]);
        } },
        bar, "Roll for me");
    }
    if (state.phase === "assign") {
      h("div", { class: "pd-prompt" }, bar, "Which die moves the play-pin?");
      for (const a of legal.assign) {
        h("button", { class: "pd-big", type: "button", onclick: () => ctx.send(a) }, bar, "Play-pin: " + a.play);
      }
    }
  }

  function steps(state, root) {
    if (state.phase !== "move" && !(state.skips || []).length) return;
    const list = h("ol", { class: "pd-steps" }, root);
    const skipped = {};
    for (const s of state.skips || []) (skipped[s.step] = skipped[s.step] || []).push(s.reason);
    ["a running pin", "the play-pin", "a running pin"].forEach((what, i) => {
      const n = i + 1;
      let cls = "pd-step";
      if (skipped[n]) cls += " pd-skipped";
      else if (state.phase === "move" && n === state.step) cls += " pd-now";
      else if (state.phase !== "move" || n < state.step) cls += " pd-done";
      const li = h("li", { class: cls }, list, "Step " + n + ": " + what);
      if (skipped[n]) h("div", { class: "pd-why" }, li, "skipped: " + skipped[n].join("; "));
    });
  }

  function doubleChoice(state, root, legal) {
    if (!state.double_choice) return;
    const box = h("div", { class: "pd-double" }, root);
    h("div", { class: "pd-prompt" }, box, "A double! Instead of the turn:");
    const opts = [];
    if (Object.keys(legal.moves).length) opts.push(["move", "Play the turn"]);
    if (legal.remove.size) opts.push(["remove", "Remove a pin of " + state.players[1 - state.current]]);
    if (legal.back.size) opts.push(["back", "Put a pin back"]);
    if (!opts.some(([m]) => m === ui.mode)) ui.mode = opts.length ? opts[0][0] : "move";
    for (const [mode, text] of opts) {
      h("button", { class: "pd-big" + (ui.mode === mode ? " pd-on" : ""), type: "button",
        onclick: () => { ui.mode = mode; ui.selected = null; rerender(); } }, box, text);
    }
  }

  function board(state, root, legal, ctx) {
    const W = state.board.width, H = state.board.height;
    const grid = h("div", { class: "pd-board", role: "grid" }, root);
    grid.style.gridTemplateColumns = `repeat(${W}, 1fr)`;
    const at = {};
    state.pins.forEach((list, seat) => list.forEach((q) => { at[q] = seat; }));
    const mover = state.current;
    const movable = legal.moves;
    const origins = Object.keys(movable);
    if (state.phase === "move" && ui.mode === "move" && origins.length === 1) ui.selected = origins[0];
    if (ui.selected && !movable[ui.selected]) ui.selected = null;
    const targets = new Set(ui.selected ? movable[ui.selected] : []);
    for (let row = H - 1; row >= 0; row--) {
      for (let col = 0; col < W; col++) {
        const q = squareName(col, row);
        const cell = h("div", { class: "pd-cell", "data-square": q, role: "gridcell" }, grid);
        if (state.board.back_lines[0].includes(q)) cell.classList.add("pd-back0");
        if (state.board.back_lines[1].includes(q)) cell.classList.add("pd-back1");
        let pin = null;
        if (q === state.play_pin) pin = h("div", { class: "pd-pin pd-play", title: "play-pin" }, cell);
        else if (q in at) pin = h("div", { class: "pd-pin " + SEAT_CLASS[at[q]] }, cell);
        let action = null;
        if (state.phase === "move") {
          if (ui.mode === "move") {
            if (movable[q]) {
              cell.classList.add("pd-movable");
              if (ui.selected === q) cell.classList.add("pd-selected");
              action = () => { ui.selected = ui.selected === q ? null : q; rerender(); };
            } else if (targets.has(q)) {
              cell.classList.add("pd-target");
              action = () => { const frm = ui.selected; ui.selected = null; ctx.send({ type: "move", from: frm, to: q }); };
            } else if (pin && (at[q] === mover && state.step !== 2 || q === state.play_pin && state.step === 2)) {
              cell.classList.add("pd-stuck");  // the mover's pin that cannot move now: greyed
            }
          } else if (ui.mode === "remove" && legal.remove.has(q)) {
            cell.classList.add("pd-target", "pd-remove");
            action = () => ctx.send({ type: "remove", at: q });
          } else if (ui.mode === "back" && legal.back.has(q)) {
            cell.classList.add("pd-target");
            action = () => ctx.send({ type: "put_back", at: q });
          }
        }
        if (ui.hint && ui.hint.from === q) cell.classList.add("pd-hint-from");
        if (ui.hint && (ui.hint.to === q || ui.hint.at === q)) cell.classList.add("pd-hint-to");
        if (action) { cell.addEventListener("click", action); cell.classList.add("pd-tap"); }
      }
    }
  }

  function hintBar(state, root, ctx) {
    if (state.phase !== "move" && state.phase !== "assign") return;
    const bar = h("div", { class: "pd-hintbar" }, root);
    const btn = h("button", { class: "pd-big pd-hint", type: "button" }, bar, "Show the best move");
    const text = h("div", { class: "pd-hint-text" }, bar, ui.hint ? ui.hint.text || "" : "");
    btn.addEventListener("click", () => {
      const ask = ctx.hint ? ctx.hint() : fetch("/api/hint", { method: "POST" }).then((r) => {
        if (!r.ok) throw new Error("no hint endpoint"); return r.json(); });
      text.textContent = "Thinking...";
      Promise.resolve(ask).then((res) => {
        ui.hint = Object.assign({ text: res.text || "" }, res.action || {});
        rerender();
      }).catch(() => { text.textContent = "The best move is not available here."; });
    });
    if (ctx.computer) {
      const cpu = h("button", { class: "pd-big pd-computer", type: "button" }, bar, "Computer plays this step");
      cpu.addEventListener("click", () => {
        text.textContent = "The computer is thinking...";
        Promise.resolve(ctx.computer("mcts")).catch(() => { text.textContent = "The computer cannot play now."; });
      });
    }
  }

  let last = null;
  function rerender() { if (last) draw(last.state, last.el, last.ctx); }

  function draw(state, el, ctx) {
    last = { state, el, ctx };
    const key = JSON.stringify([state.turn, state.step, state.phase, state.current, state.pins, state.play_pin]);
    if (key !== ui.key) { ui.key = key; ui.selected = null; ui.hint = null; ui.mode = "move"; }
    const legal = analyse(state);
    el.innerHTML = "";
    const root = h("div", { class: "pd-root" }, el);
    const head = h("div", { class: "pd-head" }, root);
    state.players.forEach((name, seat) => {
      const p = h("span", { class: "pd-player " + SEAT_CLASS[seat] + (seat === state.current ? " pd-turn" : "") },
        head, name);
      const off = (state.off_board || [0, 0])[seat];
      if (off) h("span", { class: "pd-off" }, p, " (" + off + " off)");
    });
    if (state.phase === "over") {
      h("div", { class: "pd-win" }, root, state.players[state.winner] + " wins!");
    } else {
      h("div", { class: "pd-next" }, root, state.next || "");
    }
    diceBar(state, root, legal, ctx);
    steps(state, root);
    doubleChoice(state, root, legal);
    board(state, root, legal, ctx);
    hintBar(state, root, ctx);
  }

  window.DingoViews["pinuid-dobbal"] = { render: draw };
})();
