// The page's entry point: checks access, follows susi's events, reads the state after each,
// and shows the screen the address names (#/chat, #/skills, #/skill/<group>/<skill>,
// #/account, #/inspector).

import { getSession, openSession, redeemToken, hasSession, getEvents, followEvents, APIError } from "./api.js";
import { state, onState, refreshState, receive, startStreamAt, notice, setAccess } from "./store.js";
import { setUpChat, renderChat } from "./chat.js";
import { renderSkills, renderSkill, enterSkill, leaveSkill } from "./skills.js";
import { renderAccount } from "./account.js";
import { showInspector, hideInspector } from "./inspector.js";
import { setServers } from "./dom.js";

const screens = ["gate", "chat", "skills", "skill", "account", "inspector"];
const titles = { chat: "Chat", skills: "Skills", skill: "Skill", account: "Account", inspector: "Inspector" };

/** The screen and its arguments from the address. */
function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  switch (parts[0]) {
    case "skills": return { screen: "skills", group: parts[1] || null };
    case "skill": return parts.length >= 3 ? { screen: "skill", group: parts[1], tag: parts.slice(2).join("/") }
      : { screen: "skills", group: null };
    case "account": return { screen: "account" };
    case "inspector": return { screen: "inspector" };
    default: return { screen: "chat" };
  }
}

let current = null;

function showScreen(name) {
  for (const screen of screens) {
    document.getElementById(`screen-${screen}`).hidden = screen !== name;
  }
  const tab = name === "skill" ? "skills" : name;
  for (const link of document.querySelectorAll("nav a[data-screen]")) {
    if (link.dataset.screen === tab) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = titles[name] ? `${titles[name]} · SUSI` : "SUSI";
}

/** Draws the current screen from the state. */
function render() {
  if (!state || !current) return;
  switch (current.screen) {
    case "chat": renderChat(state); break;
    case "skills": renderSkills(state, current.group); break;
    case "skill": renderSkill(state, current.group, current.tag); break;
    case "account": renderAccount(state); break;
    default: break;
  }
}

function navigate(moveFocus) {
  const next = route();
  const previous = current;
  current = next;
  showScreen(next.screen);
  if (previous && previous.screen === "skill" && next.screen !== "skill") leaveSkill();
  if (next.screen === "skill") {
    leaveSkill();
    enterSkill(state, next.group, next.tag);
  }
  if (next.screen === "inspector") showInspector();
  else hideInspector();
  render();
  if (moveFocus && (!previous || previous.screen !== next.screen)) {
    const target = next.screen === "chat" ? document.getElementById("chat-input") : document.getElementById("main");
    target.focus({ preventScroll: next.screen !== "chat" });
    if (next.screen !== "chat") window.scrollTo(0, 0);
  }
}

let gateShown = false;

function showGate(reason = "") {
  if (gateShown) return;
  gateShown = true;
  showScreen("gate");
  document.getElementById("connection").textContent = "Not connected";
  const served = location.pathname.startsWith("/web/");
  document.getElementById("gate-web").hidden = served;
  document.getElementById("gate-reason").textContent = reason;
  const form = document.getElementById("gate-key");
  form.hidden = !served;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = document.getElementById("gate-key-input");
    const key = input.value;
    input.value = "";
    try {
      await openSession(key);
      location.reload();
    } catch (error) {
      document.getElementById("gate-key-error").textContent = `Not accepted: ${error.message}`;
    }
  });
}

let stream = null;
let builtInServer = null;

/**
 * Signs this tab in with the token of the address `susi web` printed, once: the token leaves
 * the address bar and history at once, and is good for one sign-in only. Returns why it did
 * not work, or "".
 */
async function useToken() {
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  if (token === null) return "";
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
  try {
    await redeemToken(token);
    return "";
  } catch (error) {
    // A tab signed in already (a reload of the old address) keeps its session; this is said
    // only when that session is gone too.
    return `That link did not sign this tab in: ${error.message}.`;
  }
}

async function boot() {
  const refused = await useToken();
  try {
    if (!hasSession()) throw new APIError(401, "unauthorized", "no session");
    const session = await getSession();
    setAccess(session);
    builtInServer = session.builtInServer || null;
    setServers(builtInServer, null);
  } catch (error) {
    if (error instanceof APIError && error.status === 401) {
      showGate(refused);
      return;
    }
    document.getElementById("connection").textContent = `susi cannot be reached: ${error.message}`;
    return;
  }
  window.addEventListener("susi-unauthorized", () => {
    stream?.close();
    showGate();
  });
  setUpChat();
  const connection = document.getElementById("connection");
  let start = 0;
  try {
    start = (await getEvents(0, 1)).lastSeq;
  } catch (error) {
    notice(`Could not read the log: ${error.message}`);
  }
  startStreamAt(start);
  stream = followEvents(start, receive, (status) => {
    connection.textContent = status === "open" ? "Live" : "Reconnecting…";
    connection.dataset.status = status;
    // Whatever happened while the stream was down is in the state: read it again.
    if (status === "open") refreshState();
  });
  onState((current) => setServers(builtInServer, current.server));
  onState(render);
  await refreshState();
  window.addEventListener("hashchange", () => {
    if (!gateShown) navigate(true);
  });
  navigate(false);
  document.body.dataset.ready = "true";
}

boot();
