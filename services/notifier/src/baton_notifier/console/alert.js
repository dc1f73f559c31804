// The alert region at the top: what went wrong, with the fields the gateway named.

import { ApiError } from "./api.js";
import { $, element } from "./dom.js";
import { state } from "./state.js";
import { fieldName, plainWords } from "./wording.js";

// Signing out lives in session.js, which shows errors too: it is handed in by console.js.
let tokenRefused = () => {};

export function whenTokenRefused(handler) {
  tokenRefused = handler;
}

// The gateway says why it refused a token in its 401's one detail, `field: "token"`: a stable
// reason (`expired`, `malformed`, ...), where its message is words that may change. Expiry is
// told to a person as what to do.
export const SESSION_EXPIRED = "Your session has expired. Sign in again to go on: your " +
  "onboarding is kept, and so is a message you had not sent yet.";

const TOKEN_FIELD = "token";

export function tokenRefusal(error) {
  if (!(error instanceof ApiError) || error.status !== 401) return undefined;
  return error.details.find((detail) => detail.field === TOKEN_FIELD)?.message;
}

export function isExpired(error) {
  return tokenRefusal(error) === "expired";
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
  const said = plainWords(error);
  $("alert-text").textContent = `${doing}: ${said.text}`;
  const details = $("alert-details");
  details.replaceChildren();
  for (const detail of said.detailsSaid ? [] : error.details || []) {
    if (detail.field === TOKEN_FIELD) continue; // the reason, for programs: the message says it
    if (said.text.includes(detail.message)) continue; // already said above
    // A detail about nothing in the request names no field: its words alone.
    const text = detail.field ? `${fieldName(detail.field)}: ${detail.message}` : detail.message;
    details.append(element("li", {}, text));
  }
  showGatewayWords(error);
  $("alert").hidden = false;
}

// The gateway's own status, code and message, folded away: for whoever looks into a problem.
function showGatewayWords(error) {
  const answered = error instanceof ApiError && error.status > 0;
  $("alert-more").hidden = !answered;
  $("alert-more").open = false;
  $("alert-raw").textContent = answered ? `${error.status} ${error.code}: ${error.message}` : "";
}

// Words for a person, without the gateway's status or details.
export function showNotice(text) {
  $("alert-text").textContent = text;
  $("alert-details").replaceChildren();
  $("alert-more").hidden = true;
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
