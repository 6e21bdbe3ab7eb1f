// The venue hub page: every table live (event stream /api/stream), the results (/api/results).
"use strict";
(function () {
  const tables = new Map();   // "venue/table" -> view
  let skew = 0;               // hub clock - this device's clock, seconds
  const ALERT_S = 12;
  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function now() { return Date.now() / 1000 + skew; }
  function fmtScore(p, kind) {
    if (p.score === null || p.score === undefined) return "";
    return kind === "pawns_left" ? p.score + " left" : String(p.score);
  }

  function card(t) {
    const c = el("article", "card");
    c.dataset.table = t.table;
    c.dataset.venue = t.venue;
    if (t.status === "offline") c.classList.add("offline");
    const alert = t.alert && t.alert.at && now() - t.alert.at < ALERT_S;
    if (alert) c.classList.add("alert");
    const h = el("h3");
    h.appendChild(el("span", "name", t.table));
    h.appendChild(el("span", "game", t.game ? (t.title || t.game) + (t.phase ? " · " + t.phase : "") : "no game"));
    c.appendChild(h);
    if (alert) c.appendChild(el("div", "flash", t.alert.text));
    const next = t.over ? ("Game over" + (t.winners.length ? ": " + t.winners.join(", ") + " won" : ""))
      : (t.to_move.length ? t.to_move.join(", ") + " to play" : (t.next || ""));
    c.appendChild(el("div", "next", next));
    const ul = el("ul", "players");
    for (const p of t.players || []) {
      const li = el("li", "p" + (p.to_move ? " moving" : "") + (t.over && p.rank === 1 ? " winner" : ""));
      li.appendChild(el("span", null, p.name + (p.rank ? " (#" + p.rank + ")" : "")));
      li.appendChild(el("span", "score", fmtScore(p, t.score_kind)));
      ul.appendChild(li);
    }
    c.appendChild(ul);
    const feed = el("ul", "hub-feed");
    for (const e of (t.feed || []).slice(0, 3)) feed.appendChild(el("li", e.alert ? "alert" : "", e.text));
    c.appendChild(feed);
    return c;
  }

  function render() {
    const box = $("tables");
    const keys = Array.from(tables.keys()).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    box.replaceChildren(...keys.map((k) => card(tables.get(k))));
    const all = Array.from(tables.values());
    const online = all.filter((t) => t.status === "online").length;
    const playing = all.filter((t) => t.players && t.players.length && !t.over).length;
    $("summary").textContent = all.length + " tables · " + online + " online · " + playing + (playing === 1 ? " game" : " games") + " in progress";
  }

  function broker(b) {
    if (!b) return;
    $("broker").textContent = b.connected ? "broker: connected" : "broker: not connected";
    const s = $("status");
    if (b.problem) { s.textContent = b.problem; s.classList.remove("hidden"); }
    else s.classList.add("hidden");
  }

  function take(list) {
    for (const t of list || []) tables.set(t.venue + "/" + t.table, t);
    render();
  }

  function fmtTime(t) {
    return t ? new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
  }

  async function loadResults() {
    let data;
    try { data = await (await fetch("/api/results")).json(); } catch (e) { return; }
    const sb = $("standings").querySelector("tbody");
    sb.replaceChildren(...data.standings.map((r) => {
      const tr = el("tr");
      for (const v of [r.player, r.games, r.wins, r.ranks.join(", "), r.mean_rank === null ? "" : r.mean_rank])
        tr.appendChild(el("td", null, v));
      return tr;
    }));
    const gb = $("games").querySelector("tbody");
    gb.replaceChildren(...data.games.slice().reverse().map((g) => {
      const tr = el("tr");
      const ranked = (g.players || []).slice().sort((a, b) => (a.rank || 99) - (b.rank || 99));
      const result = g.draw ? "draw: " + ranked.map((p) => p.name).join(", ")
        : ranked.map((p) => (p.rank ? p.rank + ". " : "") + p.name).join("  ");
      for (const v of [fmtTime(g.ended_at), g.table, g.title || g.game, result]) tr.appendChild(el("td", null, v));
      return tr;
    }));
  }

  function connect() {
    const es = new EventSource("/api/stream");
    es.addEventListener("open", () => { $("conn").textContent = "live"; $("conn").className = "conn conn-on"; });
    es.addEventListener("error", () => { $("conn").textContent = "offline"; $("conn").className = "conn conn-off"; });
    es.addEventListener("snapshot", (ev) => {
      const d = JSON.parse(ev.data);
      skew = d.now - Date.now() / 1000;
      tables.clear();
      take(d.tables);
      broker(d.broker);
      loadResults();
    });
    es.addEventListener("tables", (ev) => take(JSON.parse(ev.data).tables));
    es.addEventListener("results", () => loadResults());
    es.addEventListener("broker", (ev) => broker(JSON.parse(ev.data)));
  }

  setInterval(render, 2000);  // alerts fade after ALERT_S seconds
  connect();
})();
