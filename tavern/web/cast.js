// The cast panel: who is here, where they stand, who hears the player's character; each
// character with a stable colour (from its library id) and its picture when it has one.

import { api } from "./api.js";
import { t } from "./i18n.js";

/** A hue (0-359) that is the same for a character id on every page and in every session. */
export function hueOf(id) {
  let hash = 2166136261;
  for (const char of String(id)) {
    hash ^= char.codePointAt(0);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash % 360;
}

/** Give an element its character's colour (CSS reads `--hue`). */
export function tint(el, characterId) {
  el.style.setProperty("--hue", String(hueOf(characterId)));
  el.classList.add("tinted");
}

/** A round picture of the character, or its initial on its colour. */
export function avatar(member, withPicture) {
  const box = document.createElement("span");
  box.className = "avatar";
  tint(box, member.character_id);
  box.textContent = (member.name || "?").trim().charAt(0).toUpperCase();
  box.setAttribute("aria-hidden", "true");
  if (withPicture) {
    const img = document.createElement("img");
    img.alt = "";
    img.src = api.avatarUrl(member.character_id);
    img.addEventListener("error", () => img.remove());
    box.append(img);
  }
  return box;
}

export function zoneLabel(view, zoneId) {
  return view.scene.zones.find((z) => z.id === zoneId)?.label ?? zoneId;
}

/** How a member stands to the player's character, in words (null for the player's own). */
export function hearing(member) {
  if (member.controlled) return null;
  if (!member.present) return t("cast.absent");
  if (member.hears_you && member.you_hear) return t("cast.hears_you");
  if (member.hears_you) return t("cast.overhears");
  if (member.you_hear) return t("cast.you_overhear");
  return t("cast.out_of_earshot");
}

/** Fill the cast list of the play view; `pictures` holds the ids that have one. */
export function renderCast(list, view, pictures = new Set()) {
  list.replaceChildren(
    ...view.cast.map((member) => {
      const li = document.createElement("li");
      li.className = member.controlled ? "me" : "";
      li.dataset.slot = member.slot;
      const name = document.createElement("span");
      name.className = "name";
      tint(name, member.character_id);
      name.textContent = member.controlled ? `${member.name} (${t("play.you")})` : member.name;
      const details = document.createElement("span");
      details.className = "muted small";
      const parts = [];
      if (member.zone && view.scene.zones.length) parts.push(t("cast.in_zone", { zone: zoneLabel(view, member.zone) }));
      if (member.mood) parts.push(t("cast.mood", { mood: member.mood }));
      details.textContent = parts.join(" · ");
      const block = document.createElement("span");
      block.className = "who-block";
      block.append(name, details);
      const heard = hearing(member);
      if (heard) {
        const tag = document.createElement("span");
        tag.className = `hearing ${member.hears_you ? "yes" : "no"}`;
        tag.setAttribute("data-testid", "cast-hearing");
        tag.textContent = heard;
        block.append(tag);
      }
      li.title = member.appearance;
      li.append(avatar(member, pictures.has(member.character_id)), block);
      return li;
    }),
  );
}
