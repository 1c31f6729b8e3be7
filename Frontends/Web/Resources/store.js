// What the page knows: susi's state as `/state` last gave it, the events seen on the stream,
// and who is listening. The page never changes the state itself; it posts intents and waits
// for the events they cause, then reads the state again.

import { getState, postIntent, APIError } from "./api.js";

/** The latest state from `/state` (null until the first one arrives). */
export let state = null;
/** Events seen on the stream since the page started, in seq order. */
export const liveEvents = [];
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

/** Takes one event from the stream (a reconnect may repeat one: it is dropped). */
export function receive(event) {
  if (event.seq <= streamSeq) return;
  streamSeq = event.seq;
  setLastSeq(event.seq);
  liveEvents.push(event);
  if (event.origin === "runner" && failureListeners.has(event.cause)) {
    if (event.type === "actionRejected" || event.type === "requestFailed") {
      failureListeners.get(event.cause)(event);
    }
    failureListeners.delete(event.cause);
  }
  if (event.origin === "runner" && ownSeqs.has(event.cause)) {
    if (event.type === "actionRejected") notice(`Not done: ${event.payload.reason}`);
    if (event.type === "requestFailed") {
      const error = event.payload.error || {};
      if (error.kind !== "superseded") notice(`Failed: ${error.message || error.kind}`);
    }
  }
  for (const listener of eventListeners) listener(event);
  refreshState();
}

/**
 * Posts an intent; returns its seq, or null after telling the person why it was refused.
 * With `onFailure`, the intent is background work (an image, a preview): its failure goes to
 * `onFailure(event)` instead of the status line.
 */
export async function send(type, payload = {}, onFailure = null) {
  try {
    const seq = await postIntent(type, payload);
    if (onFailure) failureListeners.set(seq, onFailure);
    else ownSeqs.add(seq);
    return seq;
  } catch (error) {
    notice(error instanceof APIError ? `Not sent: ${error.message}` : `Not sent: ${error}`);
    return null;
  }
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
