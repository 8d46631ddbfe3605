// The editors view: a scenario form and a character form over the library API. Built-ins
// load as a starting point and are saved under a new id (the server refuses to overwrite).

import { api } from "./api.js";
import { applyLanguage, t } from "./i18n.js";
import { option } from "./fields.js";
import { checkedScenario, renderScenario } from "./scenario-editor.js";
import { checkedCharacter, renderCharacter } from "./character-editor.js";

const $ = (id) => document.getElementById(id);
let characters = [];

const EMPTY_SCENARIO = { id: "", title: "", world: "", cast: {}, default_controlled_slot: "C1", scene: { location: "" } };
const EMPTY_CHARACTER = { id: "", body: {}, mind: {} };

function pick(select, entries, key) {
  const chosen = select.value;
  select.replaceChildren(option("", t("editor.new")), ...entries.map((e) => option(e[key].id, `${e[key].id}${e.builtin ? " ★" : ""}`)));
  select.value = entries.some((e) => e[key].id === chosen) ? chosen : "";
  return new Map(entries.map((e) => [e[key].id, { ...e[key], builtin: e.builtin }]));
}

/** Load both pickers and forms from the library. */
export async function loadEditors() {
  const [sc, ch] = await Promise.all([api.scenarios(), api.characters()]);
  const scenarios = pick($("se-pick"), sc.data, "scenario");
  const byId = pick($("ce-pick"), ch.data, "character");
  characters = ch.data.map((e) => ({ id: e.character.id, name: e.character.body.display_name }));
  renderScenario(scenarios.get($("se-pick").value) ?? EMPTY_SCENARIO, characters);
  renderCharacter(byId.get($("ce-pick").value) ?? EMPTY_CHARACTER);
  applyLanguage(document.documentElement.lang);
}

export function wireEditors({ onError, onSaved }) {
  const run = (fn) => () => fn().catch(onError);
  $("se-pick").addEventListener("change", run(loadEditors));
  $("ce-pick").addEventListener("change", run(loadEditors));
  $("se-save").addEventListener("click", run(async () => {
    const scenario = checkedScenario();
    if (!scenario) {
      onError(t("editor.fix_first"));
      return;
    }
    const saved = await api.saveScenario(scenario);
    $("se-pick").value = "";
    await loadEditors();
    $("se-pick").value = saved.scenario.id;
    await loadEditors();
    onSaved(t("editor.saved"));
  }));
  $("ce-save").addEventListener("click", run(async () => {
    const character = checkedCharacter();
    if (!character) {
      onError(t("editor.fix_first"));
      return;
    }
    const saved = await api.saveCharacter(character);
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
