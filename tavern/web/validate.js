// Checks of the editors' drafts, in plain words, shown beside the field they concern before
// anything is sent. The server checks again (a scenario it could never play is a 422).

import { t } from "./i18n.js";

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ZONE_ID = /^[a-z0-9][a-z0-9_-]{0,47}$/;

function text(problems, key, value, { required = true, max = null } = {}) {
  const v = (value ?? "").trim();
  if (required && !v) problems[key] = t("check.required");
  else if (max !== null && v.length > max) problems[key] = t("check.too_long", { n: max });
}

/** Problems of a character draft: field name -> message (empty when it can be saved). */
export function checkCharacter(c) {
  const problems = {};
  if (!ID.test(c.id ?? "")) problems.id = c.id ? t("check.id") : t("check.required");
  text(problems, "name", c.body.display_name, { max: 80 });
  text(problems, "description_ref", c.body.description_ref, { max: 120 });
  return problems;
}

/** Zones nobody in any other zone perceives and that perceive no other zone. */
export function isolatedZones(zones, links) {
  if (zones.length < 2) return [];
  const joined = new Set(links.flatMap((l) => [l.source, l.target]));
  return zones.map((z) => z.id).filter((id) => !joined.has(id));
}

/** Problems of a scenario draft: field name (`zone.2.id`, `link.0`, `cast.1`, ...) ->
 * message; `warnings` holds what is allowed but probably unintended (isolated zones). */
export function checkScenario(s) {
  const problems = {};
  const warnings = {};
  if (!ID.test(s.id ?? "")) problems.id = s.id ? t("check.id") : t("check.required");
  text(problems, "title", s.title);
  text(problems, "world", s.world);
  text(problems, "location", s.scene.location);
  const zones = s.scene.zones;
  const seen = new Set();
  zones.forEach((z, i) => {
    if (!ZONE_ID.test(z.id)) problems[`zone.${i}.id`] = z.id ? t("check.id") : t("check.required");
    else if (seen.has(z.id)) problems[`zone.${i}.id`] = t("check.zone_dup");
    seen.add(z.id);
    if (!z.label.trim()) problems[`zone.${i}.label`] = t("check.required");
  });
  s.scene.links.forEach((l, i) => {
    if (!seen.has(l.source) || !seen.has(l.target)) problems[`link.${i}`] = t("check.link_unknown");
    else if (l.source === l.target) problems[`link.${i}`] = t("check.link_same");
  });
  for (const id of isolatedZones(zones, s.scene.links)) {
    const i = zones.findIndex((z) => z.id === id);
    warnings[`zone.${i}.id`] = t("check.zone_isolated");
  }
  const slots = Object.keys(s.cast);
  if (!slots.length) problems.cast = t("check.cast_empty");
  slots.forEach((slot, i) => {
    if (!s.cast[slot]) problems[`cast.${i}`] = t("check.cast_pick");
    else if (zones.length && !seen.has(s.scene.positions[slot])) problems[`cast.${i}`] = t("check.zone_pick");
  });
  if (slots.length && !slots.includes(s.default_controlled_slot)) problems.cast = t("check.default_slot");
  return { problems, warnings };
}
