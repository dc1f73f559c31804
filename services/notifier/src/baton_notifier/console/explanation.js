// The "Why is this step not done?" panel: the step's messages against its limits, each
// criterion met or not, and the last refusal to move on; asked again on "Check again".

import { showError } from "./alert.js";
import { ask, failureIsNews, newest } from "./answers.js";
import { api, instancePath } from "./api.js";
import { $, element } from "./dom.js";
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
  const counts = element("p", {},
    `“${title}”: ${explanation.messages_in_step} message(s) so far, at least ` +
    `${explanation.min_messages} and at most ${explanation.max_messages}.`);
  const verdict = element("p", { "data-can-complete": String(explanation.can_complete) },
    explanation.can_complete
      ? "Everything is in place: the step closes as soon as the agent says so."
      : "Not done yet, because:");
  const criteria = element("ul", { class: "criteria" });
  for (const criterion of explanation.criteria) {
    const item = element("li", { class: criterion.met ? "met" : "unmet" },
      `${criterion.checker}: ${criterion.detail}`);
    item.append(element("span", { class: "visually-hidden" }, criterion.met ? " (met)" : " (not met)"));
    criteria.append(item);
  }
  panel.replaceChildren(counts, verdict, criteria);
  if (blocked && blocked.step === explanation.current_step) {
    const box = element("div", { class: "blocked", id: "blocked" });
    box.append(element("p", {}, `The last try to move on was refused: ${blocked.reason}`));
    const missing = element("ul");
    blocked.missing.forEach((m) => missing.append(element("li", {}, m)));
    box.append(missing);
    panel.append(box);
  }
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
