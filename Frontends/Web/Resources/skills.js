// Skills: groups as tabs, skills as cards, and a page per skill with its examples, terms,
// rating chart and a five-star widget for your own rating.

import { h, fill, externalLink, shortNumber } from "./dom.js";
import { cachedImage } from "./images.js";
import { send, allowed, notAllowedText } from "./store.js";
import { ask } from "./chat.js";

const askedGroups = new Set();
let askedGroupList = false;

/** `#/skill/<group>/<tag>` */
export function skillLink(group, tag) {
  return `#/skill/${encodeURIComponent(group)}/${encodeURIComponent(tag)}`;
}

/** The stars of an average as text: "★★★★☆". */
function starText(average) {
  const full = Math.min(5, Math.max(0, Math.round(Number(average) || 0)));
  return "★".repeat(full) + "☆".repeat(5 - full);
}

function ratingSummary(rating) {
  if (!rating || !rating.total) return h("p", { class: "stars muted" }, "Not rated yet");
  return h("p", { class: "stars", "aria-label": `Rated ${shortNumber(rating.average, 1)} of 5 by ${rating.total}` },
    h("span", { "aria-hidden": "true" }, starText(rating.average)),
    h("span", { "aria-hidden": "true" }, ` ${shortNumber(rating.average, 1)} (${rating.total})`));
}

/** The group value of the "All skills" tab (`#/skills/*`). */
export const allGroups = "*";

let shownGroup = null;
let lastState = null;

/** Asks for the skills of `group` once per page load. */
function wantSkills(group) {
  if (askedGroups.has(group)) return;
  askedGroups.add(group);
  send("loadSkills", { group });
}

/** Whether `skill` matches every word of `query` (name, description, author, examples, group). */
function matches(skill, words) {
  const text = [skill.name, skill.tag, skill.description, skill.author, skill.group,
    ...(skill.examples || [])].filter(Boolean).join(" ").toLowerCase();
  return words.every((word) => text.includes(word));
}

/**
 * The skills screen for `group` (null: the first group; `*`: all skills). Text in the search
 * box searches every group.
 */
export function renderSkills(state, group) {
  lastState = state;
  shownGroup = group;
  const groups = state.groups || [];
  if (groups.length === 0 && !askedGroupList) {
    askedGroupList = true;
    send("loadGroups", {});
  }
  const query = document.getElementById("skill-search").value.trim().toLowerCase();
  const words = query.split(/\s+/).filter(Boolean);
  const all = group === allGroups || words.length > 0;
  const selected = group === allGroups ? allGroups
    : group && groups.includes(group) ? group : groups[0];
  renderGroupTabs(groups, selected);
  const area = document.getElementById("skill-area");
  if (!selected) {
    fill(area, h("p", { class: "pending-text" }, "Loading the skill groups…"));
    return;
  }
  area.setAttribute("aria-labelledby", tabId(selected));
  const wanted = all ? groups : [selected];
  for (const name of wanted) wantSkills(name);
  let skills = wanted.flatMap((name) => Object.values((state.skills || {})[name] || {}));
  if (words.length) skills = skills.filter((skill) => matches(skill, words));
  skills.sort((a, b) => (a.name || a.tag).localeCompare(b.name || b.tag));
  const loading = wanted.some((name) => !(state.skills || {})[name]);
  const title = words.length ? `Skills matching “${query}”`
    : selected === allGroups ? "All skills" : selected;
  if (skills.length === 0) {
    fill(area, h("h3", { class: "group-title" }, title),
      h("p", { class: "pending-text" }, loading ? "Loading the skills…"
        : words.length ? "No skill matches. Try fewer or other words." : "This group has no skills."));
    return;
  }
  fill(area, h("h3", { class: "group-title" }, title,
    all ? h("span", { class: "count" }, ` · ${skills.length} skill${skills.length === 1 ? "" : "s"}`) : null),
    h("ul", { class: "skill-grid" }, skills.map((skill) => h("li", {},
      h("a", { class: "skill-card", href: skillLink(skill.group, skill.tag) },
        cachedImage(skill.imageURL, "", "skill-image"),
        h("h4", {}, skill.name || skill.tag),
        skill.description ? h("p", { class: "description" }, skill.description) : null,
        skill.author ? h("p", { class: "author" }, `by ${skill.author}`) : null,
        all ? h("p", { class: "group-name" }, skill.group) : null,
        ratingSummary(skill.rating))))));
}

document.getElementById("skill-search").addEventListener("input", () => {
  if (lastState) renderSkills(lastState, shownGroup);
});

function tabId(group) {
  return group === allGroups ? "group-tab-all" : `group-tab-${group.replace(/[^a-z0-9]/gi, "_")}`;
}

function renderGroupTabs(groups, selected) {
  const list = document.getElementById("group-list");
  const tabs = groups.length ? [allGroups, ...groups] : [];
  const current = [...list.children].map((b) => b.dataset.group);
  if (current.join("\n") !== tabs.join("\n")) {
    fill(list, tabs.map((group) => h("button", {
      type: "button", role: "tab", id: tabId(group), "data-group": group,
      "aria-controls": "skill-area",
      onclick: () => { location.hash = `#/skills/${encodeURIComponent(group)}`; },
      onkeydown: (event) => moveTab(event, list),
    }, group === allGroups ? "All skills" : group)));
  }
  for (const button of list.children) {
    const on = button.dataset.group === selected;
    button.setAttribute("aria-selected", on ? "true" : "false");
    button.tabIndex = on ? 0 : -1;
  }
}

/** Arrow keys, Home and End move between the group tabs (the tab list is one stop for Tab). */
function moveTab(event, list) {
  const buttons = [...list.children];
  const index = buttons.indexOf(event.currentTarget);
  let next = null;
  if (event.key === "ArrowDown" || event.key === "ArrowRight") next = (index + 1) % buttons.length;
  if (event.key === "ArrowUp" || event.key === "ArrowLeft") next = (index - 1 + buttons.length) % buttons.length;
  if (event.key === "Home") next = 0;
  if (event.key === "End") next = buttons.length - 1;
  if (next === null) return;
  event.preventDefault();
  buttons[next].focus();
  buttons[next].click();
}

let visited = null;

/** Asks for the skill's details (and your rating) once each time its page is opened. */
export function enterSkill(state, group, tag) {
  const key = `${group}/${tag}`;
  if (visited === key) return;
  visited = key;
  send("loadSkill", { group, skill: tag });
  if (state && state.session) send("loadUserRating", { group, skill: tag });
}

export function leaveSkill() {
  visited = null;
}

/** The page of one skill. */
export function renderSkill(state, group, tag) {
  const page = document.getElementById("skill-page");
  document.getElementById("skill-back").href = `#/skills/${encodeURIComponent(group)}`;
  const skill = ((state.skills || {})[group] || {})[tag];
  if (!skill) {
    fill(page, h("h2", { id: "skill-title" }, tag), h("p", { class: "pending-text" }, "Loading the skill…"));
    return;
  }
  const rating = skill.rating || {};
  const own = (state.userRatings || {})[`${group}/${tag}`];
  fill(page,
    h("div", { class: "skill-head" },
      cachedImage(skill.imageURL, "", "skill-image large"),
      h("div", {},
        h("h2", { id: "skill-title" }, skill.name || tag),
        h("p", { class: "muted" }, `${group}`),
        skill.author ? h("p", { class: "author" }, "by ",
          skill.authorURL ? externalLink(skill.authorURL, skill.author) : skill.author) : null,
        ratingSummary(rating))),
    skill.description ? h("p", { class: "description" }, skill.description) : null,
    h("section", { "aria-labelledby": "examples-title" },
      h("h3", { id: "examples-title" }, "Try it"),
      (skill.examples || []).length === 0 ? h("p", { class: "muted" }, "No examples given.")
        : h("ul", { class: "examples" }, skill.examples.map((example) => h("li", {},
          h("button", { type: "button", class: "example", onclick: () => ask(example) },
            `“${example}”`))))),
    h("section", { "aria-labelledby": "rating-title" },
      h("h3", { id: "rating-title" }, "Ratings"),
      ratingChart(rating),
      starWidget(state, group, tag, own)),
    h("section", { "aria-labelledby": "terms-title" },
      h("h3", { id: "terms-title" }, "Terms"),
      h("p", {}, skill.termsOfUse ? externalLink(skill.termsOfUse, "Terms of use") : "No terms of use given."),
      skill.developerPrivacyPolicy
        ? h("p", {}, externalLink(skill.developerPrivacyPolicy, "Developer privacy policy")) : null,
      h("p", { class: "muted" }, [
        skill.languages ? `Languages: ${skill.languages.join(", ")}. ` : "",
        skill.lastModified ? `Last changed ${skill.lastModified}.` : "",
      ].join(""))));
}

/** Five bars, 5 stars at the top, each as long as its share of the ratings. */
function ratingChart(rating) {
  const counts = [rating.fiveStar, rating.fourStar, rating.threeStar, rating.twoStar, rating.oneStar]
    .map((n) => Number(n) || 0);
  const total = counts.reduce((a, b) => a + b, 0);
  return h("ul", { class: "rating-chart", "aria-label": "Ratings by stars" }, counts.map((count, i) => {
    const stars = 5 - i;
    const bar = h("span", { class: "bar" });
    bar.style.width = total ? `${(100 * count) / total}%` : "0";
    return h("li", { "data-stars": stars },
      h("span", { class: "bar-label" }, `${stars} ★`),
      h("span", { class: "bar-track", "aria-hidden": "true" }, bar),
      h("span", { class: "bar-count" }, `${count}`),
      h("span", { class: "visually-hidden" }, ` ratings of ${stars} stars`));
  }));
}

function starWidget(state, group, tag, own) {
  if (!allowed("submitRating")) return h("p", { id: "own-rating", class: "muted" }, notAllowedText("submitRating"));
  const loggedIn = Boolean(state.session);
  const buttons = [1, 2, 3, 4, 5].map((stars) => h("button", {
    type: "button", role: "radio", class: `star ${own && stars <= own ? "on" : ""}`,
    "aria-checked": own === stars ? "true" : "false", "aria-label": `${stars} star${stars > 1 ? "s" : ""}`,
    "data-stars": stars, disabled: !loggedIn,
    tabindex: (own ? own === stars : stars === 1) ? 0 : -1,
    onclick: () => send("submitRating", { group, skill: tag, stars }),
    onkeydown: (event) => {
      const delta = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[event.key];
      if (!delta) return;
      event.preventDefault();
      const next = event.currentTarget.parentElement.children[Math.min(4, Math.max(0, stars - 1 + delta))];
      next.focus();
    },
  }, "★"));
  return h("div", { class: "your-rating" },
    h("div", { class: "star-widget", role: "radiogroup", "aria-label": "Your rating" }, buttons),
    h("p", { id: "own-rating", role: "status" },
      !loggedIn ? ["Log in on the ", h("a", { href: "#/account" }, "Account"), " screen to rate this skill."]
        : own ? `Your rating: ${own} star${own > 1 ? "s" : ""}` : "You have not rated this skill yet."));
}
