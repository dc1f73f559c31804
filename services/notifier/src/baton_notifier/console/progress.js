// The progress panel: the current step, the progress bar and every step's status.

import { setChatOpen } from "./conversation.js";
import { $, element } from "./dom.js";
import { state, stepTitle } from "./state.js";

export function clearProgress() {
  state.progress = null;
  $("steps").replaceChildren();
}

export function renderProgress(progress) {
  state.progress = progress;
  showStep(progress.current_step, progress.completion_percentage, progress.status);
  $("steps").replaceChildren(...progress.steps.map((step) => {
    const item = element("li", { "data-status": step.status, "data-step": step.id }, step.title);
    if (step.status === "active") item.setAttribute("aria-current", "step");
    item.append(element("span", { class: "visually-hidden" }, ` (${step.status})`));
    return item;
  }));
}

export function showStep(stepId, percentage, status) {
  const name = $("step-name");
  name.dataset.step = stepId;
  name.textContent = status === "completed" ? `${stepTitle(stepId)} (done)` : stepTitle(stepId);
  const value = Math.round(percentage);
  $("progress").value = value;
  $("progress-text").textContent = `${value}%`;
  state.instance.status = status;
  setChatOpen(status === "active");
}
