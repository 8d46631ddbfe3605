// The transcript: one typed bubble per history record. Text always goes in via
// textContent, never innerHTML: model output is untrusted.

import { t } from "./i18n.js";

const NARRATOR = "Narrator";
const WORLD = "World";

function nameOf(slot, view) {
  if (slot === NARRATOR || slot === WORLD) return "";
  const member = view.cast.find((c) => c.slot === slot);
  if (!member) return slot;
  return member.controlled ? `${member.name} (${t("play.you")})` : member.name;
}

function bubble(record, view) {
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
  li.append(text);
  return li;
}

/** Replace the transcript with `records`, scrolled to the newest. */
export function renderTranscript(list, records, view) {
  list.replaceChildren(...records.map((r) => bubble(r, view)));
  list.scrollTop = list.scrollHeight;
}

/** Append one turn's records. */
export function appendRecords(list, records, view) {
  list.append(...records.map((r) => bubble(r, view)));
  list.scrollTop = list.scrollHeight;
}
