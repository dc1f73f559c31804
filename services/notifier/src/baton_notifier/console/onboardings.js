// The onboardings a user has in progress, when there is more than one (`onboarding` and
// `onboarding-classic` may both be active): the page shows one at a time, this list says which
// and offers a button to show each other one.

import { $, element } from "./dom.js";

// The workflows the console offers, as the start form lists them: the one checked is started.
export function choices() {
  return [...document.querySelectorAll("#start-choice input[name=workflow]")];
}

// The name the start form gives a workflow ("Classic onboarding"), else its id.
function nameOf(workflowId) {
  return choices().find((input) => input.value === workflowId)?.dataset.name ?? workflowId;
}

// In the start form's order, whichever the API listed first.
function rank(instance) {
  return choices().findIndex((input) => input.value === instance.workflow_id);
}

// `active`: the user's active onboardings; `shown`: the instance on screen (listed too when it
// is no longer active); `pick(instanceId)` shows another one.
export function showOnboardings(active, shown, pick) {
  const listed = active.some((instance) => instance.instance_id === shown.instance_id)
    ? [...active] : [shown, ...active];
  listed.sort((a, b) => rank(a) - rank(b));
  $("onboardings").hidden = listed.length < 2;
  $("onboarding-list").replaceChildren(...listed.map((instance) =>
    entry(instance, instance.instance_id === shown.instance_id, pick)));
}

function entry(instance, isShown, pick) {
  const name = nameOf(instance.workflow_id);
  const where = instance.status === "completed"
    ? "completed"
    : `on step ${instance.current_step}, ${Math.round(instance.progress * 100)}% done`;
  if (isShown) {
    const item = element("li", { "aria-current": "true" });
    item.append(element("strong", {}, name), ` (${where}): shown here`);
    return item;
  }
  const item = element("li");
  const show = element("button", { type: "button" }, `Show ${name}`);
  show.addEventListener("click", () => pick(instance.instance_id));
  item.append(show, ` (${where})`);
  return item;
}
