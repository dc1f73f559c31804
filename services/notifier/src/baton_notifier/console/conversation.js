// The conversation panel: the chat log (messages, the notes of forced transitions) and whether
// its message box is open, busy or closed.

import { missingWords } from "./criteria-words.js";
import { $, element } from "./dom.js";
import { state, stepTitle } from "./state.js";

const shown = new Map(); // "<client_message_id>:<role>" -> <li> in the chat log
let sending = false;
let loadedThrough = 0; // the log version through which every message was read into the chat log

export function isSending() {
  return sending;
}

// A reload asks for the messages recorded after this version only.
export function messagesThrough() {
  return loadedThrough;
}

export function setMessagesThrough(version) {
  loadedThrough = Math.max(loadedThrough, version);
}

export function clearConversation() {
  loadedThrough = 0;
  shown.clear();
  $("chat-log").replaceChildren();
}

export function addMessage(message) {
  const key = `${message.client_message_id}:${message.role}`;
  const known = shown.get(key);
  if (known) {
    known.classList.remove("pending");
    return;
  }
  const who = message.role === "user" ? "You" : `${message.agent} · ${stepTitle(message.step)}`;
  const item = element("li", { class: `message ${message.role}`, "data-role": message.role });
  if (message.pending) item.classList.add("pending");
  item.append(element("span", { class: "meta" }, who), element("span", { class: "text" }, message.text));
  shown.set(key, item);
  const log = $("chat-log");
  log.append(item);
  log.scrollTop = log.scrollHeight;
}

export function dropMessage(key) {
  const item = shown.get(key);
  if (item && item.classList.contains("pending")) {
    item.remove();
    shown.delete(key);
  }
}

// A step closed by its message limit, without its criteria: said in the chat, right after the
// answer that closed it (found by the turn's client_message_id), so a reload shows it there too.
export function noteForced(event) {
  const key = `forced:${event.version}`;
  if (shown.has(key)) return;
  const payload = event.payload;
  const step = payload.previous_step || payload.final_step;
  const then = payload.current_step ? `moved on to “${stepTitle(payload.current_step)}”` : "finished";
  const item = element("li", { class: "notice", "data-role": "notice", role: "note" });
  item.append(element("span", { class: "meta" }, `Workflow · ${payload.warning || "forced"}`));
  item.append(element("p", {},
    `“${stepTitle(step)}” reached its message limit without being done, so the onboarding ` +
    `${then}.`));
  const missing = payload.missing_criteria || [];
  if (missing.length) {
    const list = element("ul");
    missing.forEach((m) => list.append(element("li", {}, missingWords(m))));
    item.append(element("p", {}, "Still missing:"), list);
  }
  shown.set(key, item);
  const log = $("chat-log");
  const answer = shown.get(`${payload.command_id}:assistant`);
  if (answer && answer.parentNode === log) answer.after(item);
  else log.append(item);
  log.scrollTop = log.scrollHeight;
}

const COMPLETE = "This onboarding is complete.";

// Called on every progress read, live events included: only its own notice is taken back, so a
// notice said to what the person just did ("Nothing to send…") is not wiped by a reload.
export function setChatOpen(open) {
  $("chat-text").disabled = !open;
  $("chat-send").disabled = !open || sending;
  const status = $("chat-status");
  if (!open) status.textContent = COMPLETE;
  else if (!sending && status.textContent === COMPLETE) status.textContent = "";
}

export function setSending(busy) {
  sending = busy;
  $("chat-log").setAttribute("aria-busy", String(busy));
  $("chat-send").disabled = busy || state.instance?.status !== "active";
  $("chat-status").textContent = busy ? "Waiting for the agent…" : "";
}
