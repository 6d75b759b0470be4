import { t } from "./i18n.js";

// Shared page services: navigation without reload, screen-reader announcements, toasts.
let renderHook = () => {};
let pathHook = () => {};
/** app.js registers its router here (kept apart so page modules do not import app.js), and
 *  what it does when a page changes its own address (`replacePath`). */
export function setRenderer(fn, onPath = () => {}) { renderHook = fn; pathHook = onPath; }

/** The page's address becomes `path` (the same page: nothing is built anew), in place of the
 *  current entry of the history, so a reload or the address kept opens the page as it is now. */
export function replacePath(path) {
  history.replaceState(history.state, "", path);
  pathHook(location.pathname + location.search);
}

/** Go to an internal path without reloading the page. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  renderHook();
}

/** WCAG 2.4.3: after a navigation in the page the focus goes to the new page's <h1> (or <main>),
 *  not to <body>.  A page may build or rebuild its heading after loading: until the user acts
 *  (or 10 s), focus found on <body> goes to the page's current heading again.  That following
 *  ends as soon as the next navigation starts (app.js `render` calls `stopFocusFollowing`): else
 *  the old page's leaving emptied <main> and it put the focus there, before the new page's heading took it (a second move a
 *  screen reader reads, on Back or a link activated without a key or a pointer press).  A page
 *  swapped in place of another without a navigation (the join page's table) calls it too. */
let stopFollowing = () => {};
export function stopFocusFollowing() { stopFollowing(); }
export function focusPage() {
  const root = document.getElementById("app");
  stopFollowing();
  const land = () => {
    const h1 = root.querySelector("h1");
    if (h1 && !h1.hasAttribute("tabindex")) h1.tabIndex = -1;
    (h1 || root).focus({ preventScroll: true });
  };
  land();
  const lost = () => { const ae = document.activeElement; if (!ae || ae === document.body) land(); };
  const watch = new MutationObserver(lost);
  watch.observe(root, { childList: true, subtree: true });
  const timer = setTimeout(() => stopFollowing(), 10_000);
  const acted = () => stopFollowing();
  for (const ev of ["keydown", "pointerdown"]) document.addEventListener(ev, acted, true);
  stopFollowing = () => {
    watch.disconnect(); clearTimeout(timer); stopFollowing = () => {};
    for (const ev of ["keydown", "pointerdown"]) document.removeEventListener(ev, acted, true);
  };
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

/** How long a toast stays (WCAG 2.2.1): at least TOAST_MIN_MS, and a reading time for longer
 *  ones (TOAST_READ_MS + TOAST_MS_PER_CHAR a character); it waits while the pointer is on its
 *  dismiss button or the keyboard focus is in it, and goes at once with that button or Escape
 *  (WCAG 1.4.13: dismissable without moving the pointer or the focus). */
export const TOAST_MIN_MS = 8000;
const TOAST_READ_MS = 3000;
const TOAST_MS_PER_CHAR = 70;
let toastTimer = null;
let toastMs = 0;
let focusBefore = null; // where the keyboard focus was before it entered the toast
const toastParts = () => ({
  box: document.getElementById("toast-box"),
  text: document.getElementById("toast"),
  close: document.getElementById("toast-close"),
});

let toastAvoid = null; // () => { keep, under } (setToastAvoid), or null

/** A page names what the toast keeps off: `fn()` gives `keep`, the elements it never lies over
 *  (table.js: the player's hand and the choices beside it), and `under`, an element it stays
 *  below when it goes to the top (the status line with the countdown); null: none. */
export function setToastAvoid(fn) {
  toastAvoid = fn;
  placeToast();
}

/** While a toast shows and a page named elements to keep off (setToastAvoid): the toast goes
 *  to the edge of the screen with more room beside them (above: the top, under `under` while
 *  that is in sight; below: the bottom), its height held to that room, so it never lies over
 *  them however the page is scrolled (style.css, .toast.at-top / .at-bottom).  Otherwise the
 *  stylesheet's place. */
export function placeToast() {
  const { box } = toastParts();
  if (!box) return;
  box.classList.remove("at-top", "at-bottom");
  box.style.maxHeight = box.style.top = "";
  const { keep = [], under = null } = (toastAvoid && box.classList.contains("show") && toastAvoid()) || {};
  const rects = keep.filter((e) => e && !e.hidden).map((e) => e.getBoundingClientRect()).filter((r) => r.height);
  if (!rects.length) return;
  const r = { top: Math.min(...rects.map((x) => x.top)), bottom: Math.max(...rects.map((x) => x.bottom)) };
  if (r.bottom <= 0 || r.top >= innerHeight) return; // none of them in sight
  const above = r.top, below = innerHeight - r.bottom;
  const top = above >= below;
  box.classList.add(top ? "at-top" : "at-bottom");
  const cs = getComputedStyle(box);
  let edge = parseFloat(top ? cs.top : cs.bottom);
  if (top && under) {
    const u = under.getBoundingClientRect();
    if (u.height && u.bottom > 0 && u.bottom + TOAST_GAP_PX > edge && u.bottom < r.top) {
      edge = Math.ceil(u.bottom + TOAST_GAP_PX);
      box.style.top = `${edge}px`;
    }
  }
  box.style.maxHeight = `${Math.max(0, Math.floor((top ? above : below) - edge) - TOAST_GAP_PX)}px`;
}
const TOAST_GAP_PX = 8; // between the toast and the element it keeps off

/** A visible message that is also read out politely (errors, "link copied"): the text of the
 *  live region #toast is the message alone, as it always was. */
export function toast(text, ms = TOAST_MIN_MS) {
  const { box, text: el, close } = toastParts();
  if (!el) return;
  wireToast();
  el.textContent = text;
  for (const e of [box, el]) e?.classList.add("show");
  if (close) close.hidden = false;
  placeToast();
  toastMs = Math.max(ms, TOAST_MIN_MS, TOAST_READ_MS + TOAST_MS_PER_CHAR * String(text).length);
  armToast();
}

/** (Re)start the toast's time, unless the pointer is on its button or the focus in it. */
function armToast() {
  const { box, close } = toastParts();
  clearTimeout(toastTimer);
  toastTimer = null;
  if (!box?.classList.contains("show") || box.matches(":focus-within") || close?.matches(":hover")) return;
  toastTimer = setTimeout(dismissToast, toastMs);
}

/** Hide the toast now (its dismiss button, Escape, or its time is up).  The keyboard focus,
 *  if it was on the button, goes back where it was before (else to the page's <main>). */
export function dismissToast() {
  const { box, text: el, close } = toastParts();
  clearTimeout(toastTimer);
  toastTimer = null;
  if (!el || !el.classList.contains("show")) return;
  const hadFocus = close && document.activeElement === close;
  for (const e of [box, el]) e?.classList.remove("show");
  el.textContent = "";
  if (close) close.hidden = true;
  if (hadFocus) {
    const back = focusBefore && focusBefore.isConnected && !focusBefore.disabled ? focusBefore
      : document.getElementById("app");
    back?.focus({ preventScroll: true });
  }
  focusBefore = null;
}

let toastWired = false;
function wireToast() {
  if (toastWired) return;
  const { box, close } = toastParts();
  if (!box || !close) return;
  toastWired = true;
  close.addEventListener("click", dismissToast);
  const later = () => setTimeout(armToast, 0); // (once :hover and :focus-within have moved)
  close.addEventListener("pointerenter", armToast);
  close.addEventListener("pointerleave", later);
  box.addEventListener("focusin", (ev) => {
    if (!box.contains(ev.relatedTarget)) focusBefore = ev.relatedTarget;
    armToast();
  });
  box.addEventListener("focusout", later);
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !ev.isComposing && box.classList.contains("show")) dismissToast();
  });
  // the element the toast keeps off moves on the screen with the page (placeToast)
  window.addEventListener("scroll", placeToast, { passive: true });
  window.addEventListener("resize", placeToast);
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
