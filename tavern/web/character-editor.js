// The character form: the public body (name, how strangers refer to them, appearance) and
// the private mind (personality, secrets, goals). Problems show beside their fields.

import { field, lines, showProblems } from "./fields.js";
import { checkCharacter } from "./validate.js";

const $ = (id) => document.getElementById(id);
let base = null;

/** Fill the form from a character (or a blank one). */
export function renderCharacter(c) {
  base = c.id ? c : null;
  const form = $("character-form");
  form.replaceChildren();
  field(form, "field.id", "id", c.id);
  field(form, "field.name", "name", c.body?.display_name);
  field(form, "field.description_ref", "description_ref", c.body?.description_ref);
  field(form, "field.appearance", "appearance", c.body?.appearance, { multiline: true });
  field(form, "field.personality", "personality", c.mind?.personality, { multiline: true });
  field(form, "field.secrets", "secrets", (c.mind?.secrets ?? []).join("\n"), { multiline: true });
  field(form, "field.goals", "goals", (c.mind?.goals ?? []).join("\n"), { multiline: true });
}

/** The character the form describes. */
export function readCharacter() {
  const form = $("character-form");
  const value = (name) => form.querySelector(`[name="${name}"]`).value;
  const b = base ?? {};
  const id = value("id").trim();
  return {
    id,
    revision: b.id === id && !b.builtin ? b.revision ?? 0 : 0,
    body: {
      display_name: value("name").trim(),
      description_ref: value("description_ref").trim(),
      appearance: value("appearance").trim(),
    },
    mind: {
      personality: value("personality").trim(),
      secrets: lines(value("secrets")),
      goals: lines(value("goals")),
    },
  };
}

/** Check the form; marks problems beside their fields and returns the character, or null. */
export function checkedCharacter() {
  const character = readCharacter();
  if (showProblems($("character-form"), checkCharacter(character))) return null;
  return character;
}
