/* The calibration wizard's dialog (host only): app.js calls DingoCalib.wire({ h, api, toast, csrf }). */
"use strict";

window.DingoCalib = (function () {
  const $ = (id) => document.getElementById(id);
  let E = null;

  async function calibGet() {
    const headers = E.csrf() ? { "X-CSRF-Token": E.csrf() } : {};
    try {
      const r = await fetch("/api/calibration", { headers, credentials: "same-origin" });
      const d = await r.json();
      if (!r.ok) { E.toast(d.error || `error ${r.status}`, true); return null; }
      return d;
    } catch (e) { E.toast("The companion does not answer: " + e.message, true); return null; }
  }
  function renderCalib(st) {
    if (!st) return;
    const show = (id, on) => $(id).classList.toggle("hidden", !on);
    $("calib-instruction").textContent = st.instruction;
    show("calib-sim", st.simulated);
    show("calib-start", !st.active);
    show("calib-read", st.active && st.step !== "done");
    show("calib-save", st.step === "done");
    show("calib-cancel", st.active);
    $("calib-problem").textContent = st.problem || "";
    show("calib-problem", !!st.problem);
    const r = st.result;
    $("calib-result").textContent = r ? [
      `offsets:         ${r.offsets.join(", ")}`,
      `counts per gram: ${r.counts_per_gram.join(", ")}`,
      `pawn masses (g): ${Object.entries(r.pawn_mass_g).map(([k, v]) => `${k} ${v}`).join(", ")}`,
      st.saved_to ? `saved to ${st.saved_to}` : `will be saved to ${st.save_path}`].join("\n") : "";
    show("calib-result", !!r);
    $("calib-messages").replaceChildren(...st.messages.map((m) =>
      E.h("li", { class: /(^|: )error:/.test(m) ? "bad" : /warning:/.test(m) ? "warn" : "" }, m)));
  }
  async function openCalib() {
    renderCalib(await calibGet());
    $("calib").showModal();
  }
  async function calibDo(path, body, button) {
    const b = button ? $(button) : null;
    const label = b ? b.textContent : "";
    if (b) { b.disabled = true; b.textContent = "Reading…"; }
    try { renderCalib(await E.api(`/api/calibration/${path}`, body)); }
    finally { if (b) { b.disabled = false; b.textContent = label; } }
  }

  function wire(env) {
    E = env;
    $("calib-btn").addEventListener("click", openCalib);
    $("calib-begin").addEventListener("click", () =>
      calibDo("start", { weight_g: parseFloat($("calib-weight").value) }));
    $("calib-read").addEventListener("click", () => calibDo("read", {}, "calib-read"));
    $("calib-save").addEventListener("click", () => calibDo("save", {}));
    $("calib-cancel").addEventListener("click", () => calibDo("cancel", {}));
  }

  return { wire };
})();
