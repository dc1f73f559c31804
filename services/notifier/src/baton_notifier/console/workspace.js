// The onboarding on screen: found through the API (or started, the one chosen), opened, and
// reset when left.

import { clearError, showError } from "./alert.js";
import { forgetAnswers } from "./answers.js";
import { api } from "./api.js";
import { clearConversation, setSending } from "./conversation.js";
import { $ } from "./dom.js";
import { clearEventLog } from "./event-log.js";
import { clearExplanation } from "./explanation.js";
import { connectLive, forgetLastSeq } from "./live.js";
import { clearProgress } from "./progress.js";
import { reload } from "./reload.js";
import { forgetDraft } from "./sending.js";
import { state } from "./state.js";
import { clearWidget } from "./widget.js";

const INSTANCE_KEY = "baton.console.instance."; // + user id

// The workflows the console offers, as the start form lists them: the one checked is started.
function choices() {
  return [...document.querySelectorAll("#start-choice input[name=workflow]")];
}

export async function findInstance() {
  // The API is the source of truth; the tab's memory finds a completed onboarding again, and
  // picks the one this tab showed when the user has several active.
  const token = state.token;
  const offered = choices().map((choice) => choice.value);
  const active = await api("GET", "/api/workflows/active");
  const ours = active.instances.filter((instance) => offered.includes(instance.workflow_id));
  const saved = sessionStorage.getItem(INSTANCE_KEY + state.userId);
  let found = ours.find((instance) => instance.instance_id === saved) ?? ours[0];
  if (!found && saved) {
    try {
      found = await api("GET", `/api/workflows/${encodeURIComponent(saved)}`);
    } catch (error) {
      if (error.status !== 404) throw error;
      sessionStorage.removeItem(INSTANCE_KEY + state.userId);
    }
  }
  if (state.token !== token) return; // signed out (or in as someone else) meanwhile
  if (found) {
    await open(found);
  } else {
    $("start").hidden = false;
    $("start-button").focus();
  }
}

export async function start() {
  clearError();
  const token = state.token;
  $("start-button").disabled = true;
  try {
    // 201 for a new instance, 200 with the one already active: either way, that is ours.
    const chosen = choices().find((choice) => choice.checked)?.value ?? "onboarding";
    const instance = await api("POST", "/api/workflows", { workflow_id: chosen });
    if (state.token === token) await open(instance); // unless signed out meanwhile
  } catch (error) {
    showError(error, "Starting the onboarding");
  } finally {
    $("start-button").disabled = false;
  }
}

async function open(instance) {
  resetWorkspace();
  state.instance = { instance_id: instance.instance_id, status: instance.status };
  sessionStorage.setItem(INSTANCE_KEY + state.userId, instance.instance_id);
  $("start").hidden = true;
  $("workspace").hidden = false;
  connectLive();
  await reload();
  $("chat-text").focus();
}

export function resetWorkspace() {
  forgetAnswers();
  forgetLastSeq();
  forgetDraft();
  setSending(false); // a turn still in flight belongs to the workspace being left
  clearConversation();
  clearEventLog();
  clearExplanation();
  clearProgress();
  clearWidget();
}
