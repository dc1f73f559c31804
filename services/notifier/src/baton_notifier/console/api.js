// The gateway's HTTP API: a request with the bearer token, and its error body as an ApiError.

import { state } from "./state.js";

export class ApiError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

// `token`: the one to send, when not the tab's (a link's, checked before it is offered).
export async function api(method, path, body, token = state.token) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
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

export function instancePath(suffix = "") {
  return `/api/workflows/${encodeURIComponent(state.instance.instance_id)}${suffix}`;
}
