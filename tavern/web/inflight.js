// Requests in flight, keyed by the session they belong to. A turn's answer is applied only to
// its own session, and only to the view it was sent from (same revision); the busy state and
// the disabled composer belong to the open session alone, so another session stays playable.

const running = new Map(); // token -> {sessionId, kind, stage, fraction, blocking}
const listeners = new Set();
let next = 1;

const NON_BLOCKING = new Set(["openings", "usage"]);

function changed(sessionId) {
  for (const listener of listeners) listener(sessionId);
}

/** Start tracking an operation; returns its token. */
export function begin(sessionId, kind) {
  const token = next++;
  running.set(token, { sessionId, kind, stage: null, fraction: null, blocking: !NON_BLOCKING.has(kind) });
  changed(sessionId);
  return token;
}

/** Record the stage an operation reached and the share of its work done, when it counts
 * its work (a compaction: done / total), for the busy text. */
export function progress(token, stage, fraction = null) {
  const op = running.get(token);
  if (!op) return;
  op.stage = stage;
  op.fraction = typeof fraction === "number" ? fraction : null;
  changed(op.sessionId);
}

/** Stop tracking an operation. */
export function end(token) {
  const op = running.get(token);
  if (!op) return;
  running.delete(token);
  changed(op.sessionId);
}

/** The latest blocking operation of a session still running, or null. */
export function busyWith(sessionId) {
  let found = null;
  for (const op of running.values()) {
    if (op.sessionId === sessionId && op.blocking) found = op;
  }
  return found;
}

/** Whether an operation of `kind` runs for the session. */
export function isRunning(sessionId, kind) {
  for (const op of running.values()) if (op.sessionId === sessionId && op.kind === kind) return true;
  return false;
}

/** Call `listener(sessionId)` whenever a session's operations change. */
export function onChange(listener) {
  listeners.add(listener);
}

/** Run `work(onProgress)` tracked under the session; resolves or rejects as it does. */
export async function track(sessionId, kind, work) {
  const token = begin(sessionId, kind);
  try {
    return await work((stage, fraction) => progress(token, stage, fraction));
  } finally {
    end(token);
  }
}
