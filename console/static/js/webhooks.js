// The webhook deliveries of one task, read from the server's outbox.
import { call } from "./api.js";
import { el, errorBox, when } from "./ui.js";

// DELIVERIES is the read-only route of a task's delivery attempts.
export const DELIVERIES = (taskId) => `/v1/exports/${taskId}/webhooks`;

export async function webhooksPage(root, signal, taskId) {
  root.replaceChildren(el("p", {}, el("a", { href: `#/exports/${taskId}` }, "← Exports")),
    el("h1", { text: "Webhook deliveries" }), el("p", { class: "muted", text: `Task ${taskId}` }));
  let rows;
  try {
    rows = (await call("GET", DELIVERIES(taskId), undefined, { signal })).data || [];
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  if (!rows.length) {
    root.append(el("p", { text: "No webhook deliveries for this task (it has no callbackUrl, or nothing was sent yet)." }));
    return;
  }
  const cell = (v) => el("td", { text: v === undefined || v === null || v === "" ? "—" : String(v) });
  root.append(el("table", { "aria-label": "Delivery attempts" },
    el("thead", {}, el("tr", {}, ...["Event", "Attempt", "Time", "Status code", "Result", "Next retry"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows.flatMap((d) => {
      const attempts = Array.isArray(d.attempts) ? d.attempts : [d];
      return attempts.map((a, i) => el("tr", {},
        cell(d.eventType), cell(a.attempt ?? (Array.isArray(d.attempts) ? i + 1 : d.attempts)),
        cell(when(a.at || a.attemptedAt || a.time || d.lastAttemptAt)),
        cell(a.statusCode ?? a.status), cell(a.error || a.lastError || d.state || (d.delivered ? "delivered" : "")),
        cell(when(d.nextAttemptAt || d.nextRetryAt))));
    }))));
}
