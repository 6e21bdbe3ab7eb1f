/* Pawn counts by size with big − / + buttons (nobody types): the no-fall card, the confirm-fall form and
   the Corrections dialog's fall form. A count stays between 0 and the most of its size that can have
   fallen; the caller owns the counts object, so the taps are kept when it draws the rows again. */
"use strict";

window.DingoCounts = (function () {
  const SIZES = ["small", "medium", "large"];
  const UNKNOWN_MOST = 40;   // the typed inputs' old bound

  /* env: { h, btn }; counts: size -> count (changed in place); most: size -> the largest count allowed.
     Only the sizes of which at least one can have fallen get a row. */
  function rows(env, counts, most) {
    return env.h("div", { class: "tap-counts" }, SIZES.filter((s) => most(s) > 0).map((s) => {
      if ((counts[s] || 0) > most(s)) counts[s] = most(s);   // the disc holds fewer now
      const shown = env.h("span", { class: "tap-count", "data-size": s, "aria-live": "polite" }, String(counts[s] || 0));
      const step = (d) => () => {
        counts[s] = Math.max(0, Math.min(most(s), (counts[s] || 0) + d));
        shown.textContent = String(counts[s]);
      };
      const tap = (label, d, cls, says) => {
        const b = env.btn(label, step(d), "tap-btn " + cls);
        b.setAttribute("aria-label", says);
        return b;
      };
      return env.h("div", { class: "tap-row", "data-size": s },
        env.h("span", { class: "tap-size" }, env.h("span", { class: "pawn-icon pawn-" + s }), `${s} fell`),
        tap("−", -1, "tap-minus", `one ${s} less`), shown, tap("+", 1, "tap-plus", `one ${s} more`));
    }));
  }

  /* A fall to confirm or correct: its counts, whether the pawn just placed fell too, and the button that
     sends them. held: { pawns, placed } (kept by the caller); onSend(pawns of every size, placed). */
  function fallForm(env, held, most, label, onSend) {
    const placed = env.h("input", { type: "checkbox", class: "placed-box" });
    placed.checked = held.placed;
    placed.addEventListener("change", () => { held.placed = placed.checked; });
    return env.h("div", { class: "fall-form" }, rows(env, held.pawns, most),
      env.h("label", { class: "count placed" }, placed, "the pawn just placed fell too"),
      env.btn(label, () => onSend(Object.fromEntries(SIZES.map((s) => [s, held.pawns[s] || 0])), placed.checked), "big"));
  }

  /* What the disc held before the fall the state is about (the most of a size that can have fallen in
     it), or, when the page does not know it, a bound the rules check anyway. */
  function mostBefore(state) {
    const base = state.last_fall && state.last_fall.base && state.last_fall.base.disc;
    if (base) return (s) => base[s] || 0;
    const pending = (state.pending_fall && state.pending_fall.pawns) || null;
    if (pending) return (s) => ((state.disc || {})[s] || 0) + (pending[s] || 0);
    return () => UNKNOWN_MOST;
  }

  return { SIZES, rows, fallForm, mostBefore };
})();
