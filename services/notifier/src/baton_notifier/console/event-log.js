// The event log panel: the instance's events in order, each added once (by version).

import { noteForced } from "./conversation.js";
import { $, element } from "./dom.js";

let lastVersion = 0; // highest event version in the event log

// The version the event log holds every event through: a reload reads only what follows.
export function eventsThrough() {
  return lastVersion;
}

export function clearEventLog() {
  lastVersion = 0;
  $("event-log").replaceChildren();
}

export function addEvents(events) {
  const log = $("event-log");
  for (const event of events) {
    if (event.version <= lastVersion) continue;
    lastVersion = event.version;
    if (event.payload.forced) noteForced(event);
    const item = element("li", { "data-type": event.type, "data-version": String(event.version) });
    const at = new Date(event.recorded_at);
    item.append(element("span", { class: "version" }, `#${event.version}`));
    item.append(element("time", { datetime: event.recorded_at }, at.toLocaleTimeString()));
    item.append(document.createTextNode(`${event.type}${summary(event.payload)}`));
    log.append(item);
  }
  log.scrollTop = log.scrollHeight;
}

function summary(payload) {
  const forced = payload.forced ? " (forced)" : "";
  if (payload.previous_step && payload.current_step) {
    return ` ${payload.previous_step} → ${payload.current_step}${forced}`;
  }
  if (payload.final_step) return ` (${payload.final_step})${forced}`;
  if (payload.reason) return ` ${payload.reason}`;
  const step = payload.step || payload.current_step || payload.initial_step;
  return step ? ` (${step})` : "";
}
