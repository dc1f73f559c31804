// The alert region at the top: what went wrong, with the fields the gateway named.

import { ApiError } from "./api.js";
import { $, element } from "./dom.js";
import { state } from "./state.js";

// Signing out lives in session.js, which shows errors too: it is handed in by console.js.
let tokenRefused = () => {};

export function whenTokenRefused(handler) {
  tokenRefused = handler;
}

// The gateway says a token "has expired" (HTTP) or "expired" (the live socket's 4401) in words
// for the developers of its clients ("... reconnect with last_seq"): a person is told what to do.
export const SESSION_EXPIRED = "Your session has expired. Sign in again to go on: your " +
  "onboarding is kept, and so is a message you had not sent yet.";

export function isExpired(error) {
  return error instanceof ApiError && error.status === 401 && /\bexpired\b/.test(error.message);
}

export function showError(error, doing) {
  if (error instanceof ApiError && error.status === 401 && state.token) {
    tokenRefused();
    if (isExpired(error)) {
      showNotice(SESSION_EXPIRED);
      return;
    }
    doing = "Your sign-in is no longer valid";
  }
  const status = error instanceof ApiError && error.status ? ` (${error.status} ${error.code})` : "";
  $("alert-text").textContent = `${doing}${status}: ${error.message}`;
  const details = $("alert-details");
  details.replaceChildren();
  for (const detail of error.details || []) {
    if (error.message.includes(detail.message)) continue; // already said above
    // A detail about nothing in the request names no field: its words alone.
    const text = detail.field ? `${detail.field}: ${detail.message}` : detail.message;
    details.append(element("li", {}, text));
  }
  $("alert").hidden = false;
}

// Words for a person, without the gateway's status or details.
export function showNotice(text) {
  $("alert-text").textContent = text;
  $("alert-details").replaceChildren();
  $("alert").hidden = false;
}

// For a notice that goes away by itself (live updates paused, then back): hidden only while the
// alert still says it, so an error shown since is not lost.
export function clearErrorSaying(doing) {
  const text = $("alert-text").textContent;
  if (text.startsWith(`${doing}:`) || text.startsWith(`${doing} (`)) clearError(); // (status)
}

export function clearError() {
  $("alert").hidden = true;
}

export function dismissError() {
  clearError();
  $("main").focus(); // the Dismiss button just hid itself: keep a keyboard user in the page
}
