// susi's HTTP API, as the page uses it. Every path is absolute: the same page works when
// `susi serve --web` mounts it under /web/, and the API stays where it is.

/** An answer from the API that was not a success: `code` is the API's error code. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The session is an id this tab keeps in its own storage and sends in a header; it is never a
 * cookie, which a browser would hand to every other program listening on this machine.
 */
const sessionKey = "susi-session";

function sessionID() {
  try {
    return sessionStorage.getItem(sessionKey);
  } catch {
    return null;
  }
}

function keepSession(id) {
  try {
    if (id) sessionStorage.setItem(sessionKey, id);
    else sessionStorage.removeItem(sessionKey);
  } catch {
    // Storage refused (a private window's quota): the session lasts for this page only.
  }
  memorySession = id || null;
}

let memorySession = null;

/** The headers of a request from this page: its session, if it has one. */
function sessionHeaders(extra = {}) {
  const id = memorySession || sessionID();
  return id ? { ...extra, "X-Susi-Session": id } : extra;
}

/** `fetch` with this tab's session. */
export function request(path, init = {}) {
  return fetch(path, { ...init, credentials: "omit", headers: sessionHeaders(init.headers || {}) });
}

/** Whether this tab holds a session id (it may have ended on the server). */
export function hasSession() {
  return Boolean(memorySession || sessionID());
}

async function failure(response, signalled = true) {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch {
    // Not JSON: the status says enough.
  }
  if (response.status === 401 && signalled) {
    // The session is gone (susi restarted, the key was revoked, or it was signed out): the page
    // says how to get back in (app.js listens).
    window.dispatchEvent(new CustomEvent("susi-unauthorized"));
  }
  return new APIError(response.status, code, message);
}

async function getJSON(path) {
  const response = await request(path);
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** Who this browser is to susi: `{mode: "web"|"serve", privileges: [...]}`. */
export function getSession() {
  return getJSON("/session");
}

async function postSession(body) {
  const response = await fetch("/session", {
    method: "POST", credentials: "omit",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    // A refused sign-in is said on the gate itself, not by going to it.
    const error = await failure(response, false);
    throw error;
  }
  const answer = await response.json();
  keepSession(answer.session);
  return answer;
}

/** Opens a session with a serve access key (only under `susi serve --web`). */
export function openSession(key) {
  return postSession({ key });
}

/** Trades the token of a link `susi web` printed (good once) for a session of this tab. */
export function redeemToken(token) {
  return postSession({ token });
}

/** Ends this tab's session. */
export async function closeSession() {
  const response = await request("/session", { method: "DELETE" });
  keepSession(null);
  if (!response.ok && response.status !== 401) throw await failure(response);
}

/** The current state (canonical JSON, as `/state` gives it). */
export function getState() {
  return getJSON("/state");
}

/** The state as it was right after event `seq` (0 = the initial state). */
export function getStateAt(seq) {
  return getJSON(`/inspector/state?seq=${encodeURIComponent(seq)}`);
}

/** Up to `limit` events after `after`, parsed, with the log's last seq. */
export async function getEvents(after, limit = 1000) {
  const response = await request(`/events?after=${after}&limit=${limit}`);
  if (!response.ok) throw await failure(response);
  const text = await response.text();
  const events = text.split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line));
  const lastSeq = Number(response.headers.get("X-Last-Seq") || 0);
  return { events, lastSeq };
}

/**
 * Posts an intent: `{type, payload}` as `susi serve` takes it. Returns the seq it was logged
 * under; throws APIError when susi refused it before logging.
 */
export async function postIntent(type, payload = {}) {
  const response = await request("/actions", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ type, payload }),
  });
  if (!response.ok) throw await failure(response);
  const body = await response.json();
  return body.seq;
}

/** Fetches the log as a file download (the session goes in a header, so a plain link cannot). */
export async function downloadLog() {
  const response = await request("/inspector/log");
  if (!response.ok) throw await failure(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = "susi-events.jsonl";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/**
 * Follows the log over server-sent events from `after` on, read with `fetch` (EventSource
 * cannot send the session header). `onEvent` gets each parsed event; `onStatus` gets "open" or
 * "closed". It reconnects by itself from the last seq it saw, so no event is missed or
 * repeated. Returns an object whose `close()` stops it.
 */
export function followEvents(after, onEvent, onStatus) {
  let last = after;
  let stopped = false;
  let controller = null;
  let retry = 500;

  function dispatch(block) {
    let data = "";
    let id = null;
    for (const line of block.split("\n")) {
      if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).replace(/^ /, "");
      else if (line.startsWith("id:")) id = line.slice(3).trim();
    }
    if (id !== null && /^\d+$/.test(id)) last = Number(id);
    if (!data) return;
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof event.seq === "number" && event.seq > last) last = event.seq;
    onEvent(event);
  }

  async function run() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await request(`/events/stream?after=${last}`,
          { signal: controller.signal, headers: { Accept: "text/event-stream" } });
        if (!response.ok) {
          await failure(response);
          if (response.status === 401) return;
          throw new Error(String(response.status));
        }
        onStatus("open");
        retry = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            dispatch(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        // Dropped or refused: try again below.
      }
      if (stopped) return;
      onStatus("closed");
      await new Promise((resolve) => setTimeout(resolve, retry));
      retry = Math.min(retry * 2, 10000);
    }
  }

  run();
  return {
    close() {
      stopped = true;
      controller?.abort();
    },
  };
}
