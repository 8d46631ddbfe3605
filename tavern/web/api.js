// The one place that talks to the server. The access token lives in this module's memory
// only: never in localStorage, sessionStorage or a cookie (credentials stay off the disk).

let token = null;

export class ApiError extends Error {
  /** `errors`: the server's per-field validation items (`loc`, `type`, `limit`), if any. */
  constructor(status, detail, errors = []) {
    super(detail || `HTTP ${status}`);
    this.status = status;
    this.detail = detail;
    this.errors = errors;
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
  let errors = [];
  try {
    const body = await response.json();
    detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    if (Array.isArray(body.errors)) errors = body.errors;
  } catch (_) { /* not JSON */ }
  return new ApiError(response.status, detail, errors);
}

async function send(method, path, body, accept, contentType = "application/json") {
  const headers = { Accept: accept };
  if (method !== "GET") headers["X-Tavern-Token"] = await ensureToken();
  if (body !== undefined) headers["Content-Type"] = contentType;
  let payload = body;
  // A file goes as it is, whatever its type (a JSON character card is a file, not a body to encode).
  if (body !== undefined && contentType === "application/json" && !(body instanceof Blob)) payload = JSON.stringify(body);
  try {
    return await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  } catch (_) {
    throw new ApiError(0, "network");
  }
}

/** JSON request; resolves to the parsed body or throws ApiError. */
export async function request(method, path, body, contentType) {
  const response = await send(method, path, body, "application/json", contentType);
  if (!response.ok) throw await errorFrom(response);
  return response.json();
}

/**
 * A long operation over SSE: calls onProgress(stage, fraction) for each progress event (the
 * fraction only when the event counts its work, `done` of `total`, as a compaction does),
 * onLine(records, partial) for each line event (a turn's records once final, before its
 * result) and each partial event (a narration's sentences so far, replacing the last), and
 * resolves to the result event's body (or throws the error event as ApiError).
 */
export async function stream(path, body, onProgress, onLine) {
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
      if (event === "progress") onProgress?.(data.stage, typeof data.total === "number" ? data.fraction : null);
      else if (event === "line") onLine?.(data.records, false);
      else if (event === "partial") onLine?.(data.records, true);
      else if (event === "result") return data;
      else if (event === "error") throw new ApiError(data.status, data.detail);
    }
    if (done) throw new ApiError(0, "the stream ended without a result");
  }
}

const e = encodeURIComponent;
const rev = (revision) => (revision === undefined || revision === null ? "" : `?revision=${revision}`);

export const api = {
  config: () => request("GET", "/config"),
  saveConfig: (update) => request("PUT", "/config", update),
  scenarios: () => request("GET", "/scenarios"),
  scenario: (id) => request("GET", `/scenarios/${e(id)}`),
  saveScenario: (s) => request("PUT", `/scenarios/${e(s.id)}`, s),
  deleteScenario: (id) => request("DELETE", `/scenarios/${e(id)}`),
  characters: () => request("GET", "/characters"),
  saveCharacter: (c) => request("PUT", `/characters/${e(c.id)}`, c),
  deleteCharacter: (id) => request("DELETE", `/characters/${e(id)}`),
  importCard: (file) => request("POST", "/characters/import", file, file.type || "application/octet-stream"),
  saveAvatar: (id, file) => request("PUT", `/characters/${e(id)}/avatar`, file, file.type || "application/octet-stream"),
  deleteAvatar: (id) => request("DELETE", `/characters/${e(id)}/avatar`),
  avatarUrl: (id) => `/characters/${e(id)}/avatar`,
  exportUrl: (kind, id) => `/${kind}/${e(id)}/export`,
  sessions: () => request("GET", "/sessions"),
  createSession: (scenarioId, controlled) =>
    request("POST", "/sessions", { scenario_id: scenarioId, controlled_character_id: controlled || null }),
  session: (id) => request("GET", `/sessions/${e(id)}`),
  rename: (id, name) => request("PATCH", `/sessions/${e(id)}`, { name }),
  transcript: (id, before, turns = 20) =>
    request("GET", `/sessions/${e(id)}/transcript?turns=${turns}${before === null || before === undefined ? "" : `&before=${before}`}`),
  usage: (id) => request("GET", `/sessions/${e(id)}/usage`),
  fork: (id, turn) => request("POST", `/sessions/${e(id)}/fork${turn === undefined ? "" : `?turn=${turn}`}`),
  deleteSession: (id) => request("DELETE", `/sessions/${e(id)}`),
  turn: (id, input, revision, onProgress, onLine) =>
    stream(`/sessions/${e(id)}/turns${rev(revision)}`, input, onProgress, onLine),
  undo: (id, revision) => request("POST", `/sessions/${e(id)}/undo${rev(revision)}`),
  compact: (id, revision, onProgress, retentionTurns) =>
    stream(`/sessions/${e(id)}/compact${rev(revision)}`, retentionTurns ? { retention_turns: retentionTurns } : {}, onProgress),
  setCompaction: (id, settings, revision) => request("PUT", `/sessions/${e(id)}/compaction${rev(revision)}`, settings),
  restore: (id, revision) => request("POST", `/sessions/${e(id)}/restore${rev(revision)}`, {}),
  rerun: (id, input, revision, onProgress, onLine) =>
    stream(`/sessions/${e(id)}/rerun${rev(revision)}`, input ? { input } : {}, onProgress, onLine),
  variants: (id) => request("GET", `/sessions/${e(id)}/variants`),
  flip: (id, variant, revision) => request("POST", `/sessions/${e(id)}/variants/${variant}${rev(revision)}`),
  suggestions: (id, onProgress) => stream(`/sessions/${e(id)}/suggestions`, undefined, onProgress),
  openings: (id, onProgress) => stream(`/sessions/${e(id)}/openings`, undefined, onProgress),
  promptPreview: (id) => request("GET", `/sessions/${e(id)}/prompt-preview`),
  journal: (id, after, limit = 50) =>
    request("GET", `/sessions/${e(id)}/journal?after=${after}&limit=${limit}`),
};
