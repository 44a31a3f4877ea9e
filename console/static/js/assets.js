// The Assets page: a project's assets (the upload route binds an upload to the project
// chosen here; the API lists assets per project), upload by drag and drop or the file
// picker with a progress bar each, thumbnails and delete.
import { call, all, upload, sameOrigin } from "./api.js";
import { el, errorBox, bytes, announce } from "./ui.js";

const LAST = "cutroom.assetsProject";
const LOOSE = "cutroom.looseAssets"; // uploads of this tab bound to no project

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

export async function assetsPage(root, signal) {
  const pick = el("select", { id: "asset-project" });
  const list = el("ul", { class: "assets", "aria-label": "Assets" });
  const uploads = el("div", { "aria-live": "polite" });
  const fileInput = el("input", { type: "file", id: "asset-file", multiple: true });
  const zone = el("div", { class: "dropzone", id: "dropzone" },
    el("p", {}, "Drop files here, or "), el("label", { for: "asset-file" }, "choose files to upload"), fileInput);
  const listErr = el("div");
  root.replaceChildren(el("h1", { text: "Assets" }),
    el("div", { class: "card" }, el("label", { for: "asset-project", text: "Project" }), pick,
      el("p", { class: "muted", text: "Uploads are bound to the project chosen here." }), zone, uploads),
    listErr, list);
  let projects = [];
  try { projects = await all("/v1/projects?pageSize=50", 20); } catch (e) { listErr.replaceChildren(errorBox(e)); }
  if (signal.aborted) return;
  const last = sessionStorage.getItem(LAST);
  pick.replaceChildren(...projects.map((p) => el("option", { value: p.projectId, selected: p.projectId === last }, p.title || p.projectId)),
    el("option", { value: "", selected: !projects.length || last === "" }, "No project (this tab's uploads)"));

  const show = async () => {
    sessionStorage.setItem(LAST, pick.value);
    listErr.replaceChildren();
    let as;
    try {
      as = pick.value ? await all(`/v1/projects/${pick.value}/assets?pageSize=100`, 10)
        : JSON.parse(sessionStorage.getItem(LOOSE) || "[]");
    } catch (e) { listErr.replaceChildren(errorBox(e)); return; }
    if (signal.aborted) return;
    list.replaceChildren(...as.map((a) => card(a, () => { forget(a.assetId); show(); })));
    if (!as.length) list.append(el("li", { class: "muted", text: "No assets here yet." }));
  };
  const forget = (id) => {
    const loose = JSON.parse(sessionStorage.getItem(LOOSE) || "[]").filter((a) => a.assetId !== id);
    sessionStorage.setItem(LOOSE, JSON.stringify(loose));
  };
  const send = async (files) => {
    for (const f of files) {
      const bar = el("progress", { max: 100, value: 0, "aria-label": `Uploading ${f.name}` });
      const line = el("p", {}, `${f.name} (${bytes(f.size)}) `, bar);
      uploads.append(line);
      try {
        const a = await upload(f, pick.value, (x) => { bar.value = Math.round(x * 100); });
        line.replaceChildren(`${f.name} uploaded.`);
        if (!pick.value) {
          const loose = JSON.parse(sessionStorage.getItem(LOOSE) || "[]");
          sessionStorage.setItem(LOOSE, JSON.stringify([a, ...loose]));
        }
      } catch (e) {
        line.replaceChildren(errorBox(`${f.name} was not uploaded: ${e.message}`));
      }
    }
    show();
  };
  pick.addEventListener("change", show);
  fileInput.addEventListener("change", () => { send([...fileInput.files]); fileInput.value = ""; });
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    send([...e.dataTransfer.files]);
  });
  show();
}
