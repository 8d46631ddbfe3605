// The composer: speech, private thought and action, whisper target, force speaker, hint,
// skip, undo and suggestions; Ctrl+Enter sends from any field. It only builds inputs;
// play.js sends them. In edit mode, Send plays the last turn again with the input.

import { t } from "./i18n.js";
import { zoneLabel } from "./cast.js";

const $ = (id) => document.getElementById(id);
const TEXT_FIELDS = [["speech", "c-speech"], ["thought", "c-thought"], ["action", "c-action"], ["hint", "c-hint"]];
let editing = null; // the turn number being edited, or null

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

function reach(member, view) {
  if (member.hears_you && member.you_hear) return member.name;
  const where = member.zone && view.scene.zones.length ? ` (${zoneLabel(view, member.zone)})` : "";
  return `${member.name} — ${t("cast.out_of_earshot")}${where}`;
}

/** Refill the whisper and force-speaker pickers from the session's cast, saying who is out
 * of earshot (a forced speaker you cannot hear plays a turn you see nothing of). */
export function fillPickers(view) {
  const others = view.cast.filter((c) => c.slot !== view.controlled_id && c.present);
  const whisper = $("c-whisper").value;
  const force = $("c-force").value;
  $("c-whisper").replaceChildren(
    option("", t("composer.nobody")),
    ...others.filter((c) => c.hears_you).map((c) => option(c.slot, c.name)),
  );
  $("c-force").replaceChildren(
    option("", t("composer.anyone")),
    ...others.map((c) => option(c.slot, reach(c, view))),
    option("Narrator", t("composer.narrator")),
  );
  $("c-whisper").value = [...$("c-whisper").options].some((o) => o.value === whisper) ? whisper : "";
  $("c-force").value = [...$("c-force").options].some((o) => o.value === force) ? force : "";
}

/** The TurnInput the form describes (null fields omitted), or null when it is empty. */
export function readComposer({ skip = false } = {}) {
  const value = (id) => $(id).value.trim();
  const input = {};
  for (const [field, id] of TEXT_FIELDS) {
    if (value(id)) input[field] = value(id);
  }
  if (value("c-whisper") && input.speech) input.whisper_to = [value("c-whisper")];
  if (value("c-force")) input.force_speaker = value("c-force");
  if (skip) input.skip = true;
  const filled = input.speech || input.thought || input.action || input.hint;
  return filled || skip ? input : null;
}

/** Put a whole input back in the form (edit mode reads the turn's stored input). */
export function writeComposer(input = {}) {
  for (const [field, id] of TEXT_FIELDS) $(id).value = input[field] ?? "";
  $("c-whisper").value = input.whisper_to?.[0] ?? "";
  $("c-force").value = input.force_speaker ?? "";
  if (input.whisper_to?.length || input.force_speaker || input.hint) $("composer-more").open = true;
}

/** What is typed (a draft kept per session while the player looks at another). */
export function draft() {
  return readComposer() ?? {};
}

export function clearComposer() {
  writeComposer({});
}

/** Put a suggestion into the composer, ready to edit and send. */
export function fillComposer({ speech, action } = {}) {
  if (speech) $("c-speech").value = speech;
  if (action) $("c-action").value = action;
  $("c-speech").focus();
}

/** Put an opening into the hint for the director (openings are incidents of the scene,
 * not words of the player's character). */
export function fillHint(text) {
  $("c-hint").value = text;
  $("composer-more").open = true;
  $("c-hint").focus();
}

/** Show clickable chips (suggestions or openings); `onPick(item)` acts on the chosen one. */
export function showChips(container, items, label, onPick) {
  container.replaceChildren(
    ...items.map((item, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "chip";
      b.setAttribute("data-testid", `chip-${i}`);
      b.textContent = label(item);
      b.addEventListener("click", () => {
        onPick(item);
        container.hidden = true;
      });
      return b;
    }),
  );
  container.hidden = items.length === 0;
}

/** Enter or leave edit mode (`turn`: the turn Send will play again, or null). */
export function setEditing(turn) {
  editing = turn;
  $("c-editing").hidden = turn === null;
  $("c-editing-text").textContent = turn === null ? "" : t("turn.editing", { n: turn });
}

export function editingTurn() {
  return editing;
}

/** Send the focus back to the words field (after a turn, and on opening a session). */
export function focusComposer() {
  if (!$("c-speech").disabled) $("c-speech").focus({ preventScroll: true });
}

/** Wire the composer's buttons and keys to the app's handlers. */
export function wireComposer({ onSend, onUndo, onSuggest, onEmpty }) {
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = readComposer();
    if (input) onSend(input);
    else onEmpty(t("composer.empty"));
  });
  $("c-skip").addEventListener("click", () => onSend(readComposer({ skip: true })));
  $("c-undo").addEventListener("click", () => onUndo());
  $("c-suggest").addEventListener("click", () => onSuggest());
  $("c-cancel-edit").addEventListener("click", () => {
    setEditing(null);
    clearComposer();
  });
  $("composer").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
}

/** Disable every control while the open session's models work. */
export function setComposerBusy(busy) {
  for (const el of document.querySelectorAll("#composer button, #composer textarea, #composer input, #composer select")) {
    el.disabled = busy;
  }
}
