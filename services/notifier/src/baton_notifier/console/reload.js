// Every panel read again from the HTTP API: at once, or shortly after a turn or a live event.

import { showError } from "./alert.js";
import { ask, current, newest } from "./answers.js";
import { api, instancePath } from "./api.js";
import { addMessage } from "./conversation.js";
import { addEvents } from "./event-log.js";
import { renderExplain } from "./explanation.js";
import { renderProgress } from "./progress.js";
import { state } from "./state.js";

const REFRESH_DELAY_MS = 150;

let reloading = 0; // the number of the newest reload: only its failure is shown
let refreshTimer = null;

export async function reload() {
  if (!state.instance) return;
  const ticket = ask();
  reloading = ticket;
  try {
    const [progress, messages, explanation, events] = await Promise.all([
      api("GET", instancePath("/progress")),
      allPages("/messages", "messages"),
      api("GET", instancePath("/explain")),
      allPages("/events", "events"),
    ]);
    if (!current(ticket)) return; // asked for a workspace since left
    if (newest("progress", ticket)) renderProgress(progress);
    messages.forEach(addMessage);
    if (newest("explain", ticket)) renderExplain(explanation);
    addEvents(events);
  } catch (error) {
    if (current(ticket) && ticket === reloading) showError(error, "Loading your onboarding");
  }
}

// The conversation and the log come a page at a time: a long one would not fit one reply.
async function allPages(suffix, key) {
  const items = [];
  let after = 0;
  for (;;) {
    const page = await api("GET", instancePath(`${suffix}?after_version=${after}`));
    items.push(...page[key]);
    if (page.next_after_version == null) return items;
    after = page.next_after_version;
  }
}

export function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(reload, REFRESH_DELAY_MS);
}
