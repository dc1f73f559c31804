// Baton console: sign in, the onboarding chat, live progress over /ws, "why not done", events.
// Plain ES module, no build step, nothing fetched from outside the gateway.

const WORKFLOW_ID = "onboarding";
const TOKEN_KEY = "baton.console.token";
const INSTANCE_KEY = "baton.console.instance."; // + user id
const REFRESH_DELAY_MS = 150;
const MAX_RETRY_MS = 10000;
// RFC 6750's b64token: anything else (a space, a line break, a letter outside ASCII) cannot go
// into a header, and fetch would fail as if the gateway were down.
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const $ = (id) => document.getElementById(id);

class ApiError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const state = {
  token: null,
  userId: null,
  instance: null, // {instance_id, status}
  progress: null, // the last ProgressView
  blocked: null, // the last refusal to move on: {step, reason, missing_criteria}
  socket: null,
  lastSeq: null,
  retries: 0,
  retryTimer: null,
  refreshTimer: null,
  reloading: 0, // the number of the newest reload: only its failure is shown
  asked: 0, // numbers every request whose answer paints a panel, in the order they are made
  floor: 0, // the number taken when the workspace was last reset: answers asked before are old
  painted: {}, // panel -> number of the request whose answer it shows
  shown: new Map(), // "<client_message_id>:<role>" -> <li> in the chat log
  lastVersion: 0, // highest event version in the event log
  draft: null, // {text, id}: the typed message and the client_message_id kept for its retries
  sending: false,
};

// --- HTTP ------------------------------------------------------------------------------

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "unreachable", "The gateway did not answer; is Baton running?");
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (response.ok) return data;
  const error = data && data.error ? data.error : {};
  throw new ApiError(
    response.status,
    error.code || `http_${response.status}`,
    error.message || `${response.status} ${response.statusText}`,
    Array.isArray(error.details) ? error.details : [],
  );
}

function instancePath(suffix = "") {
  return `/api/workflows/${encodeURIComponent(state.instance.instance_id)}${suffix}`;
}

// --- answers that come late ------------------------------------------------------------
// A panel that is replaced whole (progress, the explanation) shows the answer to the newest
// request made for it (or live frame): an older answer that comes in later (a slow "Check
// again", a reload begun before a turn) is dropped, and so is any answer asked for a workspace
// since left (sign-out, another user). The conversation and the event log only ever add what
// they lack (by message id, by version), so any answer for the workspace on screen is merged.

function ask() {
  return ++state.asked;
}

function current(ticket) {
  return ticket > state.floor;
}

function newest(panel, ticket) {
  if (!current(ticket) || ticket < (state.painted[panel] ?? 0)) return false;
  state.painted[panel] = ticket;
  return true;
}

// --- alert region ------------------------------------------------------------------------

function showError(error, doing) {
  if (error instanceof ApiError && error.status === 401 && state.token) {
    signOut();
    doing = "Your sign-in is no longer valid";
  }
  const status = error instanceof ApiError && error.status ? ` (${error.status} ${error.code})` : "";
  $("alert-text").textContent = `${doing}${status}: ${error.message}`;
  const details = $("alert-details");
  details.replaceChildren();
  for (const detail of error.details || []) {
    if (error.message.includes(detail.message)) continue; // already said above
    details.append(element("li", {}, `${detail.field}: ${detail.message}`));
  }
  $("alert").hidden = false;
}

function clearError() {
  $("alert").hidden = true;
}

function dismissError() {
  clearError();
  $("main").focus(); // the Dismiss button just hid itself: keep a keyboard user in the page
}

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

// --- sign in -----------------------------------------------------------------------------

function tokenFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (!token) return null;
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", location.pathname + location.search); // out of the address bar
  return token;
}

async function tokenHandedOver() {
  // An embedding app may set `#token=...` on a console that is already open.
  const token = tokenFromFragment();
  if (!token) return;
  closeLive();
  resetWorkspace();
  state.instance = null;
  clearError();
  await useToken(token);
}

function showSignIn() {
  $("sign-in").hidden = false;
  $("who").hidden = true;
  $("start").hidden = true;
  $("workspace").hidden = true;
  const first = $("dev-form").hidden ? $("token-input") : $("dev-user");
  first.focus();
}

async function signInWithName(event) {
  event.preventDefault();
  clearError();
  try {
    const minted = await api("POST", "/api/dev/token", { user_id: $("dev-user").value });
    await useToken(minted.token);
  } catch (error) {
    showError(error, "Signing in");
  }
}

async function signInWithToken(event) {
  event.preventDefault();
  clearError();
  await useToken($("token-input").value.trim());
}

async function useToken(token) {
  state.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
  await enter();
}

async function enter() {
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
    showError(error, wasToken ? "This token was refused" : "Signing in");
    return;
  }
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

function signOut() {
  closeLive();
  forgetToken();
  state.userId = null;
  state.instance = null;
  resetWorkspace();
  showSignIn();
}

// --- the instance --------------------------------------------------------------------------

async function findInstance() {
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

async function start() {
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

function resetWorkspace() {
  state.floor = ask();
  state.painted = {};
  state.progress = null;
  state.blocked = null;
  state.lastSeq = null;
  state.lastVersion = 0;
  state.draft = null;
  setSending(false); // a turn still in flight belongs to the workspace being left
  state.shown.clear();
  $("chat-log").replaceChildren();
  $("event-log").replaceChildren();
  $("explain").replaceChildren();
  $("steps").replaceChildren();
}

async function reload() {
  if (!state.instance) return;
  const ticket = ask();
  state.reloading = ticket;
  try {
    const [progress, conversation, explanation, log] = await Promise.all([
      api("GET", instancePath("/progress")),
      api("GET", instancePath("/messages")),
      api("GET", instancePath("/explain")),
      api("GET", instancePath("/events")),
    ]);
    if (!current(ticket)) return; // asked for a workspace since left
    if (newest("progress", ticket)) renderProgress(progress);
    conversation.messages.forEach(addMessage);
    if (newest("explain", ticket)) renderExplain(explanation);
    addEvents(log.events);
  } catch (error) {
    if (current(ticket) && ticket === state.reloading) showError(error, "Loading your onboarding");
  }
}

function refreshSoon() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(reload, REFRESH_DELAY_MS);
}

// --- progress ----------------------------------------------------------------------------

function stepTitle(stepId) {
  const step = state.progress?.steps.find((s) => s.id === stepId);
  return step ? step.title : stepId;
}

function renderProgress(progress) {
  state.progress = progress;
  showStep(progress.current_step, progress.completion_percentage, progress.status);
  $("steps").replaceChildren(...progress.steps.map((step) => {
    const item = element("li", { "data-status": step.status, "data-step": step.id }, step.title);
    if (step.status === "active") item.setAttribute("aria-current", "step");
    item.append(element("span", { class: "visually-hidden" }, ` (${step.status})`));
    return item;
  }));
}

function showStep(stepId, percentage, status) {
  const name = $("step-name");
  name.dataset.step = stepId;
  name.textContent = status === "completed" ? `${stepTitle(stepId)} (done)` : stepTitle(stepId);
  const value = Math.round(percentage);
  $("progress").value = value;
  $("progress-text").textContent = `${value}%`;
  state.instance.status = status;
  setChatOpen(status === "active");
}

function setChatOpen(open) {
  $("chat-text").disabled = !open;
  $("chat-send").disabled = !open || state.sending;
  if (!open) $("chat-status").textContent = "This onboarding is complete.";
  else if (!state.sending) $("chat-status").textContent = "";
}

// --- conversation --------------------------------------------------------------------------

function addMessage(message) {
  const key = `${message.client_message_id}:${message.role}`;
  const known = state.shown.get(key);
  if (known) {
    known.classList.remove("pending");
    return;
  }
  const who = message.role === "user" ? "You" : `${message.agent} · ${stepTitle(message.step)}`;
  const item = element("li", { class: `message ${message.role}`, "data-role": message.role });
  if (message.pending) item.classList.add("pending");
  item.append(element("span", { class: "meta" }, who), element("span", { class: "text" }, message.text));
  state.shown.set(key, item);
  const log = $("chat-log");
  log.append(item);
  log.scrollTop = log.scrollHeight;
}

function dropMessage(key) {
  const item = state.shown.get(key);
  if (item && item.classList.contains("pending")) {
    item.remove();
    state.shown.delete(key);
  }
}

function newId() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID(); // secure contexts
  return Array.from(crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0")).join("");
}

async function send(event) {
  event.preventDefault();
  const box = $("chat-text");
  const text = box.value;
  if (state.sending || !state.instance || !text.trim()) return;
  // The same text sent again after a failure keeps its id, so the turn is counted once.
  if (!state.draft || state.draft.text !== text) state.draft = { text, id: newId() };
  const id = state.draft.id;
  const instance = state.instance;
  const ticket = ask();
  clearError();
  setSending(true);
  addMessage({ role: "user", text, client_message_id: id, pending: true });
  try {
    const answer = await api("POST", instancePath("/messages"), { text, client_message_id: id });
    if (state.instance !== instance) return; // signed out or switched meanwhile: not for this page
    addMessage({ role: "user", text, client_message_id: id });
    addMessage(answer.reply);
    if (box.value === text) box.value = "";
    state.draft = null;
    if (answer.turn.outcome === "blocked") noteBlocked(answer.turn.instance.current_step, answer.turn);
    setSending(false);
    if (newest("progress", ticket)) renderProgress(answer.progress);
    refreshSoon();
  } catch (error) {
    if (state.instance !== instance) return;
    dropMessage(`${id}:user`);
    setSending(false);
    showError(error, "Your message was not sent");
  }
  if (!box.disabled) box.focus();
}

function setSending(sending) {
  state.sending = sending;
  $("chat-log").setAttribute("aria-busy", String(sending));
  $("chat-send").disabled = sending || state.instance?.status !== "active";
  $("chat-status").textContent = sending ? "Waiting for the agent…" : "";
}

function sendOnEnter(event) {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("chat-form").requestSubmit();
  }
}

// A step closed by its message limit, without its criteria: said in the chat, right after the
// answer that closed it (found by the turn's client_message_id), so a reload shows it there too.
function noteForced(event) {
  const key = `forced:${event.version}`;
  if (state.shown.has(key)) return;
  const payload = event.payload;
  const step = payload.previous_step || payload.final_step;
  const then = payload.current_step ? `moved on to “${stepTitle(payload.current_step)}”` : "finished";
  const item = element("li", { class: "notice", "data-role": "notice", role: "note" });
  item.append(element("span", { class: "meta" }, `Workflow · ${payload.warning || "forced"}`));
  item.append(element("p", {},
    `“${stepTitle(step)}” reached its message limit without being done, so the onboarding ` +
    `${then}.`));
  const missing = payload.missing_criteria || [];
  if (missing.length) {
    const list = element("ul");
    missing.forEach((m) => list.append(element("li", {}, m)));
    item.append(element("p", {}, "Still missing:"), list);
  }
  state.shown.set(key, item);
  const log = $("chat-log");
  const answer = state.shown.get(`${payload.command_id}:assistant`);
  if (answer && answer.parentNode === log) answer.after(item);
  else log.append(item);
  log.scrollTop = log.scrollHeight;
}

// --- why not done --------------------------------------------------------------------------

function noteBlocked(step, refusal) {
  state.blocked = { step, reason: refusal.reason, missing: refusal.missing_criteria || [] };
}

function renderExplain(explanation) {
  const panel = $("explain");
  if (explanation.status === "completed") {
    panel.replaceChildren(element("p", {}, "Every step is done."));
    return;
  }
  const title = stepTitle(explanation.current_step);
  const counts = element("p", {},
    `“${title}”: ${explanation.messages_in_step} message(s) so far, at least ` +
    `${explanation.min_messages} and at most ${explanation.max_messages}.`);
  const verdict = element("p", { "data-can-complete": String(explanation.can_complete) },
    explanation.can_complete
      ? "Everything is in place: the step closes as soon as the agent says so."
      : "Not done yet, because:");
  const criteria = element("ul", { class: "criteria" });
  for (const criterion of explanation.criteria) {
    const item = element("li", { class: criterion.met ? "met" : "unmet" },
      `${criterion.checker}: ${criterion.detail}`);
    item.append(element("span", { class: "visually-hidden" }, criterion.met ? " (met)" : " (not met)"));
    criteria.append(item);
  }
  panel.replaceChildren(counts, verdict, criteria);
  const blocked = state.blocked;
  if (blocked && blocked.step === explanation.current_step) {
    const box = element("div", { class: "blocked", id: "blocked" });
    box.append(element("p", {}, `The last try to move on was refused: ${blocked.reason}`));
    const missing = element("ul");
    blocked.missing.forEach((m) => missing.append(element("li", {}, m)));
    box.append(missing);
    panel.append(box);
  }
}

async function explainAgain() {
  if (!state.instance) return;
  const ticket = ask();
  try {
    const explanation = await api("GET", instancePath("/explain"));
    if (newest("explain", ticket)) renderExplain(explanation);
  } catch (error) {
    // A failure is news only while no newer answer is shown, and only for this workspace.
    if (current(ticket) && ticket >= (state.painted.explain ?? 0)) {
      showError(error, "Asking why the step is not done");
    }
  }
}

// --- event log -----------------------------------------------------------------------------

function addEvents(events) {
  const log = $("event-log");
  for (const event of events) {
    if (event.version <= state.lastVersion) continue;
    state.lastVersion = event.version;
    if (event.payload.forced) noteForced(event);
    const item = element("li", { "data-type": event.type, "data-version": String(event.version) });
    const at = new Date(event.recorded_at);
    item.append(element("span", { class: "version" }, `#${event.version}`));
    item.append(element("time", { datetime: event.recorded_at }, at.toLocaleTimeString()));
    item.append(document.createTextNode(`${event.type}${summary(event.payload)}`));
    log.append(item);
  }
  log.scrollTop = log.scrollHeight;
}

function summary(payload) {
  const forced = payload.forced ? " (forced)" : "";
  if (payload.previous_step && payload.current_step) {
    return ` ${payload.previous_step} → ${payload.current_step}${forced}`;
  }
  if (payload.final_step) return ` (${payload.final_step})${forced}`;
  if (payload.reason) return ` ${payload.reason}`;
  const step = payload.step || payload.current_step || payload.initial_step;
  return step ? ` (${step})` : "";
}

// --- live events ---------------------------------------------------------------------------

function connectLive() {
  closeLive();
  const params = new URLSearchParams({ instance_id: state.instance.instance_id });
  if (state.lastSeq !== null) params.set("last_seq", String(state.lastSeq));
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // The token travels as a subprotocol, so it stays out of URLs and access logs.
  const socket = new WebSocket(`${scheme}//${location.host}/ws?${params}`, ["bearer", state.token]);
  state.socket = socket;
  socket.onmessage = (message) => onFrame(JSON.parse(message.data));
  socket.onclose = (closed) => onClosed(socket, closed);
}

function closeLive() {
  clearTimeout(state.retryTimer);
  const socket = state.socket;
  state.socket = null;
  if (socket) socket.close(1000);
  setLive("off");
}

function setLive(mode) {
  const status = $("live-status");
  status.dataset.live = mode;
  status.textContent = `Live updates: ${mode}`;
}

function onClosed(socket, closed) {
  if (state.socket !== socket) return; // closed on purpose
  state.socket = null;
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
  const delay = Math.min(MAX_RETRY_MS, 500 * 2 ** state.retries++);
  state.retryTimer = setTimeout(() => state.instance && connectLive(), delay);
}

function onFrame(frame) {
  if (frame.type === "ready") {
    state.retries = 0;
    setLive("on");
    reload(); // whatever happened before this connection is read from the API
    return;
  }
  if (typeof frame.seq !== "number" || !state.instance) return; // pong, error, resync notices
  state.lastSeq = frame.seq;
  const event = frame.payload;
  if (event.instance_id !== state.instance.instance_id) return;
  if (frame.type === "workflow.step_changed") {
    state.painted.progress = ask(); // newer than any reload still on its way
    showStep(event.current_step, event.progress * 100, "active");
  } else if (frame.type === "workflow.completed") {
    state.painted.progress = ask();
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

// --- start ---------------------------------------------------------------------------------

async function boot() {
  $("dev-form").addEventListener("submit", signInWithName);
  $("token-form").addEventListener("submit", signInWithToken);
  $("sign-out").addEventListener("click", signOut);
  $("start-button").addEventListener("click", start);
  $("chat-form").addEventListener("submit", send);
  $("chat-text").addEventListener("keydown", sendOnEnter);
  $("explain-refresh").addEventListener("click", explainAgain);
  $("alert-close").addEventListener("click", dismissError);
  window.addEventListener("hashchange", tokenHandedOver);
  tokenFromFragment();
  try {
    const config = await api("GET", "/api/console/config");
    $("dev-form").hidden = !config.dev_sign_in;
  } catch (error) {
    showError(error, "Loading the console");
  }
  $("loading").hidden = true;
  state.token = sessionStorage.getItem(TOKEN_KEY);
  if (state.token) await enter();
  else showSignIn();
  document.body.dataset.ready = "true";
}

boot();
