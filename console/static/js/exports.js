// The Exports page: the workspace's tasks newest first in a compact table (project, status,
// progress, size, duration, credits, created, finished) with a status filter and a search,
// each task's detail on demand (its facts, error, webhook deliveries, download link and the
// video, with a poster frame and preload="none"). Kept live by the task events stream (or,
// on a server without it, by refreshing the list).
import { call, all, frame, sameOrigin } from "./api.js";
import { stream } from "./sse.js";
import { el, facts, errorBox, when, seconds, bytes, plural, announce, liveState, table, queue } from "./ui.js";

const ACTIVE = new Set(["PENDING", "PROCESSING", "PAUSED"]);
const META = "cutroom.exportRequests"; // what this tab asked for: output size and fps by task
const COLUMNS = ["Project", "Status", "Progress", "Size", "Duration (render)", "Credits", "Created", "Finished", "Detail"];
const FILTERS = [["", "All statuses"], ["active", "Active (pending, processing, paused)"], ["COMPLETED", "Completed"],
  ["FAILED", "Failed"], ["CANCELED", "Canceled"]];

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

// webhookSummary reads a task's deliveries into a line: each event's status and last error.
async function webhookSummary(t, signal) {
  if (!t.callbackUrl) return "No callback URL: no webhooks.";
  const rows = (await call("GET", `/v1/exports/${t.taskId}/webhooks`, undefined, { signal })).data || [];
  if (!rows.length) return "None sent yet.";
  return rows.map((d) => `${d.eventType}: ${d.status}` + (d.lastError ? ` (last error: ${d.lastError})` : "")).join("; ");
}

// exportsPage draws the list into root; focus names a task to open and highlight.
export async function exportsPage(root, signal, focus) {
  const status = el("select", { id: "export-status" }, FILTERS.map(([v, label]) => el("option", { value: v }, label)));
  const search = el("input", { type: "search", id: "export-search", placeholder: "Project, file name, task id or error…", autocomplete: "off" });
  const note = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const t = table("Export tasks, newest first", COLUMNS, { id: "exports" });
  root.replaceChildren(el("h1", { text: "Exports" }),
    el("div", { class: "card filters" },
      el("div", {}, el("label", { for: "export-status", text: "Status" }), status),
      el("div", {}, el("label", { for: "export-search", text: "Search" }), search)),
    note, el("div", { class: "wide" }, t.table));
  let tasks, projects;
  try {
    [tasks, projects] = await Promise.all([all("/v1/exports?pageSize=50", 4), all("/v1/projects?pageSize=50", 20)]);
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  if (signal.aborted) return;
  const titles = new Map(projects.map((p) => [p.projectId, p.title || "(untitled)"]));
  const heads = queue(3, signal); // HEAD requests for output sizes
  const rows = new Map(); // taskId -> row
  const matches = (r) => {
    const s = status.value;
    const x = r.task;
    if (s === "active" ? !ACTIVE.has(x.status) : s && x.status !== s) return false;
    const q = search.value.trim().toLowerCase();
    return !q || [r.project, x.filename, x.taskId, x.error, x.status].some((v) => (v || "").toLowerCase().includes(q));
  };
  const filter = () => {
    let shown = 0;
    for (const r of rows.values()) {
      const ok = matches(r);
      r.tr.hidden = !ok;
      r.detail.hidden = !ok || !r.open;
      if (ok) shown++;
    }
    note.textContent = rows.size === 0 ? "No exports yet: start one from a project's page."
      : `${shown} of ${rows.size} exports shown`;
  };
  const upsert = (task) => {
    let r = rows.get(task.taskId);
    if (r) {
      // A finished task never goes back: a list read or an event older than its end (they
      // can arrive after it) leaves it as it is.
      if (!ACTIVE.has(r.task.status) && ACTIVE.has(task.status)) return;
      r.draw(task);
      filter();
      return;
    }
    r = taskRow(task, { t, titles, heads, signal });
    rows.set(task.taskId, r);
    // Newest first: before the first shown task created earlier than this one.
    let before = null;
    for (const o of rows.values()) {
      if (o !== r && (o.task.createdAt || "") < (task.createdAt || "") && (!before || o.task.createdAt > before.task.createdAt)) before = o;
    }
    t.body.insertBefore(r.tr, before ? before.tr : null);
    t.body.insertBefore(r.detail, r.tr.nextSibling);
    if (task.taskId === focus) { r.toggle(true); r.tr.classList.add("highlight"); r.tr.scrollIntoView({ block: "center" }); }
    filter();
  };
  tasks.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)).forEach(upsert);
  filter();
  status.addEventListener("change", filter);
  search.addEventListener("input", filter);
  live(signal, upsert);
}

// taskRow draws one task's row and its detail row, and updates both in place, so a playing
// video keeps playing.
function taskRow(task, { t, titles, heads, signal }) {
  const info = recalled(task.taskId);
  const id = task.taskId;
  const badge = el("span", { class: "status" });
  const bar = el("progress", { max: 100, value: 0, "aria-label": `Progress of ${id}` });
  const pct = el("span", { class: "pct" });
  const size = el("td");
  const button = el("button", { type: "button", class: "secondary details", "aria-expanded": "false", "aria-controls": `d-${id}` }, "Details");
  const cells = { project: el("td", { class: "project" }), dur: el("td"), credits: el("td"), created: el("td"), finished: el("td") };
  const tr = t.row([cells.project, el("td", {}, badge), el("td", { class: "progress" }, bar, pct), size, cells.dur, cells.credits,
    cells.created, cells.finished, el("td", {}, button)], { "data-task": id });
  const panel = el("div", { class: "detail-body" });
  const detail = el("tr", { class: "detail", id: `d-${id}`, hidden: true }, el("td", { colspan: COLUMNS.length }, panel));
  const r = { tr, detail, task, open: false, project: "" };
  let shown = null;
  let bytesKnown = null;
  let video = null;
  let poster = null;
  let dims = info.width ? `${info.width}×${info.height}` : null;

  function draw(x) {
    if (shown && shown.status !== x.status) announce(`Export ${x.filename || x.taskId} is now ${x.status.toLowerCase()}.`);
    const changed = !shown || shown.status !== x.status || shown.exportPhase !== x.exportPhase || shown.completedAt !== x.completedAt;
    shown = r.task = x;
    tr.dataset.status = x.status;
    r.project = x.projectId ? titles.get(x.projectId) || "(deleted project)" : "Stateless export";
    cells.project.replaceChildren(el("div", {},
      x.projectId && titles.has(x.projectId) ? el("a", { href: `#/projects/${x.projectId}` }, r.project) : r.project,
      el("div", { class: "muted small", text: x.filename || x.taskId })));
    badge.className = `status ${x.status}`;
    badge.textContent = x.status;
    bar.value = Math.round(x.progress || 0);
    pct.textContent = `${Math.round(x.progress || 0)}%`;
    cells.dur.textContent = x.completedAt ? seconds(x.durationSeconds) : "—";
    cells.credits.textContent = x.chargedCredits ?? "—";
    cells.created.textContent = when(x.createdAt);
    cells.finished.textContent = when(x.completedAt);
    size.textContent = bytesKnown !== null ? bytes(bytesKnown) : "—";
    if (x.status === "COMPLETED" && x.outputUrl && bytesKnown === null) {
      bytesKnown = -1; // asked
      heads(async () => {
        const res = await fetch(sameOrigin(x.outputUrl), { method: "HEAD", credentials: "omit", signal });
        const n = Number(res.headers.get("Content-Length"));
        if (res.ok && n >= 0) { bytesKnown = n; size.textContent = bytes(n); }
      });
    }
    if (r.open && changed) drawDetail(x);
  }

  function drawDetail(x) {
    const fps = info.fps;
    const parts = [facts([
      ["Phase", x.exportPhase || (ACTIVE.has(x.status) ? "waiting" : "—")],
      ["Size", dims || "—"], ["FPS", fps ? String(fps) : "—"],
      ["Billed", x.billedStandardSeconds ? plural(x.billedStandardSeconds, "standard second") : "—"],
      ["File", x.filename || "—"], ["Task", x.taskId],
      ["Webhooks", el("span", { class: "webhooks", text: x.callbackUrl ? "reading…" : "No callback URL: no webhooks." })],
    ])];
    if (x.status === "FAILED") parts.push(errorBox(`This export failed: ${x.error || "no reason was recorded."}`));
    if (x.status === "COMPLETED" && x.outputUrl) {
      const src = sameOrigin(x.outputUrl);
      if (!video || video.dataset.src !== src) {
        video = el("video", { controls: true, preload: "none", src, "data-src": src, "aria-label": `Output of ${x.filename || x.taskId}` });
        video.addEventListener("loadedmetadata", () => {
          if (!dims && video.videoWidth) { dims = `${video.videoWidth}×${video.videoHeight}`; drawDetail(r.task); }
        });
        if (poster) video.poster = poster;
      }
      parts.push(video, el("div", { class: "actions" },
        el("a", { href: src, download: x.filename || "", class: "download" }, "Download ", x.filename || "")));
    }
    const acts = el("div", { class: "actions" });
    if (ACTIVE.has(x.status)) {
      const b = el("button", { type: "button", class: "danger cancel", "aria-label": `Cancel ${x.filename || x.taskId}` }, "Cancel");
      const err = el("p", { class: "error", role: "alert" });
      b.addEventListener("click", async () => {
        b.disabled = true;
        try {
          const res = await call("DELETE", `/v1/exports/${x.taskId}`, undefined, { signal });
          if (res.data && res.data.taskId) draw(res.data);
          announce(`Export ${x.filename || x.taskId} canceled.`);
        } catch (e) { err.textContent = e.message; b.disabled = false; }
      });
      acts.append(b, err);
    }
    acts.append(el("a", { href: `#/exports/${x.taskId}/webhooks` }, "Webhook deliveries"));
    parts.push(acts);
    panel.replaceChildren(...parts);
    if (x.callbackUrl) {
      const span = panel.querySelector(".webhooks");
      webhookSummary(x, signal).then((s) => { span.textContent = s; }, (e) => { span.textContent = e.message; });
    }
  }

  // loadPoster draws the project's first frame as the video's poster (a stateless export
  // has no project to draw from: the player shows its first frame once played).
  async function loadPoster() {
    if (poster !== null || !task.projectId) return;
    poster = "";
    try {
      poster = await frame(task.projectId, 0, 640, signal);
      signal.addEventListener("abort", () => URL.revokeObjectURL(poster), { once: true });
      if (video) video.poster = poster;
    } catch { /* the project is gone or busy: no poster */ }
  }

  r.toggle = (open = !r.open) => {
    r.open = open;
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? "Hide" : "Details";
    detail.hidden = !open || tr.hidden;
    if (open) { drawDetail(r.task); loadPoster(); }
  };
  button.addEventListener("click", () => r.toggle());
  r.draw = draw;
  draw(task);
  return r;
}

// live follows the task events; without the route it refreshes the list every 2 s.
function live(signal, upsert) {
  stream("/v1/exports/events", {
    signal,
    onEvent(ev) {
      if (ev.event !== "task.updated") return;
      let t;
      try { t = JSON.parse(ev.data); } catch { return; }
      if (t && t.data && t.data.taskId) t = t.data;
      if (t && t.task && t.task.taskId) t = t.task;
      if (t && t.taskId) upsert(t);
    },
    // Changes between the list's read and the stream's start (or a reconnect) come with no
    // event: each time the stream connects, the newest tasks are read once more.
    onState(text, ok) {
      liveState(ok ? "Live: task events connected" : text);
      if (ok) refresh(signal, upsert);
    },
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
    await refresh(signal, upsert);
  }
}

// refresh reads the newest tasks once and draws each; a failed read waits for the next.
async function refresh(signal, upsert) {
  try { (await call("GET", "/v1/exports?pageSize=50", undefined, { signal })).data.forEach(upsert); } catch { /* next time */ }
}
