// Account and settings: sign up, log in, log out, and the settings the server accepts.
// A password goes from its field straight into the intent and the field is emptied: the page
// keeps it nowhere, and forms post (never GET), so it can never land in an address.

import { h, fill } from "./dom.js";
import { send, onEvent, notice, access, allowed, notAllowedText } from "./store.js";
import { closeSession } from "./api.js";

/** The settings the SUSI server accepts, in its order, with what each takes. */
const settingFields = [
  { key: "userName", kind: "text", label: "User name", minLength: 5, maxLength: 51 },
  { key: "prefLanguage", kind: "text", label: "Preferred language (en, de, …)" },
  { key: "theme", kind: "choice", label: "Theme", choices: ["light", "dark", "custom"] },
  { key: "enterAsSend", kind: "bool", label: "Enter sends the message" },
  { key: "micInput", kind: "bool", label: "Microphone input" },
  { key: "speechOutput", kind: "bool", label: "Speak answers to spoken questions" },
  { key: "speechOutputAlways", kind: "bool", label: "Always speak answers" },
  { key: "speechRate", kind: "number", label: "Speech rate", min: 0.1, max: 10, step: 0.1 },
  { key: "speechPitch", kind: "number", label: "Speech pitch", min: 0, max: 2, step: 0.1 },
  { key: "ttsLanguage", kind: "text", label: "Speech language" },
  { key: "timeZone", kind: "text", label: "Time zone" },
  { key: "countryCode", kind: "text", label: "Country code" },
  { key: "countryDialCode", kind: "text", label: "Country dial code" },
  { key: "phoneNo", kind: "text", label: "Phone number" },
  { key: "checked", kind: "bool", label: "Checked" },
  { key: "server", kind: "text", label: "Server (as the apps store it)" },
  { key: "serverUrl", kind: "text", label: "Server URL (as the apps store it)" },
  { key: "backgroundImage", kind: "text", label: "Background image" },
  { key: "messageBackgroundImage", kind: "text", label: "Message background image" },
  { key: "customThemeValue", kind: "text", label: "Custom theme value" },
  { key: "avatarType", kind: "choice", label: "Avatar", choices: ["default", "server", "gravatar"] },
];

/** Readable names of the settings, by the server's key. */
export const settingLabels = Object.fromEntries(settingFields.map((field) => [field.key, field.label]));

/** The readable name of setting `key`; a key this page does not know is shown as it is. */
export function settingLabel(key) {
  return Object.hasOwn(settingLabels, key) ? settingLabels[key] : key;
}

onEvent((event) => {
  if (event.origin !== "runner") return;
  if (event.type === "signedUp") notice(`Signed up as ${event.payload.email}. You can log in now.`);
  if (event.type === "loggedIn") notice(`Logged in as ${event.payload.email}.`);
  if (event.type === "loginFailed") notice(`Login failed: ${(event.payload.error || {}).message}`);
  if (event.type === "loggedOut") notice(event.payload.reason ? `Logged out: ${event.payload.reason}` : "Logged out.");
  if (event.type === "settingsChanged") notice("Settings saved.");
  if (event.type === "settingsSynced") notice("Settings loaded from the server.");
});

let drawnSignature = null;

export function renderAccount(state) {
  const signature = JSON.stringify([state.session, state.settings, state.server]);
  if (signature === drawnSignature) return;
  drawnSignature = signature;
  const area = document.getElementById("account-area");
  fill(area, state.session ? loggedIn(state) : loggedOut(state), browserAccess());
}

/** This browser's own access to susi (not the SUSI account): it can be ended here. */
function browserAccess() {
  const shared = access && access.mode === "serve";
  return h("div", { class: "panel browser-access" },
    h("h3", {}, "This browser"),
    h("p", {}, shared ? "Signed in to this shared susi with an access key."
      : "Signed in to susi web through the address it printed."),
    h("button", { type: "button", id: "close-session", onclick: async () => {
      try {
        await closeSession();
      } catch (error) {
        notice(`Not signed out: ${error.message}`);
        return;
      }
      window.dispatchEvent(new CustomEvent("susi-unauthorized"));
    } }, "Sign this browser out"));
}

function credentialsForm(id, title, button, intent, passwordAutocomplete) {
  if (!allowed(intent)) {
    return h("div", { id, class: "panel" }, h("h3", {}, title), h("p", { class: "muted" }, notAllowedText(intent)));
  }
  const email = h("input", { id: `${id}-email`, name: "email", type: "email", autocomplete: "email", required: true });
  const password = h("input", { id: `${id}-password`, name: "password", type: "password",
    autocomplete: passwordAutocomplete, required: true });
  const form = h("form", { id, class: "panel", method: "post", "aria-labelledby": `${id}-title` },
    h("h3", { id: `${id}-title` }, title),
    h("label", { for: `${id}-email` }, "Email"), email,
    h("label", { for: `${id}-password` }, "Password"), password,
    h("button", { type: "submit" }, button));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const payload = { email: email.value.trim(), password: password.value };
    password.value = "";
    send(intent, payload);
  });
  return form;
}

function loggedOut(state) {
  return [
    h("p", {}, `Server: ${state.server}`),
    h("div", { class: "account-forms" },
      credentialsForm("login-form", "Log in", "Log in", "login", "current-password"),
      credentialsForm("signup-form", "Sign up", "Sign up", "signup", "new-password")),
    h("p", { class: "muted" }, "Passwords go to the server and nowhere else: susi's log shows them as [redacted]."),
  ];
}

function loggedIn(state) {
  const session = state.session;
  return [
    h("div", { class: "panel session" },
      h("p", {}, "Logged in as ", h("strong", { id: "session-email" }, session.email),
        ` on ${state.server}`, session.expiresAt ? ` until ${session.expiresAt}.` : "."),
      allowed("logout") ? h("button", { type: "button", id: "logout", onclick: () => send("logout", {}) }, "Log out") : null),
    settingsForm(state.settings || {}),
  ];
}

function settingInput(field, value) {
  const id = `setting-${field.key}`;
  if (field.kind === "bool") {
    return h("div", { class: "field check" },
      h("input", { id, name: field.key, type: "checkbox", checked: value === true }),
      h("label", { for: id }, field.label));
  }
  let input;
  if (field.kind === "choice") {
    input = h("select", { id, name: field.key },
      h("option", { value: "", selected: value === undefined }, "(not set)"),
      field.choices.map((c) => h("option", { value: c, selected: value === c }, c)));
  } else {
    input = h("input", {
      id, name: field.key, type: field.kind === "number" ? "number" : "text",
      value: value === undefined ? "" : String(value), min: field.min ?? null, max: field.max ?? null,
      step: field.step ?? null, minlength: field.minLength ?? null, maxlength: field.maxLength ?? null,
    });
  }
  return h("div", { class: "field" }, h("label", { for: id }, field.label), input);
}

/** Settings the server holds that this page has no field for: shown read-only, key as is. */
function otherSettings(settings) {
  const others = Object.keys(settings).filter((key) => !Object.hasOwn(settingLabels, key)).sort();
  if (others.length === 0) return null;
  return h("div", { class: "other-settings-panel" }, h("h4", {}, "Other settings on the server"),
    h("dl", { class: "other-settings" }, others.flatMap((key) => [
      h("dt", {}, settingLabel(key)), h("dd", {}, JSON.stringify(settings[key]))])));
}

/** The settings form: saving sends only what differs from the state. */
function settingsForm(settings) {
  if (!allowed("changeSettings")) {
    return h("div", { id: "settings-form", class: "panel" }, h("h3", {}, "Settings"),
      h("p", { class: "muted" }, notAllowedText("changeSettings")));
  }
  const form = h("form", { id: "settings-form", class: "panel settings", method: "post",
    "aria-labelledby": "settings-title" },
    h("h3", { id: "settings-title" }, "Settings"),
    h("div", { class: "fields" }, settingFields.map((field) => settingInput(field, settings[field.key]))),
    otherSettings(settings),
    h("div", { class: "buttons" },
      h("button", { type: "submit" }, "Save settings"),
      h("button", { type: "button", id: "sync-settings", onclick: () => send("syncSettings", {}) },
        "Load from server")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const changed = {};
    for (const field of settingFields) {
      const input = form.elements[field.key];
      let value;
      if (field.kind === "bool") value = input.checked;
      else if (input.value === "") continue;
      else if (field.kind === "number") value = Number(input.value);
      else value = input.value;
      if (field.kind === "bool" && settings[field.key] === undefined && value === false) continue;
      if (settings[field.key] !== value) changed[field.key] = value;
    }
    if (Object.keys(changed).length === 0) {
      notice("Nothing to save: no setting changed.");
      return;
    }
    send("changeSettings", { settings: changed });
  });
  return form;
}
