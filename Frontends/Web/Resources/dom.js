// Small helpers for building the page from data. Text always goes in as text nodes, never as
// HTML, so nothing a server or a skill says can become markup or script.

/**
 * Makes an element: h("a", {href: "#", class: "x"}, "text", child, [more children]).
 * Attributes starting with "on" are event listeners; `false`/null/undefined attributes are
 * left out; children may be strings, numbers, nodes, arrays of them, or null.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

/** The same for SVG elements. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `element` with `children`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** True for absolute http(s) URLs: the only links the page makes clickable. */
export function isWebURL(text) {
  if (typeof text !== "string") return false;
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** A link that opens outside the page, or plain text when `url` is not a web address. */
export function externalLink(url, text, attributes = {}) {
  if (!isWebURL(url)) return h("span", {}, text || url || "");
  return h("a", { href: rebased(url), target: "_blank", rel: "noopener noreferrer", ...attributes },
    text || url);
}

/** The built-in server susi runs now (a URL), and the server chosen in the state. */
let builtIn = null;
let chosenOrigin = null;

function parsed(url) {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** Tells the page where the built-in server is now (`/session` says) and which server is chosen. */
export function setServers(builtInServer, chosenServer) {
  builtIn = builtInServer ? parsed(builtInServer) : null;
  chosenOrigin = chosenServer ? parsed(chosenServer)?.origin || null : null;
}

/** Paths the built-in server serves that answers link to: pages, icons and skill images. */
const builtInPaths = ["/pages/", "/i/", "/duckduckgo/i/", "/cms/getImage.png"];

/**
 * `url` as the built-in server serves it now: an answer logged while an earlier run's built-in
 * server listened on another port names that port; such a loopback URL is moved to today's
 * port. Any other URL stays as it is.
 */
export function rebased(url) {
  if (!builtIn || typeof url !== "string") return url;
  const target = parsed(url);
  if (!target || target.protocol !== "http:") return url;
  if (!["127.0.0.1", "localhost", "[::1]"].includes(target.hostname)) return url;
  if ([builtIn.origin, location.origin, chosenOrigin].includes(target.origin)) return url;
  if (!builtInPaths.some((path) => target.pathname.startsWith(path))) return url;
  return builtIn.origin + target.pathname + target.search + target.hash;
}

/** "18:32:58" for an RFC 3339 time, in the browser's zone. */
export function clockTime(rfc3339) {
  const date = new Date(rfc3339);
  if (Number.isNaN(date.getTime())) return rfc3339 || "";
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** A number with at most `digits` decimals, without trailing zeros. */
export function shortNumber(value, digits = 2) {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  return String(Number(value.toFixed(digits)));
}

/** Any JSON value as indented text. */
export function prettyJSON(value) {
  return JSON.stringify(value, null, 2);
}
