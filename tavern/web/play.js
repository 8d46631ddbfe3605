// The play view: one open session at a time. Every request carries the session it belongs to
// and the revision it was made from; an answer is drawn only into that session, and only if
// the view still shows that revision (otherwise the session is reloaded, or, when another
// session is open, the player is told the turn is ready).

import { api } from "./api.js";
import { t } from "./i18n.js";
import { describeError, isStale } from "./errors.js";
import { toast } from "./notify.js";
import * as inflight from "./inflight.js";
import { renderCast, zoneLabel } from "./cast.js";
import { appendLines, appendTurn, dropStreamed, renderPage, replaceTurn, separatorOf } from "./transcript.js";
import { refreshUsage } from "./usage.js";
import {
  clearComposer, draft, editingTurn, fillComposer, fillHint, fillPickers, focusComposer,
  setComposerBusy, setEditing, showChips, writeComposer,
} from "./composer.js";
import { setDebugSession } from "./debug-drawer.js";

const $ = (id) => document.getElementById(id);
let current = null; // {view, nextBefore, variants, pictures}
let generation = 0;
const drafts = new Map(); // session id -> what was typed there

const isOpen = (sessionId) => current !== null && current.view.id === sessionId;
const hooks = { decorate, onCopy: copy };

function title(view) {
  return view.title;
}

function renderBusy() {
  const op = current ? inflight.busyWith(current.view.id) : null;
  $("busy").hidden = !op;
  document.body.classList.toggle("busy-state", Boolean(op));
  $("busy-text").textContent = stageText(op?.stage);
  // Work that counts itself (a compaction) shows its share done as a percentage.
  const percent = $("busy-percent");
  percent.hidden = typeof op?.fraction !== "number";
  percent.textContent = percent.hidden ? "" : `${Math.round(op.fraction * 100)}%`;
  setComposerBusy(Boolean(op));
}

/** The busy line for a stage: per actor for a Character call (`character:<slot>`). */
function stageText(stage) {
  if (!stage) return t("busy.working");
  const [head, slot] = stage.split(":");
  const member = slot && current?.view.cast.find((c) => c.slot === slot);
  if (head === "character" && member) return t("stage.answering", { name: member.name });
  const key = `stage.${head}`;
  return t(key) === key ? t("busy.working") : t(key);
}

inflight.onChange((sessionId) => {
  if (isOpen(sessionId) || !current) renderBusy();
});

function whoseTurn(slot) {
  const member = current.view.cast.find((c) => c.slot === slot);
  $("play-whose").textContent = !member ? slot ?? "—" : member.controlled ? `${member.name} (${t("play.you")})` : member.name;
}

function renderScene() {
  const { view } = current;
  $("view-play").dataset.session = view.id;
  $("play-title").textContent = title(view);
  $("play-location").textContent = `${view.scene.location}${view.scene.description ? ` — ${view.scene.description}` : ""}`;
  renderCast($("play-cast"), view, current.pictures);
  fillPickers(view);
  whoseTurn(view.whose_turn);
  $("compaction-auto").checked = view.compaction.auto;
  $("compaction-retention").value = String(view.compaction.retention_turns);
}

/** Save the session's compaction settings (automatic on or off, turns kept in full); the
 * other settings (threshold, context) go back as the session has them. */
async function saveCompaction() {
  if (!current) return;
  const sessionId = current.view.id;
  const sentAt = sentFrom();
  const settings = {
    ...current.view.compaction,
    auto: $("compaction-auto").checked,
    retention_turns: Number($("compaction-retention").value),
  };
  try {
    const view = await inflight.track(sessionId, "settings", () => api.setCompaction(sessionId, settings, sentAt.revision));
    if (isOpen(sessionId)) {
      current.view = { ...current.view, revision: view.revision, compaction: view.compaction };
      renderScene();
    }
    toast(t("compaction.saved"), { error: false });
  } catch (error) {
    failed(sessionId, sentAt.title, error);
  }
}

function button(key, testid, handler, { label = false } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "small";
  b.setAttribute("data-testid", testid);
  if (label) {
    b.setAttribute("aria-label", t(key));
    b.title = t(key);
  } else b.textContent = t(key);
  b.addEventListener("click", handler);
  return b;
}

/** Give a separator its tools: fork from any turn; the last turn also regenerates, flips
 * between its versions and re-runs an edited input. */
function decorate(sep, mark) {
  const tools = sep.querySelector(".tools");
  tools.replaceChildren(button("turn.fork", "fork-here", () => forkAt(mark.turn_number)));
}

function refreshLastTools() {
  const list = $("transcript");
  for (const el of list.querySelectorAll(".last-tools")) el.remove();
  const last = current.view.turn_number;
  const sep = separatorOf(list, last);
  if (!sep || last === 0) return;
  const box = document.createElement("span");
  box.className = "last-tools";
  const variants = current.variants;
  const at = variants.findIndex((v) => v.committed);
  if (variants.length > 1) {
    const prev = button("turn.previous", "variant-prev", () => flipTo(variants[at - 1].variant), { label: true });
    prev.textContent = "‹";
    prev.disabled = at <= 0;
    const label = document.createElement("span");
    label.className = "variant-label";
    label.setAttribute("data-testid", "variant-label");
    label.textContent = t("turn.variant", { k: at + 1, n: variants.length });
    const next = button("turn.next", "variant-next", () => flipTo(variants[at + 1].variant), { label: true });
    next.textContent = "›";
    next.disabled = at >= variants.length - 1;
    box.append(prev, label, next);
  }
  box.append(button("turn.regenerate", "regenerate", () => rerun(null)));
  if (variants[at]?.input) box.append(button("turn.edit", "edit-last", () => editLast()));
  sep.querySelector(".tools").append(box);
}

async function loadVariants(sessionId) {
  try {
    const listed = await api.variants(sessionId);
    if (isOpen(sessionId) && listed.turn_number === current.view.turn_number) {
      current.variants = listed.data;
      refreshLastTools();
    }
  } catch (_) { /* the tools stay as they were */ }
}

function usage() {
  if (current) refreshUsage(current.view.id, $("transcript"), $("session-usage"), isOpen);
}

async function loadPictures() {
  try {
    const { data } = await api.characters();
    return new Set(data.filter((e) => e.avatar).map((e) => e.character.id));
  } catch (_) {
    return new Set();
  }
}

/** Open a session: its view, the latest page of its transcript, its tools and footers. */
export async function openPlay(id) {
  const mine = ++generation;
  if (current && current.view.id !== id) drafts.set(current.view.id, draft());
  // Nothing can be sent until the session is on screen: the composer waits with the page.
  $("busy").hidden = false;
  setComposerBusy(true);
  let view, page, pictures;
  try {
    [view, page, pictures] = await Promise.all([api.session(id), api.transcript(id), loadPictures()]);
  } finally {
    if (mine === generation) renderBusy();
  }
  if (mine !== generation) return; // the player went elsewhere meanwhile
  current = { view, nextBefore: page.next_before, variants: [], pictures };
  // On a narrow screen the scene folds away so the story and the composer fit.
  $("scene-panel").open = !window.matchMedia("(max-width: 800px)").matches;
  setEditing(null);
  renderScene();
  renderPage($("transcript"), page, view, hooks);
  $("load-earlier").hidden = page.next_before === null;
  writeComposer(drafts.get(id) ?? {});
  $("suggestions").hidden = true;
  $("openings").hidden = true;
  renderBusy();
  setDebugSession(id);
  focusComposer();
  if (view.turn_number === 0) loadOpenings(id);
  else loadVariants(id);
  usage();
}

/** The play view is left (landing or editors): no session is open any more. */
export function leavePlay() {
  if (current) drafts.set(current.view.id, draft());
  generation++;
  current = null;
  renderBusy();
  setDebugSession(null);
}

async function reload(sessionId, message) {
  if (message) toast(message);
  if (isOpen(sessionId)) await openPlay(sessionId);
}

/** What happened to a request of `sessionId`: told in its own view, or named by session. */
function failed(sessionId, sessionTitle, error) {
  if (isStale(error)) {
    reload(sessionId, t("error.stale"));
    return;
  }
  const message = describeError(error);
  toast(isOpen(sessionId) ? message : t("play.turn_failed", { title: sessionTitle, message }));
}

async function loadOpenings(sessionId) {
  if (inflight.isRunning(sessionId, "openings")) return;
  $("openings-status").hidden = false;
  try {
    const result = await inflight.track(sessionId, "openings", (progress) => api.openings(sessionId, progress));
    if (!isOpen(sessionId) || current.view.turn_number !== 0) return;
    showChips($("openings"), result.data, (spark) => spark, fillHint);
  } catch (error) {
    if (isOpen(sessionId)) toast(describeError(error));
  } finally {
    if (isOpen(sessionId)) $("openings-status").hidden = true;
  }
}

function quietNote(input, records) {
  if (records.length || !input?.force_speaker) return "";
  const forced = current.view.cast.find((c) => c.slot === input.force_speaker);
  if (!forced || forced.you_hear) return "";
  return t("quiet.out_of_earshot", { name: forced.name, zone: forced.zone ? zoneLabel(current.view, forced.zone) : "—" });
}

/** Apply a committed turn to the open view, if the answer belongs to it. */
function landed(sessionId, sentAt, result, { replace = false, input = null } = {}) {
  if (!isOpen(sessionId)) {
    toast(t("play.turn_ready", { title: sentAt.title, turn: result.turn_number }), { error: false });
    return false;
  }
  const { view } = current;
  dropStreamed($("transcript")); // the committed turn replaces the lines drawn as it ran
  if (view.revision === result.revision) return false; // already shown (reloaded meanwhile)
  if (view.revision !== sentAt.revision) {
    reload(sessionId);
    return false;
  }
  const mark = { turn_number: result.turn_number, tick: sentAt.tick, visible: result.records.length };
  if (replace) replaceTurn($("transcript"), mark, result.records, view, hooks);
  else appendTurn($("transcript"), mark, result.records, view, hooks, quietNote(input, result.records));
  view.revision = result.revision;
  view.turn_number = result.turn_number;
  view.tick = result.tick;
  whoseTurn(result.next_speaker ?? view.controlled_id);
  $("openings").hidden = true;
  setDebugSession(sessionId);
  loadVariants(sessionId);
  usage();
  return true;
}

/** What a request is sent from: the view's revision, the story time a new turn starts at
 * (the clock after the last turn) and the session's title. */
function sentFrom() {
  const { view } = current;
  return { revision: view.revision, tick: view.tick, title: title(view) };
}

/** The lines of turn `turnNumber` as it runs (`draw`, the SSE `line` callback), drawn only
 * into their own session still at the revision they were sent from; `fail` removes them.
 * A turn played again (`replacing`) hides the version it replaces while its lines come and
 * shows it again if it fails; the committed version replaces both. */
function streamed(sessionId, sentAt, turnNumber, { replacing = false } = {}) {
  const shown = () => isOpen(sessionId) && current.view.revision === sentAt.revision;
  const old = () => $("transcript").querySelectorAll(`li[data-turn='${turnNumber}']:not([data-streaming])`);
  return {
    draw(records, partial) {
      if (!shown()) return;
      if (replacing) for (const el of old()) el.hidden = true;
      appendLines($("transcript"), turnNumber, records, current.view, hooks, partial);
    },
    fail() {
      if (!isOpen(sessionId)) return;
      dropStreamed($("transcript")); // nothing of a failed turn stays
      if (replacing) for (const el of old()) el.hidden = false;
    },
  };
}

/** Send a turn from the composer (or, in edit mode, play the last turn again with it). */
export async function sendTurn(input) {
  if (!current) return;
  if (editingTurn() !== null) {
    await rerun(input);
    return;
  }
  const sessionId = current.view.id;
  const sentAt = sentFrom();
  $("openings").hidden = true;
  $("suggestions").hidden = true;
  const turnNumber = current.view.turn_number + 1;
  const lines = streamed(sessionId, sentAt, turnNumber);
  let result;
  try {
    result = await inflight.track(sessionId, "turn", (progress) =>
      api.turn(sessionId, input, sentAt.revision, progress, lines.draw));
  } catch (error) {
    lines.fail();
    failed(sessionId, sentAt.title, error);
    return;
  }
  drafts.delete(sessionId);
  if (landed(sessionId, sentAt, result, { input })) clearComposer();
  focusComposer();
}

/** Play the last turn again: with its own input (`input` null) or an edited one. */
async function rerun(input) {
  const sessionId = current.view.id;
  const sentAt = { ...sentFrom(), tick: tickOfLast() };
  const lines = streamed(sessionId, sentAt, current.view.turn_number, { replacing: true });
  let result;
  try {
    result = await inflight.track(sessionId, "rerun", (progress) =>
      api.rerun(sessionId, input, sentAt.revision, progress, lines.draw));
  } catch (error) {
    lines.fail();
    failed(sessionId, sentAt.title, error);
    return;
  }
  if (landed(sessionId, sentAt, result, { replace: true }) && input) {
    setEditing(null);
    clearComposer();
  }
  focusComposer();
}

function tickOfLast() {
  const sep = separatorOf($("transcript"), current.view.turn_number);
  const text = sep?.querySelector("[data-testid=story-time]")?.textContent ?? "";
  const found = /(\d+)\s*$/.exec(text);
  return found ? Number(found[1]) : null;
}

async function flipTo(variant) {
  const sessionId = current.view.id;
  const sentAt = { ...sentFrom(), tick: tickOfLast() };
  let result;
  try {
    result = await inflight.track(sessionId, "flip", () => api.flip(sessionId, variant, sentAt.revision));
  } catch (error) {
    failed(sessionId, sentAt.title, error);
    return;
  }
  landed(sessionId, sentAt, result, { replace: true });
}

async function editLast() {
  const committed = current.variants.find((v) => v.committed);
  if (!committed?.input) return;
  writeComposer(committed.input);
  setEditing(current.view.turn_number);
  focusComposer();
}

async function forkAt(turn) {
  const sessionId = current.view.id;
  try {
    const forked = await inflight.track(sessionId, "fork", () => api.fork(sessionId, turn));
    location.hash = `#/play/${forked.id}`;
  } catch (error) {
    failed(sessionId, title(current.view), error);
  }
}

export async function undo() {
  if (!current) return;
  const sessionId = current.view.id;
  const sentAt = sentFrom();
  try {
    await inflight.track(sessionId, "undo", () => api.undo(sessionId, sentAt.revision));
  } catch (error) {
    failed(sessionId, sentAt.title, error);
    return;
  }
  if (isOpen(sessionId)) await openPlay(sessionId);
}

/** Compact the open session's old history (`kind` "compact") or restore the last compaction
 * ("restore"), then reload the view. */
async function compaction(kind) {
  if (!current) return;
  const sessionId = current.view.id;
  const sentAt = sentFrom();
  try {
    const result = await inflight.track(sessionId, kind, (progress) =>
      kind === "compact"
        ? api.compact(sessionId, sentAt.revision, progress, current.view.compaction.retention_turns)
        : api.restore(sessionId, sentAt.revision),
    );
    toast(t(kind === "compact" ? "play.compacted" : "play.restored", { turn: result.cutoff_turn }), { error: false });
  } catch (error) {
    failed(sessionId, sentAt.title, error);
    return;
  }
  if (isOpen(sessionId)) await openPlay(sessionId);
}

export async function suggest() {
  if (!current) return;
  const sessionId = current.view.id;
  try {
    const result = await inflight.track(sessionId, "suggest", (progress) => api.suggestions(sessionId, progress));
    if (isOpen(sessionId)) {
      const label = (item) => [item.speech, item.action && `*${item.action}*`].filter(Boolean).join(" ");
      showChips($("suggestions"), result.data, label, fillComposer);
    }
  } catch (error) {
    failed(sessionId, title(current.view), error);
  }
}

/** Load the page of turns before the earliest shown. */
export async function loadEarlier() {
  if (!current || current.nextBefore === null) return;
  const sessionId = current.view.id;
  const button = $("load-earlier");
  button.disabled = true;
  try {
    const page = await api.transcript(sessionId, current.nextBefore);
    if (!isOpen(sessionId)) return;
    renderPage($("transcript"), page, current.view, hooks, { prepend: true });
    current.nextBefore = page.next_before;
    button.hidden = page.next_before === null;
    usage();
  } catch (error) {
    toast(describeError(error));
  } finally {
    button.disabled = false;
  }
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("play.copied"), { error: false });
  } catch (error) {
    toast(describeError(error));
  }
}

/** Re-draw the open session in a new interface language. */
export function relabelPlay() {
  if (current) openPlay(current.view.id);
}

export function wirePlay() {
  $("load-earlier").addEventListener("click", () => loadEarlier());
  $("play-compact").addEventListener("click", () => compaction("compact"));
  $("play-restore").addEventListener("click", () => compaction("restore"));
  $("compaction-save").addEventListener("click", () => saveCompaction());
}
