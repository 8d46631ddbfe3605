// Scenario and character editors: plain forms over the library API. Built-ins load as a
// starting point and are saved under a new id (the server refuses to overwrite them).

import { api } from "./api.js";
import { applyLanguage, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let scenarioBase = null;
let characterBase = null;

const lines = (text) => text.split("\n").map((s) => s.trim()).filter(Boolean);
const pairs = (text) =>
  Object.fromEntries(
    lines(text).map((line) => {
      const cut = line.indexOf(":");
      return cut < 0 ? [line, ""] : [line.slice(0, cut).trim(), line.slice(cut + 1).trim()];
    }),
  );
const unpairs = (obj) => Object.entries(obj ?? {}).map(([k, v]) => `${k}: ${v}`).join("\n");

function field(form, key, name, value, { multiline = false } = {}) {
  const label = document.createElement("label");
  const span = document.createElement("span");
  span.dataset.i18n = key;
  span.textContent = t(key);
  const input = document.createElement(multiline ? "textarea" : "input");
  input.name = name;
  input.setAttribute("data-testid", `${form.id}-${name}`);
  if (multiline) input.rows = 3;
  input.value = value ?? "";
  label.append(span, input);
  form.append(label);
}

const value = (form, name) => form.querySelector(`[name="${name}"]`).value;

function option(v, label) {
  const o = document.createElement("option");
  o.value = v;
  o.textContent = label;
  return o;
}

function renderScenario(s) {
  const form = $("scenario-form");
  form.replaceChildren();
  field(form, "field.id", "id", s.id);
  field(form, "field.title", "title", s.title);
  field(form, "field.world", "world", s.world, { multiline: true });
  field(form, "field.tone", "tone", (s.tone_directives ?? []).join("\n"), { multiline: true });
  field(form, "field.location", "location", s.scene?.location);
  field(form, "field.description", "description", s.scene?.description, { multiline: true });
  field(form, "field.facts", "facts", (s.scene?.facts ?? []).join("\n"), { multiline: true });
  field(form, "field.zones", "zones", (s.scene?.zones ?? []).map((z) => `${z.id}: ${z.label}`).join("\n"), { multiline: true });
  field(form, "field.cast", "cast", unpairs(s.cast), { multiline: true });
  field(form, "field.positions", "positions", unpairs(s.scene?.positions), { multiline: true });
  field(form, "field.controlled", "controlled", s.default_controlled_slot);
  field(form, "field.language", "language", s.language ?? "en");
}

function readScenario() {
  const form = $("scenario-form");
  const base = scenarioBase ?? {};
  const cast = pairs(value(form, "cast"));
  const zones = Object.entries(pairs(value(form, "zones"))).map(([id, label]) => ({ id, label: label || id }));
  const zoneIds = new Set(zones.map((z) => z.id));
  const id = value(form, "id").trim();
  return {
    ...base,
    id,
    title: value(form, "title").trim(),
    world: value(form, "world").trim(),
    tone_directives: lines(value(form, "tone")),
    cast,
    default_controlled_slot: value(form, "controlled").trim(),
    language: value(form, "language").trim() || "en",
    revision: base.id === id && !base.builtin ? base.revision ?? 0 : 0,
    scene: {
      ...(base.scene ?? {}),
      location: value(form, "location").trim(),
      description: value(form, "description").trim(),
      facts: lines(value(form, "facts")),
      zones,
      links: (base.scene?.links ?? []).filter((l) => zoneIds.has(l.source) && zoneIds.has(l.target)),
      positions: pairs(value(form, "positions")),
      present: Object.keys(cast),
    },
    builtin: undefined,
  };
}

function renderCharacter(c) {
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

function readCharacter() {
  const form = $("character-form");
  const base = characterBase ?? {};
  const id = value(form, "id").trim();
  return {
    id,
    revision: base.id === id && !base.builtin ? base.revision ?? 0 : 0,
    body: {
      display_name: value(form, "name").trim(),
      description_ref: value(form, "description_ref").trim(),
      appearance: value(form, "appearance").trim(),
    },
    mind: {
      personality: value(form, "personality").trim(),
      secrets: lines(value(form, "secrets")),
      goals: lines(value(form, "goals")),
    },
  };
}

const EMPTY_SCENARIO = { id: "", title: "", world: "", cast: { C1: "" }, default_controlled_slot: "C1", scene: { location: "" } };
const EMPTY_CHARACTER = { id: "", body: {}, mind: {} };

/** Load both pickers and forms. */
export async function loadEditors() {
  const [sc, ch] = await Promise.all([api.scenarios(), api.characters()]);
  const pick = (select, entries, key) => {
    const chosen = select.value;
    select.replaceChildren(option("", t("editor.new")), ...entries.map((e) => option(e[key].id, `${e[key].id}${e.builtin ? " ★" : ""}`)));
    select.value = chosen;
    return new Map(entries.map((e) => [e[key].id, { ...e[key], builtin: e.builtin }]));
  };
  const scenarios = pick($("se-pick"), sc.data, "scenario");
  const characters = pick($("ce-pick"), ch.data, "character");
  scenarioBase = scenarios.get($("se-pick").value) ?? null;
  characterBase = characters.get($("ce-pick").value) ?? null;
  renderScenario(scenarioBase ?? EMPTY_SCENARIO);
  renderCharacter(characterBase ?? EMPTY_CHARACTER);
  applyLanguage(document.documentElement.lang);
}

export function wireEditors({ onError, onSaved }) {
  const run = (fn) => () => fn().catch(onError);
  $("se-pick").addEventListener("change", run(loadEditors));
  $("ce-pick").addEventListener("change", run(loadEditors));
  $("se-save").addEventListener("click", run(async () => {
    const scenario = readScenario();
    delete scenario.builtin;
    const saved = await api.saveScenario(scenario);
    await loadEditors();
    $("se-pick").value = saved.scenario.id;
    await loadEditors();
    onSaved(t("editor.saved"));
  }));
  $("ce-save").addEventListener("click", run(async () => {
    const saved = await api.saveCharacter(readCharacter());
    $("ce-pick").value = saved.character.id;
    await loadEditors();
    $("ce-pick").value = saved.character.id;
    await loadEditors();
    onSaved(t("editor.saved"));
  }));
  $("se-delete").addEventListener("click", run(async () => {
    if ($("se-pick").value) await api.deleteScenario($("se-pick").value);
    $("se-pick").value = "";
    await loadEditors();
  }));
  $("ce-delete").addEventListener("click", run(async () => {
    if ($("ce-pick").value) await api.deleteCharacter($("ce-pick").value);
    $("ce-pick").value = "";
    await loadEditors();
  }));
}
