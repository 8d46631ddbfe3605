// The debug drawer: the next Director prompt (built without a model call) and the journal.

import { api } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let sessionId = null;
let tab = "prompt";
let journalAfter = -1;

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
  $("debug-tab-prompt").classList.toggle("active", tab === "prompt");
  $("debug-tab-journal").classList.toggle("active", tab === "journal");
  return tab === "prompt" ? showPrompt() : showJournal(false);
}

/** Point the drawer at a session (or none) and refresh it if open. */
export function setDebugSession(id) {
  sessionId = id;
  $("debug-toggle").hidden = id === null;
  if (id === null) $("debug-drawer").hidden = true;
  else if (!$("debug-drawer").hidden) render();
}

export function wireDebug(onError) {
  const guard = (fn) => () => fn().catch(onError);
  $("debug-toggle").addEventListener("click", guard(async () => {
    $("debug-drawer").hidden = !$("debug-drawer").hidden;
    if (!$("debug-drawer").hidden) await render();
  }));
  $("debug-close").addEventListener("click", () => { $("debug-drawer").hidden = true; });
  $("debug-tab-prompt").addEventListener("click", guard(() => { tab = "prompt"; return render(); }));
  $("debug-tab-journal").addEventListener("click", guard(() => { tab = "journal"; return render(); }));
  $("debug-more").addEventListener("click", guard(() => showJournal(true)));
}
