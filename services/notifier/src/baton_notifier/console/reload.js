// Every panel read again from the HTTP API (the inbox and priorities too) (the conversation and the log from where the last
// read ended): at once, or shortly after a turn or a live event.

import { clearErrorSaying, showError } from "./alert.js";
import { ask, current, newest } from "./answers.js";
import { api, instancePath } from "./api.js";
import { addMessage, messagesThrough, setMessagesThrough } from "./conversation.js";
import { addEvents, eventsThrough } from "./event-log.js";
import { renderExplain } from "./explanation.js";
import { loadKept } from "./inbox.js";
import { renderProgress } from "./progress.js";
import { state } from "./state.js";

const REFRESH_DELAY_MS = 150;
// Events that keep coming closer together than the delay (a busy instance, another app talking
// to it) put every refresh off again: the panels stood still until they stopped. Past this
// wait since the first refresh asked for, it happens anyway.
const REFRESH_MAX_WAIT_MS = 1000;

// A gateway just started again answers before the services behind it (503 "no responders"), or
// not at all yet: the live socket's `ready` reload then failed, and the panels and that error
// stayed until the person did something. Such a failure is tried again, then less often.
const LOADING = "Loading your onboarding";
const RETRY_MS = [1000, 2000, 5000, 10000];

let reloading = 0; // the number of the newest reload: only its failure is shown
let failures = 0; // reloads failed in a row for want of the gateway or a service behind it
let retryTimer = null;
let refreshTimer = null;
let refreshAskedAt = null; // when the refresh still pending was first asked for

export async function reload() {
  if (!state.instance) return;
  const ticket = ask();
  reloading = ticket;
  clearTimeout(retryTimer); // this reload is the retry
  loadKept(); // the inbox and priorities say their own failures: a service of their own
  try {
    const [progress, [messages, through, events], explanation] = await Promise.all([
      api("GET", instancePath("/progress")),
      newMessagesAndEvents(),
      api("GET", instancePath("/explain")),
    ]);
    if (!current(ticket)) return; // asked for a workspace since left
    if (newest("progress", ticket)) renderProgress(progress);
    messages.forEach(addMessage);
    setMessagesThrough(through);
    if (newest("explain", ticket)) renderExplain(explanation);
    addEvents(events);
    failures = 0;
    clearErrorSaying(LOADING); // an error shown since then stays
  } catch (error) {
    if (!current(ticket) || ticket !== reloading) return;
    const again = passing(error);
    // Said once for a series of retries: one each 10 s would hide an error shown since (a
    // message not sent, still in the box). Any other error is said (a 401 signs out).
    if (!again || failures === 0) showError(error, LOADING);
    if (!again) {
      failures = 0;
      return;
    }
    retryTimer = setTimeout(reload, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
  }
}

// Not answered (0), or the gateway could not reach what answers (502, 503, 504): it will pass.
function passing(error) {
  return [0, 502, 503, 504].includes(error.status);
}

// Only what was recorded since the last reload: a long conversation was read whole, every
// page of it and of its log, after each turn. The log is read first: every message of an event
// up to its last version is then in the messages read after it, so the next reload asks for
// the messages after that version (one recorded meanwhile is read twice, and shown once).
async function newMessagesAndEvents() {
  const events = await allPages("/events", "events", eventsThrough());
  const through = events.length ? events[events.length - 1].version : eventsThrough();
  const messages = await allPages("/messages", "messages", messagesThrough());
  return [messages, through, events];
}

// The conversation and the log come a page at a time: a long one would not fit one reply.
async function allPages(suffix, key, from) {
  const items = [];
  let after = from;
  for (;;) {
    const page = await api("GET", instancePath(`${suffix}?after_version=${after}`));
    items.push(...page[key]);
    if (page.next_after_version == null) return items;
    after = page.next_after_version;
  }
}

export function refreshSoon() {
  clearTimeout(refreshTimer);
  const now = Date.now();
  refreshAskedAt ??= now;
  const left = refreshAskedAt + REFRESH_MAX_WAIT_MS - now;
  refreshTimer = setTimeout(() => {
    refreshAskedAt = null;
    reload();
  }, Math.max(0, Math.min(REFRESH_DELAY_MS, left)));
}
