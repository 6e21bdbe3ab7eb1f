/* The Dingo card game on the tablet: the hunted rank and the stack's top card, the table, every
   player's points and penalty piles and running totals, and big buttons for what may be entered,
   grouped by player. Plain JS, no build step, nothing from the internet (GAMES.md). */
"use strict";

(function () {
  const SUITS = { H: "♥", C: "♣", S: "♠", D: "♦" };
  const RED = { H: true, D: true };
  const EXCHANGE = { 1: ["to the left", 1], 2: ["with the player opposite", 2], 3: ["to the right", 3] };
  // which player the discard grid is open for (kept across renders of the same discard round)
  const ui = { key: null, seat: null, aces: false };

  function h(tag, cls, text, parent) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function cardText(card) { return SUITS[card[0]] + card.slice(1); }

  function card(cardId, size, parent) {
    const node = h("span", "dc-card dc-" + size + (RED[cardId[0]] ? " dc-red" : " dc-black"), cardText(cardId), parent);
    node.setAttribute("aria-label", cardId);
    return node;
  }

  function cardValue(cardId, penalty) {
    const r = cardId.slice(1);
    if (r === "A") return cardId === "DA" ? (penalty ? 3 : 10) : 3;
    return ["10", "J", "Q", "K"].includes(r) ? 2 : 1;
  }

  function pile(cards, penalty, parent) {
    const box = h("div", "dc-pile" + (penalty ? " dc-pile-pen" : ""), null, parent);
    if (!cards.length) { h("span", "dc-empty", "—", box); return box; }
    for (const c of cards) card(c, "mini", box);
    const sum = cards.reduce((acc, c) => acc + cardValue(c, penalty), 0);
    h("span", "dc-pile-sum", (penalty ? "−" : "+") + sum, box);
    return box;
  }

  function seatOf(action) { return typeof action.seat === "number" ? action.seat : null; }

  function shortLabel(label, name) {
    const prefix = name + ": ";
    return label.startsWith(prefix) ? label.slice(prefix.length) : label;
  }

  function button(label, action, ctx, cls, parent) {
    const b = h("button", "dc-btn " + (cls || ""), label, parent);
    b.type = "button";
    b.addEventListener("click", () => ctx.send(action));
    return b;
  }

  function header(state, el) {
    const box = h("div", "dc-head", null, el);
    const dealer = state.dealer === null ? "—" : state.players[state.dealer];
    const dealNo = state.phase === "deal" || state.phase === "first_dealer" ? state.deal_no + 1 : state.deal_no;
    h("span", "dc-deal", "Deal " + Math.min(dealNo, state.deals) + " of " + state.deals, box);
    h("span", "dc-dealer", "Dealer: " + dealer, box);
  }

  function hunt(state, el) {
    const box = h("div", "dc-hunt", null, el);
    const left = h("div", "dc-stack", null, box);
    h("div", "dc-caption", "Stack", left);
    if (state.stack_top) card(state.stack_top, "big", left);
    else h("span", "dc-card dc-big dc-none", "·", left);
    h("div", "dc-caption", state.stack.length + " left", left);
    const mid = h("div", "dc-rank", null, box);
    if (state.phase === "hunt" || state.phase === "aces" || state.phase === "diamond_ace") {
      h("div", "dc-caption", state.rank === "A" ? "Ace hunt" : "Hunting", mid);
      h("div", "dc-rank-big", state.rank === "A" ? "A" : state.rank, mid);
    } else {
      const words = {
        first_dealer: "Choose the dealer", deal: "Deal the cards", discard: "Discard " + state.round + " of 4",
        exchange: "Exchange " + state.round + " of 3", over: "Game over",
      };
      h("div", "dc-phase", words[state.phase] || state.phase, mid);
    }
    const right = h("div", "dc-discards", null, box);
    h("div", "dc-caption", "Discards", right);
    const all = state.options.discards_shown === "all";
    if (!state.discards.length) h("span", "dc-card dc-big dc-none", "·", right);
    else if (!all) card(state.discard_top, "big", right);
    else { const row = h("div", "dc-discard-all", null, right); for (const c of state.discards) card(c, "mini", row); }
    h("div", "dc-caption", state.discards.length + (state.discards.length === 1 ? " card" : " cards"), right);
    if (state.table.length) {
      const table = h("div", "dc-table", null, el);
      h("span", "dc-caption", "On the table:", table);
      for (const [seat, c] of state.table) {
        const item = h("span", "dc-played", null, table);
        card(c, "mid", item);
        h("span", "dc-played-by", state.players[seat], item);
      }
    }
  }

  function exchangeArrows(state, el) {
    if (state.phase !== "exchange") return;
    const [words, step] = EXCHANGE[state.round];
    const box = h("div", "dc-exchange", null, el);
    h("div", "dc-caption", "Exchange " + state.round + " of 3, " + words + " (face down)", box);
    for (let seat = 0; seat < 4; seat++) {
      const to = (seat + step) % 4;
      const done = state.done.includes(seat);
      h("div", "dc-arrow" + (done ? " dc-done" : ""), state.players[seat] + " → " + state.players[to] + (done ? "  ✓" : ""), box);
    }
  }

  function scores(state, el, acting) {
    const box = h("div", "dc-scores", null, el);
    state.players.forEach((name, seat) => {
      const row = h("div", "dc-player" + (acting.has(seat) ? " dc-acting" : ""), null, box);
      const top = h("div", "dc-player-top", null, row);
      h("span", "dc-name", name, top);
      if (seat === state.dealer) h("span", "dc-badge", "dealer", top);
      if (state.phase !== "first_dealer") h("span", "dc-hand", state.hands[seat] + " in hand", top);
      const total = h("span", "dc-total", String(state.running_totals[seat]), top);
      total.title = "running total";
      const piles = h("div", "dc-piles", null, row);
      const p = h("div", "dc-pile-row", null, piles);
      h("span", "dc-pile-label", "Points", p);
      pile(state.points[seat], false, p);
      const q = h("div", "dc-pile-row", null, piles);
      h("span", "dc-pile-label", "Penalty", q);
      pile(state.penalties[seat], true, q);
      const deal = state.current_scores[seat];
      h("div", "dc-deal-score", (state.deal_open ? "This deal: " : "Last deal: ") + (deal > 0 ? "+" : "") + deal, row);
    });
    if (state.deal_scores.length) {
      const hist = h("table", "dc-history", null, el);
      const head = h("tr", null, null, hist);
      h("th", null, "Deal", head);
      for (const n of state.players) h("th", null, n, head);
      state.deal_scores.forEach((d, i) => {
        const tr = h("tr", null, null, hist);
        h("td", null, String(i + 1), tr);
        for (const v of d) h("td", null, String(v), tr);
      });
      const tr = h("tr", "dc-history-total", null, hist);
      h("td", null, "Total", tr);
      for (const v of state.totals) h("td", null, String(v), tr);
    }
  }

  function discardGrid(state, legal, el, ctx) {
    // one player at a time: pick the player, then the card (suits in rows)
    const key = state.deal_no + ":" + state.round;
    const seats = [...new Set(legal.filter(l => l.action.type === "discard").map(l => l.action.seat))];
    if (ui.key !== key || !seats.includes(ui.seat)) { ui.key = key; ui.seat = seats.length === 1 ? seats[0] : null; }
    const who = h("div", "dc-group dc-who", null, el);
    h("div", "dc-group-name", "Who discards?", who);
    const row = h("div", "dc-btn-row", null, who);
    for (const seat of seats) {
      const b = h("button", "dc-btn dc-seat" + (ui.seat === seat ? " dc-selected" : ""), state.players[seat], row);
      b.type = "button";
      b.addEventListener("click", () => { ui.seat = seat; ctx.rerender(); });
    }
    if (ui.seat === null) return;
    const grid = h("div", "dc-group", null, el);
    h("div", "dc-group-name", state.players[ui.seat] + " discards (never an ace):", grid);
    // a fixed grid (cards already seen are greyed out) so a card never moves under the finger
    const ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
    for (const suit of ["H", "C", "S"]) {
      const line = h("div", "dc-grid", null, grid);
      for (const r of ranks) {
        const l = legal.find(x => x.action.type === "discard" && x.action.seat === ui.seat && x.action.card === suit + r);
        if (!l) { const gone = h("button", "dc-btn dc-gone", cardText(suit + r), line); gone.disabled = true; continue; }
        const b = button(cardText(l.action.card), l.action, ctx, RED[suit] ? "dc-red" : "dc-black", line);
        b.setAttribute("aria-label", l.label);
      }
    }
  }

  function buttons(state, el, ctx) {
    const legal = state.legal || [];
    const box = h("div", "dc-entries", null, el);
    if (state.next) h("div", "dc-next", state.next, box);
    if (ctx.host === false) return;  // players without the host PIN look, the host enters
    const rare = legal.filter(l => l.action.type === "four_aces");
    const main = legal.filter(l => l.action.type !== "four_aces");
    if (state.phase === "discard") discardGrid(state, main, box, ctx);
    else if (state.phase === "first_dealer" || state.phase === "deal" || state.phase === "exchange") {
      const row = h("div", "dc-btn-row", null, h("div", "dc-group", null, box));
      for (const l of main) button(l.label, l.action, ctx, "", row).setAttribute("aria-label", l.label);
    } else {
      const groups = new Map();
      for (const l of main) {
        const seat = seatOf(l.action);
        if (!groups.has(seat)) groups.set(seat, []);
        groups.get(seat).push(l);
      }
      for (const [seat, items] of groups) {
        const g = h("div", "dc-group", null, box);
        const name = state.players[seat];
        h("div", "dc-group-name", name, g);
        const row = h("div", "dc-btn-row", null, g);
        for (const l of items) {
          const a = l.action;
          let text = shortLabel(l.label, name);
          let cls = "";
          if (a.type === "play") {
            text = a.cards.map(cardText).join(" + ");
            cls = RED[a.cards[0][0]] ? "dc-red" : "dc-black";
          } else if (a.type === "pass") { text = "Pass"; cls = "dc-pass"; }
          else if (a.type === "show_diamond_ace") { text = "Shows ♦A (−3)"; cls = "dc-pass"; }
          const b = button(text, a, ctx, cls, row);
          b.setAttribute("aria-label", l.label);
        }
      }
    }
    if (rare.length) {
      const r = h("div", "dc-rare", null, box);
      const t = h("button", "dc-btn dc-small", ui.aces ? "Hide: four aces" : "Someone holds all four aces?", r);
      t.type = "button";
      t.addEventListener("click", () => { ui.aces = !ui.aces; ctx.rerender(); });
      if (ui.aces) for (const l of rare) button(l.label, l.action, ctx, "dc-small", r);
    }
  }

  function render(state, el, ctx) {
    const context = Object.assign({}, ctx);
    context.rerender = () => render(state, el, ctx);
    el.textContent = "";
    const root = h("div", "dc-root", null, el);
    const acting = new Set(((state.to_move || {}).seats) || []);
    header(state, root);
    hunt(state, root);
    exchangeArrows(state, root);
    buttons(state, root, context);
    scores(state, root, acting);
  }

  window.DingoViews = window.DingoViews || {};
  // ownButtons: this view offers every legal action itself (grouped by player, a card grid for the
  // discards), so the page's flat list of legal buttons is hidden while it is shown (see the .css).
  window.DingoViews["dingo-cards"] = { render, ownButtons: true };
})();
