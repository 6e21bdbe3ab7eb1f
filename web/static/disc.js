/* The disc drawn to scale in SVG: zones, rings, numbers, pawns, centre of pressure. */
"use strict";

window.DingoDisc = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const COLOURS = {
    red: "#d62828", yellow: "#f2c200", green: "#2b9348", blue: "#1f5fbf",
    purple: "#7b3fa0", orange: "#f07c00",
  };
  const PAWN_R = { small: 7, medium: 9.5, large: 12 };
  const DEFAULT_LAYOUT = {
    radius_mm: 150, zones: ["red", "yellow", "green", "blue", "purple", "orange"], start_deg: 0,
    ring_edges_mm: [25, 49, 73, 97, 121, 145], numbers: [2, 3, 4, 5, 6],
  };

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  // disc frame (mm, y up, angles counter-clockwise) -> SVG (y down)
  function pt(r, deg) {
    const a = (deg * Math.PI) / 180;
    return [r * Math.cos(a), -r * Math.sin(a)];
  }

  function sectorPath(r0, r1, a0, a1) {
    const [x0, y0] = pt(r1, a0), [x1, y1] = pt(r1, a1);
    const [x2, y2] = pt(r0, a1), [x3, y3] = pt(r0, a0);
    const large = a1 - a0 > 180 ? 1 : 0;
    return `M${x0},${y0} A${r1},${r1} 0 ${large} 0 ${x1},${y1} L${x2},${y2} ` +
           `A${r0},${r0} 0 ${large} 1 ${x3},${y3} Z`;
  }

  function colourOf(name) { return COLOURS[name] || name || "#999"; }

  /* Draw the static disc once per layout; returns the layer for dynamic content. */
  function build(svg, layout, onPick) {
    layout = layout || DEFAULT_LAYOUT;
    const key = JSON.stringify(layout);
    if (svg.dataset.layout === key) return svg.querySelector("#disc-dyn");
    svg.dataset.layout = key;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const R = layout.radius_mm;
    svg.setAttribute("viewBox", `${-R - 15} ${-R - 15} ${2 * R + 30} ${2 * R + 30}`);
    el("circle", { cx: 0, cy: 0, r: R, class: "rim" }, svg);
    const posLayer = el("g", { id: "disc-pos" }, svg);
    const numLayer = el("g", { id: "disc-num" }, svg);
    const n = layout.zones.length, w = 360 / n, edges = layout.ring_edges_mm;
    layout.zones.forEach((zone, k) => {
      const a0 = layout.start_deg + k * w, a1 = a0 + w;
      for (let i = 0; i < edges.length - 1; i++) {
        const path = el("path", {
          d: sectorPath(edges[i], edges[i + 1], a0, a1), fill: colourOf(zone),
          class: "pos " + (i % 2 ? "pos-odd" : "pos-even"),
          "data-zone": zone, "data-number": layout.numbers[i],
        }, posLayer);
        const title = el("title", {}, path);
        title.textContent = `${zone} ${layout.numbers[i]}`;
        path.addEventListener("click", () => onPick && onPick(zone, layout.numbers[i]));
        const [tx, ty] = pt((edges[i] + edges[i + 1]) / 2, a0 + w / 2);
        const t = el("text", { x: tx, y: ty, class: "pos-num" }, numLayer);
        t.textContent = layout.numbers[i];
      }
    });
    el("circle", { cx: 0, cy: 0, r: edges[0], class: "centre" }, svg);
    const dyn = el("g", { id: "disc-dyn" }, svg);
    return dyn;
  }

  function zoneCentre(layout, zone, number) {
    const k = layout.zones.indexOf(zone), i = layout.numbers.indexOf(number);
    if (k < 0 || i < 0) return null;
    const w = 360 / layout.zones.length, e = layout.ring_edges_mm;
    return pt((e[i] + e[i + 1]) / 2, layout.start_deg + (k + 0.5) * w);
  }

  /* Redraw pawns, the rolled target and the live centre of pressure. */
  function draw(svg, layout, state, sensing, onPick) {
    layout = layout || DEFAULT_LAYOUT;
    const dyn = build(svg, layout, onPick);
    while (dyn.firstChild) dyn.removeChild(dyn.firstChild);
    const expected = (state && state.expected) || {};
    svg.querySelectorAll(".pos.target").forEach((p) => p.classList.remove("target"));
    if (expected.zone && expected.number) {
      const p = svg.querySelector(`.pos[data-zone="${expected.zone}"][data-number="${expected.number}"]`);
      if (p) { p.classList.add("target"); p.parentNode.appendChild(p); }  // on top: its outline shows whole
    }
    let pawns = (sensing && sensing.pawns) || [];
    let sensed = true;
    if (!pawns.length && state && state.disc_pawns) { pawns = state.disc_pawns; sensed = false; }
    pawns.forEach((p, idx) => {
      let xy = null;
      if (typeof p.x_mm === "number" && typeof p.y_mm === "number") xy = [p.x_mm, -p.y_mm];
      else if (p.zone && p.number) {
        xy = zoneCentre(layout, p.zone, p.number);
        if (xy) xy = [xy[0] + ((idx % 3) - 1) * 6, xy[1] + ((idx % 2) ? 5 : -5)];
      }
      if (!xy) return;
      el("circle", { cx: xy[0], cy: xy[1], r: PAWN_R[p.size] || 9,
        class: "pawn pawn-" + (p.size || "medium") + (sensed ? "" : " pawn-typed") }, dyn);
    });
    const cop = sensing && sensing.cop_mm;
    if (cop && cop.length === 2) drawCop(dyn, cop);
  }

  function drawCop(layer, cop) {
    const g = el("g", { class: "cop", transform: `translate(${cop[0]},${-cop[1]})` }, layer);
    el("circle", { r: 6 }, g);
    el("line", { x1: -11, y1: 0, x2: 11, y2: 0 }, g);
    el("line", { x1: 0, y1: -11, x2: 0, y2: 11 }, g);
  }

  /* Only move the centre-of-pressure mark (live messages, ~10 per second). */
  function live(svg, sensing) {
    const dyn = svg.querySelector("#disc-dyn");
    if (!dyn) return;
    const old = dyn.querySelector(".cop");
    if (old) old.remove();
    const cop = sensing && sensing.cop_mm;
    if (cop && cop.length === 2) drawCop(dyn, cop);
  }

  return { draw, live, COLOURS, colourOf, DEFAULT_LAYOUT };
})();
