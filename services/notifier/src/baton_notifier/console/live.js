// Live updates over /ws: connect with the token as a subprotocol, reconnect from the last seq
// (and the epoch of the stream it counts in), and apply each frame to the panels it concerns.

import { clearErrorSaying, showError } from "./alert.js";
import { paintedLive } from "./answers.js";
import { ApiError, api } from "./api.js";
import { addMessage } from "./conversation.js";
import { $ } from "./dom.js";
import { noteBlocked } from "./explanation.js";
import { showStep } from "./progress.js";
import { refreshSoon, reload } from "./reload.js";
import { state } from "./state.js";

const MAX_RETRY_MS = 10000;
// 1008: this user holds as many live connections as the gateway allows. Retrying fast only
// knocks again on a full door; a place frees when the user closes a tab or app, so wait longer.
const CLOSE_TOO_MANY_SESSIONS = 1008;
const REFUSED_RETRY_MS = [30000, 60000];
const PAUSED = "Live updates paused";

let socket = null;
let lastSeq = null;
let lastEpoch = null; // a stream created again numbers from 1: the gateway then answers resync
let retries = 0;
let refusals = 0; // 1008s in a row: each waits longer, up to the last of REFUSED_RETRY_MS
let retryTimer = null;

// Another workspace (another onboarding, another user): nothing of this feed's carries over.
export function forgetLive() {
  lastSeq = null;
  lastEpoch = null;
  refusals = 0;
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

function setLive(mode, text = `Live updates: ${mode}`) {
  const status = $("live-status");
  status.dataset.live = mode;
  status.textContent = text;
}

function onClosed(closedSocket, closed) {
  if (socket !== closedSocket) return; // closed on purpose
  socket = null;
  if (closed.code === 4401) {
    refusedToken(closed.reason);
    return;
  }
  if (closed.code === 4400) {
    setLive("off");
    showError(new ApiError(400, "bad_request", closed.reason), "Live updates stopped");
    return;
  }
  if (closed.code === CLOSE_TOO_MANY_SESSIONS) {
    retryLater(refused(closed.reason));
    return;
  }
  setLive("reconnecting");
  retryLater(Math.min(MAX_RETRY_MS, 500 * 2 ** retries++));
}

// A close reason is words only: why the token was refused (expired?) is asked of the HTTP API,
// whose 401 says it in a stable detail. Answered 200 (the token is good after all) or not at
// all, the socket's own reason is said.
async function refusedToken(reason) {
  const token = state.token;
  let error = new ApiError(401, "unauthorized", reason);
  try {
    await api("GET", "/api/me");
  } catch (refused) {
    if (refused.status === 401) error = refused;
  }
  if (state.token === token) showError(error, "Live updates stopped");
}

// Says why live updates stopped and when they are tried again; the wait, in milliseconds.
function refused(reason) {
  const delay = REFUSED_RETRY_MS[Math.min(refusals, REFUSED_RETRY_MS.length - 1)];
  const retrying = `retrying in ${delay / 1000} s`;
  setLive("paused", `${PAUSED}: too many live connections for this user (close another tab); ${retrying}`);
  if (refusals++ === 0) { // the alert once; the status line keeps saying it, not a nag a minute
    // A proxy may close with 1008 (policy violation) and no reason of its own.
    const why = reason || "the gateway refused the connection (1008 policy violation)";
    showError(new Error(`${why} (each console tab holds one); ${retrying}.`), PAUSED);
  }
  return delay;
}

function retryLater(delay) {
  retryTimer = setTimeout(() => state.instance && connectLive(), delay);
}

function onFrame(frame) {
  if (frame.type === "ready") {
    retries = 0;
    refusals = 0;
    clearErrorSaying(PAUSED); // an error shown since then stays
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
