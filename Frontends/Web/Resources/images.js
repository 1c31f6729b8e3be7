// Images come only from susi's image cache (`/images?url=…`), never from the address a server
// named: each image is downloaded once by susi, and the page works offline afterwards. An
// image not cached yet is asked for with the `cacheImage` intent and shown once the
// `imageCached` event has put it into the state.

import { h, isWebURL } from "./dom.js";
import { state, send, onState } from "./store.js";

/** URLs this page asked susi to cache (asked once per page load). */
const requested = new Set();
/** Images waiting for their URL to be cached: url -> Set of <img>. */
const waiting = new Map();

/** The path that serves `url` from the cache. */
export function cachePath(url) {
  return `/images?url=${encodeURIComponent(url)}`;
}

/**
 * An <img> for the image at `url`, shown from the cache. Until it is cached the element shows
 * its `alt` text on a placeholder background.
 */
export function cachedImage(url, alt, className = "") {
  const img = h("img", { alt: alt || "", class: `cached ${className}`.trim(), decoding: "async" });
  if (!isWebURL(url)) {
    img.classList.add("missing");
    return img;
  }
  img.dataset.imageUrl = url;
  img.addEventListener("error", () => notCached(img, url));
  if (state && state.images && state.images[url]) {
    img.src = cachePath(url);
  } else {
    wait(img, url);
  }
  return img;
}

function wait(img, url) {
  img.classList.add("pending");
  if (!waiting.has(url)) waiting.set(url, new Set());
  waiting.get(url).add(img);
  if (!requested.has(url)) {
    requested.add(url);
    send("cacheImage", { url }, () => failed(url));
  }
}

/** susi could not fetch the image: its elements show their placeholder for good. */
function failed(url) {
  for (const img of waiting.get(url) || []) {
    img.classList.remove("pending");
    img.classList.add("missing");
  }
  waiting.delete(url);
}

/** A failed load: when susi says the image is not cached (yet), ask for it and wait. */
async function notCached(img, url) {
  if (img.dataset.checked === "1") {
    img.classList.add("missing");
    return;
  }
  img.dataset.checked = "1";
  try {
    const response = await fetch(cachePath(url), { credentials: "same-origin" });
    if (response.status === 404) {
      const body = await response.json().catch(() => null);
      if (body && body.error && body.error.code === "not_cached") {
        requested.delete(url);
        img.removeAttribute("src");
        wait(img, url);
        return;
      }
    }
  } catch {
    // Fall through: show the placeholder.
  }
  img.classList.add("missing");
}

onState((current) => {
  const images = current.images || {};
  for (const [url, imgs] of waiting) {
    if (!images[url]) continue;
    waiting.delete(url);
    for (const img of imgs) {
      img.classList.remove("pending");
      if (img.isConnected) img.src = cachePath(url);
    }
  }
});
