// The debug drawer: the next Director prompt (built without a model call) and the journal.
// Both show every character's secrets and thoughts, so nothing is fetched until the player
// opts in, per session, after a plain warning (the choice lasts for this page only).

import { api } from "./api.js";
import { t } from "./i18n.js";
import { describeError } from "./errors.js";

const $ = (id) => document.getElementById(id);
let sessionId = null;
let tab = "prompt";
let journalAfter = -1;
const optedIn = new Set();

function pre(text) {
  const p = document.createElement("pre");
  p.textContent = text;
  return p;
}

async function showPrompt() {
  const { messages } = await api.promptPreview(sessionId);
  $("debug-body").replaceChildren(
    ...messages.flatMap((m) => {
      const role = document.createElement("div");
      role.className = "role";
      role.textContent = m.role;
      return [role, pre(m.content)];
    }),
  );
  $("debug-more").hidden = true;
}

async function showJournal(append) {
  if (!append) {
    journalAfter = -1;
    $("debug-body").replaceChildren();
  }
  const page = await api.journal(sessionId, journalAfter);
  for (const [i, line] of page.data.entries()) {
    const head = document.createElement("div");
    head.className = "role";
    head.setAttribute("data-testid", "journal-line");
    head.textContent = `#${page.indexes[i]} ${line.kind} · turn ${line.turn_number}${line.agent ? ` · ${line.agent}` : ""}`;
    $("debug-body").append(head, pre(JSON.stringify(line, null, 2)));
  }
  if (page.count) journalAfter = page.indexes[page.indexes.length - 1];
  if (!$("debug-body").childElementCount) $("debug-body").append(pre(t("debug.empty")));
  $("debug-more").hidden = page.next_after === null;
}

function render() {
  const allowed = optedIn.has(sessionId);
  $("debug-gate").hidden = allowed;
  $("debug-tabs").hidden = !allowed;
  if (!allowed) {
    $("debug-body").replaceChildren();
    $("debug-more").hidden = true;
    return Promise.resolve();
  }
  $("debug-tab-prompt").classList.toggle("active", tab === "prompt");
  $("debug-tab-journal").classList.toggle("active", tab === "journal");
  return tab === "prompt" ? showPrompt() : showJournal(false);
}

/** Point the drawer at a session (or none) and refresh it if open. */
export function setDebugSession(id) {
  sessionId = id;
  $("debug-toggle").hidden = id === null;
  if (id === null) $("debug-drawer").hidden = true;
  else if (!$("debug-drawer").hidden) render().catch(() => {});
}

export function wireDebug(onError) {
  const guard = (fn) => () => fn().catch((error) => onError(describeError(error)));
  const close = () => {
    $("debug-drawer").hidden = true;
    $("debug-toggle").focus();
  };
  $("debug-toggle").addEventListener("click", guard(async () => {
    $("debug-drawer").hidden = !$("debug-drawer").hidden;
    if (!$("debug-drawer").hidden) await render();
  }));
  $("debug-optin").addEventListener("click", guard(async () => {
    optedIn.add(sessionId);
    await render();
  }));
  $("debug-close").addEventListener("click", close);
  $("debug-drawer").addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  $("debug-tab-prompt").addEventListener("click", guard(() => { tab = "prompt"; return render(); }));
  $("debug-tab-journal").addEventListener("click", guard(() => { tab = "journal"; return render(); }));
  $("debug-more").addEventListener("click", guard(() => showJournal(true)));
}
