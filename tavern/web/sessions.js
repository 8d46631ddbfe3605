// The landing page: the session list (search, sort, open, rename, fork, delete; whom you
// play and where a fork came from) and the new-session form.

import { api } from "./api.js";
import { number, t } from "./i18n.js";
import { describeError } from "./errors.js";

const $ = (id) => document.getElementById(id);
let scenarios = [];
let characters = new Map();
let sessions = [];
let handlers = null;

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

/** Load scenarios and characters into the new-session form (`chosen`: preselect one). */
export async function loadNewSessionForm(chosen = null) {
  const [sc, ch] = await Promise.all([api.scenarios(), api.characters()]);
  scenarios = sc.data;
  characters = new Map(ch.data.map((e) => [e.character.id, e.character]));
  const keep = chosen ?? $("new-scenario").value;
  $("new-scenario").replaceChildren(...scenarios.map((e) => option(e.scenario.id, e.scenario.title)));
  if (keep && scenarios.some((e) => e.scenario.id === keep)) $("new-scenario").value = keep;
  fillControlled();
}

const shownName = (s) => s.name || s.title;

function sorted(list) {
  const how = $("session-sort").value;
  const copy = [...list];
  if (how === "title") copy.sort((a, b) => shownName(a).localeCompare(shownName(b)));
  else if (how === "turns") copy.sort((a, b) => b.turn_number - a.turn_number);
  return copy; // the server lists the most recently played first
}

function matches(summary, words) {
  const hay = [summary.name, summary.title, summary.scenario_id, summary.controlled_name]
    .filter(Boolean)
    .join(" ")
    .toLocaleLowerCase();
  return words.every((w) => hay.includes(w));
}

function guarded(work) {
  return async () => {
    try {
      await work();
    } catch (error) {
      handlers.onError(error);
    }
  };
}

function actionButton(key, testid, handler) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = t(key);
  b.setAttribute("data-testid", testid);
  b.addEventListener("click", guarded(handler));
  return b;
}

function renameForm(summary, row) {
  const form = document.createElement("form");
  form.className = "rename";
  const input = document.createElement("input");
  input.value = summary.name ?? "";
  input.placeholder = summary.title;
  input.maxLength = 120;
  input.setAttribute("aria-label", t("sessions.name"));
  input.setAttribute("data-testid", "session-name");
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = t("landing.rename_save");
  save.setAttribute("data-testid", "session-name-save");
  form.append(input, save);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(async () => {
      await api.rename(summary.id, input.value);
      await renderSessions();
    })();
  });
  row.querySelector(".title").replaceWith(form);
  input.focus();
}

function sessionRow(summary) {
  const li = document.createElement("li");
  li.setAttribute("data-testid", "session-row");
  li.dataset.id = summary.id;
  const head = document.createElement("div");
  head.className = "title";
  const name = document.createElement("strong");
  name.setAttribute("data-testid", "session-title");
  name.textContent = shownName(summary);
  const facts = document.createElement("span");
  facts.className = "muted small";
  const parts = [`${t("landing.turn")} ${number(summary.turn_number)}`];
  if (summary.name) parts.unshift(summary.title);
  if (summary.controlled_name) parts.push(t("sessions.you_play", { name: summary.controlled_name }));
  parts.push(new Date(summary.updated_at).toLocaleString());
  facts.textContent = parts.join(" · ");
  head.append(name, facts);
  if (summary.forked_from) {
    const source = sessions.find((s) => s.id === summary.forked_from);
    const mark = document.createElement("span");
    mark.className = "fork-mark small";
    mark.setAttribute("data-testid", "fork-mark");
    mark.textContent = source
      ? t("sessions.forked", { turn: summary.forked_at_turn, title: shownName(source) })
      : t("sessions.forked_gone", { turn: summary.forked_at_turn });
    head.append(mark);
  }
  li.append(
    head,
    actionButton("landing.load", "session-open", async () => handlers.onOpen(summary.id)),
    actionButton("landing.rename", "session-rename", async () => renameForm(summary, li)),
    actionButton("landing.fork", "session-fork", async () => {
      const forked = await api.fork(summary.id);
      handlers.onOpen(forked.id);
    }),
    actionButton("landing.delete", "session-delete", async () => {
      if (!window.confirm(t("landing.confirm_delete"))) return;
      await api.deleteSession(summary.id);
      await renderSessions();
    }),
  );
  return li;
}

function drawList() {
  const words = $("session-search").value.trim().toLocaleLowerCase().split(/\s+/).filter(Boolean);
  const shown = sorted(sessions).filter((s) => matches(s, words));
  $("sessions-empty").hidden = sessions.length > 0;
  $("sessions-none").hidden = sessions.length === 0 || shown.length > 0;
  $("session-list").replaceChildren(...shown.map(sessionRow));
}

/** Refresh the session list from the server. */
export async function renderSessions() {
  sessions = (await api.sessions()).data;
  drawList();
}

/** Wire the landing; `onOpen(id)` opens a session, `onError(error)` reports a failure. */
export function wireLanding({ onOpen, onError }) {
  handlers = { onOpen, onError: (error) => onError(describeError(error)) };
  $("new-scenario").addEventListener("change", fillControlled);
  $("session-search").addEventListener("input", drawList);
  $("session-sort").addEventListener("change", drawList);
  $("new-start").addEventListener("click", async () => {
    $("new-start").disabled = true;
    try {
      const created = await api.createSession($("new-scenario").value, $("new-controlled").value);
      onOpen(created.id);
    } catch (error) {
      handlers.onError(error);
    } finally {
      $("new-start").disabled = false;
    }
  });
}
