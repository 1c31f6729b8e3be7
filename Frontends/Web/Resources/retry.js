// What susi could not fetch for this page (a picture, a link preview), with when to try again:
// a reload does not ask for it again before then. Kept in this origin's localStorage; the wait
// starts at 10 minutes and doubles with each failure, up to a day.

const storageKey = "susi-failed";
const firstWait = 10 * 60 * 1000;
const longestWait = 24 * 60 * 60 * 1000;
const kept = 500;

function read() {
  try {
    const value = JSON.parse(localStorage.getItem(storageKey) || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function write(book) {
  const entries = Object.entries(book).sort((a, b) => a[1].until - b[1].until).slice(-kept);
  try {
    localStorage.setItem(storageKey, JSON.stringify(Object.fromEntries(entries)));
  } catch {
    // No storage: failures are remembered for this page load only (by the callers' sets).
  }
}

/** Whether a failed `kind` request for `url` should wait before it is asked for again. */
export function waiting(kind, url) {
  const entry = read()[`${kind} ${url}`];
  return Boolean(entry && entry.until > Date.now());
}

/** Notes that `kind` for `url` failed: the next try waits longer each time. */
export function failedNow(kind, url) {
  const book = read();
  const key = `${kind} ${url}`;
  const tries = (book[key]?.tries || 0) + 1;
  book[key] = { tries, until: Date.now() + Math.min(firstWait * 2 ** (tries - 1), longestWait) };
  write(book);
}
