// Entry point: routing between the landing, play and editor views, language, errors.

import { applyLanguage, t } from "./i18n.js";
import { describeError } from "./errors.js";
import { toast } from "./notify.js";
import { wireComposer } from "./composer.js";
import { leavePlay, openPlay, relabelPlay, sendTurn, suggest, undo, wirePlay } from "./play.js";
import { loadNewSessionForm, renderSessions, wireLanding } from "./sessions.js";
import { loadConfig, wireSetup } from "./setup.js";
import { wireDebug } from "./debug-drawer.js";
import { loadEditors, wireEditors } from "./editors.js";
import { relabelTheme, wireTheme } from "./theme.js";

const $ = (id) => document.getElementById(id);

/** Report a failure: an error (worded by errors.js) or a sentence already in words. */
const report = (problem) => toast(typeof problem === "string" ? problem : describeError(problem));

function show(name) {
  for (const v of ["landing", "play", "editors"]) $(`view-${v}`).hidden = v !== name;
}

async function openLanding() {
  leavePlay();
  show("landing");
  await Promise.all([loadNewSessionForm(), renderSessions()]);
}

async function route() {
  const hash = location.hash || "#/";
  try {
    if (hash.startsWith("#/play/")) {
      show("play");
      await openPlay(decodeURIComponent(hash.slice(7)));
    } else if (hash === "#/editors") {
      leavePlay();
      show("editors");
      await loadEditors();
    } else await openLanding();
  } catch (error) {
    report(error);
  }
}

function openSession(id) {
  if (location.hash === `#/play/${id}`) route();
  else location.hash = `#/play/${id}`;
}

function applyConfigLanguage(config) {
  applyLanguage(config.language);
  relabelTheme();
  relabelPlay();
}

async function start() {
  wireComposer({ onSend: sendTurn, onUndo: undo, onSuggest: suggest, onEmpty: (m) => toast(m) });
  wirePlay();
  wireLanding({ onOpen: openSession, onError: report });
  wireSetup(applyConfigLanguage, report);
  wireDebug(report);
  wireEditors({ onError: report, onSaved: (m) => toast(m, { error: false }), onPlay: openSession });
  wireTheme();
  window.addEventListener("hashchange", route);
  try {
    applyLanguage((await loadConfig()).language);
    relabelTheme();
  } catch (error) {
    report(error);
  }
  await route();
  document.body.dataset.ready = "true";
}

start();
