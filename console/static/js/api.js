// The API client: the key lives in sessionStorage and only ever travels in the
// Authorization header.
const KEY = "cutroom.apiKey";

export function getKey() { return sessionStorage.getItem(KEY) || ""; }
export function setKey(k) { sessionStorage.setItem(KEY, k); }
export function clearKey() { sessionStorage.removeItem(KEY); }

// ApiError carries a problem-details answer as a sentence.
export class ApiError extends Error {
  constructor(status, problem) {
    super(sentence(status, problem));
    this.status = status;
    this.code = (problem && problem.errorCode) || "";
    this.problem = problem || {};
  }
}

// sentence turns a problem-details body into words: its detail, then the code and status.
export function sentence(status, p) {
  if (!p || typeof p !== "object") {
    return status ? `The server answered ${status} without an explanation.` : "The server could not be reached.";
  }
  let detail = (p.detail || p.title || "The request failed").trim();
  detail = detail.charAt(0).toUpperCase() + detail.slice(1);
  if (!/[.!?]$/.test(detail)) detail += ".";
  const code = p.errorCode ? `${p.errorCode}, ` : "";
  const extra = Array.isArray(p.errors) && p.errors.length
    ? " " + p.errors.slice(0, 3).map((e) => e.message || e.detail || e.code || "").filter(Boolean).join(" ")
    : "";
  return `${detail}${extra} (${code}HTTP ${status})`;
}

function headers(extra) {
  const h = new Headers(extra || {});
  const k = getKey();
  if (k) h.set("Authorization", "Bearer " + k);
  return h;
}

async function problemOf(res) {
  try { return await res.json(); } catch { return null; }
}

// raw sends a request and returns the Response, throwing ApiError on an error status.
export async function raw(method, path, opts = {}) {
  let res;
  try {
    res = await fetch(path, { method, headers: headers(opts.headers), body: opts.body,
      signal: opts.signal, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, null);
  }
  if (!res.ok && res.status !== 304) {
    const err = new ApiError(res.status, await problemOf(res));
    // A key revoked while the console is open: back to the sign-in form, in words.
    if (res.status === 401 && !opts.signingIn) {
      window.dispatchEvent(new CustomEvent("cutroom:unauthenticated", { detail: `Your API key is no longer accepted: ${err.message}` }));
    }
    throw err;
  }
  return res;
}

// call sends a JSON request and returns the answer's {data, meta}.
export async function call(method, path, body, opts = {}) {
  const o = { ...opts, headers: { Accept: "application/json", ...(opts.headers || {}) } };
  if (body !== undefined) {
    o.body = JSON.stringify(body);
    o.headers["Content-Type"] = "application/json";
  }
  const res = await raw(method, path, o);
  const text = await res.text();
  return text ? JSON.parse(text) : { data: null, meta: {} };
}

// all follows nextPageCursor up to maxPages pages and returns every item.
export async function all(path, maxPages = 10) {
  const out = [];
  let cursor = "";
  for (let i = 0; i < maxPages; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const r = await call("GET", path + (cursor ? `${sep}pageCursor=${encodeURIComponent(cursor)}` : ""));
    out.push(...(r.data || []));
    cursor = r.meta && r.meta.nextPageCursor;
    if (!cursor) break;
  }
  return out;
}

// upload sends a file to POST /v1/uploads with XMLHttpRequest (for its upload progress
// events) and resolves with the asset record.
export function upload(file, projectId, onProgress) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open("POST", "/v1/uploads");
    x.setRequestHeader("Authorization", "Bearer " + getKey());
    x.setRequestHeader("X-File-Name", file.name);
    if (projectId) x.setRequestHeader("X-Project-Id", projectId);
    if (file.type) x.setRequestHeader("Content-Type", file.type);
    x.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    x.onerror = () => reject(new ApiError(0, null));
    x.onload = () => {
      let body = null;
      try { body = JSON.parse(x.responseText); } catch { /* not JSON */ }
      if (x.status >= 200 && x.status < 300 && body) { onProgress(1); resolve(body.data); }
      else reject(new ApiError(x.status, body));
    };
    x.send(file);
  });
}

// sameOrigin keeps a link the API handed out on the page's own origin (its path and query),
// so media-src 'self' holds whatever host the server's public URL names.
export function sameOrigin(link) {
  if (!link) return "";
  try { const u = new URL(link, location.href); return u.pathname + u.search; } catch { return ""; }
}

// frame draws a project's frame at t seconds, width pixels wide, as JPEG (GET
// /v1/projects/{id}/frame, with the key) and returns it as a blob: URL, which the caller
// revokes when done.
export async function frame(projectId, t, width, signal) {
  const res = await raw("GET", `/v1/projects/${projectId}/frame?t=${t.toFixed(3)}&width=${width}&format=jpeg`, { signal });
  return URL.createObjectURL(await res.blob());
}
