// Live updates over /ws: connect with the token as a subprotocol, reconnect from the last seq
// (and the epoch of the stream it counts in), and apply each frame to the panels it concerns.

import { showError } from "./alert.js";
import { paintedLive } from "./answers.js";
import { ApiError } from "./api.js";
import { addMessage } from "./conversation.js";
import { $ } from "./dom.js";
import { noteBlocked } from "./explanation.js";
import { showStep } from "./progress.js";
import { refreshSoon, reload } from "./reload.js";
import { state } from "./state.js";

const MAX_RETRY_MS = 10000;

let socket = null;
let lastSeq = null;
let lastEpoch = null; // a stream created again numbers from 1: the gateway then answers resync
let retries = 0;
let retryTimer = null;

export function forgetLastSeq() {
  lastSeq = null;
  lastEpoch = null;
}

export function connectLive() {
  closeLive();
  const params = new URLSearchParams({ instance_id: state.instance.instance_id });
  if (lastSeq !== null) params.set("last_seq", String(lastSeq));
  if (lastSeq !== null && lastEpoch !== null) params.set("epoch", lastEpoch);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // The token travels as a subprotocol, so it stays out of URLs and access logs.
  const opened = new WebSocket(`${scheme}//${location.host}/ws?${params}`, ["bearer", state.token]);
  socket = opened;
  opened.onmessage = (message) => onFrame(JSON.parse(message.data));
  opened.onclose = (closed) => onClosed(opened, closed);
}

export function closeLive() {
  clearTimeout(retryTimer);
  const closing = socket;
  socket = null;
  if (closing) closing.close(1000);
  setLive("off");
}

function setLive(mode) {
  const status = $("live-status");
  status.dataset.live = mode;
  status.textContent = `Live updates: ${mode}`;
}

function onClosed(closedSocket, closed) {
  if (socket !== closedSocket) return; // closed on purpose
  socket = null;
  if (closed.code === 4401) {
    showError(new ApiError(401, "unauthorized", closed.reason), "Live updates stopped");
    return;
  }
  if (closed.code === 4400) {
    setLive("off");
    showError(new ApiError(400, "invalid", closed.reason), "Live updates stopped");
    return;
  }
  setLive("reconnecting");
  const delay = Math.min(MAX_RETRY_MS, 500 * 2 ** retries++);
  retryTimer = setTimeout(() => state.instance && connectLive(), delay);
}

function onFrame(frame) {
  if (frame.type === "ready") {
    retries = 0;
    setLive("on");
    reload(); // whatever happened before this connection is read from the API
    return;
  }
  if (typeof frame.seq !== "number" || !state.instance) return; // pong, error, resync notices
  lastSeq = frame.seq;
  lastEpoch = typeof frame.epoch === "string" ? frame.epoch : null;
  const event = frame.payload;
  if (event.instance_id !== state.instance.instance_id) return;
  if (frame.type === "workflow.step_changed") {
    paintedLive("progress"); // newer than any reload still on its way
    showStep(event.current_step, event.progress * 100, "active");
  } else if (frame.type === "workflow.completed") {
    paintedLive("progress");
    showStep(state.progress?.current_step ?? "", 100, "completed");
  } else if (frame.type === "workflow.step_blocked") {
    noteBlocked(event.current_step, event);
  } else if (frame.type === "workflow.messages_exchanged") {
    const base = { client_message_id: event.client_message_id, step: event.step };
    addMessage({ ...base, role: "user", text: event.user_text });
    addMessage({ ...base, role: "assistant", text: event.agent_text, agent: event.agent });
  }
  refreshSoon();
}
