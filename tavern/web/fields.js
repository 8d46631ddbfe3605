// Form pieces the editors share: a labelled field with its message slot, options, and the
// display of problems beside the fields they concern.

import { t } from "./i18n.js";

/** An <option>. */
export function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

/** A labelled input (or textarea, or select with `choices`) in `parent`, named `name`, with
 * an empty message slot; returns the control. Test ids: `<formId>-<name>`, `err-<name>`. */
export function field(parent, key, name, value, { multiline = false, choices = null, testPrefix } = {}) {
  const label = document.createElement("label");
  const span = document.createElement("span");
  span.dataset.i18n = key;
  span.textContent = t(key);
  let control;
  if (choices) {
    control = document.createElement("select");
    control.append(...choices.map(([v, k]) => option(v, t(k))));
  } else {
    control = document.createElement(multiline ? "textarea" : "input");
    if (multiline) control.rows = 3;
  }
  control.name = name;
  control.setAttribute("data-testid", `${testPrefix ?? parent.closest("[id]").id}-${name}`);
  control.value = value ?? "";
  label.append(span, control, messageSlot(name));
  parent.append(label);
  return control;
}

/** The empty message slot of a field (filled by `showProblems`). */
export function messageSlot(name) {
  const slot = document.createElement("span");
  slot.className = "field-error";
  slot.dataset.for = name;
  slot.setAttribute("data-testid", `err-${name}`);
  slot.setAttribute("role", "status");
  slot.hidden = true;
  return slot;
}

/** Put each problem (red) or warning (amber) beside its field; returns whether any problem. */
export function showProblems(form, problems, warnings = {}) {
  for (const slot of form.querySelectorAll(".field-error")) {
    const name = slot.dataset.for;
    const message = problems[name] ?? warnings[name] ?? "";
    slot.textContent = message;
    slot.hidden = !message;
    slot.classList.toggle("warning", !problems[name] && Boolean(warnings[name]));
    const control = slot.parentElement.querySelector("input, textarea, select");
    if (control) control.setAttribute("aria-invalid", problems[name] ? "true" : "false");
  }
  return Object.keys(problems).length > 0;
}

/** Text split into trimmed non-empty lines. */
export const lines = (text) => text.split("\n").map((s) => s.trim()).filter(Boolean);

/** A small button. */
export function smallButton(key, testid, handler) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "small";
  b.dataset.i18n = key;
  b.textContent = t(key);
  b.setAttribute("data-testid", testid);
  b.addEventListener("click", handler);
  return b;
}
