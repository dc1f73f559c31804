// Sending a message: the turn's answer goes into the conversation, the progress panel and the
// last refusal; a failed send keeps the text, and its client_message_id for the retry.

import { clearError, showError } from "./alert.js";
import { ask, newest } from "./answers.js";
import { api, instancePath } from "./api.js";
import { addMessage, dropMessage, isSending, setSending } from "./conversation.js";
import { $ } from "./dom.js";
import { noteBlocked } from "./explanation.js";
import { renderProgress } from "./progress.js";
import { refreshSoon } from "./reload.js";
import { state } from "./state.js";
import { formatNumber, tooLong } from "./wording.js";

let draft = null; // {text, id}: the typed message and the client_message_id kept for its retries

export function forgetDraft() {
  draft = null;
}

export function newId() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID(); // secure contexts
  return Array.from(crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function send(event) {
  event.preventDefault();
  const box = $("chat-text");
  const text = box.value;
  if (isSending() || !state.instance) return;
  if (!text.trim()) { // spaces or line breaks only: `required` lets them through, and nothing happened
    $("chat-status").textContent = "Nothing to send: your message is blank.";
    return;
  }
  const count = characters(text);
  if (state.maxMessageChars !== null && count > state.maxMessageChars) {
    // The gateway would refuse it (413): said before it leaves, the text kept to shorten.
    $("chat-status").textContent = `Not sent: ${tooLong(count, state.maxMessageChars)}`;
    return;
  }
  // The same text sent again after a failure keeps its id, so the turn is counted once.
  if (!draft || draft.text !== text) draft = { text, id: newId() };
  const id = draft.id;
  const instance = state.instance;
  const ticket = ask();
  clearError();
  setSending(true);
  addMessage({ role: "user", text, client_message_id: id, pending: true });
  try {
    const answer = await api("POST", instancePath("/messages"), { text, client_message_id: id });
    if (state.instance !== instance) return; // signed out or switched meanwhile: not for this page
    addMessage({ role: "user", text, client_message_id: id });
    addMessage(answer.reply);
    if (box.value === text) {
      box.value = "";
      countMessage();
    }
    draft = null;
    if (answer.turn.outcome === "blocked") noteBlocked(answer.turn.instance.current_step, answer.turn);
    setSending(false);
    if (newest("progress", ticket)) renderProgress(answer.progress);
    refreshSoon();
  } catch (error) {
    if (state.instance !== instance) return;
    dropMessage(`${id}:user`);
    setSending(false);
    showError(error, "Your message was not sent");
  }
  if (!box.disabled) box.focus();
}

// The gateway counts the characters (code points, not UTF-16 units) of the trimmed text.
function characters(text) {
  return [...text.trim()].length;
}

// From four fifths of the limit on, the count under the box; past it, how many too many.
export function countMessage() {
  const box = $("chat-text");
  const counter = $("chat-count");
  const limit = state.maxMessageChars;
  const count = characters(box.value);
  const shown = limit !== null && count >= limit * 0.8;
  const over = shown && count > limit;
  counter.hidden = !shown;
  counter.dataset.over = String(over);
  box.setAttribute("aria-invalid", String(over));
  if (!shown) return;
  const of = `${formatNumber(count)} of ${formatNumber(limit)} characters`;
  counter.textContent = over ? `${of}: ${formatNumber(count - limit)} too many to send` : of;
}

export function sendOnEnter(event) {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("chat-form").requestSubmit();
  }
}
