// What the page knows: susi's state as `/state` last gave it, the events seen on the stream,
// and who is listening. The page never changes the state itself; it posts intents and waits
// for the events they cause, then reads the state again.

import { getState, postIntent, APIError } from "./api.js";

/** The latest state from `/state` (null until the first one arrives). */
export let state = null;
/** What `/session` said: `{mode, privileges}`. */
export let access = null;

export function setAccess(value) {
  access = value;
}

/** Whether this browser's session may post `intent` (a key on `susi serve` may not). */
export function allowed(intent) {
  return Boolean(access && (access.privileges || []).includes(intent));
}

/** What the page says where a key lacks the privilege for `intent`. */
export function notAllowedText(intent) {
  return `The access key of this browser may not ${intent}; ask whoever runs susi for one that may.`;
}

/** The highest seq the page knows of. */
export let lastSeq = 0;

const stateListeners = new Set();
const eventListeners = new Set();
/** Seqs of intents a person asked for on this page, so their refusals can be shown here. */
const ownSeqs = new Set();
/** Listeners for the failures of background intents: seq -> function(event). */
const failureListeners = new Map();

/** Calls `listener(state)` after every change of the state. */
export function onState(listener) {
  stateListeners.add(listener);
}

/** Calls `listener(event)` for every event that arrives. */
export function onEvent(listener) {
  eventListeners.add(listener);
}

let refreshing = false;
let refreshAgain = false;

/** Reads the state again; calls made while a read is under way are folded into one more. */
export async function refreshState() {
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    do {
      refreshAgain = false;
      try {
        state = await getState();
      } catch (error) {
        notice(`Could not read the state: ${error.message}`);
        break;
      }
      for (const listener of stateListeners) listener(state);
    } while (refreshAgain);
  } finally {
    refreshing = false;
  }
}

export function setLastSeq(seq) {
  if (seq > lastSeq) lastSeq = seq;
}

let streamSeq = 0;

/** Where the stream starts: the log's last seq when the page started. */
export function startStreamAt(seq) {
  streamSeq = seq;
  setLastSeq(seq);
}

/**
 * The latest results by the seq that caused them: an intent's result can come down the stream
 * before the answer to its POST says which seq it got.
 */
const recentResults = new Map();

/** Takes one event from the stream (a reconnect may repeat one: it is dropped). */
export function receive(event) {
  if (event.seq <= streamSeq) return;
  streamSeq = event.seq;
  setLastSeq(event.seq);
  if (event.origin === "runner" && event.cause) {
    if (!recentResults.has(event.cause)) recentResults.set(event.cause, []);
    recentResults.get(event.cause).push(event);
    if (recentResults.size > 500) recentResults.delete(recentResults.keys().next().value);
    answered(event);
  }
  for (const listener of eventListeners) listener(event);
  refreshState();
}

/** Tells whoever asked for the intent behind `result` that it failed. */
function answered(result) {
  const failed = result.type === "actionRejected" || result.type === "requestFailed";
  const listener = failureListeners.get(result.cause);
  if (listener) {
    failureListeners.delete(result.cause);
    if (failed) listener(result);
  }
  if (ownSeqs.has(result.cause)) {
    ownSeqs.delete(result.cause);
    if (!failed) return;
    if (result.type === "actionRejected") notice(`Not done: ${result.payload.reason}`);
    const error = result.payload.error || {};
    if (result.type === "requestFailed" && error.kind !== "superseded") {
      notice(`Failed: ${error.message || error.kind}`);
    }
  }
}

/**
 * Posts an intent; returns its seq, or null after telling the person why it was refused.
 * With `onFailure`, the intent is background work (an image, a preview): its failure goes to
 * `onFailure(event)` instead of the status line.
 */
export async function send(type, payload = {}, onFailure = null) {
  let seq;
  try {
    seq = await postIntent(type, payload);
  } catch (error) {
    const reason = error instanceof APIError ? error.message : String(error);
    if (onFailure) onFailure({ type: "actionRejected", payload: { reason } });
    else notice(`Not sent: ${reason}`);
    return null;
  }
  if (onFailure) failureListeners.set(seq, onFailure);
  else ownSeqs.add(seq);
  for (const result of recentResults.get(seq) || []) answered(result);
  return seq;
}

let noticeTimer = null;

/** A short message in the status line at the bottom, read out by screen readers. */
export function notice(text) {
  const element = document.getElementById("notice");
  element.textContent = text;
  element.classList.add("visible");
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => element.classList.remove("visible"), 8000);
}
