// Translations: one JSON file per language in /static/i18n/<lang>.json (same keys in each).
// English is always loaded too and fills any key a language lacks.

export const LANGS = [
  { code: "en", name: "English", dir: "ltr" },
  { code: "fa", name: "فارسی", dir: "rtl" },
  { code: "de", name: "Deutsch", dir: "ltr" },
  { code: "sv", name: "Svenska", dir: "ltr" },
  { code: "nl", name: "Nederlands", dir: "ltr" },
  { code: "es", name: "Español", dir: "ltr" },
];
const KEY = "hokm.lang";
const cache = new Map();
let strings = {};
let fallback = {};
let current = "en";

async function load(code) {
  if (!cache.has(code)) {
    cache.set(code, fetch(`/static/i18n/${code}.json`).then((r) => {
      if (!r.ok) throw new Error(`i18n ${code}: ${r.status}`);
      return r.json();
    }));
  }
  return cache.get(code);
}

/** The stored choice, else the first of the browser's languages we have, else English. */
export function preferredLang() {
  const saved = safeGet(KEY);
  if (saved && LANGS.some((l) => l.code === saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGS.some((l) => l.code === base)) return base;
  }
  return "en";
}

export async function setLang(code, remember = false) {
  if (!LANGS.some((l) => l.code === code)) code = "en";
  fallback = await load("en");
  strings = code === "en" ? fallback : await load(code).catch(() => fallback);
  current = code;
  if (remember) safeSet(KEY, code);
  const meta = LANGS.find((l) => l.code === code);
  document.documentElement.lang = code;
  document.documentElement.dir = meta.dir;
}

export const lang = () => current;
export const isRtl = () => LANGS.find((l) => l.code === current)?.dir === "rtl";

const formats = new Map();
/** A number in the page language's digits (Persian "۱۲", as the fixed texts of fa.json write
 *  them), without grouping: the numbers shown are seats, steps, rounds and scores, and a step
 *  of 1234 reads better whole.  Anything but a finite number is shown as it is. */
export function num(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return String(n);
  if (!formats.has(current)) formats.set(current, new Intl.NumberFormat(current, { useGrouping: false }));
  return formats.get(current).format(n);
}
/** Numbers joined ("7–1", a score; "5-4-4", a deal) in the page language's digits. */
export const nums = (list, sep = "–") => list.map((x) => num(Number(x))).join(sep);

/** The separator of a list's items where the language has its own comma (Persian "،"). */
const LIST_SEP = { fa: "، " };
/** Items joined as a list of the page's language ("a, b"; in Persian "a، b").  No "and": the
 *  lists shown are choices and facts side by side, not a conjunction. */
export const listOf = (items) => items.join(LIST_SEP[current] ?? ", ");

/** Letters written right to left (Hebrew, Arabic, Syriac, Thaana, N'Ko... and their
 *  presentation forms). */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** `label` (a name, a pair of names) as a first-strong isolate where its direction may differ
 *  from the page's, so that the number after it stays after it: in a left-to-right page
 *  "علی 3 · Roxana 2" was drawn "3 علی · Roxana 2" (the digits after right-to-left letters
 *  join their run), and a name ending in digits, "دارا 7", swapped them with the score ("0 7
 *  دارا").  Unchanged where it cannot differ (a Latin name in a left-to-right page). */
export const isolated = (label) => (document.documentElement.dir === "rtl" || RTL.test(label)
  ? `\u2068${label}\u2069` : label);

/** Whether `{k}` of the text `key` names a player or a side (their names, "You"): a name,
 *  or a pair of them ("team.pair"'s two). */
const names = (key, k) => k === "name" || k === "team" || (key === "team.pair" && (k === "a" || k === "b"));

/** t("key", {name: "Ali"}) -> the string with {name} replaced (a number in the language's
 *  digits; a name isolated, `isolated`: "علی plays the 7♠" keeps its order in any page); the
 *  key itself if missing. */
export function t(key, vars) {
  let s = strings[key] ?? fallback[key] ?? key;
  if (vars) {
    s = s.replace(/\{(\w+)\}/g, (m, k) => (!(k in vars) ? m
      : names(key, k) && typeof vars[k] === "string" ? isolated(vars[k]) : num(vars[k])));
  }
  return s;
}

/** A bot's name as the page's language writes it ("Dara" is "دارا" in Persian: `bot.<name>`
 *  of the language file; services/lobby.py BOT_NAMES and BOT_NAMES_FA).  The server names its
 *  bots in Latin letters, a label of the table that each page may write in its own script;
 *  a player's own name is never changed. */
export const botName = (name) => strings[`bot.${name}`] ?? name;

/** `data` (an API answer or a socket frame) with every bot's name as the page writes it
 *  (`botName`): each object with a bot's level (`bot`, a string) and a `name` (a view's or a
 *  summary's seats, an analysis's players and movers, a `seat_taken` event), and the name of
 *  a `seat_renamed` event (always a bot's).  Changed in place; returned. */
export function withBotNames(data) {
  if (current === "en" || data == null || typeof data !== "object") return data;
  const walk = (x, depth) => {
    if (depth > 8 || x == null || typeof x !== "object") return;
    if (Array.isArray(x)) { for (const y of x) walk(y, depth + 1); return; }
    if (typeof x.name === "string" && (typeof x.bot === "string" || x.type === "seat_renamed")) x.name = botName(x.name);
    for (const k in x) if (x[k] && typeof x[k] === "object") walk(x[k], depth + 1);
  };
  walk(data, 0);
  return data;
}

export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const suitName = (s) => t(`suit.${s}`);
export const rankName = (r) => t(`rank.${r}`);
/** "QH" -> "Queen of hearts" in the current language. */
export function cardName(card) {
  return capitalize(cardWords(card));
}
/** "QH" -> the card's name as it reads inside a sentence (not capitalized: "harten vrouw"). */
export const cardWords = (card) => t("card_name", { rank: rankName(card[0]), suit: suitName(card[1]) });

/** A hint's reason in the page's language: `hint.reason.<reason_code>` filled with the
 *  answer's `reason_args` (cards and suits named in the language, numbers in its digits, a
 *  list of cards joined as its lists are), the sentence capitalized; the answer's English
 *  `reason` when there is no code (an older server) or the code is one this page does not know
 *  (a newer server).  docs/api.md lists the codes and their arguments. */
export function hintReason(data) {
  const code = data && data.reason_code;
  const key = `hint.reason.${code}`;
  if (typeof code !== "string" || !(key in strings || key in fallback)) return (data && data.reason) || "";
  const vars = {};
  for (const [name, value] of Object.entries(data.reason_args || {})) {
    if (Array.isArray(value)) vars[name] = listOf(value.map((c) => cardWords(String(c))));
    else if (typeof value === "number") vars[name] = value;
    else if (name === "suit" || name === "led") vars[name] = suitName(String(value));
    else if (name === "card") vars[name] = cardWords(String(value));
    else vars[name] = String(value);
  }
  return capitalize(t(key, vars));
}
export const capitalize = (s) => (s ? s[0].toLocaleUpperCase(current) + s.slice(1) : s);

/** Text with {card:QH} / {suit:H} markers spelled out (used in how-to texts). */
export function spellCards(text) {
  return text.replace(/\{card:(\w\w)\}/g, (m, c) => cardName(c))
    .replace(/\{suit:(\w)\}/g, (m, s) => suitName(s));
}

export function safeGet(k) {
  try { return localStorage.getItem(k); } catch { return null; }
}
export function safeSet(k, v) {
  try { localStorage.setItem(k, v); } catch { /* storage unavailable: nothing to remember */ }
}
export function safeDel(k) {
  try { localStorage.removeItem(k); } catch { /* ignore */ }
}
