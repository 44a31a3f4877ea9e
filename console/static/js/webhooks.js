// The webhook deliveries of one task, read from the server's outbox
// (GET /v1/exports/{taskId}/webhooks): each event with its attempts and next retry.
import { call } from "./api.js";
import { el, facts, errorBox, when } from "./ui.js";

function attempts(d) {
  const list = d.attempts || [];
  if (!list.length) return el("p", { class: "muted", text: "No attempt yet." });
  return el("table", { "aria-label": `Delivery attempts of ${d.eventType}` },
    el("thead", {}, el("tr", {}, ...["Attempt", "Time", "Status code", "Error"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, list.map((a, i) => el("tr", {},
      el("td", { text: String(i + 1) }), el("td", { text: when(a.at) }),
      el("td", { text: a.statusCode ? String(a.statusCode) : "—" }), el("td", { text: a.error || "—" })))));
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
