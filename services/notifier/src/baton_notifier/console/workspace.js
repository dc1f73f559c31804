// The onboarding on screen: found through the API (or started, the one chosen), opened, and
// reset when left; with several in progress, the one picked from their list.

import { clearError, showError } from "./alert.js";
import { forgetAnswers } from "./answers.js";
import { api } from "./api.js";
import { clearConversation, setSending } from "./conversation.js";
import { $ } from "./dom.js";
import { clearEventLog } from "./event-log.js";
import { clearExplanation } from "./explanation.js";
import { clearKept } from "./inbox.js";
import { connectLive, forgetLive } from "./live.js";
import { choices, showOnboardings } from "./onboardings.js";
import { clearProgress } from "./progress.js";
import { reload } from "./reload.js";
import { forgetDraft } from "./sending.js";
import { state } from "./state.js";
import { clearWidget } from "./widget.js";

const INSTANCE_KEY = "baton.console.instance."; // + user id

// The user's active instances of the workflows the console offers: every page of the list
// (`next_after`), since theirs may come after those of other workflows. Each is listed
// without its context, which the console never reads from the list.
async function activeOnboardings() {
  const offered = choices().map((choice) => choice.value);
  const ours = [];
  let after = null;
  do {
    const query = after === null ? "" : `?after=${encodeURIComponent(after)}`;
    const page = await api("GET", `/api/workflows/active${query}`);
    ours.push(...page.instances.filter((instance) => offered.includes(instance.workflow_id)));
    after = page.next_after ?? null;
  } while (after !== null);
  return ours;
}

export async function findInstance() {
  // The API is the source of truth; the tab's memory finds a completed onboarding again, and
  // picks the one this tab showed when the user has several active (the others are listed).
  const token = state.token;
  const ours = await activeOnboardings();
  const saved = sessionStorage.getItem(INSTANCE_KEY + state.userId);
  let found = ours.find((instance) => instance.instance_id === saved) ?? ours[0];
  if (!found && saved) found = await savedInstance(saved);
  if (state.token !== token) return; // signed out (or in as someone else) meanwhile
  if (found) {
    await open(found, ours);
  } else {
    $("start").hidden = false;
    $("start-button").focus();
  }
}

// The instance this tab showed last (a completed one), or undefined once it is gone.
async function savedInstance(saved) {
  try {
    return await api("GET", `/api/workflows/${encodeURIComponent(saved)}`);
  } catch (error) {
    if (error.status !== 404) throw error;
    sessionStorage.removeItem(INSTANCE_KEY + state.userId);
    return undefined;
  }
}

// Another of the user's onboardings, chosen in the list of those in progress.
async function pick(instanceId) {
  clearError();
  const token = state.token;
  try {
    const ours = await activeOnboardings();
    const chosen = ours.find((instance) => instance.instance_id === instanceId)
      ?? await api("GET", `/api/workflows/${encodeURIComponent(instanceId)}`); // completed since
    if (state.token === token) await open(chosen, ours);
  } catch (error) {
    showError(error, "Showing the other onboarding");
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

async function open(instance, active = []) {
  resetWorkspace();
  state.instance = { instance_id: instance.instance_id, status: instance.status };
  sessionStorage.setItem(INSTANCE_KEY + state.userId, instance.instance_id);
  showOnboardings(active, instance, pick);
  $("start").hidden = true;
  $("workspace").hidden = false;
  connectLive();
  await reload();
  $("chat-text").focus();
}

export function resetWorkspace() {
  forgetAnswers();
  forgetLive();
  forgetDraft();
  setSending(false); // a turn still in flight belongs to the workspace being left
  clearConversation();
  clearEventLog();
  clearExplanation();
  clearKept();
  clearProgress();
  clearWidget();
}
