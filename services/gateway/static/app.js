// The router of the single-page client: `/`, `/m/{id}`, `/replay/{id}`, `/how-to-play`.
// Each page module exports mount(root, params) -> {unmount(), relabel?()}.
import { LANGS, preferredLang, setLang, t, lang } from "./i18n.js";
import { h } from "./cards.js";
import { focusPage, navigate, setRenderer, stopFocusFollowing } from "./ui.js";

const routes = [
  [/^\/$/, () => import("./start.js")],
  [/^\/m\/([\w-]+)\/?$/, () => import("./table.js")],
  [/^\/replay\/([\w-]+)\/?$/, () => import("./replay.js")],
  [/^\/how-to-play\/?$/, () => import("./howto.js")],
];

const root = document.getElementById("app");
let page = null;
let seq = 0;

function chrome() {
  document.getElementById("skip-link").textContent = t("skip_to_content");
  document.getElementById("nav-howto").textContent = t("nav.howto");
  document.getElementById("brand-name").textContent = t("brand");
  document.getElementById("brand-link").setAttribute("aria-label", t("nav.home"));
  document.getElementById("lang-label").textContent = t("nav.language");
  document.getElementById("main-nav").setAttribute("aria-label", t("nav.main"));
  const dismiss = document.getElementById("toast-close");
  dismiss.setAttribute("aria-label", t("toast.dismiss"));
  dismiss.title = t("toast.dismiss");
  const sel = document.getElementById("lang-select");
  if (!sel.options.length) {
    for (const l of LANGS) sel.append(h("option", { value: l.code, lang: l.code, text: l.name }));
    const apply = async () => {
      if (sel.value === lang()) return;
      await setLang(sel.value, true);
      chrome();
      if (page && page.relabel) page.relabel();
      else render();
    };
    // WCAG 3.2.2: the arrow keys (and typing a letter) on the closed list only move the choice;
    // it is applied with Enter or on leaving the list.  A pick with the mouse, or from the
    // opened list, applies at once (its change event follows no such key).
    let browsing = false;
    sel.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && sel.value !== lang()) { ev.preventDefault(); apply(); return; }
      browsing = !ev.altKey && (/^(Arrow|Home$|End$|Page)/.test(ev.key) || (ev.key.length === 1 && ev.key !== " "));
      setTimeout(() => { browsing = false; }, 0); // the change a key makes fires before this
    });
    sel.addEventListener("change", () => { if (!browsing) apply(); });
    sel.addEventListener("blur", apply);
  }
  sel.value = lang();
  // keep ?match= on the how-to link when at a table, so it can show that room's house rules
  const m = location.pathname.match(/^\/(?:m|replay)\/([\w-]+)/);
  document.getElementById("nav-howto").href = m ? `/how-to-play?match=${m[1]}` : "/how-to-play";
}

async function render(moved = false) {
  const my = ++seq;
  stopFocusFollowing(); // the page that follows is this navigation's to focus (focusPage), once
  if (page) { try { page.unmount(); } catch (e) { console.warn(e); } page = null; }
  chrome();
  const path = location.pathname;
  lastPath = location.pathname + location.search;
  let found = null;
  for (const [re, loader] of routes) {
    const m = path.match(re);
    if (m) { found = [loader, m.slice(1)]; break; }
  }
  root.replaceChildren();
  if (!found) {
    document.title = t("brand");
    root.append(h("section.page.narrow", {}, h("h1", { text: t("notfound.title") }),
      h("p", {}, h("a", { href: "/", "data-link": true, text: t("notfound.home") }))));
    if (moved) focusPage();
    return;
  }
  const mod = await found[0]();
  if (my !== seq) return; // a newer navigation won
  page = mod.mount(root, found[1]) || null;
  if (moved) focusPage();
}

// internal links: <a data-link> navigate without reloading
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-link]");
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  ev.preventDefault();
  navigate(url.pathname + url.search);
});
let lastPath = null;
// a click on an in-page anchor (#section) also fires popstate: only re-render for a new page
window.addEventListener("popstate", () => { if (location.pathname + location.search !== lastPath) render(true); });

setRenderer(() => render(true), (path) => { lastPath = path; }); // (replacePath: no new page)
await setLang(preferredLang());
render();
