// Images come only from susi's image cache (`/images?url=…`), never from the address a server
// named: each image is downloaded once by susi, and the page works offline afterwards. An
// image not cached yet is asked for with the `cacheImage` intent and shown once the
// `imageCached` event has put it into the state. The page fetches each picture with its
// session header and shows it from a `blob:` address (an <img> cannot send a header).

import { h, isWebURL, rebased } from "./dom.js";
import { state, send, onState } from "./store.js";
import { request } from "./api.js";
import { waiting as backedOff, failedNow } from "./retry.js";

/** URLs this page asked susi to cache (asked once per page load). */
const requested = new Set();
/** Images waiting for their picture: url -> Set of <img>. */
const waiting = new Map();
/** Pictures loaded: url -> blob: address. */
const loaded = new Map();
/** Loads under way: url -> promise. */
const loading = new Map();

/** The path that serves `url` from the cache. */
export function cachePath(url) {
  return `/images?url=${encodeURIComponent(url)}`;
}

/**
 * An <img> for the image at `url`, shown from the cache. Until it is cached the element shows
 * its `alt` text on a placeholder background.
 */
export function cachedImage(original, alt, className = "") {
  const img = h("img", { alt: alt || "", class: `cached ${className}`.trim(), decoding: "async" });
  // A picture cached under its logged address is shown from there; otherwise it is fetched
  // from where the built-in server is now.
  const url = state && state.images && state.images[original] ? original : rebased(original);
  if (!isWebURL(url)) {
    img.classList.add("missing");
    return img;
  }
  img.dataset.imageUrl = url;
  if (loaded.has(url)) {
    img.src = loaded.get(url);
    return img;
  }
  const cached = state && state.images && state.images[url];
  // susi failed to fetch it a short while ago: not asked for again before its retry time.
  if (!cached && backedOff("image", url)) {
    img.classList.add("missing");
    return img;
  }
  img.classList.add("pending");
  if (!waiting.has(url)) waiting.set(url, new Set());
  waiting.get(url).add(img);
  if (cached) load(url);
  else ask(url);
  return img;
}

function ask(url) {
  if (requested.has(url)) return;
  requested.add(url);
  send("cacheImage", { url }, () => {
    failedNow("image", url);
    failed(url);
  });
}

/** Fetches the cached picture of `url` and shows it in every element waiting for it. */
function load(url) {
  if (loading.has(url) || loaded.has(url)) return;
  const done = (async () => {
    try {
      const response = await request(cachePath(url));
      if (response.ok) {
        const address = URL.createObjectURL(await response.blob());
        loaded.set(url, address);
        for (const img of waiting.get(url) || []) {
          img.classList.remove("pending");
          img.src = address;
        }
        waiting.delete(url);
        return;
      }
      if (response.status === 404) {
        const body = await response.json().catch(() => null);
        // The file is gone from the cache: ask susi for it again.
        if (body && body.error && body.error.code === "not_cached") {
          requested.delete(url);
          ask(url);
          return;
        }
      }
    } catch {
      // Fall through: show the placeholder.
    }
    failed(url);
  })();
  loading.set(url, done);
  done.finally(() => loading.delete(url));
}

/** susi could not fetch the image: its elements show their placeholder. */
function failed(url) {
  for (const img of waiting.get(url) || []) {
    img.classList.remove("pending");
    img.classList.add("missing");
  }
  waiting.delete(url);
}

onState((current) => {
  const images = current.images || {};
  for (const url of waiting.keys()) {
    if (images[url]) load(url);
  }
});
