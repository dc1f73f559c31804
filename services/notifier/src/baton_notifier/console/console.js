// Baton console: sign in, the onboarding chat and its list widget, live progress over /ws,
// "why not done", events.
// Plain ES modules, no build step, nothing fetched from outside the gateway. This one starts
// the page; each panel, the API client, the session and the live feed have a module of their own.

import { dismissError, showError, whenTokenRefused } from "./alert.js";
import { api } from "./api.js";
import { $ } from "./dom.js";
import { explainAgain, whenExplained } from "./explanation.js";
import { countMessage, send, sendOnEnter } from "./sending.js";
import {
  acceptHandover, cancelHandover, offerToken, resume, signInWithName, signInWithToken, signOut,
  signOutKeepingDraft, tokenFromFragment, tokenHandedOver,
} from "./session.js";
import { state } from "./state.js";
import { addItem, completeWidget, offerWidget } from "./widget.js";
import { start } from "./workspace.js";

async function boot() {
  whenTokenRefused(signOutKeepingDraft); // the gateway refusing the token (401) signs out
  whenExplained(offerWidget); // a step closed by a list widget offers it under the chat
  $("dev-form").addEventListener("submit", signInWithName);
  $("token-form").addEventListener("submit", signInWithToken);
  $("sign-out").addEventListener("click", signOut);
  $("start-button").addEventListener("click", start);
  $("chat-form").addEventListener("submit", send);
  $("chat-text").addEventListener("keydown", sendOnEnter);
  $("chat-text").addEventListener("input", countMessage);
  $("explain-refresh").addEventListener("click", explainAgain);
  $("widget-form").addEventListener("submit", addItem);
  $("widget-done").addEventListener("click", completeWidget);
  $("alert-close").addEventListener("click", dismissError);
  $("handover-accept").addEventListener("click", acceptHandover);
  $("handover-cancel").addEventListener("click", cancelHandover);
  window.addEventListener("hashchange", tokenHandedOver);
  const handedOver = tokenFromFragment();
  try {
    const config = await api("GET", "/api/console/config");
    $("dev-form").hidden = !config.dev_sign_in;
    state.maxMessageChars = config.max_message_chars ?? null;
  } catch (error) {
    showError(error, "Loading the console");
  }
  $("loading").hidden = true;
  await resume();
  if (handedOver) await offerToken(handedOver);
  document.body.dataset.ready = "true";
}

boot();
