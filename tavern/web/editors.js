// The editors view: a scenario form and a character form over the library API. Built-ins
// load as a starting point and are saved under a new id (the server refuses to overwrite).
// "Play this scenario" saves what changed, then starts a session of it.

import { api } from "./api.js";
import { applyLanguage, t } from "./i18n.js";
import { option } from "./fields.js";
import { checkedScenario, readScenario, renderScenario, setLibrary } from "./scenario-editor.js";
import { checkedCharacter, renderCharacter, savePicture, wireCharacterEditor } from "./character-editor.js";

const $ = (id) => document.getElementById(id);
let loadedScenario = null; // the scenario as loaded, to tell whether the form changed it

const EMPTY_SCENARIO = { id: "", title: "", world: "", cast: {}, default_controlled_slot: "C1", scene: { location: "" } };
const EMPTY_CHARACTER = { id: "", body: {}, mind: {} };

function pick(select, entries, key) {
  const chosen = select.value;
  select.replaceChildren(option("", t("editor.new")), ...entries.map((e) => option(e[key].id, `${e[key].id}${e.builtin ? " ★" : ""}`)));
  select.value = entries.some((e) => e[key].id === chosen) ? chosen : "";
  return new Map(entries.map((e) => [e[key].id, { ...e[key], builtin: e.builtin, avatar: e.avatar }]));
}

/** Load both pickers and forms from the library (`which`: only "scenario" or "character"). */
export async function loadEditors(which = null) {
  const [sc, ch] = await Promise.all([api.scenarios(), api.characters()]);
  const scenarios = pick($("se-pick"), sc.data, "scenario");
  const byId = pick($("ce-pick"), ch.data, "character");
  const characters = ch.data.map((e) => ({ id: e.character.id, name: e.character.body.display_name }));
  if (which !== "character") {
    const scenario = scenarios.get($("se-pick").value) ?? EMPTY_SCENARIO;
    renderScenario(scenario, characters);
    loadedScenario = scenario.id ? JSON.stringify(readScenario()) : null;
    $("se-export").hidden = !scenario.id;
    if (scenario.id) $("se-export").href = api.exportUrl("scenarios", scenario.id);
  }
  else setLibrary(characters);
  if (which !== "scenario") {
    const character = byId.get($("ce-pick").value) ?? EMPTY_CHARACTER;
    renderCharacter(character, { hasPicture: Boolean(character.avatar) });
  }
  applyLanguage(document.documentElement.lang);
}

async function saveScenario(onError) {
  const scenario = checkedScenario();
  if (!scenario) {
    onError(t("editor.fix_first"));
    return null;
  }
  const saved = await api.saveScenario(scenario);
  await loadEditors("scenario");
  $("se-pick").value = saved.scenario.id;
  await loadEditors("scenario");
  return saved.scenario.id;
}

export function wireEditors({ onError, onSaved, onPlay }) {
  const run = (fn) => () => fn().catch(onError);
  wireCharacterEditor(onError);
  $("se-pick").addEventListener("change", run(() => loadEditors("scenario")));
  $("ce-pick").addEventListener("change", run(() => loadEditors("character")));
  $("se-save").addEventListener("click", run(async () => {
    if (await saveScenario(onError)) onSaved(t("editor.saved"));
  }));
  $("se-play").addEventListener("click", run(async () => {
    const unchanged = $("se-pick").value && loadedScenario === JSON.stringify(readScenario());
    const id = unchanged ? $("se-pick").value : await saveScenario(onError);
    if (!id) return;
    const created = await api.createSession(id, null);
    onPlay(created.id);
  }));
  $("ce-save").addEventListener("click", run(async () => {
    const character = checkedCharacter();
    if (!character) {
      onError(t("editor.fix_first"));
      return;
    }
    const saved = await api.saveCharacter(character);
    await savePicture(saved.character.id);
    await loadEditors("character");
    $("ce-pick").value = saved.character.id;
    await loadEditors("character");
    onSaved(t("editor.saved"));
  }));
  $("se-delete").addEventListener("click", run(async () => {
    if ($("se-pick").value) await api.deleteScenario($("se-pick").value);
    $("se-pick").value = "";
    await loadEditors("scenario");
  }));
  $("ce-delete").addEventListener("click", run(async () => {
    if ($("ce-pick").value) await api.deleteCharacter($("ce-pick").value);
    $("ce-pick").value = "";
    await loadEditors("character");
  }));
}
