// Answers that come late: which answer a panel may still paint.
// A panel that is replaced whole (progress, the explanation) shows the answer to the newest
// request made for it (or live frame): an older answer that comes in later (a slow "Check
// again", a reload begun before a turn) is dropped, and so is any answer asked for a workspace
// since left (sign-out, another user). The conversation and the event log only ever add what
// they lack (by message id, by version), so any answer for the workspace on screen is merged.
// Each request whose answer paints a panel takes a number here (`ask`); the code that paints
// the panel checks it (`current`, `newest`) where the answer comes in.

let asked = 0; // numbers every request whose answer paints a panel, in the order they are made
let floor = 0; // the number taken when the workspace was last reset: answers asked before are old
let painted = {}; // panel -> number of the request whose answer it shows

export function ask() {
  return ++asked;
}

export function current(ticket) {
  return ticket > floor;
}

export function newest(panel, ticket) {
  if (!current(ticket) || ticket < (painted[panel] ?? 0)) return false;
  painted[panel] = ticket;
  return true;
}

// A failure is news only while no newer answer is shown, and only for this workspace.
export function failureIsNews(panel, ticket) {
  return current(ticket) && ticket >= (painted[panel] ?? 0);
}

// A live frame painted `panel`: it is newer than any answer still on its way.
export function paintedLive(panel) {
  painted[panel] = ask();
}

// The workspace is reset: every answer asked until now is for one no longer on screen.
export function forgetAnswers() {
  floor = ask();
  painted = {};
}
