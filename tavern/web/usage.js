// The footers: per turn (tokens, cache hit share, latency, cost when the provider has a
// price) and the session's total, from `GET /sessions/{id}/usage`, which reads the journal.

import { api } from "./api.js";
import { number, t } from "./i18n.js";
import { separatorOf } from "./transcript.js";

/** One line of figures in the interface language. */
export function describeUsage(figures, { latency = null, runs = 1, calls = false } = {}) {
  const parts = [];
  if (calls) parts.push(t("usage.calls", { n: number(figures.calls) }));
  const tokens = number(figures.prompt_tokens + figures.completion_tokens);
  parts.push(t(figures.estimated ? "usage.estimated" : "usage.tokens", { n: tokens }));
  if (figures.cache_hit_share !== null) parts.push(t("usage.cache", { p: number(figures.cache_hit_share * 100) }));
  if (latency !== null) parts.push(t("usage.latency", { s: number(latency / 1000, 1) }));
  if (figures.cost_usd !== null) parts.push(t("usage.cost", { c: number(figures.cost_usd, 4) }));
  if (runs > 1) parts.push(t("usage.runs", { n: runs }));
  return parts.join(" · ");
}

/** Fetch the session's usage and fill every shown turn's footer and the session total. */
export async function refreshUsage(sessionId, list, total, isOpen) {
  let usage;
  try {
    usage = await api.usage(sessionId);
  } catch (_) {
    return; // footers are a courtesy: a failed read leaves them as they were
  }
  if (!isOpen(sessionId)) return;
  for (const turn of usage.turns) {
    const sep = separatorOf(list, turn.turn_number);
    if (sep) sep.querySelector(".usage").textContent = describeUsage(turn, { latency: turn.latency_ms, runs: turn.runs });
  }
  total.textContent = usage.total.calls ? `${t("play.session_usage")}: ${describeUsage(usage.total, { calls: true })}` : "";
}
