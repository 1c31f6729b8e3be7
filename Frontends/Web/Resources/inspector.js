// The inspector: the event log as a list, filters by type and by cause chain, a slider and
// step buttons to move through time, the state at the chosen event and what that event
// changed (computed here, from the states before and after it), live as events arrive.

import { h, fill, clockTime, prettyJSON } from "./dom.js";
import { getEvents, getStateAt, downloadLog } from "./api.js";
import { onEvent, lastSeq, notice } from "./store.js";

const events = [];
let loading = null;
let loaded = false;
const early = [];
let selected = null;
let follow = true;
let typeFilter = "";
let chainFilter = null;
let visible = false;
const states = new Map();

/** Every event from the log's start: read once, then kept up to date from the stream. */
function loadAll() {
  if (loading) return loading;
  loading = (async () => {
    let after = 0;
    for (;;) {
      const page = await getEvents(after, 1000);
      for (const event of page.events) add(event);
      if (page.events.length === 0 || after >= page.lastSeq) break;
      after = page.events[page.events.length - 1].seq;
      if (after >= page.lastSeq) break;
    }
    loaded = true;
    for (const event of early.splice(0)) add(event);
  })();
  return loading;
}

function add(event) {
  const last = events.length ? events[events.length - 1].seq : 0;
  if (event.seq <= last) return false;
  events.push(event);
  return true;
}

let drawScheduled = false;

onEvent((event) => {
  if (!loading) return;
  if (!loaded) {
    // Events that arrive while the log is being read are added after it, in order.
    early.push(event);
    return;
  }
  if (add(event) && visible) {
    if (follow) selected = event.seq;
    // A burst of events is drawn once, at the next frame.
    if (!drawScheduled) {
      drawScheduled = true;
      requestAnimationFrame(() => {
        drawScheduled = false;
        draw();
      });
    }
  }
});

function eventAt(seq) {
  // Events are in seq order with no gaps from 1, so the index is seq - 1 once all are loaded.
  const guess = events[seq - 1];
  if (guess && guess.seq === seq) return guess;
  return events.find((e) => e.seq === seq) || null;
}

/** The events of `seq`'s cause chain: what led to it and everything it led to. */
function causeChain(seq) {
  const chain = new Set([seq]);
  let event = eventAt(seq);
  while (event && event.cause && !chain.has(event.cause)) {
    chain.add(event.cause);
    event = eventAt(event.cause);
  }
  for (const e of events) if (e.cause && chain.has(e.cause) && e.seq > seq) chain.add(e.seq);
  return chain;
}

function filtered() {
  const chain = chainFilter ? causeChain(chainFilter) : null;
  return events.filter((e) => (!typeFilter || e.type === typeFilter) && (!chain || chain.has(e.seq)));
}

function latest() {
  return Math.max(events.length ? events[events.length - 1].seq : 0, lastSeq);
}

/** Shows the inspector; reads the log the first time. */
export async function showInspector() {
  visible = true;
  const area = document.getElementById("inspector-area");
  if (!area.firstChild) setUp(area);
  try {
    await loadAll();
  } catch (error) {
    notice(`Could not read the log: ${error.message}`);
    loading = null; // Read it again next time the inspector is shown.
    early.length = 0;
  }
  if (selected === null || follow) selected = latest();
  draw();
}

export function hideInspector() {
  visible = false;
}

function setUp(area) {
  fill(area,
    h("div", { class: "inspector-tools panel" },
      h("div", { class: "field" },
        h("label", { for: "filter-type" }, "Type"),
        h("select", { id: "filter-type", onchange: (e) => { typeFilter = e.target.value; draw(); } },
          h("option", { value: "" }, "All types"))),
      h("form", { id: "chain-form", class: "field", method: "post" },
        h("label", { for: "filter-chain" }, "Cause chain of seq"),
        h("input", { id: "filter-chain", type: "number", min: 1, inputmode: "numeric" }),
        h("button", { type: "submit" }, "Filter"),
        h("button", { type: "button", id: "chain-clear",
          onclick: () => { chainFilter = null; document.getElementById("filter-chain").value = ""; draw(); } }, "Clear")),
      h("div", { class: "field check" },
        h("input", { id: "follow", type: "checkbox", checked: true,
          onchange: (e) => { follow = e.target.checked; if (follow) { selected = latest(); draw(); } } }),
        h("label", { for: "follow" }, "Follow new events")),
      h("button", { type: "button", id: "download-log",
        onclick: () => downloadLog().catch((error) => notice(`Could not download the log: ${error.message}`)) },
        "Download the log")),
    h("div", { class: "stepper panel" },
      h("button", { type: "button", id: "step-first", onclick: () => step("first") }, "First"),
      h("button", { type: "button", id: "step-back", onclick: () => step(-1) }, "◀ Back"),
      h("label", { for: "seq-slider", class: "visually-hidden" }, "Event"),
      h("input", { id: "seq-slider", type: "range", min: 0, max: 0, value: 0,
        oninput: (e) => choose(Number(e.target.value)) }),
      h("button", { type: "button", id: "step-forward", onclick: () => step(1) }, "Forward ▶"),
      h("button", { type: "button", id: "step-last", onclick: () => step("last") }, "Latest"),
      h("output", { id: "seq-output", for: "seq-slider", "aria-live": "polite" }, "")),
    h("div", { class: "inspector-body" },
      h("div", { class: "event-list table-scroll", tabindex: 0, role: "region", "aria-label": "Events" },
        h("table", { id: "event-table" },
          h("thead", {}, h("tr", {}, ["seq", "time", "origin", "type", "cause", "id"].map((c) =>
            h("th", { scope: "col" }, c)))),
          h("tbody", {}))),
      h("div", { id: "event-detail", class: "event-detail" })));
  document.getElementById("chain-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = Number(document.getElementById("filter-chain").value);
    chainFilter = value > 0 ? value : null;
    if (chainFilter) choose(chainFilter);
    else draw();
  });
}

/** Moves the selection: -1/+1 through the listed events, or to the first/latest. */
function step(how) {
  const list = filtered();
  const seqs = typeFilter || chainFilter ? list.map((e) => e.seq) : null;
  let next = selected ?? latest();
  if (how === "first") next = seqs ? seqs[0] ?? next : 0;
  else if (how === "last") next = seqs ? seqs[seqs.length - 1] ?? next : latest();
  else if (seqs) {
    const candidates = how < 0 ? seqs.filter((s) => s < next) : seqs.filter((s) => s > next);
    if (candidates.length) next = how < 0 ? candidates[candidates.length - 1] : candidates[0];
  } else {
    next = Math.min(latest(), Math.max(0, next + how));
  }
  choose(next);
}

function choose(seq) {
  selected = seq;
  const isLatest = seq === latest();
  if (follow !== isLatest) {
    follow = isLatest;
    document.getElementById("follow").checked = follow;
  }
  draw();
}

function draw() {
  if (!visible) return;
  const types = [...new Set(events.map((e) => e.type))].sort();
  const select = document.getElementById("filter-type");
  const have = [...select.options].slice(1).map((o) => o.value);
  if (have.join() !== types.join()) {
    fill(select, h("option", { value: "" }, "All types"),
      types.map((t) => h("option", { value: t, selected: t === typeFilter }, t)));
  }
  const max = latest();
  const slider = document.getElementById("seq-slider");
  slider.max = String(max);
  slider.value = String(selected ?? max);
  document.getElementById("seq-output").textContent = `seq ${selected} of ${max}`;
  drawList();
  drawDetail();
}

function drawList() {
  const list = filtered();
  // Long logs: the 300 rows around the selection.
  let start = 0;
  if (list.length > 300) {
    const at = list.findIndex((e) => e.seq >= (selected ?? 0));
    start = Math.max(0, Math.min(list.length - 300, (at < 0 ? list.length : at) - 150));
  }
  const rows = list.slice(start, start + 300).map((event) => {
    const row = h("tr", { "data-seq": event.seq, class: event.seq === selected ? "selected" : null,
      "aria-selected": event.seq === selected ? "true" : "false" },
      h("td", {}, h("button", { type: "button", class: "link", onclick: () => choose(event.seq) }, event.seq)),
      h("td", {}, h("time", { datetime: event.at }, clockTime(event.at))),
      h("td", {}, event.origin),
      h("td", {}, event.type),
      h("td", {}, event.cause ?? ""),
      h("td", {}, event.id === undefined ? "" : JSON.stringify(event.id)));
    return row;
  });
  const body = document.querySelector("#event-table tbody");
  fill(body, rows.length ? rows : h("tr", {}, h("td", { colspan: 6 }, "No events match.")));
  scrollToSelected(body);
}

/** Scrolls the list (and only the list, never the page) to show the selected row. */
function scrollToSelected(body) {
  const row = body.querySelector("tr.selected");
  if (!row) return;
  const box = body.closest(".event-list");
  const head = body.parentElement.tHead.offsetHeight;
  const top = row.offsetTop;
  if (top - head < box.scrollTop) box.scrollTop = top - head;
  else if (top + row.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = top + row.offsetHeight - box.clientHeight;
  }
}

async function stateAt(seq) {
  if (states.has(seq)) return states.get(seq);
  const value = await getStateAt(seq);
  states.set(seq, value);
  if (states.size > 64) states.delete(states.keys().next().value);
  return value;
}

let drawing = 0;

async function drawDetail() {
  const detail = document.getElementById("event-detail");
  const seq = selected;
  const ticket = ++drawing;
  const event = seq > 0 ? eventAt(seq) : null;
  let after;
  let before;
  try {
    [after, before] = await Promise.all([stateAt(seq), seq > 0 ? stateAt(seq - 1) : null]);
  } catch (error) {
    if (ticket === drawing) fill(detail, h("p", { class: "error" }, `No state at ${seq}: ${error.message}`));
    return;
  }
  if (ticket !== drawing) return;
  const changes = before ? diff(before, after) : [];
  fill(detail,
    h("h3", { id: "detail-title" }, seq === 0 ? "The initial state" : `Event ${seq}: ${event ? event.type : ""}`),
    h("h4", {}, seq === 0 ? "Nothing happened yet" : `What it changed (${changes.length})`),
    seq === 0 ? null : changes.length === 0 ? h("p", { id: "diff-none", class: "muted" }, "Nothing in the state changed.")
      : h("ul", { id: "diff", class: "diff" }, changes.slice(0, 200).map((c) => h("li", { class: `change ${c.kind}` },
        h("code", { class: "path" }, c.path), " ",
        c.kind === "added" ? ["added ", h("code", {}, short(c.after))]
          : c.kind === "removed" ? ["removed ", h("code", {}, short(c.before))]
            : [h("code", {}, short(c.before)), " → ", h("code", {}, short(c.after))]))),
    event ? h("details", { class: "event-line", open: true },
      h("summary", {}, "The event as logged"),
      h("pre", { class: "event-json" }, prettyJSON(event))) : null,
    h("details", { class: "state-at" },
      h("summary", {}, `The state after event ${seq}`),
      h("pre", {}, prettyJSON(after))));
}

function short(value) {
  const text = JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/**
 * What changed from `a` to `b`, as `{path, kind: "added"|"removed"|"changed", before, after}`
 * with paths like `skills.Knowledge.Synonyms.rating.total` and `transcript[3]`.
 */
export function diff(a, b, path = "", out = []) {
  if (a === b) return out;
  const kindA = kindOf(a);
  const kindB = kindOf(b);
  if (kindA !== kindB || kindA === "value") {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: path || "(state)", kind: "changed", before: a, after: b });
    return out;
  }
  if (kindA === "array") {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= a.length) out.push({ path: p, kind: "added", after: b[i] });
      else if (i >= b.length) out.push({ path: p, kind: "removed", before: a[i] });
      else diff(a[i], b[i], p, out);
    }
    return out;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) {
    const p = path ? `${path}.${key}` : key;
    if (!(key in a)) out.push({ path: p, kind: "added", after: b[key] });
    else if (!(key in b)) out.push({ path: p, kind: "removed", before: a[key] });
    else diff(a[key], b[key], p, out);
  }
  return out;
}

function kindOf(value) {
  if (Array.isArray(value)) return "array";
  if (value !== null && typeof value === "object") return "object";
  return "value";
}
