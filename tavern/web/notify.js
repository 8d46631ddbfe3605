// The toast: one line that says what happened (errors in red, confirmations in green),
// read out by screen readers (role=alert) and gone after a few seconds.

const $ = (id) => document.getElementById(id);
let timer = null;

/** Show `message`; `error` picks the colours. */
export function toast(message, { error = true } = {}) {
  const el = $("toast");
  el.textContent = message;
  el.classList.toggle("ok", !error);
  el.hidden = false;
  clearTimeout(timer);
  timer = setTimeout(() => { el.hidden = true; }, error ? 8000 : 3000);
}
