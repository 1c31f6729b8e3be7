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

async function failure(response) {
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
  if (response.status === 401) {
    // The session is gone (susi restarted, the key was revoked, or it was signed out): the page
    // says how to get back in (app.js listens).
    window.dispatchEvent(new CustomEvent("susi-unauthorized"));
  }
  return new APIError(response.status, code, message);
}

async function getJSON(path) {
  const response = await fetch(path, { credentials: "same-origin" });
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** Who this browser is to susi: `{mode: "web"|"serve", privileges: [...]}`. */
export function getSession() {
  return getJSON("/session");
}

/** Opens a session with a serve access key (only under `susi serve --web`). */
export async function openSession(key) {
  const response = await fetch("/session", {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify({ key }),
  });
  if (!response.ok) throw await failure(response);
}

/** Ends this browser's session. */
export async function closeSession() {
  const response = await fetch("/session", { method: "DELETE", credentials: "same-origin" });
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
  const response = await fetch(`/events?after=${after}&limit=${limit}`,
    { credentials: "same-origin" });
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
  const response = await fetch("/actions", {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ type, payload }),
  });
  if (!response.ok) throw await failure(response);
  const body = await response.json();
  return body.seq;
}

/**
 * Follows the log over server-sent events from `after` on. `onEvent` gets each parsed event;
 * `onStatus` gets "open" or "closed". The browser reconnects by itself, sending the last seq
 * it saw, so no event is missed or repeated.
 */
export function followEvents(after, onEvent, onStatus) {
  const source = new EventSource(`/events/stream?after=${after}`, { withCredentials: true });
  source.addEventListener("open", () => onStatus("open"));
  source.addEventListener("error", () => onStatus("closed"));
  source.addEventListener("message", (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    onEvent(event);
  });
  return source;
}
