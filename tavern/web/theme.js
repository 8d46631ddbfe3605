// Light and dark themes. The page follows the system (`prefers-color-scheme`) until the
// toggle picks one; the choice lasts for this page only (nothing is kept in browser storage).

import { t } from "./i18n.js";

const MODES = ["auto", "light", "dark"];
let mode = "auto";

function apply() {
  if (mode === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = mode;
  const button = document.getElementById("theme-toggle");
  button.setAttribute("aria-label", t(`theme.${mode}`));
  button.title = t(`theme.${mode}`);
  button.textContent = mode === "light" ? "☀" : mode === "dark" ? "☾" : "◐";
}

/** Wire the toggle: auto, then light, then dark. */
export function wireTheme() {
  document.getElementById("theme-toggle").addEventListener("click", () => {
    mode = MODES[(MODES.indexOf(mode) + 1) % MODES.length];
    apply();
  });
  apply();
}

/** Re-label the toggle after a language change. */
export function relabelTheme() {
  apply();
}
