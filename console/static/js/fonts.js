// The font families renders can use (GET /v1/fonts): each with its weights, styles and
// where its faces come from. A state naming a family not listed here (and no generic family
// in its list) is reported as EXPORT_FONT_MISSING.
import { call } from "./api.js";
import { el, errorBox, table } from "./ui.js";

const sourceNames = {
  uploaded: "uploaded", dataDir: "data dir", fontsDir: "--fonts directory", embedded: "embedded", system: "system",
};

export async function fontsPage(root, signal) {
  root.replaceChildren(el("h1", { text: "Fonts" }),
    el("p", { class: "muted", text: "The font families text items, captions and templates can name (compared without case). " +
      "Install more with “cutroom fonts add” or by uploading a font file; a family that none provides is reported as EXPORT_FONT_MISSING." }));
  let rows;
  try {
    rows = (await call("GET", "/v1/fonts", undefined, { signal })).data || [];
  } catch (e) {
    root.append(errorBox(e));
    return;
  }
  const filter = el("input", { id: "font-filter", type: "search", placeholder: "Family", "aria-controls": "fonts-table" });
  const t = table("Font families", ["Family", "Weights", "Styles", "Source"], { id: "fonts-table" });
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    t.body.replaceChildren(...rows.filter((f) => !q || f.family.toLowerCase().includes(q)).map((f) => t.row([
      el("th", { scope: "row", text: f.family }),
      f.weights.join(", "),
      f.styles.join(", "),
      f.sources.map((s) => sourceNames[s] || s).join(", "),
    ], { "data-family": f.family })));
  };
  filter.addEventListener("input", draw);
  draw();
  root.append(el("p", {}, el("label", { for: "font-filter", text: "Filter " }), filter, ` ${rows.length} families`), t.table);
}
