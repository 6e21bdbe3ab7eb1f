/* Pawn counts by size with big − / + buttons (nobody types): the no-fall card, the confirm-fall form and
   the Corrections dialog's fall form. A count stays between 0 and the most of its size that can have
   fallen; the caller owns the counts object, so the taps are kept when it draws the rows again. */
"use strict";

window.DingoCounts = (function () {
  const SIZES = ["small", "medium", "large"];

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

  return { SIZES, rows };
})();
