// The chat: the transcript as exchanges (a question and every answer to it, including answers
// planned for later), each answer action as a card.

import { h, fill, clockTime } from "./dom.js";
import { answerCards, failedSearches } from "./cards.js";
import { send, allowed, notAllowedText } from "./store.js";

const log = () => document.getElementById("chat-log");

/** Sends `query` as a chat message and shows the chat. */
export async function ask(query) {
  const text = String(query || "").trim();
  if (!text) return;
  if (location.hash !== "#/chat") location.hash = "#/chat";
  await send("sendMessage", { query: text });
}

export function setUpChat() {
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-input");
  if (!allowed("sendMessage")) {
    input.disabled = true;
    input.placeholder = notAllowedText("sendMessage");
    form.querySelector("button").disabled = true;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = input.value;
    input.value = "";
    ask(query);
  });
}

/**
 * The transcript cut into exchanges. An answer belongs to the latest question with its query;
 * a second answer to the same question is a planned one (a timer going off): it is an exchange
 * of its own where it arrived, at the bottom, with a note of the question it answers.
 */
export function exchanges(transcript) {
  const groups = [];
  const byQuery = new Map();
  for (const entry of transcript || []) {
    const group = byQuery.get(entry.query);
    if (entry.speaker === "user" || !group) {
      const fresh = { key: `${entry.seq}`, user: entry.speaker === "user" ? entry : null, answers: [] };
      if (entry.speaker !== "user") fresh.answers.push(entry);
      groups.push(fresh);
      byQuery.set(entry.query, fresh);
    } else if (group.answers.length === 0) {
      group.answers.push(entry);
    } else {
      groups.push({ key: `late-${entry.seq}`, user: null, lateFor: group.user || group.answers[0],
        answers: [entry] });
    }
  }
  return groups;
}

/** What an exchange shows while part of it is still to come, or null. */
function pendingText(group, inFlight) {
  if (group.user && inFlight[group.user.seq]) return "SUSI is thinking…";
  const last = group.answers[group.answers.length - 1];
  if (last && inFlight[last.seq] && inFlight[last.seq].type === "plannedAnswer") {
    return "More to come: SUSI planned a later answer…";
  }
  return null;
}

/** Everything an exchange's cards depend on, so it is drawn again only when that changed. */
function signature(group, state) {
  const links = [];
  const searches = [];
  for (const entry of group.answers) {
    for (const action of entry.answers || []) {
      if (action.type === "rss") for (const item of action.items || []) links.push(item.link);
      if (action.type === "websearch") {
        searches.push(action.query);
        for (const r of (state.searches || {})[action.query] || []) links.push(r.link);
      }
    }
  }
  return JSON.stringify([
    group.user && group.user.seq, group.answers.map((a) => a.seq),
    pendingText(group, state.inFlight || {}),
    searches.map((q) => (state.searches || {})[q] || failedSearches.get(q) || null),
    links.map((l) => (state.linkPreviews || {})[l] || null),
  ]);
}

function renderExchange(group, state) {
  const pending = pendingText(group, state.inFlight || {});
  const query = group.user ? group.user.query : group.answers[0]?.query;
  const late = group.lateFor;
  return h("li", { class: late ? "exchange late" : "exchange", "data-key": group.key, "data-query": query },
    late ? h("p", { class: "late-note" }, "Later answer to “", query, "”",
      late.at ? [" (asked at ", h("time", { datetime: late.at }, clockTime(late.at)), ")"] : null) : null,
    group.user ? h("div", { class: "bubble user" },
      h("span", { class: "visually-hidden" }, "You: "), group.user.query,
      h("time", { datetime: group.user.at }, clockTime(group.user.at))) : null,
    group.answers.map((entry) => h("div", { class: "answer", "data-seq": entry.seq },
      h("span", { class: "visually-hidden" }, "SUSI: "),
      answerCards(entry.answers || [], state),
      h("time", { datetime: entry.at }, clockTime(entry.at)))),
    pending ? h("div", { class: "card card-pending", role: "status" },
      h("span", { class: "spinner", "aria-hidden": "true" }), pending) : null);
}

let historySignature = null;

/**
 * The server's memory of this account (`loadHistory`), oldest first, above this page's chat;
 * offered once someone is logged in.
 */
function renderHistory(state) {
  const section = document.getElementById("chat-history");
  const shown = Boolean(state.session) && allowed("loadHistory");
  const history = state.history || [];
  const signature = JSON.stringify([shown, history.length, state.historyRemaining,
    Boolean((state.inFlight && Object.values(state.inFlight).some((r) => r.type === "loadHistory")))]);
  if (signature === historySignature) return;
  historySignature = signature;
  section.hidden = !shown;
  if (!shown) return;
  const loading = Object.values(state.inFlight || {}).some((r) => r.type === "loadHistory");
  const more = history.length === 0 || state.historyRemaining > 0;
  fill(section,
    history.length ? h("h3", {}, "Earlier, from the server's memory") : null,
    history.length ? h("ol", { id: "history-log", class: "chat-log" }, [...history].reverse().map((entry) =>
      h("li", { class: "exchange", "data-query": entry.query },
        h("div", { class: "bubble user" }, h("span", { class: "visually-hidden" }, "You: "), entry.query,
          entry.queryDate ? h("time", { datetime: entry.queryDate }, clockTime(entry.queryDate)) : null),
        h("div", { class: "answer" }, h("span", { class: "visually-hidden" }, "SUSI: "),
          answerCards(entry.answers || [], state))))) : null,
    more ? h("button", { type: "button", id: "load-history", class: "secondary", disabled: loading,
      onclick: () => send("loadHistory", {}) },
    loading ? "Loading…" : history.length ? "Load earlier conversations" : "Show earlier conversations") : null);
}

const drawn = new Map();

/** Brings the chat up to date with `state`, touching only exchanges that changed. */
export function renderChat(state) {
  renderHistory(state);
  const list = log();
  const groups = exchanges(state.transcript);
  let added = false;
  const keys = new Set(groups.map((g) => g.key));
  for (const [key, entry] of drawn) {
    if (!keys.has(key)) {
      entry.element.remove();
      drawn.delete(key);
    }
  }
  let previous = null;
  for (const group of groups) {
    const sig = signature(group, state);
    const known = drawn.get(group.key);
    let element = known && known.sig === sig ? known.element : null;
    if (!element) {
      element = renderExchange(group, state);
      if (known) known.element.replaceWith(element);
      else added = true;
      drawn.set(group.key, { sig, element });
    }
    const expectedPlace = previous ? previous.nextSibling : list.firstChild;
    if (element !== expectedPlace) list.insertBefore(element, expectedPlace);
    previous = element;
  }
  document.getElementById("chat-empty")?.remove();
  if (groups.length === 0) {
    list.after(h("div", { id: "chat-empty", class: "panel" },
      h("p", {}, "Ask SUSI anything, or try one of these:"),
      h("ul", { class: "suggestions" }, ["hi", "show me the news", "where is Berlin",
        "world population by continent", "show me the noble gases"].map((q) =>
        h("li", {}, h("button", { type: "button", onclick: () => ask(q) }, q))))));
  }
  if (added) followBottom();
}

/**
 * Auto-scroll: the chat keeps its newest answer in view, also while cards grow (a picture
 * loads, a preview arrives), unless the person has scrolled up; scrolling back down, or
 * sending a message, follows again.
 */
let pinned = true;
let lastY = 0;

function atBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
}

function chatShown() {
  return !document.getElementById("screen-chat").hidden;
}

function followBottom() {
  if (!pinned || !chatShown()) return;
  window.scrollTo(0, document.documentElement.scrollHeight);
  lastY = window.scrollY;
}

/** Whether the chat follows new answers (for tests and the page itself). */
export function followsNewAnswers() {
  return pinned;
}

// The page itself only ever scrolls down to the bottom, and growing cards do not move it: a
// move up that does not end at the bottom is the person's.
window.addEventListener("scroll", () => {
  if (!chatShown()) return;
  const y = window.scrollY;
  if (atBottom()) pinned = true;
  else if (y < lastY) pinned = false;
  lastY = y;
}, { passive: true });

new ResizeObserver(() => followBottom()).observe(document.getElementById("chat-log"));

document.getElementById("chat-form").addEventListener("submit", () => {
  pinned = true;
  followBottom();
});
