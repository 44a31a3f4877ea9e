// The Assets page: the workspace's assets (GET /v1/assets, a page at a time, all of them or
// one project's), upload by drag and drop or the file picker to the project chosen here or
// to none, with a progress bar each, thumbnails and delete.
import { call, all, upload, sameOrigin } from "./api.js";
import { el, errorBox, bytes, plural, announce } from "./ui.js";

function thumb(a) {
  const src = sameOrigin(a.fileUrl);
  const name = a.filename || a.assetId;
  if (a.type === "image" || /^image\//.test(a.mimetype || "")) {
    return el("img", { src, alt: `Thumbnail of ${name}`, loading: "lazy" });
  }
  if (a.type === "video") {
    // preload=metadata with a start time draws the first frame without playing.
    return el("video", { src: src + "#t=0.05", preload: "metadata", muted: true, "aria-label": `First frame of ${name}` });
  }
  const icon = a.type === "audio" ? "audio" : "file";
  return el("img", { src: `/console/${icon}.svg`, alt: `${a.type || "file"} icon` });
}

// referenced explains ASSET_REFERENCED in words.
function deleteError(e) {
  if (e.code === "ASSET_REFERENCED") {
    return "This asset cannot be deleted while it is in use: a project's current editor state " +
      "or an export that is still running refers to it. Remove it from the project's timeline " +
      `(or wait for the export to end) and try again. ${e.message}`;
  }
  return `The asset was not deleted: ${e.message}`;
}

function card(a, onGone) {
  const err = el("p", { class: "error", role: "alert" });
  const del = el("button", { type: "button", class: "danger", "aria-label": `Delete ${a.filename}` }, "Delete");
  del.addEventListener("click", async () => {
    del.disabled = true;
    try {
      await call("DELETE", `/v1/assets/${a.assetId}`);
      announce(`${a.filename} deleted.`);
      onGone();
    } catch (e) { err.textContent = deleteError(e); del.disabled = false; }
  });
  const dims = a.width && a.height ? ` · ${a.width}×${a.height}` : "";
  const dur = a.duration ? ` · ${a.duration.toFixed(1)} s` : "";
  return el("li", { class: "asset", "data-asset": a.assetId }, thumb(a),
    el("div", { class: "name", text: a.filename }),
    el("div", { class: "muted", text: `${a.type} · ${bytes(a.size)}${dims}${dur}` }), del, err);
}

const PAGE = 24; // assets per page of the list

export async function assetsPage(root, signal) {
  const target = el("select", { id: "asset-target" });
  const filter = el("select", { id: "asset-filter" });
  const list = el("ul", { class: "assets", "aria-label": "Assets" });
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const more = el("button", { type: "button", class: "secondary", id: "asset-more", hidden: true }, "Load more");
  const uploads = el("div", { "aria-live": "polite" });
  const fileInput = el("input", { type: "file", id: "asset-file", multiple: true });
  const zone = el("div", { class: "dropzone", id: "dropzone" },
    el("p", {}, "Drop files here, or "), el("label", { for: "asset-file" }, "choose files to upload"), fileInput);
  const listErr = el("div");
  root.replaceChildren(el("h1", { text: "Assets" }),
    el("section", { class: "card", "aria-labelledby": "up-h" }, el("h2", { id: "up-h", text: "Upload" }),
      el("label", { for: "asset-target", text: "Bind the upload to" }), target,
      el("p", { class: "muted", text: "An upload bound to a project is listed with it; one bound to none is listed with the workspace's assets only." }),
      zone, uploads),
    el("section", { class: "card", "aria-labelledby": "list-h" }, el("h2", { id: "list-h", text: "The workspace's assets" }),
      el("label", { for: "asset-filter", text: "Show" }), filter, count),
    listErr, list, more);
  let projects = [];
  try { projects = await all("/v1/projects?pageSize=50", 20); } catch (e) { listErr.replaceChildren(errorBox(e)); }
  if (signal.aborted) return;
  const options = () => projects.map((p) => el("option", { value: p.projectId }, p.title || p.projectId));
  target.replaceChildren(el("option", { value: "" }, "No project"), ...options());
  filter.replaceChildren(el("option", { value: "" }, "All assets, newest upload first"), ...options().map((o) => {
    o.textContent = `Bound to ${o.textContent}`;
    return o;
  }));

  let cursor = "";
  let shown = 0;
  let generation = 0; // a new listing drops the pages of an older one still arriving
  const load = async (first) => {
    const gen = first ? ++generation : generation;
    if (first) { cursor = ""; shown = 0; list.replaceChildren(); }
    listErr.replaceChildren();
    more.disabled = true;
    const q = new URLSearchParams({ pageSize: String(PAGE) });
    if (filter.value) q.set("projectId", filter.value);
    if (cursor) q.set("pageCursor", cursor);
    let r;
    try { r = await call("GET", `/v1/assets?${q}`, undefined, { signal }); } catch (e) { listErr.replaceChildren(errorBox(e)); more.disabled = false; return; }
    if (signal.aborted || gen !== generation) return;
    const as = r.data || [];
    list.append(...as.map((a) => card(a, () => load(true))));
    shown += as.length;
    cursor = (r.meta && r.meta.nextPageCursor) || "";
    more.hidden = !cursor;
    more.disabled = false;
    count.textContent = shown ? `${plural(shown, "asset")} shown${cursor ? "; more below" : ""}` : "No assets here yet.";
  };
  const send = async (files) => {
    const pid = target.value;
    const to = pid ? `to ${target.selectedOptions[0].textContent}` : "to no project";
    for (const f of files) {
      const bar = el("progress", { max: 100, value: 0, "aria-label": `Uploading ${f.name}` });
      const line = el("p", {}, `${f.name} (${bytes(f.size)}) ${to} `, bar);
      uploads.append(line);
      try {
        await upload(f, pid, (x) => { bar.value = Math.round(x * 100); });
        line.replaceChildren(`${f.name} uploaded ${to}.`);
      } catch (e) {
        line.replaceChildren(errorBox(`${f.name} was not uploaded: ${e.message}`));
      }
    }
    load(true);
  };
  filter.addEventListener("change", () => load(true));
  more.addEventListener("click", () => load(false));
  fileInput.addEventListener("change", () => { send([...fileInput.files]); fileInput.value = ""; });
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    send([...e.dataTransfer.files]);
  });
  load(true);
}
