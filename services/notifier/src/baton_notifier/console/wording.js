// The gateway's errors in words for a person: its `code` says what kind of failure it was, and
// its message (written for the developers of its clients: "body.text: has 20000 characters;
// the limit is 8000") stays available under "What the gateway said".

const RELOAD = "the console sent a request the gateway could not take. Reload the page and try again.";

// Each code the gateway answers with (docs/gateway.md#errors), as the rest of a sentence that
// begins with what the person was doing ("Your message was not sent: ...").
const SENTENCES = {
  unreachable: "the gateway did not answer. Is Baton running? Nothing you typed is lost.",
  bad_request: RELOAD,
  method_not_allowed: RELOAD,
  unsupported_media_type: RELOAD,
  not_found: "it was not found. It may have been removed, or it belongs to another account.",
  conflict: "it changed in the meantime. Look at it again, then try again.",
  too_large: "it is larger than Baton takes.",
  invalid: "something in it was not accepted.",
  too_many: "you already have as many of these going as you may. Wait for one to finish, " +
    "then try again.",
  too_many_sessions: "you have too many live connections open. Close another tab of the console.",
  unavailable: "Baton is not answering right now (a service is busy or starting). Try again " +
    "in a moment: nothing you typed is lost.",
  internal: "something went wrong inside Baton. Try again; if it happens again, tell whoever " +
    "runs it.",
};

// What a field the gateway names is on the page.
const FIELDS = {
  "body.text": "Your message",
  "body.user_id": "Your name",
  "body.data.widget.items": "Your list",
};

const numbers = new Intl.NumberFormat("en");

// "has 20000 characters; the limit is 8000": how much was sent, and how much is taken.
const OVER_LIMIT = /has (\d+) characters; the limit is (\d+)/;

// `{text, detailsSaid}` for `error` (an ApiError, or any Error: its own message, which is
// ours): the rest of the sentence, and whether it already says what the details say.
export function plainWords(error) {
  if (error.code === "too_large") {
    const text = (error.details || []).find((d) => d.field === "body.text");
    const over = text && OVER_LIMIT.exec(text.message);
    if (over) return { text: tooLong(Number(over[1]), Number(over[2])), detailsSaid: true };
  }
  // A 401 or 403 (dev sign-in asked from another address) is worded for the person at hand.
  return { text: SENTENCES[error.code] ?? error.message, detailsSaid: false };
}

export function tooLong(count, limit) {
  return `it is too long (${numbers.format(count)} characters; a message takes at most ` +
    `${numbers.format(limit)}). Shorten it, or send it in parts.`;
}

export function formatNumber(n) {
  return numbers.format(n);
}

export function fieldName(field) {
  return FIELDS[field] ?? field;
}
