// "How to play" (/how-to-play[?match=id]): the standard rules from rules.md in the chosen
// language (static/howto/<lang>.json), the games for two and three players (a section each, from
// docs/rules-decisions.md), the house rules of the room you came from, and the worked examples of
// rules.md drawn with real cards.
import { api, gameOf } from "./api.js";
import { h, fill, fillAfter, cardImage, suitBadge } from "./cards.js";
import { t, lang, spellCards } from "./i18n.js";

// The worked examples of rules.md (the cards are the same in every language; texts are not).
const EXAMPLES = [
  { id: "trump_wins", trump: "H", plays: [["A", "KC"], ["B", "3C"], ["C", "2H"], ["D", "AC"]], winner: "C" },
  { id: "spade_ruff", trump: "S", plays: [["A", "5H"], ["B", "7S"], ["C", "JH"], ["D", "AH"]], winner: "B" },
  { id: "hakem_five", trump: "H", five: ["AH", "QH", "9H", "KC", "4D"] },
  { id: "scoring_001" },
  { id: "scoring_003" },
];
const FLAGS = ["target", "deal", "teams", "must_trump", "satat", "bavney", "double_sar"];
const STANDARD = { target: 7, deal: "5-4-4", teams: "ace_draw", must_trump: false, satat: false, bavney: false, double_sar: false };
// the two- and three-player games fix their deal ("talon", "5-4-4-4") and have no teams
const STANDARD_DEAL = { four: "5-4-4", simple: "5-4-4", talon: "talon", three: "5-4-4-4" };

const cache = new Map();
function content(code) {
  if (!cache.has(code)) {
    cache.set(code, fetch(`/static/howto/${code}.json`).then((r) => {
      if (!r.ok) throw new Error(`howto ${code}: ${r.status}`);
      return r.json();
    }));
  }
  return cache.get(code);
}

function para(text) { return h("p", { text: spellCards(text) }); }

function example(ex, c) {
  const txt = (c.examples || {})[ex.id] || {};
  const parts = [h("h3", { text: txt.title || ex.id })];
  if (ex.trump) parts.push(h("p", {}, h("strong", { text: t("table.trump") + ": " }), suitBadge(ex.trump)));
  if (ex.five) {
    parts.push(h("ul.ex-trick", { "aria-label": txt.cards_label || t("howto.hakem_five") },
      ...ex.five.map((card) => h("li", {}, cardImage(card)))));
  }
  if (ex.plays) {
    parts.push(h("ol.ex-trick", { "aria-label": t("table.trick") }, ...ex.plays.map(([who, card]) =>
      h("li", { class: who === ex.winner ? "winner" : "" }, cardImage(card),
        h("span", { text: t("howto.player", { p: who }) + (who === ex.winner ? " ★" : "") })))));
  }
  for (const p of txt.text || []) parts.push(para(p));
  if (txt.steps) parts.push(h("ol", {}, ...txt.steps.map((s) => h("li", { text: spellCards(s) }))));
  return h("article.example", { "aria-labelledby": `ex-${ex.id}` }, ...parts.map((p, i) => (i === 0 ? Object.assign(p, { id: `ex-${ex.id}` }) : p)));
}

function ruleValue(name, rules) {
  const v = rules[name];
  if (name === "target") return t(`rules.target_${v}`);
  if (name === "teams") return t(`rules.teams_${v}`);
  if (name === "deal") return String(v);
  return v ? t("howto.on") : t("howto.off");
}

export function mount(root) {
  document.title = `${t("brand")} — ${t("nav.howto")}`;
  const matchId = new URLSearchParams(location.search).get("match");
  let alive = true;
  const heading = h("h1", { id: "howto-h", text: t("nav.howto") });
  const page = h("article.page.howto", { "aria-labelledby": "howto-h" }, heading);
  root.append(page);
  const roomBox = h("section.room-rules", { hidden: true, "aria-labelledby": "room-rules-h" });

  async function build() {
    const code = lang();
    let c;
    try { c = await content(code); } catch { c = await content("en"); }
    if (!alive) return;
    heading.textContent = c.title || t("nav.howto"); // kept, not rebuilt: it may have the focus
    const out = [];
    if (c.intro) out.push(h("p.lead", { text: c.intro }));
    if (matchId) out.push(roomBox);
    const toc = h("nav", { "aria-label": t("howto.contents") }, h("ul", {},
      ...(c.sections || []).map((s, i) => h("li", {}, h("a", { href: `#sec-${i}`, text: s.h }))),
      c.variants ? h("li", {}, h("a", { href: "#variants", text: c.variants.title })) : null,
      h("li", {}, h("a", { href: "#examples", text: c.examples_title })),
      h("li", {}, h("a", { href: "#house", text: c.house_title }))));
    out.push(toc);
    (c.sections || []).forEach((s, i) => {
      out.push(h("section", { "aria-labelledby": `sec-${i}` }, h("h2", { id: `sec-${i}`, text: s.h }),
        ...(s.p || []).map(para), s.list ? h("ul", {}, ...s.list.map((x) => h("li", { text: spellCards(x) }))) : null,
        s.table ? h("table", {}, h("tbody", {}, ...s.table.map((row) => h("tr", {}, ...row.map((cell, j) => h(j ? "td" : "th", { text: cell })))))) : null));
    });
    if (c.variants) {
      const V = c.variants;
      out.push(h("section", { "aria-labelledby": "variants" }, h("h2", { id: "variants", text: V.title }),
        V.intro ? para(V.intro) : null,
        ...(V.games || []).map((g) => h("section.variant", { "aria-labelledby": `variant-${g.id}` },
          h("h3", { id: `variant-${g.id}`, text: g.h }), ...(g.p || []).map(para),
          g.list ? h("ul", {}, ...g.list.map((x) => h("li", { text: spellCards(x) }))) : null))));
    }
    out.push(h("section", { "aria-labelledby": "examples" }, h("h2", { id: "examples", text: c.examples_title }),
      ...EXAMPLES.map((ex) => example(ex, c))));
    out.push(h("section", { "aria-labelledby": "house" }, h("h2", { id: "house", text: c.house_title }),
      c.house_intro ? h("p", { text: c.house_intro }) : null,
      h("dl", {}, ...FLAGS.flatMap((f) => [h("dt", {}, h("strong", { text: t(`rules.${f}`) })), h("dd", { text: t(`rules.${f}_desc`) })]))));
    out.push(h("p", {}, h("a", { href: matchId ? `/m/${matchId}` : "/", "data-link": true, text: matchId ? t("howto.back_table") : t("table.home") })));
    fillAfter(heading, out);
    if (matchId) loadRoom();
  }

  function loadRoom() {
    api.summary(matchId).then((s) => {
      if (!alive) return;
      const rules = s.rules || {};
      const game = gameOf(rules);
      const standard = { ...STANDARD, deal: STANDARD_DEAL[game] };
      const shown = FLAGS.filter((f) => rules[f] !== undefined && !(f === "deal" && game === "talon"));
      const changed = shown.filter((f) => String(rules[f]) !== String(standard[f]));
      fill(roomBox, h("h2", { id: "room-rules-h", text: t("howto.room_rules") }),
        // a room for two or three points to its game's section
        game !== "four" ? h("p", {}, h("strong", { text: t("start.game") + ": " }),
          h("a", { href: `#variant-${game}`, text: t(`game.${game}`) })) : null,
        h("p", { text: changed.length ? t("howto.room_changed") : t("howto.room_standard") }),
        h("dl", {}, ...shown.flatMap((f) => [
          h("dt", {}, h("strong", { text: t(`rules.${f}`) + ": " }), ruleValue(f, rules), changed.includes(f) ? h("span.badge.hakem", { text: " " + t("howto.house_rule") }) : null),
          h("dd", { text: t(`rules.${f}_desc`) })])));
      roomBox.hidden = false;
    }).catch(() => { /* no room to show */ });
  }

  build();
  return { unmount() { alive = false; }, relabel() { document.title = `${t("brand")} — ${t("nav.howto")}`; build(); } };
}
