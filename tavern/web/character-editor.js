// The character form: the public body (name, how strangers refer to them, appearance), the
// private mind (personality, secrets, goals) and an optional picture. A character card
// (V1/V2/V3, JSON or PNG) imports as a draft with a report; nothing is saved until Save.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { field, lines, showProblems } from "./fields.js";
import { checkCharacter } from "./validate.js";

const $ = (id) => document.getElementById(id);
let base = null;
let picture = { file: null, remove: false, stored: false };

function preview(src, initial) {
  const box = $("ce-avatar-preview");
  box.replaceChildren();
  box.textContent = initial;
  if (src) {
    const img = document.createElement("img");
    img.alt = "";
    img.src = src;
    img.addEventListener("error", () => img.remove());
    box.append(img);
  }
  $("ce-avatar-remove").hidden = !src;
}

function previewFile(file, initial) {
  const reader = new FileReader(); // a data: URL, which the page's CSP allows for images
  reader.addEventListener("load", () => preview(String(reader.result), initial));
  reader.readAsDataURL(file);
}

function report(draft) {
  const box = $("ce-report");
  if (!draft) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const para = (text) => {
    const p = document.createElement("p");
    p.textContent = text;
    return p;
  };
  const parts = [para(t("editor.import_report", { source: draft.source }))];
  if (draft.dropped.length) {
    const fields = draft.dropped.map((d) => `${d.field} (${d.reason})`).join("; ");
    parts.push(para(t("editor.import_dropped", { fields })));
  }
  if (draft.notes.length) parts.push(para(t("editor.import_notes", { notes: draft.notes.join("; ") })));
  box.replaceChildren(...parts);
  box.hidden = false;
}

/** Fill the form from a character (or a blank one); `hasPicture`: it has a stored one. */
export function renderCharacter(c, { hasPicture = false, imported = null, file = null } = {}) {
  base = c.id && !imported ? c : null;
  const form = $("character-form");
  form.replaceChildren();
  field(form, "field.id", "id", c.id);
  field(form, "field.name", "name", c.body?.display_name);
  field(form, "field.description_ref", "description_ref", c.body?.description_ref);
  field(form, "field.appearance", "appearance", c.body?.appearance, { multiline: true });
  field(form, "field.personality", "personality", c.mind?.personality, { multiline: true });
  field(form, "field.secrets", "secrets", (c.mind?.secrets ?? []).join("\n"), { multiline: true });
  field(form, "field.goals", "goals", (c.mind?.goals ?? []).join("\n"), { multiline: true });
  picture = { file, remove: false, stored: hasPicture };
  $("ce-avatar").value = "";
  const initial = (c.body?.display_name ?? "").charAt(0).toUpperCase();
  if (file) previewFile(file, initial);
  else preview(hasPicture ? `${api.avatarUrl(c.id)}?v=${Date.now()}` : null, initial);
  report(imported);
  const exportLink = $("ce-export");
  exportLink.hidden = !base;
  if (base) exportLink.href = api.exportUrl("characters", base.id);
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

/** After the sheet is saved: store or remove the picture chosen in the form. */
export async function savePicture(id) {
  if (picture.file) await api.saveAvatar(id, picture.file);
  else if (picture.remove && picture.stored) await api.deleteAvatar(id);
}

/** Wire the import, picture and export controls; `onError` reports a failure. */
export function wireCharacterEditor(onError) {
  $("ce-import").addEventListener("change", async () => {
    const file = $("ce-import").files?.[0];
    if (!file) return;
    try {
      const draft = await api.importCard(file);
      $("ce-pick").value = "";
      renderCharacter(draft.character, { imported: draft, file: draft.picture ? file : null });
    } catch (error) {
      onError(error);
    } finally {
      $("ce-import").value = "";
    }
  });
  $("ce-avatar").addEventListener("change", () => {
    const file = $("ce-avatar").files?.[0];
    if (!file) return;
    picture = { ...picture, file, remove: false };
    previewFile(file, readCharacter().body.display_name.charAt(0).toUpperCase());
  });
  $("ce-avatar-remove").addEventListener("click", () => {
    picture = { ...picture, file: null, remove: true };
    preview(null, readCharacter().body.display_name.charAt(0).toUpperCase());
  });
}
