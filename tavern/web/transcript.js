// The transcript: a separator per turn (turn number, story time, its footer and tools), then
// one typed bubble per record the player's character perceived. A turn that shows nothing,
// and a quiet beat (the kernel's `quiet` marker, whose text is for prompts), say so in the
// interface's words. A turn in flight draws its lines as they come (marked `data-streaming`)
// and the committed turn replaces them. Text always goes in via textContent, never
// innerHTML: model output is untrusted.

import { t } from "./i18n.js";
import { tint } from "./cast.js";

const NARRATOR = "Narrator";
const WORLD = "World";

function member(slot, view) {
  return view.cast.find((c) => c.slot === slot);
}

function nameOf(slot, view) {
  if (slot === NARRATOR || slot === WORLD) return "";
  const found = member(slot, view);
  if (!found) return slot;
  return found.controlled ? `${found.name} (${t("play.you")})` : found.name;
}

function copyButton(text, onCopy) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "icon copy";
  b.textContent = "⧉";
  b.dataset.i18nLabel = "a11y.copy";
  b.setAttribute("aria-label", t("a11y.copy"));
  b.title = t("a11y.copy");
  b.setAttribute("data-testid", "copy-line");
  b.addEventListener("click", () => onCopy(text));
  return b;
}

const QUIET_MARKER = "quiet";

function quietBeat(record) {
  const li = document.createElement("li");
  li.className = "quiet beat";
  li.dataset.turn = String(record.turn_number);
  li.setAttribute("data-testid", "quiet-beat");
  li.textContent = t("quiet.beat");
  return li;
}

function bubble(record, view, hooks) {
  if (record.kind === "system" && record.marker === QUIET_MARKER) return quietBeat(record);
  const li = document.createElement("li");
  li.className = `bubble ${record.kind}`;
  li.dataset.kind = record.kind;
  li.dataset.turn = String(record.turn_number);
  li.setAttribute("data-testid", `record-${record.kind}`);
  if (record.speaker === view.controlled_id) li.classList.add("mine");
  const who = nameOf(record.speaker, view);
  if (who && record.kind !== "narration" && record.kind !== "system") {
    const label = document.createElement("span");
    label.className = "who";
    const speaker = member(record.speaker, view);
    if (speaker) tint(label, speaker.character_id);
    label.textContent = who;
    if (record.audience?.origin === "whisper") {
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.setAttribute("data-testid", "whisper-tag");
      const to = record.audience.perceivers.filter((s) => s !== record.speaker).map((s) => nameOf(s, view));
      tag.textContent = `${t("play.whisper_tag")} → ${to.join(", ")}`;
      label.append(tag);
    }
    li.append(label);
  }
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = record.text ?? "";
  li.append(text, copyButton(record.text ?? "", hooks.onCopy));
  return li;
}

function separator(mark, hooks) {
  const li = document.createElement("li");
  li.className = "turn-sep";
  li.dataset.turn = String(mark.turn_number);
  li.setAttribute("data-testid", "turn-sep");
  const title = document.createElement("span");
  title.className = "sep-title";
  title.textContent = mark.turn_number === 0 ? t("turn.beginning") : t("turn.label", { n: mark.turn_number });
  if (mark.tick !== null && mark.tick !== undefined) {
    const time = document.createElement("span");
    time.className = "story-time";
    time.setAttribute("data-testid", "story-time");
    time.textContent = ` · ${t("turn.story_time", { tick: mark.tick })}`;
    title.append(time);
  }
  const usage = document.createElement("span");
  usage.className = "usage muted";
  usage.setAttribute("data-testid", "turn-usage");
  const tools = document.createElement("span");
  tools.className = "tools";
  li.append(title, usage, tools);
  hooks.decorate?.(li, mark);
  return li;
}

function quiet(mark, note) {
  const li = document.createElement("li");
  li.className = "quiet";
  li.dataset.turn = String(mark.turn_number);
  li.setAttribute("data-testid", "quiet-turn");
  li.textContent = note ? `${t("quiet.nothing")} ${note}` : t("quiet.nothing");
  return li;
}

function turnNodes(mark, records, view, hooks, note) {
  const nodes = [separator(mark, hooks), ...records.map((r) => bubble(r, view, hooks))];
  if (mark.turn_number > 0 && records.length === 0) nodes.push(quiet(mark, note));
  return nodes;
}

function byTurn(records) {
  const groups = new Map();
  for (const record of records) {
    if (!groups.has(record.turn_number)) groups.set(record.turn_number, []);
    groups.get(record.turn_number).push(record);
  }
  return groups;
}

/** The one line standing where compacted turns were: which turns, in the interface's words,
 * and the story summary as stored (`page.compacted`). */
function compactedLine(span) {
  const li = document.createElement("li");
  li.className = "compacted";
  li.setAttribute("data-testid", "compacted-turns");
  const head = document.createElement("strong");
  head.textContent = t("transcript.compacted", { first: span.first_turn, last: span.last_turn });
  const summary = document.createElement("span");
  summary.className = "compacted-summary";
  summary.setAttribute("data-testid", "compacted-summary");
  summary.textContent = span.summary;
  li.append(head, " ", summary);
  return li;
}

/** Put a transcript page in the list: replacing it, or before what is there (`prepend`),
 * keeping the reader's place. A page that reaches the compacted turns starts with their line. */
export function renderPage(list, page, view, hooks, { prepend = false } = {}) {
  const groups = byTurn(page.data);
  const nodes = page.turns.flatMap((mark) => turnNodes(mark, groups.get(mark.turn_number) ?? [], view, hooks));
  if (page.compacted) nodes.unshift(compactedLine(page.compacted));
  if (!prepend) {
    list.replaceChildren(...nodes);
    list.scrollTop = list.scrollHeight;
    return;
  }
  const before = list.scrollHeight;
  list.prepend(...nodes);
  list.scrollTop += list.scrollHeight - before;
}

/** Append one committed turn (`note`: why nothing showed, if known). */
export function appendTurn(list, mark, records, view, hooks, note = "") {
  list.append(...turnNodes(mark, records, view, hooks, note));
  list.scrollTop = list.scrollHeight;
}

/** Draw lines of turn `turnNumber` while it runs, under a separator of their own; the
 * committed turn replaces them (`appendTurn` after `dropStreamed`). A `partial` batch is a
 * narration still being written: it replaces the last partial one, and the next final
 * batch replaces it. */
export function appendLines(list, turnNumber, records, view, hooks, partial = false) {
  const fresh = [];
  if (!list.querySelector(`li[data-streaming][data-turn='${turnNumber}']`)) {
    fresh.push(separator({ turn_number: turnNumber, tick: null }, {}));
  }
  for (const el of list.querySelectorAll("li[data-partial]")) el.remove();
  fresh.push(...records.map((r) => bubble(r, view, hooks)));
  for (const node of fresh) {
    node.dataset.streaming = "true";
    node.dataset.turn = String(turnNumber);
    node.classList.add("streaming");
  }
  if (partial) for (const node of fresh.slice(-records.length)) node.dataset.partial = "true";
  list.append(...fresh);
  list.scrollTop = list.scrollHeight;
}

/** Remove the lines drawn for a turn in flight (it committed, or failed). */
export function dropStreamed(list) {
  for (const el of list.querySelectorAll("li[data-streaming]")) el.remove();
}

/** Replace the records of a turn already shown (another variant of it). */
export function replaceTurn(list, mark, records, view, hooks) {
  removeTurn(list, mark.turn_number);
  appendTurn(list, mark, records, view, hooks);
}

/** Remove a turn (its separator, bubbles and quiet line). */
export function removeTurn(list, turnNumber) {
  for (const el of list.querySelectorAll(`li[data-turn='${turnNumber}']`)) el.remove();
}

/** The separator of a turn, if shown. */
export function separatorOf(list, turnNumber) {
  return list.querySelector(`li.turn-sep[data-turn='${turnNumber}']`);
}
