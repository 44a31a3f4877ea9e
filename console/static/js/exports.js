// The Exports page: the workspace's tasks newest first, kept live by the task events
// stream (or, on a server without it, by refreshing the list).
import { call, all, sameOrigin } from "./api.js";
import { stream } from "./sse.js";
import { el, facts, errorBox, when, seconds, announce, liveState } from "./ui.js";

const ACTIVE = new Set(["PENDING", "PROCESSING", "PAUSED"]);
const META = "cutroom.exportRequests"; // what this tab asked for: output size and fps by task

// remember keeps the output size and fps of an export this tab created (tasks do not
// repeat their request).
export function remember(taskId, info) {
  const m = JSON.parse(sessionStorage.getItem(META) || "{}");
  m[taskId] = info;
  sessionStorage.setItem(META, JSON.stringify(m));
}

function recalled(taskId) {
  return JSON.parse(sessionStorage.getItem(META) || "{}")[taskId] || {};
}

// taskCard draws one task and updates itself in place, so a playing video keeps playing.
function taskCard(task, signal) {
  const info = recalled(task.taskId);
  const status = el("span", { class: "status" });
  const title = el("h2", { id: `t-${task.taskId}` });
  const bar = el("progress", { max: 100, value: 0, "aria-labelledby": `t-${task.taskId}` });
  const pct = el("span", { class: "pct" });
  const details = el("div");
  const side = el("div", { class: "side" });
  const card = el("li", { class: "card task", "data-task": task.taskId, "aria-labelledby": `t-${task.taskId}` },
    el("div", {}, title, el("div", { class: "actions" }, bar, pct), details), side);
  let shown = null; // the last task drawn
  let video = null;
  let size = info.width ? `${info.width}×${info.height}` : null;

  function draw(t) {
    if (shown && shown.status === t.status && shown.progress === t.progress && shown.exportPhase === t.exportPhase &&
      shown.completedAt === t.completedAt) return;
    if (shown && shown.status !== t.status) announce(`Export ${t.filename || t.taskId} is now ${t.status.toLowerCase()}.`);
    shown = t;
    card.dataset.status = t.status;
    status.className = `status ${t.status}`;
    status.textContent = t.status;
    title.replaceChildren(t.filename || t.taskId, " ", status);
    bar.value = Math.round(t.progress || 0);
    pct.textContent = `${Math.round(t.progress || 0)}%`;
    const fps = t.fps || info.fps;
    const sz = t.width && t.height ? `${t.width}×${t.height}` : size;
    details.replaceChildren(facts([
      ["Phase", t.exportPhase || (ACTIVE.has(t.status) ? "waiting" : "—")],
      ["Size", sz || "—"],
      ["FPS", fps ? String(fps) : "—"],
      ["Credits", t.chargedCredits],
      ["Created", when(t.createdAt)],
      ["Finished", when(t.completedAt)],
      ["Render time", t.completedAt ? seconds(t.durationSeconds) : "—"],
      ["Task", t.taskId],
      ["Project", t.projectId ? el("a", { href: `#/projects/${t.projectId}` }, "open the project") : "— (stateless export)"],
    ]), t.status === "FAILED" ? errorBox(`This export failed: ${t.error || "no reason was recorded."}`) : "");
    drawSide(t);
  }

  function drawSide(t) {
    const parts = [];
    if (t.status === "COMPLETED" && t.outputUrl) {
      const src = sameOrigin(t.outputUrl);
      if (!video || video.dataset.src !== src) {
        video = el("video", { controls: true, preload: "auto", src, "data-src": src,
          "aria-label": `Output of ${t.filename || t.taskId}` });
        video.addEventListener("loadedmetadata", () => {
          if (!size && video.videoWidth) { size = `${video.videoWidth}×${video.videoHeight}`; shown = null; draw(t); }
        });
      }
      parts.push(video, el("div", { class: "actions" },
        el("a", { href: src, download: t.filename || "", class: "download" }, "Download ", t.filename || "")));
    }
    const acts = el("div", { class: "actions" });
    if (ACTIVE.has(t.status)) {
      const b = el("button", { type: "button", class: "danger cancel", "aria-label": `Cancel ${t.filename || t.taskId}` }, "Cancel");
      const err = el("p", { class: "error", role: "alert" });
      b.addEventListener("click", async () => {
        b.disabled = true;
        try {
          const r = await call("DELETE", `/v1/exports/${t.taskId}`, undefined, { signal });
          if (r.data && r.data.taskId) draw(r.data);
          announce(`Export ${t.filename || t.taskId} canceled.`);
        } catch (e) { err.textContent = e.message; b.disabled = false; }
      });
      acts.append(b, err);
    }
    acts.append(el("a", { href: `#/exports/${t.taskId}/webhooks` }, "Webhook deliveries"));
    parts.push(acts);
    side.replaceChildren(...parts);
  }

  draw(task);
  return { card, draw };
}

// exportsPage draws the list into root; focus names a task to highlight.
export async function exportsPage(root, signal, focus) {
  const list = el("ul", { class: "tasks", "aria-label": "Export tasks, newest first" });
  const note = el("p", { class: "muted", role: "status" });
  root.replaceChildren(el("h1", { text: "Exports" }), note, list);
  const cards = new Map();
  const upsert = (t) => {
    let c = cards.get(t.taskId);
    if (c) { c.draw(t); return; }
    c = taskCard(t, signal);
    cards.set(t.taskId, c);
    // Newest first: before the first shown task created earlier than this one.
    let before = null;
    for (const o of list.children) {
      const other = cards.get(o.dataset.task);
      if (other && (other.createdAt || "") < (t.createdAt || "")) { before = o; break; }
    }
    c.createdAt = t.createdAt;
    list.insertBefore(c.card, before);
    if (t.taskId === focus) highlight(c.card);
  };
  let tasks;
  try {
    tasks = await all("/v1/exports?pageSize=50", 4);
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  if (signal.aborted) return;
  tasks.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)).forEach(upsert);
  note.textContent = tasks.length ? "" : "No exports yet: start one from a project's page.";
  live(signal, upsert, note);
}

function highlight(card) {
  card.classList.add("highlight");
  card.scrollIntoView({ block: "center" });
}

// live follows the task events; without the route it refreshes the list every 2 s.
function live(signal, upsert, note) {
  stream("/v1/exports/events", {
    signal,
    onEvent(ev) {
      if (ev.event !== "task.updated") return;
      let t;
      try { t = JSON.parse(ev.data); } catch { return; }
      if (t && t.data && t.data.taskId) t = t.data;
      if (t && t.task && t.task.taskId) t = t.task;
      if (t && t.taskId) { note.textContent = ""; upsert(t); }
    },
    onState(text, ok) { liveState(ok ? "Live: task events connected" : text); },
    onUnavailable(err) {
      liveState(`Live updates are not available (${err.message}); refreshing every 2 seconds.`);
      poll(signal, upsert);
    },
  });
}

async function poll(signal, upsert) {
  while (!signal.aborted) {
    await new Promise((r) => setTimeout(r, 2000));
    if (signal.aborted) return;
    try { (await call("GET", "/v1/exports?pageSize=50", undefined, { signal })).data.forEach(upsert); } catch { /* next round */ }
  }
}
