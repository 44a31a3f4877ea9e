// Small DOM helpers: elements are built with properties and text nodes, never from HTML
// strings, so nothing the API returns can become markup.

// el builds an element: attrs are set as attributes (on* keys as listeners, "text" as text).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// facts builds a description list from [term, value] pairs.
export function facts(pairs) {
  return el("dl", { class: "facts" }, pairs.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, v ?? "—")]));
}

export function errorBox(err) {
  return el("p", { class: "error", role: "alert", text: err instanceof Error ? err.message : String(err) });
}

export function when(ts) {
  if (!ts) return "—";
  const d = new Date(ts);
  return isNaN(d) ? ts : d.toLocaleString();
}

export function bytes(n) {
  if (n === null || n === undefined) return "—";
  const u = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${u[i]}`;
}

// plural writes a count with its noun: "1 credit", "2 credits".
export function plural(n, one, many = one + "s") {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

export function seconds(s) {
  if (s === null || s === undefined || isNaN(s)) return "—";
  return `${Number(s).toFixed(Number(s) < 10 ? 2 : 1)} s`;
}

// announce says text to screen readers (a visually hidden live region).
export function announce(text) {
  const a = document.getElementById("announce");
  if (a) a.textContent = text;
}

// liveState shows the state of the live updates in the header (also a live region).
export function liveState(text) {
  const live = document.getElementById("live");
  if (live) live.textContent = text;
}

// table builds a table whose cells carry their column's name (data-label): on a narrow
// screen the stylesheet stacks each row's cells under those names, so no column is lost.
// It returns the table and row(cells, attrs), which makes a row (not yet inserted).
export function table(label, headers, attrs = {}) {
  const body = el("tbody");
  const t = el("table", { class: "stack", "aria-label": label, ...attrs },
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col", text: h })))), body);
  const row = (cells, rowAttrs = {}) => el("tr", rowAttrs, cells.map((c, i) =>
    c instanceof Node && c.tagName === "TD" ? (c.dataset.label = headers[i], c) : el("td", { "data-label": headers[i] }, c)));
  return { table: t, body, row };
}

// queue runs at most n of the async jobs given to it at once (frame previews: the server
// draws a few per workspace at a time), in the order given; jobs of an aborted signal are
// dropped.
export function queue(n, signal) {
  const waiting = [];
  let running = 0;
  const next = () => {
    while (running < n && waiting.length && !signal.aborted) {
      const job = waiting.shift();
      running++;
      job().catch(() => {}).finally(() => { running--; next(); });
    }
  };
  return (job) => { waiting.push(job); next(); };
}
