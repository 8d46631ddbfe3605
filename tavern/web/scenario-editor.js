// The scenario form: world and scene, the zones and the links between them (what sound and
// sight carry, one direction at a time), and the cast picked by name, with where each one
// starts and whom the player plays by default. Problems show beside their fields.

import { t } from "./i18n.js";
import { field, lines, messageSlot, option, showProblems, smallButton } from "./fields.js";
import { checkScenario } from "./validate.js";

const $ = (id) => document.getElementById(id);
let base = null; // the scenario the form started from (null: a new one)
let zones = [];
let links = [];
let cast = []; // [{slot, character, zone}]
let defaultSlot = "C1";
let library = []; // [{id, name}] characters to pick from

function nextSlot() {
  const used = new Set(cast.map((c) => c.slot));
  for (let n = 1; n < 100; n++) if (!used.has(`C${n}`)) return `C${n}`;
  return null;
}

function zoneChoices(select, value, { blank = false } = {}) {
  select.replaceChildren(...(blank ? [option("", "—")] : []), ...zones.filter((z) => z.id).map((z) => option(z.id, z.label || z.id)));
  select.value = value ?? "";
}

function section(form, titleKey, hintKey) {
  const box = document.createElement("fieldset");
  const legend = document.createElement("legend");
  legend.dataset.i18n = titleKey;
  legend.textContent = t(titleKey);
  box.append(legend);
  if (hintKey) {
    const hint = document.createElement("p");
    hint.className = "muted small";
    hint.dataset.i18n = hintKey;
    hint.textContent = t(hintKey);
    box.append(hint);
  }
  form.append(box);
  return box;
}

function rowInput(testid, value, labelKey, onInput) {
  const input = document.createElement("input");
  input.value = value;
  input.setAttribute("data-testid", testid);
  input.setAttribute("aria-label", t(labelKey));
  input.placeholder = t(labelKey);
  input.addEventListener("input", () => onInput(input.value));
  return input;
}

function stateSelect(testid, value, labelKey, onChange) {
  const select = document.createElement("select");
  select.setAttribute("data-testid", testid);
  select.setAttribute("aria-label", t(labelKey));
  select.append(option("open", `${t(labelKey)}: ${t("editor.open")}`), option("sealed", `${t(labelKey)}: ${t("editor.sealed")}`));
  select.value = value;
  select.addEventListener("change", () => onChange(select.value));
  return select;
}

function drawZones() {
  const box = $("se-zones");
  box.replaceChildren(
    ...zones.map((zone, i) => {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("data-testid", "zone-row");
      const id = rowInput("zone-id", zone.id, "field.zone_id", (v) => { zone.id = v.trim(); drawLinksAndCast(); });
      const label = rowInput("zone-label", zone.label, "field.zone_label", (v) => { zone.label = v; drawLinksAndCast(); });
      const remove = smallButton("editor.remove", "zone-remove", () => {
        zones.splice(i, 1);
        links = links.filter((l) => l.source !== zone.id && l.target !== zone.id);
        drawAll();
      });
      row.append(id, label, remove, messageSlot(`zone.${i}.id`), messageSlot(`zone.${i}.label`));
      return row;
    }),
  );
}

function drawLinks() {
  const box = $("se-links");
  box.replaceChildren(
    ...links.map((link, i) => {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("data-testid", "link-row");
      const from = document.createElement("select");
      from.setAttribute("data-testid", "link-source");
      from.setAttribute("aria-label", t("editor.link_from"));
      zoneChoices(from, link.source, { blank: true });
      from.addEventListener("change", () => { link.source = from.value; });
      const arrow = document.createElement("span");
      arrow.className = "muted small";
      arrow.textContent = `→ ${t("editor.link_to")}`;
      const to = document.createElement("select");
      to.setAttribute("data-testid", "link-target");
      to.setAttribute("aria-label", t("editor.link_to"));
      zoneChoices(to, link.target, { blank: true });
      to.addEventListener("change", () => { link.target = to.value; });
      const sound = stateSelect("link-sound", link.sound, "editor.link_sound", (v) => { link.sound = v; });
      const sight = stateSelect("link-sight", link.sight, "editor.link_sight", (v) => { link.sight = v; });
      const back = smallButton("editor.link_both", "link-reverse", () => {
        links.push({ source: link.target, target: link.source, sound: link.sound, sight: link.sight });
        drawLinks();
      });
      const remove = smallButton("editor.remove", "link-remove", () => { links.splice(i, 1); drawLinks(); });
      const head = document.createElement("span");
      head.className = "muted small";
      head.textContent = t("editor.link_from");
      row.append(head, from, arrow, to, sound, sight, back, remove, messageSlot(`link.${i}`));
      return row;
    }),
  );
}

function drawCast() {
  const box = $("se-cast");
  const named = zones.filter((z) => z.id);
  for (const member of cast) {
    // Someone must stand somewhere once there are zones: the first one, until chosen.
    if (named.length && !named.some((z) => z.id === member.zone)) member.zone = named[0].id;
  }
  box.replaceChildren(
    ...cast.map((member, i) => {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("data-testid", "cast-row");
      const slot = document.createElement("span");
      slot.className = "muted small";
      slot.textContent = member.slot;
      const pick = document.createElement("select");
      pick.setAttribute("data-testid", "cast-character");
      pick.setAttribute("aria-label", t("editor.cast_character"));
      pick.append(option("", "—"), ...library.map((c) => option(c.id, `${c.name} (${c.id})`)));
      pick.value = member.character ?? "";
      pick.addEventListener("change", () => { member.character = pick.value; });
      row.append(slot, pick);
      if (zones.length) {
        const where = document.createElement("select");
        where.setAttribute("data-testid", "cast-zone");
        where.setAttribute("aria-label", t("editor.cast_zone"));
        zoneChoices(where, member.zone, { blank: true });
        where.addEventListener("change", () => { member.zone = where.value; });
        row.append(where);
      }
      const chosen = document.createElement("label");
      chosen.className = "inline";
      const radio = document.createElement("input");
      radio.type = "radio";
      radio.name = "se-default";
      radio.checked = member.slot === defaultSlot;
      radio.setAttribute("data-testid", "cast-default");
      radio.addEventListener("change", () => { defaultSlot = member.slot; });
      const text = document.createElement("span");
      text.textContent = t("editor.cast_default");
      chosen.append(radio, text);
      const remove = smallButton("editor.remove", "cast-remove", () => { cast.splice(i, 1); drawCast(); });
      row.append(chosen, remove, messageSlot(`cast.${i}`));
      return row;
    }),
  );
}

function drawLinksAndCast() {
  drawLinks();
  drawCast();
}

function drawAll() {
  drawZones();
  drawLinksAndCast();
}

/** Fill the form from a scenario (or a blank one); `characters` are the ones to pick from. */
export function renderScenario(scenario, characters) {
  base = scenario.id ? scenario : null;
  library = characters;
  const form = $("scenario-form");
  form.replaceChildren();
  field(form, "field.id", "id", scenario.id);
  field(form, "field.title", "title", scenario.title);
  field(form, "field.world", "world", scenario.world, { multiline: true });
  field(form, "field.tone", "tone", (scenario.tone_directives ?? []).join("\n"), { multiline: true });
  field(form, "field.language", "language", scenario.language ?? "en", {
    choices: [["en", "editor.lang_en"], ["pt-BR", "editor.lang_pt"]],
  });
  field(form, "field.location", "location", scenario.scene?.location);
  field(form, "field.description", "description", scenario.scene?.description, { multiline: true });
  field(form, "field.facts", "facts", (scenario.scene?.facts ?? []).join("\n"), { multiline: true });
  zones = (scenario.scene?.zones ?? []).map((z) => ({ ...z }));
  links = (scenario.scene?.links ?? []).map((l) => ({ ...l }));
  const positions = scenario.scene?.positions ?? {};
  cast = Object.entries(scenario.cast ?? {}).map(([slot, character]) => ({ slot, character, zone: positions[slot] ?? "" }));
  if (!cast.length) cast = [{ slot: "C1", character: "", zone: "" }];
  defaultSlot = scenario.default_controlled_slot ?? cast[0].slot;

  const zoneBox = section(form, "editor.zones", "editor.zones_hint");
  const zoneRows = document.createElement("div");
  zoneRows.id = "se-zones";
  zoneBox.append(zoneRows, smallButton("editor.zone_add", "zone-add", () => {
    zones.push({ id: "", label: "" });
    drawAll();
    $("se-zones").querySelector("[data-testid=zone-row]:last-child [data-testid=zone-id]")?.focus();
  }));
  const linkBox = section(form, "editor.links", "editor.links_hint");
  const linkRows = document.createElement("div");
  linkRows.id = "se-links";
  linkBox.append(linkRows, smallButton("editor.link_add", "link-add", () => {
    const [a, b] = zones.map((z) => z.id);
    links.push({ source: a ?? "", target: b ?? "", sound: "open", sight: "open" });
    drawLinks();
  }));
  const castBox = section(form, "editor.cast", null);
  const castRows = document.createElement("div");
  castRows.id = "se-cast";
  castBox.append(castRows, messageSlot("cast"), smallButton("editor.cast_add", "cast-add", () => {
    const slot = nextSlot();
    if (slot) cast.push({ slot, character: "", zone: zones[0]?.id ?? "" });
    drawCast();
  }));
  drawAll();
}

/** Change the characters the cast is picked from, keeping what the form holds. */
export function setLibrary(characters) {
  library = characters;
  if (document.getElementById("se-cast")) drawCast();
}

/** The scenario the form describes (unknown fields of the base kept as they were). */
export function readScenario() {
  const form = $("scenario-form");
  const value = (name) => form.querySelector(`[name="${name}"]`).value;
  const b = base ?? {};
  const id = value("id").trim();
  const zoneIds = new Set(zones.map((z) => z.id));
  const castMap = Object.fromEntries(cast.map((c) => [c.slot, c.character]));
  const positions = zones.length ? Object.fromEntries(cast.map((c) => [c.slot, c.zone])) : {};
  return {
    ...b,
    id,
    title: value("title").trim(),
    world: value("world").trim(),
    tone_directives: lines(value("tone")),
    cast: castMap,
    default_controlled_slot: cast.some((c) => c.slot === defaultSlot) ? defaultSlot : "",
    language: value("language") || "en",
    introductions: Object.fromEntries(
      Object.entries(b.introductions ?? {}).filter(([k]) => k in castMap).map(([k, v]) => [k, v.filter((s) => s in castMap)]),
    ),
    revision: b.id === id && !b.builtin ? b.revision ?? 0 : 0,
    scene: {
      ...(b.scene ?? {}),
      location: value("location").trim(),
      description: value("description").trim(),
      facts: lines(value("facts")),
      zones: zones.map((z) => ({ id: z.id, label: z.label.trim() })),
      links: links.filter((l) => zoneIds.has(l.source) && zoneIds.has(l.target)).map((l) => ({ ...l })),
      positions,
      present: Object.keys(castMap),
    },
    builtin: undefined,
  };
}

/** Check the form; marks problems beside their fields and returns the scenario, or null. */
export function checkedScenario() {
  const scenario = readScenario();
  const { problems, warnings } = checkScenario(scenario);
  const form = $("scenario-form");
  if (showProblems(form, problems, warnings)) return null;
  delete scenario.builtin;
  return scenario;
}
