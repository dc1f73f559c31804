// Signing in and out: a dev name, a pasted token or one handed over in the URL fragment, kept
// in the tab's sessionStorage until sign-out or until the gateway refuses it.

import { SESSION_EXPIRED, clearError, isExpired, showError, showNotice } from "./alert.js";
import { ApiError, api } from "./api.js";
import { $ } from "./dom.js";
import { closeLive } from "./live.js";
import { state } from "./state.js";
import { findInstance, resetWorkspace } from "./workspace.js";

const TOKEN_KEY = "baton.console.token";
// RFC 6750's b64token: anything else (a space, a line break, a letter outside ASCII) cannot go
// into a header, and fetch would fail as if the gateway were down.
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

// A token handed over in the URL fragment, taken out of the address bar (and so out of the
// history) at once; not used until the person says so (`offerToken`).
export function tokenFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (!token) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return token;
}

// An embedding app may set `#token=...` on a console that is already open.
export async function tokenHandedOver() {
  const token = tokenFromFragment();
  if (token) await offerToken(token);
}

let offered = null; // the link's token, until the person signs in with it or cancels
// Whose unsent message the box still holds after the gateway refused their token: theirs again
// once they sign in again, no one else's.
let draftOf = null;

// A link's token signs in only once the person agrees, told whose account it opens: taken at
// once, anyone's link (`/#token=<their own token>`, or a page setting `location.hash` on an
// open console) signed the person into the sender's account, where what they then typed went.
// A token for the account already signed in (a renewed one) is taken without asking.
export async function offerToken(token) {
  clearError();
  let userId;
  try {
    if (!BEARER_TOKEN.test(token)) {
      throw new ApiError(0, "invalid_token",
        "a token is one word of letters, digits and - . _ ~ + / (no spaces or line breaks)");
    }
    userId = (await api("GET", "/api/me", undefined, token)).user_id;
  } catch (error) {
    if (isExpired(error)) {
      showNotice("The link you opened has expired: ask for a new one. Nothing has changed here.");
      return;
    }
    // Not this tab's token that was refused: shown without a status, which would sign out.
    showError(new ApiError(0, error.code, error.message, error.details),
      "The token in the link was refused");
    return;
  }
  if (state.token && state.userId === userId) {
    state.token = token;
    sessionStorage.setItem(TOKEN_KEY, token);
    return;
  }
  offered = token;
  $("handover-user").textContent = userId;
  $("handover-accept").textContent = `Sign in as ${userId}`;
  $("handover").hidden = false;
  $("handover-accept").focus();
}

export async function acceptHandover() {
  const token = offered;
  offered = null;
  $("handover").hidden = true;
  if (!token) return;
  closeLive();
  resetWorkspace();
  state.instance = null;
  clearError();
  await useToken(token);
}

export function cancelHandover() {
  offered = null;
  $("handover").hidden = true;
}

// The token this tab kept (a reload), or the sign-in form.
export async function resume() {
  state.token = sessionStorage.getItem(TOKEN_KEY);
  if (state.token) await enter(true);
  else showSignIn();
}

function showSignIn() {
  $("sign-in").hidden = false;
  $("who").hidden = true;
  $("start").hidden = true;
  $("workspace").hidden = true;
  const first = $("dev-form").hidden ? $("token-input") : $("dev-user");
  first.focus();
}

export async function signInWithName(event) {
  event.preventDefault();
  clearError();
  try {
    const minted = await api("POST", "/api/dev/token", { user_id: $("dev-user").value });
    await useToken(minted.token);
  } catch (error) {
    showError(error, "Signing in");
  }
}

export async function signInWithToken(event) {
  event.preventDefault();
  clearError();
  await useToken($("token-input").value.trim());
}

async function useToken(token) {
  state.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
  await enter();
}

// `resumed`: the tab's own token, kept from before a reload (else one just given).
async function enter(resumed = false) {
  try {
    if (!BEARER_TOKEN.test(state.token)) {
      throw new ApiError(0, "invalid_token",
        "a token is one word of letters, digits and - . _ ~ + / (no spaces or line breaks)");
    }
    state.userId = (await api("GET", "/api/me")).user_id;
  } catch (error) {
    const wasToken = error.status === 401 || error.code === "invalid_token";
    if (wasToken) forgetToken(); // kept otherwise: a reload signs in once the gateway is back
    showSignIn();
    if (isExpired(error)) {
      showNotice(resumed ? SESSION_EXPIRED : "This token has expired: get a new one.");
      return;
    }
    showError(error, wasToken ? "This token was refused" : "Signing in");
    return;
  }
  if (draftOf !== null && draftOf !== state.userId) $("chat-text").value = "";
  draftOf = null;
  $("who-name").textContent = state.userId;
  $("who").hidden = false;
  $("sign-in").hidden = true;
  try {
    await findInstance();
  } catch (error) {
    showError(error, "Looking for your onboarding");
  }
}

function forgetToken() {
  state.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
}

// Sign-out by the person: what they were writing goes with them, out of the next one's sight.
export function signOut() {
  $("chat-text").value = "";
  leave();
}

// The gateway refused the token (it expired): signed out, the unsent message kept for them.
export function signOutKeepingDraft() {
  draftOf = state.userId;
  leave();
}

function leave() {
  closeLive();
  forgetToken();
  state.userId = null;
  state.instance = null;
  resetWorkspace();
  showSignIn();
}
