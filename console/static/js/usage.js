// The Usage page: the credits the workspace's exports charged per day (GET /v1/usage), as
// a table with a bar per day; refunded (failed, canceled) exports count 0.
import { call } from "./api.js";
import { el, errorBox, table, plural } from "./ui.js";

const WINDOWS = [7, 30, 92];

export async function usagePage(root, signal) {
  const days = el("select", { id: "usage-days" }, WINDOWS.map((d) => el("option", { value: d, selected: d === 30 }, `Last ${d} days`)));
  const total = el("p", { class: "total", id: "usage-total", role: "status", "aria-live": "polite" });
  const out = el("div", { class: "wide" });
  root.replaceChildren(el("h1", { text: "Usage" }),
    el("div", { class: "card" }, el("label", { for: "usage-days", text: "Window (UTC days, ending today)" }), days, total,
      el("p", { class: "muted", text: "Credits are charged when an export is created and refunded when it fails or is canceled; a day counts the exports created that day." })),
    out);
  const draw = async () => {
    let r;
    try { r = await call("GET", `/v1/usage?days=${days.value}`, undefined, { signal }); } catch (e) { out.replaceChildren(errorBox(e)); return; }
    if (signal.aborted) return;
    const rows = (r.data || []).slice().reverse(); // today first
    const most = Math.max(1, ...rows.map((d) => Number(d.chargedCredits)));
    const t = table("Credits charged per day, newest first", ["Day", "Credits", "Bar", "Exports", "Completed"], { id: "usage" });
    t.body.append(...rows.map((d) => t.row([d.date, d.chargedCredits,
      el("meter", { min: 0, max: most, value: Number(d.chargedCredits), "aria-label": `${d.chargedCredits} credits on ${d.date}` }),
      String(d.exports), String(d.completed)], { "data-date": d.date })));
    total.textContent = `${plural(r.meta.chargedCredits, "credit")} charged in the last ${r.meta.days} days.`;
    out.replaceChildren(t.table);
  };
  days.addEventListener("change", draw);
  draw();
}
