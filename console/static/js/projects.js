// The Projects pages: the list (a thumbnail of each, a search, a form that creates a project
// from an example state or a state file), and a project's page (metadata, rename, edit the
// description, delete, a summary of its state, a frame preview with a time slider, an
// export form).
import { call, all, frame } from "./api.js";
import { el, facts, errorBox, when, seconds, bytes, announce, table, queue } from "./ui.js";
import { remember } from "./exports.js";

// thumbnails loads frame previews (t=0) of the projects whose rows come into view, a few at
// a time; the blob URLs go when the page is left.
function thumbnails(signal) {
  const run = queue(2, signal);
  const urls = [];
  signal.addEventListener("abort", () => urls.forEach((u) => URL.revokeObjectURL(u)));
  const seen = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      seen.unobserve(e.target);
      const img = e.target;
      run(async () => {
        const u = await frame(img.dataset.project, 0, 160, signal);
        urls.push(u);
        img.src = u;
      });
    }
  });
  signal.addEventListener("abort", () => seen.disconnect());
  return (p) => {
    const img = el("img", { class: "thumb", alt: `First frame of ${p.title || "(untitled)"}`, "data-project": p.projectId, width: 96, height: 54 });
    seen.observe(img);
    return img;
  };
}

// examples lists the example states the console carries (static/examples/index.json).
async function examples() {
  try {
    const res = await fetch("/console/examples/index.json", { cache: "no-cache", credentials: "omit" });
    return res.ok ? await res.json() : [];
  } catch { return []; }
}

// readState reads a state file the operator picked: a JSON object, or the editorState of a
// project as GET /v1/projects/{id} answers it.
async function readState(file) {
  if (file.size > 8 << 20) throw new Error(`${file.name} is larger than 8 MiB.`);
  let v;
  try { v = JSON.parse(await file.text()); } catch (e) { throw new Error(`${file.name} is not JSON: ${e.message}`); }
  if (v && v.data && v.data.editorState) v = v.data.editorState;
  else if (v && v.editorState) v = v.editorState;
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error(`${file.name} holds no editor state (a JSON object).`);
  return v;
}

// createCard is the form that creates a project from an example state or a state file.
function createCard(signal) {
  const title = el("input", { type: "text", id: "new-title", name: "title", maxlength: 120, autocomplete: "off" });
  const desc = el("input", { type: "text", id: "new-description", name: "description", maxlength: 500, autocomplete: "off" });
  const source = el("select", { id: "new-source", name: "source" }, el("option", { value: "file" }, "A state file (JSON) from this computer"));
  const file = el("input", { type: "file", id: "new-state-file", accept: ".json,application/json" });
  const fileRow = el("div", {}, el("label", { for: "new-state-file", text: "State file" }), file);
  const about = el("p", { class: "muted", id: "new-source-about" });
  const err = el("p", { class: "error", role: "alert" });
  const button = el("button", { type: "submit", id: "new-create" }, "Create project");
  let list = [];
  const pick = () => {
    const ex = list.find((x) => x.file === source.value);
    fileRow.hidden = !!ex;
    about.textContent = ex ? ex.description : "The file's editor state is checked by the server as any sync would be.";
  };
  examples().then((xs) => {
    list = xs;
    source.prepend(...xs.map((x) => el("option", { value: x.file }, `Example: ${x.title}`)));
    if (xs.length) source.value = xs[0].file;
    pick();
  });
  source.addEventListener("change", pick);
  const form = el("form", { id: "new-project", "aria-labelledby": "new-h" },
    el("div", { class: "grid2" }, el("div", {}, el("label", { for: "new-title", text: "Title" }), title),
      el("div", {}, el("label", { for: "new-description", text: "Description (optional)" }), desc)),
    el("label", { for: "new-source", text: "Start from" }), source, about, fileRow, button, err);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    button.disabled = true;
    try {
      const ex = list.find((x) => x.file === source.value);
      let state;
      if (ex) {
        const res = await fetch(`/console/examples/${ex.file}`, { credentials: "omit" });
        state = await res.json();
      } else {
        if (!file.files.length) throw new Error("Choose a state file first.");
        state = await readState(file.files[0]);
      }
      const body = { title: title.value.trim() || (ex ? ex.title : file.files[0].name.replace(/\.json$/i, "")), editorState: state };
      if (desc.value.trim()) body.description = desc.value.trim();
      const p = (await call("POST", "/v1/projects", body, { signal })).data;
      announce(`Project ${p.title} created.`);
      location.hash = `#/projects/${p.projectId}`;
    } catch (x) {
      err.textContent = `The project was not created: ${x.message}`;
      button.disabled = false;
    }
  });
  return el("section", { class: "card", "aria-labelledby": "new-h" }, el("h2", { id: "new-h", text: "New project" }), form);
}

export async function projectsPage(root, signal) {
  const search = el("input", { type: "search", id: "project-search", placeholder: "Title or description contains…", autocomplete: "off" });
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const t = table("Projects", ["Preview", "Title", "Description", "Updated", "Created"], { id: "projects" });
  root.replaceChildren(el("h1", { text: "Projects" }), createCard(signal),
    el("div", { class: "card" }, el("label", { for: "project-search", text: "Search" }), search, count), t.table);
  let projects;
  try {
    projects = await all("/v1/projects?pageSize=50", 20);
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  if (signal.aborted) return;
  const thumb = thumbnails(signal);
  const rows = new Map(projects.map((p) => [p.projectId, t.row([thumb(p),
    el("a", { href: `#/projects/${p.projectId}` }, p.title || "(untitled)"),
    p.description || "", when(p.updatedAt), when(p.createdAt)], { "data-project": p.projectId })]));
  const draw = () => {
    const q = search.value.trim().toLowerCase();
    const shown = projects.filter((p) => !q || (p.title || "").toLowerCase().includes(q) || (p.description || "").toLowerCase().includes(q));
    t.body.replaceChildren(...shown.map((p) => rows.get(p.projectId)));
    count.textContent = projects.length === 0 ? "No projects yet: create one above, or through the API."
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
  const at = table("Assets of the state", ["Asset", "Type", "Resolves", "Size"]);
  root.replaceChildren(
    el("p", {}, el("a", { href: "#/projects" }, "← Projects")),
    el("h1", { id: "project-title", text: p.title || "(untitled)" }),
    el("div", { class: "grid2" },
      el("section", { class: "card", "aria-labelledby": "meta-h" }, el("h2", { id: "meta-h", text: "Project" }),
        facts([["Description", p.description || "—"], ["Created", when(p.createdAt)], ["Updated", when(p.updatedAt)],
          ["State version", p.stateVersion || "—"], ["Project id", p.projectId]])),
      el("section", { class: "card", "aria-labelledby": "sum-h" }, el("h2", { id: "sum-h", text: "State" }),
        facts([["Size", sum.width ? `${sum.width}×${sum.height}` : "—"], ["Duration", seconds(sum.duration)],
          ["Tracks", String(sum.tracks)], ["Items", `${sum.items}` + (sum.items ? ": " +
            Object.entries(sum.byType).map(([k, v]) => `${v} ${k}`).join(", ") : "")],
          ["Assets", String(Object.keys(sum.assets).length)]]))),
    editCard(p, signal),
    previewCard(id, sum, signal),
    exportCard(id, sum, signal),
    el("section", { class: "card", "aria-labelledby": "assets-h" }, el("h2", { id: "assets-h", text: "Assets of the state" }), at.table));
  if (!Object.keys(sum.assets).length) at.body.append(el("tr", {}, el("td", { colspan: 4, text: "This state uses no assets." })));
  for (const [key, a] of Object.entries(sum.assets)) {
    const cell = el("td", { text: "checking…" });
    at.body.append(at.row([a.filename || key, a.type || "—", cell, bytes(a.size)]));
    resolution({ ...a, id: a.id || key }, uploaded, signal).then(([ok, words]) => {
      cell.textContent = (ok === true ? "✓ yes, " : ok === false ? "✗ no, " : "? ") + words;
      cell.className = ok === false ? "error" : "";
    });
  }
}

// editCard renames the project, edits its description (PATCH) and deletes it, after a
// confirmation on the page.
function editCard(p, signal) {
  const title = el("input", { type: "text", id: "p-title", maxlength: 120, value: p.title || "", autocomplete: "off", required: true });
  const desc = el("textarea", { id: "p-description", maxlength: 500, rows: 2 });
  desc.value = p.description || "";
  const err = el("p", { class: "error", role: "alert" });
  const ok = el("p", { class: "muted", role: "status" });
  const save = el("button", { type: "submit", id: "p-save" }, "Save");
  const form = el("form", { id: "p-edit", "aria-labelledby": "edit-h" },
    el("label", { for: "p-title", text: "Title" }), title,
    el("label", { for: "p-description", text: "Description" }), desc, save, ok, err);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = ok.textContent = "";
    if (!title.value.trim()) { err.textContent = "A project needs a title."; return; }
    save.disabled = true;
    try {
      const r = (await call("PATCH", `/v1/projects/${p.projectId}`,
        { title: title.value.trim(), description: desc.value.trim() || null }, { signal })).data;
      p.title = r.title;
      p.description = r.description;
      document.getElementById("project-title").textContent = r.title;
      const d = document.querySelector("#meta-h + dl dd");
      if (d) d.textContent = r.description || "—";
      ok.textContent = "Saved.";
      announce(`Project renamed ${r.title}.`);
    } catch (x) { err.textContent = `The project was not saved: ${x.message}`; }
    save.disabled = false;
  });
  const del = el("button", { type: "button", class: "danger", id: "p-delete" }, "Delete project…");
  const sure = el("div", { class: "confirm", id: "p-confirm", role: "group", "aria-labelledby": "p-confirm-q", hidden: true });
  const yes = el("button", { type: "button", class: "danger", id: "p-delete-confirm" }, "Delete for good");
  const no = el("button", { type: "button", class: "secondary", id: "p-delete-cancel" }, "Keep it");
  const delErr = el("p", { class: "error", role: "alert" });
  sure.append(el("p", { id: "p-confirm-q" }, "Delete ", el("strong", { text: p.title || "(untitled)" }),
    "? Its editor state and asset bindings go; uploads stay in the workspace and exports already made stay listed."),
  el("div", { class: "actions" }, yes, no));
  del.addEventListener("click", () => { sure.querySelector("strong").textContent = p.title; sure.hidden = false; del.hidden = true; yes.focus(); });
  no.addEventListener("click", () => { sure.hidden = true; del.hidden = false; del.focus(); });
  yes.addEventListener("click", async () => {
    yes.disabled = true;
    try {
      await call("DELETE", `/v1/projects/${p.projectId}`, undefined, { signal });
      announce(`Project ${p.title} deleted.`);
      location.hash = "#/projects";
    } catch (x) { delErr.textContent = `The project was not deleted: ${x.message}`; yes.disabled = false; }
  });
  return el("section", { class: "card", "aria-labelledby": "edit-h" }, el("h2", { id: "edit-h", text: "Edit" }), form,
    el("div", { class: "actions" }, del), sure, delErr);
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
      const u = await frame(id, t, 640, ctl.signal);
      if (ctl.signal.aborted) { URL.revokeObjectURL(u); return; }
      if (url) URL.revokeObjectURL(url);
      url = u;
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
