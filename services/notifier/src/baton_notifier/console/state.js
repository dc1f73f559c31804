// What every part of the console reads: who is signed in, the instance on screen, its steps.
// Each panel keeps the rest of what it needs in its own module.

export const state = {
  token: null,
  userId: null,
  instance: null, // {instance_id, status}
  progress: null, // the last ProgressView
  maxMessageChars: null, // the longest message the gateway takes (its config); null: unknown
};

export function stepTitle(stepId) {
  const step = state.progress?.steps.find((s) => s.id === stepId);
  return step ? step.title : stepId;
}
