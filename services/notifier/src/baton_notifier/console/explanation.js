// The "Why is this step not done?" panel: the step's messages against its limits, each
// criterion met or not (on a step closed by the list widget, what Done will do), and the last
// refusal to move on; asked again on "Check again".

import { showError } from "./alert.js";
import { ask, failureIsNews, newest } from "./answers.js";
import { api, instancePath } from "./api.js";
import { criterionWords, missingWords, plural, refusalWords } from "./criteria-words.js";
import { $, element } from "./dom.js";
import { listCriterion, neededBeforeDone } from "./list-step.js";
import { state, stepTitle } from "./state.js";

let blocked = null; // the last refusal to move on: {step, reason, missing}
// Told each explanation painted (the list widget follows the step's criteria): handed in by
// console.js, as the widget's module reads this one.
let explained = () => {};

export function whenExplained(handler) {
  explained = handler;
}

export function clearExplanation() {
  blocked = null;
  $("explain").replaceChildren();
}

export function noteBlocked(step, refusal) {
  blocked = { step, reason: refusal.reason, missing: refusal.missing_criteria || [] };
}

export function renderExplain(explanation) {
  explained(explanation);
  const panel = $("explain");
  if (explanation.status === "completed") {
    panel.replaceChildren(element("p", {}, "Every step is done."));
    return;
  }
  const title = stepTitle(explanation.current_step);
  const counts = element("p", { class: "counts" },
    `“${title}”: ${plural(explanation.messages_in_step, "message")} so far. It needs at least ` +
    `${explanation.min_messages} and moves on by itself at ${explanation.max_messages}.`);
  const list = listCriterion(explanation);
  const criteria = element("ul", { class: "criteria" });
  for (const criterion of explanation.criteria) criteria.append(criterionItem(criterion, list));
  const verdict = list ? doneVerdict(explanation, list, title) : chatVerdict(explanation);
  panel.replaceChildren(counts, verdict, criteria);
  if (blocked && blocked.step === explanation.current_step) panel.append(blockedBox());
}

function chatVerdict(explanation) {
  return element("p", { "data-can-complete": String(explanation.can_complete) },
    explanation.can_complete
      ? "Everything is in place: the step closes as soon as the agent says so."
      : "Not done yet, because:");
}

// On a step closed by the list widget, what Done does: it sends the completion signal with the
// list, so the verdict says whether that closes the step, or what it waits for first.
function doneVerdict(explanation, list, title) {
  const needed = neededBeforeDone(explanation);
  const min = Number(list.params.min_items) || 0;
  const attributes = {
    "data-can-complete": String(explanation.can_complete),
    "data-done": needed.length ? "waits" : "closes",
  };
  return element("p", attributes, needed.length
    ? `Done on your list waits: first this step needs ${needed.join("; ")}. Then Done ` +
      `sends your list with the completion signal and closes “${title}”.`
    : `Done on your list closes “${title}”: it sends the completion signal with the list, ` +
      `which needs at least ${plural(min, "item")}.`);
}

// Each criterion met (✓) or not (✗); on a list step the signal is Done's to send (→), not a
// criterion the user could meet another way.
function criterionItem(criterion, list) {
  if (list && criterion.checker === "agent_signal") {
    const item = element("li", { class: "by-done", "data-checker": criterion.checker },
      "The step is done when you press Done on your list.");
    item.append(element("span", { class: "visually-hidden" }, " (sent by Done)"));
    return item;
  }
  const attributes = { class: criterion.met ? "met" : "unmet", "data-checker": criterion.checker };
  // The workflow's own note, for whoever wrote the step (the page's source), not for reading:
  // a `title` became the item's accessible name, read out instead of the sentence.
  if (criterion.detail) attributes["data-detail"] = criterion.detail;
  const item = element("li", attributes, criterionWords(criterion));
  const said = criterion.met ? " (met)" : " (not met)";
  item.append(element("span", { class: "visually-hidden" }, said));
  return item;
}

function blockedBox() {
  const box = element("div", { class: "blocked", id: "blocked" });
  box.append(element("p", {}, `The last try to move on was refused: ${refusalWords(blocked.reason)}`));
  const missing = element("ul");
  blocked.missing.forEach((m) => missing.append(element("li", {}, missingWords(m))));
  box.append(missing);
  return box;
}

export async function explainAgain() {
  if (!state.instance) return;
  const ticket = ask();
  try {
    const explanation = await api("GET", instancePath("/explain"));
    if (newest("explain", ticket)) renderExplain(explanation);
  } catch (error) {
    if (failureIsNews("explain", ticket)) showError(error, "Asking why the step is not done");
  }
}
