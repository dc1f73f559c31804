// A step closed by a list widget, read from its explanation (GET .../explain): the criterion
// asking for the list, and what still has to happen before Done on the list can close the step.

import { criterionWords } from "./criteria-words.js";

export const LIST_INPUT = "list_input";

// The step's `widget_completed` criterion for a list_input widget, or undefined.
export function listCriterion(explanation) {
  if (explanation.status !== "active") return undefined;
  return explanation.criteria.find(
    (c) => c.checker === "widget_completed" && c.params?.widget_type === LIST_INPUT);
}

// What the step needs besides the list and the signal Done sends, as the workflow would refuse
// Done for: more messages first, or another criterion unmet. None: Done closes the step.
export function neededBeforeDone(explanation) {
  if (explanation.can_complete) return []; // an optional step, or the list is the last thing
  const needed = [];
  const messages = explanation.min_messages - explanation.messages_in_step;
  if (messages > 0) needed.push(`${messages} more message${messages > 1 ? "s" : ""} to the agent`);
  const list = listCriterion(explanation);
  for (const criterion of explanation.criteria) {
    if (criterion.met || criterion === list || criterion.checker === "agent_signal") continue;
    const words = criterionWords(criterion).replace(/\.$/, ""); // said inside a sentence
    needed.push(words.charAt(0).toLowerCase() + words.slice(1));
  }
  return needed;
}
