// A step's completion criteria in words for a person: the workflow service names each by its
// checker with a note for developers ("agent_signal: agent has not signalled completion",
// "memory_facts: 2/3 facts in 'priorities'"); the console says what it asks of the user.

import { stepTitle } from "./state.js";
import { formatNumber } from "./wording.js";

// "1 message", "2 messages".
export function plural(count, one, many = `${one}s`) {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

// Each built-in checker (seeds 000 and 001): what it asks for, given its numbers.
const ASKS = {
  agent_signal: (c) => c.met
    ? "The agent has said this step is done."
    : "The agent has not said yet that this step is done.",
  min_messages: (c) => counted(c, plural(c.required, "message"), "sent"),
  memory_facts: (c) => counted(c, `${plural(c.required, "fact")} ${about(c.category)}`, "kept"),
  inbox_items: (c) => counted(c, `${plural(c.required, "item")} in your inbox`, ""),
  widget_completed: (c) => c.observed === null
    ? "Your list, sent with Done: not sent yet."
    : counted(c, `${plural(c.required, "item")} on your list, sent with Done`, "sent"),
};

function about(category) {
  return category ? `about your ${category.replaceAll("_", " ")}` : "about you";
}

// "At least 3 facts about your priorities: 2 kept so far."
function counted(c, wanted, done) {
  if (c.required === null || c.observed === null) return `At least ${wanted}.`;
  return `At least ${wanted}: ${formatNumber(c.observed)}${done ? ` ${done}` : ""} so far.`;
}

// `criterion`: a CriterionView ({checker, met, detail, observed, required, error, params}).
export function criterionWords(criterion) {
  const ask = ASKS[criterion.checker];
  const c = {
    ...criterion,
    observed: criterion.observed ?? null,
    required: criterion.required ?? null,
    category: criterion.params?.category ?? categoryIn(criterion.detail),
  };
  if (criterion.error) return `${ask ? ask({ ...c, observed: null }) : named(c)} ` +
    "It could not be checked just now: Check again in a moment.";
  return ask ? ask(c) : named(c);
}

// A checker of the deployment's own: its name made readable, and its note.
function named(c) {
  const name = c.checker.replaceAll("_", " ");
  const title = name.charAt(0).toUpperCase() + name.slice(1);
  return c.detail ? `${title}: ${c.detail}.` : `${title}.`;
}

function categoryIn(detail) {
  return /facts in '([^']+)'/.exec(detail || "")?.[1] ?? null;
}

// A criterion as a refused move or a forced transition lists it: "checker: detail", where the
// detail of a counted one starts "observed/required" ("min_messages: 1/2 messages").
export function missingWords(text) {
  const at = text.indexOf(": ");
  if (at < 0) return text; // a step still to do, named by its id
  const checker = text.slice(0, at);
  const detail = text.slice(at + 2);
  if (detail.startsWith("not done")) return `“${stepTitle(checker)}” is not done yet.`;
  if (!(checker in ASKS)) return text;
  const counts = /^(\d+)\/(\d+)/.exec(detail);
  return criterionWords({
    checker, detail, met: false,
    observed: counts ? Number(counts[1]) : null,
    required: counts ? Number(counts[2]) : null,
    error: detail.startsWith("checker error"),
  });
}

// Why a move was refused, as the workflow service says it ("step 'greeting' needs at least 2
// messages (has 1)"), with the steps by their titles.
export function refusalWords(reason) {
  const few = /^step '([^']+)' needs at least (\d+) messages? \(has (\d+)\)$/.exec(reason);
  if (few) {
    return `“${stepTitle(few[1])}” needs at least ${plural(Number(few[2]), "message")}, and ` +
      `has ${formatNumber(Number(few[3]))}.`;
  }
  const unmet = /^step '([^']+)' is required and its completion criteria are not met$/.exec(reason);
  if (unmet) return `“${stepTitle(unmet[1])}” must be done before moving on, and it is not yet.`;
  const skipped = /^required step\(s\) cannot be skipped: (.+)$/.exec(reason);
  if (skipped) {
    const titles = skipped[1].split(", ").map((id) => `“${stepTitle(id)}”`).join(", ");
    return `it would skip steps that must be done first: ${titles}.`;
  }
  return reason;
}
