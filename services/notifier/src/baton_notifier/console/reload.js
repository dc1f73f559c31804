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
    const [progress, conversation, explanation, log] = await Promise.all([
      api("GET", instancePath("/progress")),
      api("GET", instancePath("/messages")),
      api("GET", instancePath("/explain")),
      api("GET", instancePath("/events")),
    ]);
    if (!current(ticket)) return; // asked for a workspace since left
    if (newest("progress", ticket)) renderProgress(progress);
    conversation.messages.forEach(addMessage);
    if (newest("explain", ticket)) renderExplain(explanation);
    addEvents(log.events);
  } catch (error) {
    if (current(ticket) && ticket === reloading) showError(error, "Loading your onboarding");
  }
}

export function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(reload, REFRESH_DELAY_MS);
}
