// The gear: provider, model, endpoint, key, and the language (interface and story together).
// The key input is write-only: the server never sends a key back, only whether one is set.
// Enter in any field saves (the form's submit); Cancel closes without saving.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { describeError } from "./errors.js";

const $ = (id) => document.getElementById(id);
let config = null;

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

function showProvider(name) {
  const spec = config.catalogue.find((p) => p.name === name) ?? {};
  const settings = config.providers[name] ?? {};
  $("s-provider-desc").textContent = spec.description ?? "";
  $("s-model").value = settings.model ?? "";
  $("s-model").placeholder = spec.default_model ?? "";
  $("s-api-base").value = settings.api_base ?? "";
  $("s-api-base").placeholder = spec.default_api_base ?? "";
  $("s-api-key").value = "";
  $("s-api-key").closest("label").hidden = !spec.requires_key;
  $("s-key-state").hidden = !spec.requires_key;
  $("s-key-state").textContent = settings.api_key_configured ? t("setup.key_set") : t("setup.key_unset");
}

/** The active config (redacted), fetched once and kept fresh by saves. */
export async function loadConfig() {
  config = await api.config();
  return config;
}

/** Save a config change and return the new (redacted) config. */
export async function saveConfig(update) {
  config = await api.saveConfig(update);
  return config;
}

/** Wire the dialog; `onSaved(config)` applies the new language. */
export function wireSetup(onSaved, onError) {
  const dialog = $("setup");
  $("setup-open").addEventListener("click", async () => {
    try {
      await loadConfig();
    } catch (error) {
      onError(describeError(error));
      return;
    }
    $("s-language").value = config.language;
    $("s-provider").replaceChildren(...config.catalogue.map((p) => option(p.name, p.name)));
    $("s-provider").value = config.active_provider;
    $("s-error").hidden = true;
    showProvider(config.active_provider);
    dialog.showModal();
  });
  $("s-provider").addEventListener("change", () => showProvider($("s-provider").value));
  $("s-cancel").addEventListener("click", () => dialog.close());
  $("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const update = {
      active_provider: $("s-provider").value,
      language: $("s-language").value,
      model: $("s-model").value,
      api_base: $("s-api-base").value,
    };
    if ($("s-api-key").value.trim()) update.api_key = $("s-api-key").value;
    $("s-save").disabled = true;
    try {
      const saved = await saveConfig(update);
      $("s-api-key").value = "";
      dialog.close();
      onSaved(saved);
    } catch (error) {
      $("s-error").textContent = describeError(error);
      $("s-error").hidden = false;
    } finally {
      $("s-save").disabled = false;
    }
  });
}
