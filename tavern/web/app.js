// Entry point: routing between the landing, play and editor views, busy state, errors.

import { api } from "./api.js";
import { applyLanguage, t } from "./i18n.js";
import { appendRecords, renderTranscript } from "./transcript.js";
import {
  clearComposer, fillPickers, setComposerBusy, showChips, wireComposer,
} from "./composer.js";
import { loadNewSessionForm, renderSessions, wireLanding } from "./sessions.js";
import { loadConfig, wireSetup } from "./setup.js";
import { setDebugSession, wireDebug } from "./debug-drawer.js";
import { loadEditors, wireEditors } from "./editors.js";

const $ = (id) => document.getElementById(id);
let view = null; // the open session's SessionView

function toast(message, isError = true) {
  const el = $("toast");
  el.textContent = message;
  el.classList.toggle("ok", !isError);
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 5000);
}
const onError = (error) => toast(error.message ?? String(error));

function setBusy(busy, stage) {
  $("busy").hidden = !busy;
  document.body.classList.toggle("busy-state", busy);
  const key = stage ? `stage.${stage.split(":")[0]}` : "busy.working";
  $("busy-text").textContent = t(key) === key ? t("busy.working") : t(key);
  setComposerBusy(busy);
}

async function busyWhile(work) {
  setBusy(true);
  try {
    return await work((stage) => setBusy(true, stage));
  } catch (error) {
    onError(error);
    return null;
  } finally {
    setBusy(false);
  }
}

function show(name) {
  for (const v of ["landing", "play", "editors"]) $(`view-${v}`).hidden = v !== name;
}

function whoseTurn(slot) {
  const member = view.cast.find((c) => c.slot === slot);
  $("play-whose").textContent = !member ? slot ?? "—" : member.controlled ? `${member.name} (${t("play.you")})` : member.name;
}

function renderPlay() {
  $("play-title").textContent = view.title;
  $("play-location").textContent = `${view.scene.location}${view.scene.description ? ` — ${view.scene.description}` : ""}`;
  $("play-cast").replaceChildren(
    ...view.cast.map((c) => {
      const li = document.createElement("li");
      li.className = c.controlled ? "me" : "";
      li.textContent = c.controlled ? `${c.name} (${t("play.you")})` : c.name;
      li.title = c.appearance;
      return li;
    }),
  );
  fillPickers(view);
  renderTranscript($("transcript"), view.transcript, view);
  whoseTurn(view.whose_turn);
  $("suggestions").hidden = true;
  $("openings").hidden = true;
  if (view.turn_number === 0) loadOpenings();
}

async function loadOpenings() {
  const result = await busyWhile((progress) => api.openings(view.id, progress));
  if (result) showChips($("openings"), result.data.map((speech) => ({ speech })), (item) => item);
}

async function openSession(id) {
  if (location.hash !== `#/play/${id}`) {
    location.hash = `#/play/${id}`;
    return;
  }
  view = await api.session(id);
  show("play");
  setDebugSession(id);
  renderPlay();
}

async function openLanding() {
  view = null;
  setDebugSession(null);
  show("landing");
  await Promise.all([loadNewSessionForm(), renderSessions({ onOpen: openSession })]);
}

async function route() {
  const hash = location.hash || "#/";
  try {
    if (hash.startsWith("#/play/")) await openSession(decodeURIComponent(hash.slice(7)));
    else if (hash === "#/editors") {
      setDebugSession(null);
      show("editors");
      await loadEditors();
    } else await openLanding();
  } catch (error) {
    onError(error);
  }
}

async function sendTurn(input) {
  $("openings").hidden = true;
  $("suggestions").hidden = true;
  const result = await busyWhile((progress) => api.turn(view.id, input, progress));
  if (!result) return;
  clearComposer();
  appendRecords($("transcript"), result.records, view);
  view.turn_number = result.turn_number;
  // With no named next speaker the floor is the player's: act, or Skip to let others move.
  whoseTurn(result.next_speaker ?? view.controlled_id);
  setDebugSession(view.id);
}

async function undo() {
  const restored = await busyWhile(() => api.undo(view.id));
  if (!restored) return;
  view = restored;
  renderPlay();
  setDebugSession(view.id);
}

async function suggest() {
  const result = await busyWhile((progress) => api.suggestions(view.id, progress));
  if (result) showChips($("suggestions"), result.data, (item) => item);
}

function applyConfigLanguage(config) {
  applyLanguage(config.language);
  if (view) renderPlay();
}

async function start() {
  wireComposer({ onSend: sendTurn, onUndo: undo, onSuggest: suggest, onEmpty: (m) => toast(m) });
  wireLanding((created) => openSession(created.id), onError);
  wireSetup(applyConfigLanguage);
  wireDebug(onError);
  wireEditors({ onError, onSaved: (m) => toast(m, false) });
  window.addEventListener("hashchange", route);
  try {
    applyLanguage((await loadConfig()).language);
  } catch (error) {
    onError(error);
  }
  await route();
  document.body.dataset.ready = "true";
}

start();
