// The inbox and priorities panels: what the agents kept for the user (`GET /api/inbox`, and
// the facts of `GET /api/memory?category=priorities`), read with the other panels: on sign-in,
// after each turn, and on each live event (a step changed). Each panel says when it is loading,
// empty or could not be read, on its own: a failure here leaves the onboarding usable.

import { ask, current, failureIsNews, newest } from "./answers.js";
import { api } from "./api.js";
import { $, element } from "./dom.js";
import { plainWords } from "./wording.js";

const PANELS = {
  inbox: {
    path: "/api/inbox",
    key: "items",
    list: "inbox-items",
    status: "inbox-status",
    item: inboxItem,
    loading: "Loading your inbox…",
    empty: "Your inbox is empty. What you ask the agents to note (your brain dump) lands here.",
    failed: "Your inbox could not be read",
  },
  priorities: {
    path: "/api/memory?category=priorities",
    key: "facts",
    list: "priorities",
    status: "priorities-status",
    item: priority,
    loading: "Loading your priorities…",
    empty: "No priorities kept yet: tell the agents what matters most to you.",
    failed: "Your priorities could not be read",
  },
};

export function clearKept() {
  for (const panel of Object.values(PANELS)) {
    $(panel.list).replaceChildren();
    delete $(panel.list).dataset.loaded;
    setStatus(panel, "", "");
  }
}

export function loadKept() {
  for (const [name, panel] of Object.entries(PANELS)) load(name, panel);
}

async function load(name, panel) {
  const ticket = ask();
  const list = $(panel.list);
  // Loading is said until the first answer; a refresh keeps what is shown until the next.
  if (!list.dataset.loaded) setStatus(panel, panel.loading, "loading");
  list.setAttribute("aria-busy", "true");
  try {
    const answer = await api("GET", panel.path);
    if (!newest(name, ticket)) return;
    const items = answer[panel.key];
    list.replaceChildren(...items.map(panel.item));
    list.dataset.loaded = "true";
    setStatus(panel, items.length ? "" : panel.empty, items.length ? "shown" : "empty");
  } catch (error) {
    // A 401 is said (and signs out) by the reload beside this one; anything else, here.
    if (!failureIsNews(name, ticket) || error.status === 401) return;
    const shown = list.dataset.loaded ? " again (what is shown may be out of date)" : "";
    setStatus(panel, `${panel.failed}${shown}: ${plainWords(error).text}`, "error");
  } finally {
    if (current(ticket)) list.setAttribute("aria-busy", "false");
  }
}

function setStatus(panel, text, state) {
  const status = $(panel.status);
  status.textContent = text;
  status.dataset.state = state;
  status.hidden = !text;
}

// One fact per life area: "Work and health matter most" is kept under work and under health,
// and shown twice without its area it read as a duplicate.
function priority(fact) {
  const entry = element("li", { "data-key": fact.key });
  entry.append(element("span", { class: "area" }, areaName(fact.key)));
  entry.append(element("span", { class: "text" }, fact.text));
  return entry;
}

function areaName(key) {
  const words = key.replaceAll("_", " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const STATUS = { new: "New", deferred: "Waiting", done: "Done" };

function inboxItem(item) {
  const entry = element("li", { "data-item": item.item_id, "data-status": item.status });
  entry.append(element("span", { class: "text" }, item.content));
  const meta = element("span", { class: "meta" },
    `${STATUS[item.status] ?? item.status} · from ${item.source} · `);
  const at = new Date(item.created_at);
  meta.append(element("time", { datetime: item.created_at }, at.toLocaleString()));
  entry.append(meta);
  return entry;
}
