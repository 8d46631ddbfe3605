// The one place that talks to the server. The access token lives in this module's memory
// only: never in localStorage, sessionStorage or a cookie (credentials stay off the disk).

let token = null;

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail || `HTTP ${status}`);
    this.status = status;
  }
}

async function ensureToken() {
  if (token === null) {
    const response = await fetch("/bootstrap", { credentials: "same-origin" });
    if (!response.ok) throw new ApiError(response.status, "cannot start: bootstrap refused");
    token = (await response.json()).access_token;
  }
  return token;
}

async function errorFrom(response) {
  let detail = response.statusText;
  try {
    const body = await response.json();
    detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
  } catch (_) { /* not JSON */ }
  return new ApiError(response.status, detail);
}

async function send(method, path, body, accept) {
  const headers = { Accept: accept };
  if (method !== "GET") headers["X-Tavern-Token"] = await ensureToken();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
}

/** JSON request; resolves to the parsed body or throws ApiError. */
export async function request(method, path, body) {
  const response = await send(method, path, body, "application/json");
  if (!response.ok) throw await errorFrom(response);
  return response.json();
}

/**
 * A long operation over SSE: calls onProgress(stage, fraction) for each progress event and
 * resolves to the result event's body (or throws the error event as ApiError).
 */
export async function stream(path, body, onProgress) {
  const response = await send("POST", path, body, "text/event-stream");
  if (!response.ok) throw await errorFrom(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null");
      if (event === "progress") onProgress?.(data.stage, data.fraction);
      else if (event === "result") return data;
      else if (event === "error") throw new ApiError(data.status, data.detail);
    }
    if (done) throw new ApiError(0, "the stream ended without a result");
  }
}

export const api = {
  config: () => request("GET", "/config"),
  saveConfig: (update) => request("PUT", "/config", update),
  scenarios: () => request("GET", "/scenarios"),
  scenario: (id) => request("GET", `/scenarios/${encodeURIComponent(id)}`),
  saveScenario: (s) => request("PUT", `/scenarios/${encodeURIComponent(s.id)}`, s),
  deleteScenario: (id) => request("DELETE", `/scenarios/${encodeURIComponent(id)}`),
  characters: () => request("GET", "/characters"),
  saveCharacter: (c) => request("PUT", `/characters/${encodeURIComponent(c.id)}`, c),
  deleteCharacter: (id) => request("DELETE", `/characters/${encodeURIComponent(id)}`),
  sessions: () => request("GET", "/sessions"),
  createSession: (scenarioId, controlled) =>
    request("POST", "/sessions", { scenario_id: scenarioId, controlled_character_id: controlled || null }),
  session: (id) => request("GET", `/sessions/${encodeURIComponent(id)}`),
  fork: (id) => request("POST", `/sessions/${encodeURIComponent(id)}/fork`),
  deleteSession: (id) => request("DELETE", `/sessions/${encodeURIComponent(id)}`),
  turn: (id, input, onProgress) => stream(`/sessions/${encodeURIComponent(id)}/turns`, input, onProgress),
  undo: (id) => request("POST", `/sessions/${encodeURIComponent(id)}/undo`),
  suggestions: (id, onProgress) => stream(`/sessions/${encodeURIComponent(id)}/suggestions`, undefined, onProgress),
  openings: (id, onProgress) => stream(`/sessions/${encodeURIComponent(id)}/openings`, undefined, onProgress),
  promptPreview: (id) => request("GET", `/sessions/${encodeURIComponent(id)}/prompt-preview`),
  journal: (id, after, limit = 50) =>
    request("GET", `/sessions/${encodeURIComponent(id)}/journal?after=${after}&limit=${limit}`),
};
