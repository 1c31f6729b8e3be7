// One card per answer action. Every action type susi knows has its own card; a type it does
// not know is shown as its raw JSON, so nothing a server sends is hidden.

import { h, svg, externalLink, isWebURL, shortNumber, prettyJSON } from "./dom.js";
import { cachedImage } from "./images.js";
import { send } from "./store.js";
import { waiting, failedNow } from "./retry.js";

/** Searches and previews this page asked for (once per page load). */
const askedSearches = new Set();
const askedPreviews = new Set();
/** Why a search this page asked for failed: query -> message. */
export const failedSearches = new Map();

/** Asks susi for the link preview of `url` unless the state has it or it was asked for. */
function wantPreview(url, state) {
  if (!isWebURL(url) || askedPreviews.has(url) || (state.linkPreviews || {})[url]) return;
  askedPreviews.add(url);
  // A preview that failed a short while ago is not asked for again before its retry time.
  if (waiting("preview", url)) return;
  send("loadLinkPreview", { url }, () => failedNow("preview", url));
}

/** The cards of one answer: an array of elements. */
export function answerCards(answers, state) {
  return answers.map((action) => h("div", { class: `card card-${cssName(action.type)}`,
    "data-type": action.type }, cardBody(action, state)));
}

function cssName(type) {
  return String(type).replace(/[^a-z0-9_-]/gi, "-");
}

function cardBody(action, state) {
  switch (action.type) {
    case "answer": return textCard(action);
    case "table": return tableCard(action);
    case "rss": return rssCard(action, state);
    case "websearch": return websearchCard(action, state);
    case "anchor": return h("p", {}, externalLink(action.link, action.text));
    case "map": return mapCard(action);
    case "piechart": return pieChart(action);
    case "image_show": return h("figure", {}, cachedImage(action.url, "Picture from the answer"));
    case "video_play": return mediaCard("Video", action);
    case "audio_play": return mediaCard("Audio", action);
    case "audio_volume": return h("p", {}, `Volume set to ${action.volume}`);
    case "timer_set": return h("p", {}, `Timer set: ${action.time}`);
    case "stop": case "pause": case "resume": case "restart": case "previous": case "next":
    case "shuffle": case "timer_reset":
      return h("p", { class: "control" }, `Player: ${action.type.replace("_", " ")}`);
    default: return rawCard(action);
  }
}

const urlPattern = /(https?:\/\/[^\s<>"]+)/g;

/** Text with its web addresses made into links. */
function textCard(action) {
  const parts = String(action.expression ?? "").split(urlPattern);
  return h("p", { lang: action.language || null },
    parts.map((part, i) => (i % 2 === 1 ? externalLink(part, part) : part)));
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function tableCard(action) {
  const columns = action.columns || [];
  const rows = action.rows || [];
  return h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Table" },
    h("table", {},
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c.header)))),
      h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, cellText(cell))))))));
}

/** A preview's picture, or nothing when it has none. */
function previewImage(preview, alt) {
  return preview && preview.image ? cachedImage(preview.image, alt, "preview-image") : null;
}

function rssCard(action, state) {
  const items = action.items || [];
  for (const item of items) wantPreview(item.link, state);
  return h("ul", { class: "card-row", tabindex: 0, "aria-label": "Feed items" },
    items.map((item) => {
      const preview = (state.linkPreviews || {})[item.link];
      return h("li", { class: "row-card" },
        previewImage(preview, ""),
        h("h3", {}, item.link ? externalLink(item.link, item.title || item.link) : item.title || ""),
        item.description ? h("p", {}, item.description) : null);
    }));
}

function websearchCard(action, state) {
  const query = action.query;
  const results = (state.searches || {})[query];
  if (!results) {
    if (failedSearches.has(query)) {
      return h("p", { class: "error" }, `The web search for “${query}” failed: ${failedSearches.get(query)}`);
    }
    if (!askedSearches.has(query)) {
      askedSearches.add(query);
      send("search", { query }, (event) => {
        const error = event.payload.error;
        failedSearches.set(query, error ? error.message : event.payload.reason);
      });
    }
    return h("p", { class: "pending-text" }, `Searching the web for “${query}”…`);
  }
  if (results.length === 0) return h("p", {}, `The web search for “${query}” found nothing.`);
  const shown = action.count > 0 ? results.slice(0, action.count) : results;
  for (const result of shown.slice(0, 8)) wantPreview(result.link, state);
  return [
    h("p", { class: "card-heading" }, `Web results for “${query}”`),
    h("ul", { class: "card-row", tabindex: 0, "aria-label": `Web results for ${query}` },
      shown.map((result) => searchResultCard(result, state))),
  ];
}

function searchResultCard(result, state) {
  const preview = (state.linkPreviews || {})[result.link];
  return h("li", { class: "row-card search-result" },
    h("div", { class: "result-title" },
      result.icon ? cachedImage(result.icon, "", "icon") : null,
      h("h3", {}, externalLink(result.link, result.title || result.link))),
    result.description ? h("p", {}, result.description) : null,
    preview ? h("div", { class: "link-preview", "aria-label": "Link preview" },
      previewImage(preview, ""),
      preview.title ? h("strong", {}, preview.title) : null,
      preview.description ? h("p", {}, preview.description) : null) : null);
}

function mapCard(action) {
  const lat = Number(action.latitude);
  const lon = Number(action.longitude);
  const zoom = Number(action.zoom) || 13;
  const link = `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=${zoom}/${lat}/${lon}`;
  return [
    h("p", { class: "coordinates" }, `Latitude ${shortNumber(lat, 5)}, longitude ${shortNumber(lon, 5)}`),
    h("p", {}, externalLink(link, "Open in OpenStreetMap")),
  ];
}

function mediaCard(kind, action) {
  const id = action.identifier;
  let url = null;
  if (action.identifierType === "youtube") {
    url = `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`;
  } else if (isWebURL(id)) {
    url = id;
  }
  const label = kind === "Video" ? "Watch" : "Listen";
  return h("p", {}, `${kind}: `,
    url ? externalLink(url, `${label} on ${action.identifierType === "youtube" ? "YouTube" : "the web"}`)
      : `${action.identifierType} ${id}`);
}

function rawCard(action) {
  return h("details", { open: true },
    h("summary", {}, `Answer of a type this page does not know: ${action.serverType ?? action.type}`),
    h("pre", {}, prettyJSON(action)));
}

/** A pie chart as SVG, with a legend that holds the numbers. */
export function pieChart(action) {
  const slices = (action.slices || []).filter((s) => Number(s.value) > 0);
  const total = slices.reduce((sum, s) => sum + Number(s.value), 0);
  const unit = action.unit || "";
  const label = slices.map((s) => `${s.label} ${shortNumber(Number(s.value))}${unit}`).join(", ");
  const chart = svg("svg", { viewBox: "-1.05 -1.05 2.1 2.1", class: "pie", role: "img",
    "aria-label": `Pie chart: ${label}` });
  let angle = -Math.PI / 2;
  slices.forEach((slice, i) => {
    const share = Number(slice.value) / total;
    const title = svg("title", {}, `${slice.label}: ${shortNumber(Number(slice.value))}${unit}`);
    if (share >= 0.9999) {
      chart.append(svg("circle", { r: 1, class: `slice slice-${i % 8}` }, title));
      return;
    }
    const end = angle + share * 2 * Math.PI;
    const d = `M0 0 L${Math.cos(angle)} ${Math.sin(angle)} A1 1 0 ${share > 0.5 ? 1 : 0} 1 ` +
      `${Math.cos(end)} ${Math.sin(end)} Z`;
    chart.append(svg("path", { d, class: `slice slice-${i % 8}` }, title));
    angle = end;
  });
  const legend = h("ul", { class: "legend" }, slices.map((slice, i) => h("li", {},
    h("span", { class: `swatch slice-${i % 8}`, "aria-hidden": "true" }),
    `${slice.label}: ${shortNumber(Number(slice.value))}${unit}`,
    unit === "%" ? "" : ` (${shortNumber((100 * Number(slice.value)) / total, 1)}%)`)));
  return h("div", { class: "pie-chart" }, chart, legend);
}
