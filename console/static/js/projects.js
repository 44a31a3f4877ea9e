// The Projects pages: the list with a title search, and a project's page (metadata, a
// summary of its state, a frame preview with a time slider, an export form).
import { call, all, raw } from "./api.js";
import { el, facts, errorBox, when, seconds, bytes, announce } from "./ui.js";
import { remember } from "./exports.js";

export async function projectsPage(root, signal) {
  const search = el("input", { type: "search", id: "project-search", placeholder: "Title contains…", autocomplete: "off" });
  const body = el("tbody");
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  root.replaceChildren(el("h1", { text: "Projects" }),
    el("div", { class: "card" }, el("label", { for: "project-search", text: "Search by title" }), search, count),
    el("table", { "aria-label": "Projects" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Title" }), el("th", { scope: "col", text: "Updated" }),
        el("th", { scope: "col", text: "Created" }), el("th", { scope: "col", text: "Description" }))), body));
  let projects;
  try {
    projects = await all("/v1/projects?pageSize=50", 20);
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  if (signal.aborted) return;
  const draw = () => {
    const q = search.value.trim().toLowerCase();
    const shown = projects.filter((p) => !q || (p.title || "").toLowerCase().includes(q));
    body.replaceChildren(...shown.map((p) => el("tr", {},
      el("td", {}, el("a", { href: `#/projects/${p.projectId}` }, p.title || "(untitled)")),
      el("td", { text: when(p.updatedAt) }), el("td", { text: when(p.createdAt) }),
      el("td", { text: p.description || "" }))));
    count.textContent = projects.length === 0 ? "No projects yet: create them through the API."
      : `${shown.length} of ${projects.length} projects`;
  };
  search.addEventListener("input", draw);
  draw();
}

// summarize reads the parts of an editor state the page shows.
export function summarize(state) {
  const s = state || {};
  const tb = s.timebaseTicksPerSecond || 1;
  const items = Object.values(s.items || {});
  const byType = {};
  let end = 0;
  for (const it of items) {
    byType[it.type || "unknown"] = (byType[it.type || "unknown"] || 0) + 1;
    end = Math.max(end, (Number(it.startTicks) || 0) + (Number(it.durationTicks) || 0));
  }
  return { width: s.compositionWidth, height: s.compositionHeight, duration: end / tb,
    tracks: (s.tracks || []).length, items: items.length, byType, assets: s.assets || {} };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function keyFromURL(u) {
  try { const p = new URL(u, location.href).pathname; const i = p.indexOf("/files/"); return i < 0 ? "" : p.slice(i + 7); } catch { return ""; }
}

// resolution says, in words, how the server will find an editor asset for a render.
async function resolution(a, uploaded, signal) {
  if ((a.remoteKey && uploaded.keys.has(a.remoteKey)) || uploaded.ids.has(a.id) ||
    (a.remoteUrl && uploaded.keys.has(keyFromURL(a.remoteUrl)))) return [true, "uploaded to this project"];
  if (UUID.test(a.id || "")) {
    try { await call("GET", `/v1/assets/${a.id}`, undefined, { signal }); return [true, "uploaded to this workspace"]; } catch { /* not ours */ }
  }
  if (Array.isArray(a.captions)) return [true, "inline captions"];
  if (a.remoteUrl && /^https?:/i.test(a.remoteUrl)) return [null, "remote URL: fetched at export if the server allows remote assets"];
  return [false, "does not resolve: no uploaded file matches it"];
}

function even(n) { return Math.max(2, 2 * Math.round(n / 2)); }

const RATIOS = { "16:9": 16 / 9, "9:16": 9 / 16, "1:1": 1, "4:3": 4 / 3, "3:4": 3 / 4 };

function ratioOf(w, h) {
  for (const [k, r] of Object.entries(RATIOS)) if (Math.abs(w / h - r) / r < 0.01) return k;
  return "custom";
}

export async function projectPage(root, signal, id) {
  root.replaceChildren(el("p", { class: "muted", text: "Loading the project…" }));
  let p, bound;
  try {
    p = (await call("GET", `/v1/projects/${id}`, undefined, { signal })).data;
    bound = await all(`/v1/projects/${id}/assets?pageSize=100`, 5).catch(() => []);
  } catch (e) {
    root.replaceChildren(el("h1", { text: "Project" }), errorBox(e));
    return;
  }
  const sum = summarize(p.editorState);
  const uploaded = { keys: new Set(bound.map((a) => a.fileKey)), ids: new Set(bound.map((a) => a.assetId)) };
  const assetRows = el("tbody");
  root.replaceChildren(
    el("p", {}, el("a", { href: "#/projects" }, "← Projects")),
    el("h1", { text: p.title || "(untitled)" }),
    el("div", { class: "grid2" },
      el("section", { class: "card", "aria-labelledby": "meta-h" }, el("h2", { id: "meta-h", text: "Project" }),
        facts([["Description", p.description || "—"], ["Created", when(p.createdAt)], ["Updated", when(p.updatedAt)],
          ["State version", p.stateVersion || "—"], ["Project id", p.projectId]])),
      el("section", { class: "card", "aria-labelledby": "sum-h" }, el("h2", { id: "sum-h", text: "State" }),
        facts([["Size", sum.width ? `${sum.width}×${sum.height}` : "—"], ["Duration", seconds(sum.duration)],
          ["Tracks", String(sum.tracks)], ["Items", `${sum.items}` + (sum.items ? ": " +
            Object.entries(sum.byType).map(([k, v]) => `${v} ${k}`).join(", ") : "")],
          ["Assets", String(Object.keys(sum.assets).length)]]))),
    previewCard(id, sum, signal),
    exportCard(id, sum, signal),
    el("section", { class: "card", "aria-labelledby": "assets-h" }, el("h2", { id: "assets-h", text: "Assets of the state" }),
      el("table", {}, el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Asset" }), el("th", { scope: "col", text: "Type" }),
        el("th", { scope: "col", text: "Resolves" }), el("th", { scope: "col", text: "Size" }))), assetRows)));
  if (!Object.keys(sum.assets).length) assetRows.append(el("tr", {}, el("td", { colspan: 4, text: "This state uses no assets." })));
  for (const [key, a] of Object.entries(sum.assets)) {
    const cell = el("td", { text: "checking…" });
    assetRows.append(el("tr", {}, el("td", { text: a.filename || key }), el("td", { text: a.type || "—" }), cell,
      el("td", { text: bytes(a.size) })));
    resolution({ ...a, id: a.id || key }, uploaded, signal).then(([ok, words]) => {
      cell.textContent = (ok === true ? "✓ yes, " : ok === false ? "✗ no, " : "? ") + words;
      cell.className = ok === false ? "error" : "";
    });
  }
}

// previewCard shows GET /v1/projects/{id}/frame at the slider's time.
function previewCard(id, sum, signal) {
  const max = Math.max(0, sum.duration);
  const img = el("img", { id: "preview-img", alt: "Frame preview at 0 seconds", hidden: true });
  const out = el("output", { id: "preview-time", for: "preview-slider", text: "0.00 s" });
  const slider = el("input", { type: "range", id: "preview-slider", min: 0, max: max.toFixed(3), step: 0.05, value: 0 });
  const err = el("p", { class: "error", role: "alert" });
  let inflight = null;
  let timer = null;
  let url = null;
  const load = async () => {
    const t = Number(slider.value);
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    signal.addEventListener("abort", () => ctl.abort(), { once: true });
    try {
      const res = await raw("GET", `/v1/projects/${id}/frame?t=${t.toFixed(3)}&width=640&format=jpeg`, { signal: ctl.signal });
      const blob = await res.blob();
      if (ctl.signal.aborted) return;
      if (url) URL.revokeObjectURL(url);
      url = URL.createObjectURL(blob);
      img.src = url;
      img.hidden = false;
      img.alt = `Frame preview at ${t.toFixed(2)} seconds`;
      img.dataset.t = t.toFixed(3);
      err.textContent = "";
    } catch (e) {
      if (e.name !== "AbortError") err.textContent = `The preview could not be drawn: ${e.message}`;
    }
  };
  slider.addEventListener("input", () => {
    out.textContent = `${Number(slider.value).toFixed(2)} s`;
    clearTimeout(timer);
    timer = setTimeout(load, 120);
  });
  signal.addEventListener("abort", () => { clearTimeout(timer); if (url) URL.revokeObjectURL(url); });
  load();
  return el("section", { class: "card preview", "aria-labelledby": "prev-h" }, el("h2", { id: "prev-h", text: "Frame preview" }),
    img, el("label", { for: "preview-slider" }, "Time ", out), slider, err);
}

// exportCard starts an export of the saved state and jumps to it on the Exports page.
function exportCard(id, sum, signal) {
  const sel = (name, label, opts, value) => [el("label", { for: `x-${name}`, text: label }),
    el("select", { id: `x-${name}`, name }, opts.map((o) => el("option", { value: o, selected: o === value }, o)))];
  const scale = el("input", { type: "number", id: "x-scale", name: "scale", min: 0.6, max: 8, step: 0.1, value: 1 });
  const err = el("p", { class: "error", role: "alert" });
  const button = el("button", { type: "submit", id: "x-start" }, "Start export");
  const ratio = sum.width && sum.height ? ratioOf(sum.width, sum.height) : "16:9";
  const form = el("form", { "aria-labelledby": "exp-h" },
    el("div", { class: "form-row" },
      el("div", {}, ...sel("format", "Format", ["mp4", "webm"], "mp4")),
      el("div", {}, ...sel("fps", "Frames per second", ["30", "60"], "30")),
      el("div", {}, el("label", { for: "x-scale", text: "Scale (0.6 to 8)" }), scale),
      el("div", {}, ...sel("ratio", "Ratio", ["16:9", "9:16", "1:1", "4:3", "3:4", "custom"], ratio))),
    button, err);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const body = { format: f.get("format"), fps: Number(f.get("fps")), scale: Number(f.get("scale")), ratio: f.get("ratio") };
    button.disabled = true;
    err.textContent = "";
    try {
      const r = (await call("POST", `/v1/projects/${id}/exports`, body, { signal })).data;
      if (sum.width) remember(r.taskId, { width: even(sum.width * body.scale), height: even(sum.height * body.scale), fps: body.fps });
      announce("Export started.");
      location.hash = `#/exports/${r.taskId}`;
    } catch (x) {
      err.textContent = `The export was not started: ${x.message}`;
      button.disabled = false;
    }
  });
  return el("section", { class: "card", "aria-labelledby": "exp-h" }, el("h2", { id: "exp-h", text: "Export" }), form);
}
