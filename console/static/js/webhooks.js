// The webhook deliveries of one task, read from the server's outbox
// (GET /v1/exports/{taskId}/webhooks): each event with its attempts and next retry.
import { call } from "./api.js";
import { el, facts, errorBox, when, table } from "./ui.js";

function attempts(d) {
  const list = d.attempts || [];
  if (!list.length) return el("p", { class: "muted", text: "No attempt yet." });
  const t = table(`Delivery attempts of ${d.eventType}`, ["Attempt", "Time", "Status code", "Error"]);
  t.body.append(...list.map((a, i) => t.row([String(i + 1), when(a.at), a.statusCode ? String(a.statusCode) : "—", a.error || "—"])));
  return t.table;
}

export async function webhooksPage(root, signal, taskId) {
  root.replaceChildren(el("p", {}, el("a", { href: `#/exports/${taskId}` }, "← Exports")),
    el("h1", { text: "Webhook deliveries" }), el("p", { class: "muted", text: `Task ${taskId}` }));
  let rows;
  try {
    rows = (await call("GET", `/v1/exports/${taskId}/webhooks`, undefined, { signal })).data || [];
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  if (!rows.length) {
    root.append(el("p", { text: "No webhook deliveries for this task: it has no callbackUrl, or no event was sent yet." }));
    return;
  }
  for (const d of rows) {
    const id = `wh-${d.eventId}`;
    root.append(el("section", { class: "card delivery", "data-status": d.status, "aria-labelledby": id },
      el("h2", { id }, `${d.eventType} `, el("span", { class: `status ${d.status === "DELIVERED" ? "COMPLETED" : d.status}`, text: d.status })),
      facts([["To", d.url], ["Created", when(d.createdAt)], ["Delivered", when(d.deliveredAt)],
        ["Next retry", d.status === "PENDING" ? when(d.nextAttemptAt) : "—"], ["Last error", d.lastError || "—"],
        ["Event", d.eventId]]),
      attempts(d)));
  }
}
