// The alert region at the top: what went wrong, with the fields the gateway named.

import { ApiError } from "./api.js";
import { $, element } from "./dom.js";
import { state } from "./state.js";

// Signing out lives in session.js, which shows errors too: it is handed in by console.js.
let tokenRefused = () => {};

export function whenTokenRefused(handler) {
  tokenRefused = handler;
}

export function showError(error, doing) {
  if (error instanceof ApiError && error.status === 401 && state.token) {
    tokenRefused();
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

// For a notice that goes away by itself (live updates paused, then back): hidden only while the
// alert still says it, so an error shown since is not lost.
export function clearErrorSaying(doing) {
  if ($("alert-text").textContent.startsWith(`${doing}:`)) clearError();
}

export function clearError() {
  $("alert").hidden = true;
}

export function dismissError() {
  clearError();
  $("main").focus(); // the Dismiss button just hid itself: keep a keyboard user in the page
}
