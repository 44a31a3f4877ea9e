// Server-Sent Events over fetch(): EventSource cannot send an Authorization header, and
// the key must never go into a URL. Reconnects after a pause, sending Last-Event-ID.
import { getKey, ApiError } from "./api.js";

// parseEvents splits complete SSE blocks off buffer; it returns [events, rest].
export function parseEvents(buffer) {
  const events = [];
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop();
  for (const block of blocks) {
    const ev = { event: "message", data: [], id: null };
    let any = false;
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue; // comment: heartbeat
      const i = line.indexOf(":");
      const field = i < 0 ? line : line.slice(0, i);
      let value = i < 0 ? "" : line.slice(i + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") ev.event = value;
      else if (field === "data") { ev.data.push(value); any = true; }
      else if (field === "id") ev.id = value;
    }
    if (any || ev.id !== null) events.push({ event: ev.event, data: ev.data.join("\n"), id: ev.id });
  }
  return [events, rest];
}

// stream reads path until signal aborts, calling onEvent(event) and onState(text, ok).
// A 404 (the server has no events route) calls onUnavailable and stops.
export async function stream(path, { signal, onEvent, onState, onUnavailable }) {
  let lastId = null;
  let delay = 1000;
  while (!signal.aborted) {
    try {
      const h = new Headers({ Accept: "text/event-stream", Authorization: "Bearer " + getKey() });
      if (lastId !== null) h.set("Last-Event-ID", lastId);
      const res = await fetch(path, { headers: h, signal, cache: "no-store", credentials: "omit" });
      if (!res.ok) {
        let p = null;
        try { p = await res.json(); } catch { /* not JSON */ }
        const err = new ApiError(res.status, p);
        if (res.status === 404 || res.status === 405) { onUnavailable(err); return; }
        if (res.status === 401) {
          window.dispatchEvent(new CustomEvent("cutroom:unauthenticated", { detail: `Your API key is no longer accepted: ${err.message}` }));
          return;
        }
        if (res.status === 403) { onState(err.message, false); return; }
        throw err;
      }
      onState("Live", true);
      delay = 1000;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        const [events, rest] = parseEvents(buf);
        buf = rest;
        for (const ev of events) {
          if (ev.id !== null) lastId = ev.id;
          onEvent(ev);
        }
      }
      if (signal.aborted) return;
      onState("Reconnecting to live updates…", false);
    } catch (e) {
      if (signal.aborted || e.name === "AbortError") return;
      onState(`Live updates interrupted: ${e.message} Retrying…`, false);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 15000);
  }
}
