// The landing page: the session list (open, fork, delete) and the new-session form.

import { api } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let scenarios = [];
let characters = new Map();

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

function fillControlled() {
  const entry = scenarios.find((e) => e.scenario.id === $("new-scenario").value);
  if (!entry) return;
  const s = entry.scenario;
  $("new-scenario-world").textContent = s.world;
  $("new-controlled").replaceChildren(
    ...Object.entries(s.cast).map(([slot, cid]) => {
      const o = option(cid, characters.get(cid)?.body.display_name ?? cid);
      o.selected = slot === s.default_controlled_slot;
      return o;
    }),
  );
}

/** Load scenarios and characters into the new-session form. */
export async function loadNewSessionForm() {
  const [sc, ch] = await Promise.all([api.scenarios(), api.characters()]);
  scenarios = sc.data;
  characters = new Map(ch.data.map((e) => [e.character.id, e.character]));
  const chosen = $("new-scenario").value;
  $("new-scenario").replaceChildren(...scenarios.map((e) => option(e.scenario.id, e.scenario.title)));
  if (chosen) $("new-scenario").value = chosen;
  fillControlled();
}

function sessionRow(summary, { onOpen, onChange }) {
  const li = document.createElement("li");
  li.setAttribute("data-testid", "session-row");
  li.dataset.id = summary.id;
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = `${summary.title} · ${t("landing.turn")} ${summary.turn_number}`;
  const when = document.createElement("span");
  when.className = "muted";
  when.textContent = new Date(summary.updated_at).toLocaleString();
  const button = (key, testid, handler) => {
    const b = document.createElement("button");
    b.textContent = t(key);
    b.setAttribute("data-testid", testid);
    b.addEventListener("click", handler);
    return b;
  };
  li.append(
    title,
    when,
    button("landing.load", "session-open", () => onOpen(summary.id)),
    button("landing.fork", "session-fork", async () => {
      const forked = await api.fork(summary.id);
      await onChange();
      onOpen(forked.id);
    }),
    button("landing.delete", "session-delete", async () => {
      if (!window.confirm(t("landing.confirm_delete"))) return;
      await api.deleteSession(summary.id);
      await onChange();
    }),
  );
  return li;
}

/** Refresh the session list. */
export async function renderSessions(handlers) {
  const { data } = await api.sessions();
  $("sessions-empty").hidden = data.length > 0;
  const refresh = () => renderSessions(handlers);
  $("session-list").replaceChildren(...data.map((s) => sessionRow(s, { ...handlers, onChange: refresh })));
}

/** Wire the new-session form; `onCreated(view)` opens the new session. */
export function wireLanding(onCreated, onError) {
  $("new-scenario").addEventListener("change", fillControlled);
  $("new-start").addEventListener("click", async () => {
    $("new-start").disabled = true;
    try {
      onCreated(await api.createSession($("new-scenario").value, $("new-controlled").value));
    } catch (error) {
      onError(error);
    } finally {
      $("new-start").disabled = false;
    }
  });
}
