// The composer: speech, private thought and action, whisper target, force speaker, hint,
// skip, undo and suggestions. It only builds inputs; app.js sends them.

import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

/** Refill the whisper and force-speaker pickers from the session's cast. */
export function fillPickers(view) {
  const others = view.cast.filter((c) => c.slot !== view.controlled_id);
  $("c-whisper").replaceChildren(option("", t("composer.nobody")), ...others.map((c) => option(c.slot, c.name)));
  $("c-force").replaceChildren(
    option("", t("composer.anyone")),
    ...others.map((c) => option(c.slot, c.name)),
    option("Narrator", t("composer.narrator")),
  );
}

/** The TurnInput the form describes (null fields omitted), or null when it is empty. */
export function readComposer({ skip = false } = {}) {
  const value = (id) => $(id).value.trim();
  const input = {};
  for (const [field, id] of [["speech", "c-speech"], ["thought", "c-thought"], ["action", "c-action"], ["hint", "c-hint"]]) {
    if (value(id)) input[field] = value(id);
  }
  if (value("c-whisper") && input.speech) input.whisper_to = [value("c-whisper")];
  if (value("c-force")) input.force_speaker = value("c-force");
  if (skip) input.skip = true;
  const filled = input.speech || input.thought || input.action || input.hint;
  return filled || skip ? input : null;
}

export function clearComposer() {
  for (const id of ["c-speech", "c-thought", "c-action", "c-hint"]) $(id).value = "";
  $("c-whisper").value = "";
  $("c-force").value = "";
}

/** Put a suggestion or an opening spark into the composer, ready to edit and send. */
export function fillComposer({ speech, action } = {}) {
  if (speech) $("c-speech").value = speech;
  if (action) $("c-action").value = action;
  $("c-speech").focus();
}

/** Show clickable chips (suggestions or openings) that fill the composer. */
export function showChips(container, items, toFill) {
  container.replaceChildren(
    ...items.map((item, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "chip";
      b.setAttribute("data-testid", `chip-${i}`);
      b.textContent = [item.speech, item.action && `*${item.action}*`].filter(Boolean).join(" ");
      b.addEventListener("click", () => {
        fillComposer(toFill(item));
        container.hidden = true;
      });
      return b;
    }),
  );
  container.hidden = items.length === 0;
}

/** Wire the composer's buttons to the app's handlers. */
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
  $("c-speech").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("composer").requestSubmit();
  });
}

/** Disable every control while the models work. */
export function setComposerBusy(busy) {
  for (const el of document.querySelectorAll("#composer button, #composer textarea, #composer input, #composer select")) {
    el.disabled = busy;
  }
}
