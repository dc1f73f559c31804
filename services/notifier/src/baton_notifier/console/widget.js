// The list-input widget: a step that closes on a completed `list_input` widget (a
// `widget_completed` criterion in /explain) gets a list to fill in under the chat. "Done" sends
// it as the step's data with a complete_step signal; the signal's answer paints the step, and
// the panels are read again as after a turn. While the step needs something else first (a
// message to its agent), Done waits and says so, rather than be refused and pressed again.

import { clearError, showError } from "./alert.js";
import { ask, newest } from "./answers.js";
import { api, instancePath } from "./api.js";
import { plural } from "./criteria-words.js";
import { $, element } from "./dom.js";
import { noteBlocked } from "./explanation.js";
import { LIST_INPUT, listCriterion, neededBeforeDone } from "./list-step.js";
import { showStep } from "./progress.js";
import { refreshSoon } from "./reload.js";
import { newId } from "./sending.js";
import { state, stepTitle } from "./state.js";

let offered = null; // {key, step, min, needed}: the widget on screen, for the step asking
let items = []; // what the user listed, kept until the step closes or the workspace is left
let pending = null; // {key, id}: the list sent and the command_id kept for its retries
let busy = false;

export function clearWidget() {
  offered = null;
  items = [];
  pending = null;
  busy = false;
  $("widget").hidden = true;
  $("widget-items").replaceChildren();
  $("widget-text").value = "";
  $("widget-status").textContent = "";
}

// Called with each explanation painted: the widget shows while the step asks for one.
export function offerWidget(explanation) {
  const criterion = listCriterion(explanation);
  if (!criterion || !state.instance) {
    if (offered) clearWidget();
    return;
  }
  const key = `${state.instance.instance_id}:${explanation.current_step}`;
  if (offered?.key !== key) {
    clearWidget();
    offered = { key, step: explanation.current_step };
    if (criterion.met) listSent(key); // a reload, another tab: show the list already sent
  }
  offered.min = Math.max(0, Number(criterion.params.min_items) || 0);
  offered.needed = neededBeforeDone(explanation);
  showHint();
  if (criterion.met && !$("widget-status").textContent) {
    $("widget-status").textContent = `A list of ${plural(criterion.observed ?? 0, "item")} was received.`;
  }
  $("widget").hidden = false;
  showDone(); // the list is left as it is: a reload must not take the focus off a Remove button
}

// The list the step's data holds, unless the user started another one meanwhile.
async function listSent(key) {
  const instance = state.instance;
  try {
    const view = await api("GET", instancePath());
    const widget = view.context.step_data?.[offered?.step]?.widget;
    if (state.instance !== instance || offered?.key !== key || items.length) return;
    if (!Array.isArray(widget?.items)) return;
    items = widget.items.filter((item) => typeof item === "string");
    renderItems();
  } catch (error) {
    if (state.instance === instance) showError(error, "Loading the list you sent");
  }
}

function showHint() {
  let hint = `“${stepTitle(offered.step)}” closes once this list is done: add at least ` +
    `${plural(offered.min, "item")}, one at a time, then press Done.`;
  // What the step needs first, so Done waits rather than be refused (a message to the agent).
  if (offered.needed.length) hint += ` Done waits: first it needs ${offered.needed.join("; ")}.`;
  $("widget-hint").textContent = hint;
}

function renderItems() {
  $("widget-items").replaceChildren(...items.map((text, index) => {
    const item = element("li", { "data-index": String(index) });
    const remove = element("button",
      { type: "button", class: "remove", "aria-label": `Remove “${text}”` }, "Remove");
    remove.addEventListener("click", () => removeItem(index));
    item.append(element("span", { class: "text" }, text), remove);
    return item;
  }));
  showDone();
}

function showDone() {
  const done = $("widget-done");
  done.disabled = busy || !offered || items.length < offered.min || offered.needed.length > 0;
  done.textContent = `Done (${items.length} item${items.length === 1 ? "" : "s"})`;
}

export function addItem(event) {
  event.preventDefault();
  const box = $("widget-text");
  const text = box.value.trim();
  if (!offered || !text) return;
  items.push(text);
  box.value = "";
  renderItems();
  box.focus();
}

function removeItem(index) {
  items.splice(index, 1);
  renderItems();
  $("widget-text").focus(); // the button pressed is gone: stay in the widget
}

function setBusy(value) {
  busy = value;
  $("widget").setAttribute("aria-busy", String(value));
  showDone();
}

export async function completeWidget() {
  if (busy || !offered || !state.instance || items.length < offered.min) return;
  if (offered.needed.length) return; // Done waits (and says so): it would only be refused
  const sent = [...items];
  // The same list sent again after a failure keeps its id, so the signal counts once.
  const key = JSON.stringify(sent);
  if (!pending || pending.key !== key) pending = { key, id: newId() };
  const instance = state.instance;
  const step = offered.step;
  const ticket = ask();
  clearError();
  setBusy(true);
  $("widget-status").textContent = "Sending your list…";
  try {
    const turn = await api("POST", instancePath("/signal"), {
      action: "complete_step",
      command_id: pending.id,
      data: { widget: { type: LIST_INPUT, completed: true, items: sent } },
    });
    if (state.instance !== instance) return; // signed out or switched meanwhile
    pending = null;
    setBusy(false);
    answered(turn, step, sent.length, ticket);
    refreshSoon();
  } catch (error) {
    if (state.instance !== instance) return;
    setBusy(false);
    $("widget-status").textContent = "";
    showError(error, "Your list was not sent");
  }
}

function answered(turn, step, count, ticket) {
  const now = turn.instance;
  if (turn.outcome === "blocked") {
    noteBlocked(step, turn);
    $("widget-status").textContent =
      `Your list of ${plural(count, "item")} is saved, but “${stepTitle(step)}” did not close yet: ` +
      `${turn.reason}`;
  } else if (now.current_step !== step || now.status !== "active") {
    clearWidget(); // the step closed: the widget was its last word
  } else {
    $("widget-status").textContent = `Your list of ${plural(count, "item")} is saved.`;
  }
  // Done was disabled while sending, so the focus fell out: on to the chat, where a refused
  // step goes on (it wants messages) and the next step begins.
  const chat = $("chat-text");
  if (!chat.disabled) chat.focus();
  if (newest("progress", ticket)) showStep(now.current_step, now.progress * 100, now.status);
}
