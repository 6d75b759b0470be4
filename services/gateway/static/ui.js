import { t } from "./i18n.js";

// Shared page services: navigation without reload, screen-reader announcements, toasts.
let renderHook = () => {};
/** app.js registers its router here (kept apart so page modules do not import app.js). */
export function setRenderer(fn) { renderHook = fn; }

/** Go to an internal path without reloading the page. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  renderHook();
}

/** Polite announcement for screen readers (turns, tricks, results).  Each message is a new
 *  line appended to the live region (aria-relevant="additions"), so a message is never cut off by
 *  the next one and a repeated message is read again; only the last few lines are kept. */
const KEEP_ANNOUNCED = 4;
export function announce(text) {
  const el = document.getElementById("announce");
  if (!el || !text) return;
  const line = document.createElement("p");
  line.textContent = text;
  el.append(line);
  while (el.childElementCount > KEEP_ANNOUNCED) el.firstElementChild.remove();
}

let toastTimer = null;
/** A visible message that is also read out politely (errors, "link copied"). */
export function toast(text, ms = 4500) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.classList.remove("show"); el.textContent = ""; }, ms);
}

/** Copy text to the clipboard (falls back to selecting a hidden field). */
export async function copyText(text) {
  try { await navigator.clipboard.writeText(text); return true; } catch { /* fall back */ }
  const ta = document.createElement("textarea");
  ta.value = text; ta.setAttribute("readonly", ""); ta.style.position = "fixed"; ta.style.opacity = "0";
  document.body.append(ta); ta.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch { ok = false; }
  ta.remove();
  return ok;
}

/** A translated message for an API error (falls back to the server's own message). */
export function errorText(e) {
  // a limit that lasts (the create window, the bots-only matches): say for how long
  if (e.code === "rate_limited" && e.retryAfter > 30) return t("error.rate_limited_minutes", { n: Math.ceil(e.retryAfter / 60) });
  const key = `error.${e.code}`;
  const s = t(key);
  return s === key ? (e.message || e.code) : s;
}
