// The onboarding on screen: found through the API (or started), opened, and reset when left.

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

const WORKFLOW_ID = "onboarding";
const INSTANCE_KEY = "baton.console.instance."; // + user id

export async function findInstance() {
  // The API is the source of truth; the tab's memory only finds a completed onboarding again.
  const token = state.token;
  const active = await api("GET", "/api/workflows/active");
  let found = active.instances.find((instance) => instance.workflow_id === WORKFLOW_ID);
  const saved = sessionStorage.getItem(INSTANCE_KEY + state.userId);
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
    const instance = await api("POST", "/api/workflows", { workflow_id: WORKFLOW_ID });
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
}
