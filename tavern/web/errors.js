// Errors in plain words: what the user reads when a request fails. Server text reaches the
// screen only as the detail of a refusal the server words for people (a 409 or a 422 of
// our own); validation items, status lines and patterns never do.

import { ApiError } from "./api.js";
import { has, t } from "./i18n.js";

/** The interface's label of a request field (`speech`, `model`, `id`, ...). */
export function fieldLabel(name) {
  for (const key of [`field.${name}`, `composer.${name}`, `setup.${name}`]) {
    if (has(key)) return t(key);
  }
  return t("field.this");
}

function fromValidation(item) {
  const loc = (item.loc ?? []).filter((p) => p !== "body" && p !== "input" && p !== "query" && p !== "path");
  const field = fieldLabel(String(loc[loc.length - 1] ?? ""));
  const n = item.limit;
  switch (item.type) {
    case "string_too_long":
    case "too_long":
      return t("error.too_long", { field, n });
    case "string_too_short":
    case "too_short":
      return n === 1 ? t("error.required", { field }) : t("error.too_short", { field, n });
    case "missing":
      return t("error.required", { field });
    case "string_pattern_mismatch":
      return t("error.pattern", { field });
    case "value_error":
      if (/empty turn/.test(item.msg ?? "")) return t("error.empty_turn");
      if (/whisper/.test(item.msg ?? "")) return t("error.whisper_speech");
      return t("error.invalid", { field });
    default:
      return t("error.invalid", { field });
  }
}

/** A sentence for the user about `error`, in the interface language. */
export function describeError(error) {
  if (!(error instanceof ApiError)) return t("error.unexpected", { detail: String(error?.message ?? error) });
  const { status } = error;
  if (status === 0) return t("error.network");
  if (status === 422 && error.errors.length) return fromValidation(error.errors[0]);
  if (status === 422) return t("error.refused_detail", { detail: error.detail });
  if (status === 409) return t("error.conflict", { detail: error.detail });
  if (status === 404) return t("error.not_found");
  if (status === 502) return t("error.model");
  if (status === 503 || status === 504) return t("error.unavailable");
  if (status >= 500) return t("error.server");
  return t("error.refused");
}

/** Whether `error` says the session moved on since the view was loaded (another tab). */
export function isStale(error) {
  return error instanceof ApiError && error.status === 409 && /changed since this view was loaded/.test(error.detail ?? "");
}
