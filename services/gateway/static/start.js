// The start page: your name, the game (four players, two simple, two with the talon, three),
// play solo (with a level), resume a solo match, create a room with house rules and a seat
// layout, join through an invite link, or go back to a recent match (its table, replay, analysis).
import { api, store, takeRematch, GAMES, MAX_NAME } from "./api.js";
import { h, fill } from "./cards.js";
import { t, num, nums, listOf, isolated } from "./i18n.js";
import { named, sidesOf } from "./sides.js";
import { announce, errorText, navigate, toast } from "./ui.js";

const LEVELS = ["easy", "medium", "hard", "expert"];
const GAME_KEYS = Object.keys(GAMES); // four (the default), simple, talon, three
const RECENT_SHOWN = 5; // of the matches the browser remembers, the latest shown (a summary each)
// While the page is in sight and a match listed is not over, its summaries are asked again
// (a match played in another tab or device moves on): first after RECENT_LOOK_MS, each look
// that finds nothing new waits twice as long, up to RECENT_LOOK_MAX_MS; a change, or the page
// back in sight, starts again from the shortest.  Nothing is asked while the page is hidden.
export const RECENT_LOOK_MS = 15000;
export const RECENT_LOOK_MAX_MS = 120000;
const RECENT_BACK_MS = 3000; // the page back in sight (or focused) asks at most this often

function field(id, label, control, hint) {
  control.id = id;
  // WCAG 1.3.1: the hint under a field is its accessible description
  if (hint) control.setAttribute("aria-describedby", `${id}-hint`);
  return h("div.field", {}, h("label", { for: id, text: label }), control,
    hint ? h("p.hint", { id: `${id}-hint`, text: hint }) : null);
}

/** "Your recent matches": the matches this browser took a seat in (`store.recent`), the latest
 *  first, each with its players, its score and where to go: back to the table while its seat
 *  is this browser's, else to watch it (a seat left, here or on the player's other device);
 *  its replay and its analysis once it is over.  A match the server no longer keeps (404) is
 *  forgotten with its token, and the next one remembered takes its place at once (the list a
 *  reload shows); the panel stays hidden while it lists nothing. */
function recentPanel() {
  const list = h("ol.recent-list", { id: "recent-list" });
  const panel = h("section.panel.recent", { "aria-labelledby": "recent-h", hidden: true },
    h("h2", { id: "recent-h", text: t("start.recent_title") }), list);
  let ids = []; // every match remembered: the first RECENT_SHOWN still kept are shown
  let items = new Map(); // id -> its <li>, once its summary came
  let before = new Map(); // the items of the list before a refresh, shown until theirs come
  let gone = new Set(); // ids the server no longer keeps
  const tokens = new Map(); // id -> the token its item was made with (its rematch button's)
  let asked = 0;
  let round = 0; // a refresh ignores the summaries asked before it
  const show = () => {
    const kept = ids.filter((id) => !gone.has(id)).slice(0, RECENT_SHOWN);
    fill(list, ...kept.map((id) => items.get(id) || before.get(id)).filter(Boolean));
    panel.hidden = !list.children.length;
  };
  // the summaries of the first RECENT_SHOWN not known gone; each one gone asks for the next
  const ask = () => { while (asked < ids.length && asked - gone.size < RECENT_SHOWN) load(ids[asked++]); };
  /** The list read again from the browser's storage and each summary asked anew. */
  let lastRefresh = 0;
  const refresh = () => {
    lastRefresh = Date.now();
    round++;
    ids = store.recent();
    before = new Map([...before, ...items]);
    items = new Map();
    gone = new Set();
    asked = 0;
    ask();
    show();
  };
  // One summary of a match asked at a time: a refresh while one is on its way takes its
  // answer (a match gone was asked twice, its 404 logged twice); one asked before the refresh
  // and found is asked again (it may predate what the other tab did).  A 404 is final.
  const asking = new Map(); // id -> { round, req }
  const summaryOf = (id) => {
    const mine = round;
    let a = asking.get(id);
    if (!a) {
      a = { round: mine, req: api.summary(id) };
      asking.set(id, a);
      const off = () => { if (asking.get(id) === a) asking.delete(id); };
      a.req.then(off, off); // (before the answer's readers: a summary asked again is new)
    }
    return a.req.then((s) => (a.round === mine ? s : summaryOf(id)));
  };
  const checks = new Map(); // `${id} ${token}` -> that token's check on its way (heldToken)
  function load(id) {
    const mine = round;
    summaryOf(id).then(async (s) => {
      const token = await heldToken(id, checks);
      if (mine !== round) return; // (a refresh asked again since)
      // an item unchanged stays the same element (the keyboard focus may be on its link)
      const li = recentItem(id, s, token), old = before.get(id);
      const same = old && old.outerHTML === li.outerHTML && tokens.get(id) === token;
      items.set(id, same ? old : li);
      if (!same && old) look(RECENT_LOOK_MS); // it moved on: looked at again soon
      tokens.set(id, token);
      before.delete(id);
      show();
    }).catch((e) => {
      if (e.status !== 404) return; // (not now: listed again on the next visit)
      // gone for good: forgotten though the page moved on meanwhile (a refresh, or the page
      // left for a table: it was asked again on the next visit, its 404 logged again)
      store.forget(id);
      store.dropToken(id); // (a browser from before the list rebuilt it from its tokens)
      if (mine !== round) return;
      gone.add(id);
      ask();
      show();
    });
  }
  refresh();
  // another tab of this browser took a seat, left one (its token dropped), joined a rematch or
  // forgot a match: the list follows at once, as a reload would show it (a burst of changes,
  // a seat's token and then the list, is read once)
  let later = null;
  const onStorage = (ev) => {
    if (ev.storageArea !== localStorage) return;
    if (ev.key !== null && ev.key !== "hokm.recent" && !ev.key.startsWith("hokm.token.")) return;
    clearTimeout(later);
    later = setTimeout(refresh, 50);
  };
  window.addEventListener("storage", onStorage);
  // the summaries kept current while the page stays open (RECENT_LOOK_MS): a match in play
  // listed is looked at again, less and less often while nothing changes
  let timer = null, wait = RECENT_LOOK_MS;
  const live = () => [...list.children].some((li) => li.dataset.phase !== "match_over");
  function look(after) {
    clearTimeout(timer);
    timer = null;
    wait = after;
    if (document.visibilityState === "hidden") return; // (asked again once back in sight)
    timer = setTimeout(() => {
      timer = null;
      if (live()) refresh();
      look(Math.min(wait * 2, RECENT_LOOK_MAX_MS));
    }, after);
  }
  look(RECENT_LOOK_MS);
  // back in sight (another tab, another window): asked at once, then from the shortest wait
  const onBack = () => {
    if (document.visibilityState === "hidden") { clearTimeout(timer); timer = null; return; }
    if (Date.now() - lastRefresh >= RECENT_BACK_MS) { clearTimeout(later); later = setTimeout(refresh, 50); }
    look(RECENT_LOOK_MS);
  };
  document.addEventListener("visibilitychange", onBack);
  window.addEventListener("focus", onBack);
  return { panel, stop() {
    clearTimeout(later); clearTimeout(timer);
    window.removeEventListener("storage", onStorage);
    document.removeEventListener("visibilitychange", onBack);
    window.removeEventListener("focus", onBack);
    round++;
  } };
}

/** This browser's token of match `id` if it still holds a seat there, else null.
 *  A token that holds no seat now (left on the player's other device, which the seat link shares it with; a
 *  seat given up in another browser's tab) is forgotten as the table forgets it.  Its seat is
 *  asked (`GET .../seat`, api.md): 200 either way, so a dead token logs no error in the
 *  console, and, unlike a view, the seat is not counted present (which would keep its
 *  stand-in away). */
async function heldToken(id, checks) {
  const token = store.token(id);
  if (!token) return null;
  // a token's check on its way is not sent again (a refresh meanwhile): a token that holds
  // no seat holds none for good
  const key = `${id} ${token}`;
  let check = checks.get(key);
  if (!check) {
    // (not known now, an error: the token is kept, the table finds out; a 404, the match
    // gone since its summary, is the summary's to find on the next look)
    check = api.seat(id, token).then((r) => r.seat !== null, () => true);
    checks.set(key, check);
    check.then(() => { if (checks.get(key) === check) checks.delete(key); });
  }
  if (await check) return token;
  if (store.token(id) === token) store.dropToken(id); // (not a seat taken since)
  return null;
}

/** The list's item of match `id` (summary `s`, this browser's seat `token` or null). */
function recentItem(id, s, token) {
  const name = (i) => { const x = (s.seats || [])[i]; return x && x.name ? x.name : t("start.seat_n", { n: i + 1 }); };
  const sides = sidesOf(s);
  const sideName = (w) => (sides[w] || []).map(name).reduce((a, b) => t("team.pair", { a, b }));
  const over = s.phase === "match_over";
  // a room still waiting for its players (a rematch not yet taken up, too) has no teams
  // yet (the ace draw makes them) and no round: those seated, and that it waits
  const waiting = s.phase === "waiting";
  const score = waiting ? listOf((s.seats || []).filter((x) => x && !x.empty && x.name).map((x) => isolated(x.name)))
    : named(sides.map((_, i) => i), s.score, sideName);
  const state = over ? (s.winner != null && sides[s.winner] ? t("start.recent_won", { team: sideName(s.winner) }) : t("start.recent_over"))
    : waiting ? t("phase.waiting") : t("start.recent_playing", { round: num(s.round || 1) });
  // without a seat: a room still waiting may be joined again (its join page); a match in
  // play is watched (?watch=1: the table as a spectator, not the join page of a full room)
  const links = over
    ? [h("a", { href: `/replay/${id}`, "data-link": true, text: t("start.recent_replay") }),
      h("a", { href: `/replay/${id}?analysis=1`, "data-link": true, text: t("start.recent_analysis") })]
    : token ? [h("a", { href: `/m/${id}`, "data-link": true, text: t("start.recent_back") })]
      : waiting ? [h("a", { href: `/m/${id}`, "data-link": true, text: t("join.take_seat") })]
        : [h("a", { href: `/m/${id}?watch=1`, "data-link": true, text: t("start.recent_watch") })];
  // a friend asked for the rematch while this player was away: its seat there is held for
  // the player (api.md, POST .../rematch), joined from here as from the match-over panel
  if (over && s.rematch && token && !store.token(s.rematch)) links.unshift(rematchButton(id, token));
  return h("li", { "data-match": id, "data-phase": s.phase },
    h("span.recent-score", { text: score }), " ", h("span.recent-state", { text: state }), " ",
    h("span.recent-links", {}, ...links.flatMap((a, i) => (i ? [" · ", a] : [a]))));
}

/** "Join the rematch" of the finished match `id` for the seat of `token` (the table's button
 *  on the match-over panel does the same): to its seat there, or a toast (full, say). */
function rematchButton(id, token) {
  const btn = h("button.recent-rematch", { type: "button", text: t("over.rematch_join") });
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    try {
      const r = await takeRematch(id, token);
      navigate(`/m/${r.match_id}`);
    } catch (e) { toast(errorText(e)); btn.disabled = false; }
  });
  return btn;
}

function select(options, value) {
  const s = h("select");
  for (const [v, label] of options) s.append(h("option", { value: v, text: label }));
  s.value = value;
  return s;
}

/** A room's setting in seconds (docs/api.md, `POST /api/matches`) as a list of choices: the
 *  label is the string `key`, the hint `${key}_desc`, each choice's `${key}_${seconds}`. */
function secondsField(id, key, choices, value) {
  const control = select(choices.map((s) => [String(s), t(`${key}_${s}`)]), String(value));
  return [control, field(id, t(key), control, t(`${key}_desc`))];
}

/** A box (or radio) named by `label` alone and described by `desc`, said once each. */
function check(id, label, desc, attrs = { type: "checkbox", name: id }) {
  return h("div.check", {}, h("input", { ...attrs, id, "aria-describedby": `${id}-desc` }),
    h("span", {}, h("label", { for: id }, h("strong", { text: label })),
      h("span.desc", { id: `${id}-desc`, text: " " + desc })));
}

export function mount(root) {
  document.title = `${t("brand")} — ${t("start.title")}`;
  const busy = (btn, on) => { btn.disabled = on; btn.setAttribute("aria-busy", on ? "true" : "false"); };

  const nameInput = h("input", { type: "text", autocomplete: "nickname", maxlength: String(MAX_NAME), value: store.name(), placeholder: t("start.name_placeholder") });
  nameInput.addEventListener("change", () => store.setName(nameInput.value.trim()));
  const name = () => {
    const n = nameInput.value.trim() || t("start.default_name");
    store.setName(nameInput.value.trim());
    return n;
  };

  // ---- the game (for solo play and for rooms) ----
  const gameGroup = h("fieldset.games", { id: "game-choice" }, h("legend", { text: t("start.game") }),
    ...GAME_KEYS.map((g) => check(`game-${g}`, t(`game.${g}`), t(`game.${g}_desc`),
      { type: "radio", name: "game", value: g, checked: g === "four" })));
  const game = () => gameGroup.querySelector("input:checked").value;
  /** What create sends for the game chosen: `players`, and the rules that name the game. */
  const gameBody = () => {
    const { players, two_player: twoPlayer } = GAMES[game()];
    return { players, rules: twoPlayer ? { two_player: twoPlayer } : {} };
  };

  // ---- solo ----
  const soloDesc = h("p", { id: "solo-desc" });
  const lead = h("p.lead", { id: "start-lead" });
  const levelGroup = h("fieldset.levels", {}, h("legend", { text: t("start.level") }),
    ...LEVELS.map((lv) => h("label.radio", {},
      h("input", { type: "radio", name: "level", value: lv, checked: lv === "medium" }),
      h("span", { text: t(`level.${lv}`) }))));
  const soloBtn = h("button.primary", { type: "button", text: t("start.play_solo") });
  soloBtn.addEventListener("click", async () => {
    const level = levelGroup.querySelector("input:checked").value;
    busy(soloBtn, true);
    try {
      const { players, rules } = gameBody();
      const seats = ["human", ...Array(players - 1).fill(`bot:${level}`)];
      const r = await api.create({ players, seats, rules: { ...rules, target: 7 }, name: name() });
      store.setToken(r.match_id, r.token);
      store.setSolo(r.match_id);
      navigate(`/m/${r.match_id}`);
    } catch (e) { toast(errorText(e)); busy(soloBtn, false); }
  });
  const resume = h("div.resume", { hidden: true });
  const recent = recentPanel();

  // ---- room ----
  const target = select([["7", t("rules.target_7")], ["10", t("rules.target_10")], ["2x7", t("rules.target_2x7")]], "7");
  const deal = select(["5-4-4", "5-3-3-2"].map((d) => [d, nums(d.split("-"), "-")]), "5-4-4");
  const teams = select([["ace_draw", t("rules.teams_ace_draw")], ["as_seated", t("rules.teams_as_seated")]], "ace_draw");
  const seatSel = [1, 2, 3].map((i) => select([["human", t("start.seat_human")],
    ...LEVELS.map((lv) => [`bot:${lv}`, t("start.seat_bot", { level: t(`level.${lv}`) })])], i === 2 ? "human" : "bot:medium"));
  const flags = ["must_trump", "satat", "bavney", "double_sar"];
  const seatsHint = h("p.hint");
  const dealField = field("r-deal", t("rules.deal"), deal, t("rules.deal_desc"));
  const teamsField = field("r-teams", t("rules.teams"), teams, t("rules.teams_desc"));
  const flagChecks = flags.map((f) => check(`r-${f}`, t(`rules.${f}`), t(`rules.${f}_desc`)));
  const seatFields = seatSel.map((s, i) => field(`r-seat${i + 1}`, t("start.seat_n", { n: i + 2 }), s));
  // the room's turn_timeout and disconnect_timeout (api.md), the server's defaults first chosen
  const [turnLimit, turnField] = secondsField("r-turn", "start.turn_limit", [60, 90, 180, 0], 90);
  const [awayLimit, awayField] = secondsField("r-away", "start.away_limit", [30, 60, 300, 0], 60);
  const form = h("form.room", { novalidate: true },
    h("fieldset", {}, h("legend", { text: t("start.house_rules") }),
      field("r-target", t("rules.target"), target), dealField, teamsField, ...flagChecks),
    h("fieldset", {}, h("legend", { text: t("start.seats") }), seatsHint,
      h("div.field", {}, h("span.label", { text: t("start.seat_n", { n: 1 }) }), h("span.you", { text: t("start.seat_you") })),
      ...seatFields, turnField, awayField),
    h("button.primary", { type: "submit", text: t("start.create_room") }));
  // Which house rules go with which game (docs/rules-decisions.md): the talon is the two-player
  // talon game's deal and three players deal 5-4-4-4 only; teams need partners; bavney and
  // double sar are for 13 tricks and two sides.  What does not apply is hidden and not sent.
  const applies = (g) => ({ deal: g === "four" || g === "simple", teams: g === "four",
    bavney: g !== "three", double_sar: g !== "three" });
  function onGame() {
    const g = game(), on = applies(g), n = GAMES[g].players;
    soloDesc.textContent = t(`start.solo_desc_${g}`);
    // the intro tells of the game chosen (it said "for four: two teams" for every game)
    lead.textContent = t(g === "four" ? "start.lead" : `start.lead_${g}`);
    dealField.hidden = !on.deal;
    teamsField.hidden = !on.teams;
    flags.forEach((f, i) => {
      flagChecks[i].hidden = on[f] === false;
      if (flagChecks[i].hidden) flagChecks[i].querySelector("input").checked = false;
    });
    seatFields.forEach((el, i) => { el.hidden = i >= n - 1; });
    // two players face each other; with three the next seat in playing order sits to the right
    seatsHint.textContent = t(g === "four" ? "start.seats_hint" : n === 2 ? "start.seats_hint_two" : "start.seats_hint_alone");
    // a room is for friends: with fewer seats keep at least one of them open for an invite
    if (!seatSel.slice(0, n - 1).some((s) => s.value === "human")) seatSel[0].value = "human";
  }
  gameGroup.addEventListener("change", onGame);
  onGame();
  // bavney and double_sar cannot be combined (400 bad_rules): keep the form consistent
  const bav = form.querySelector("#r-bavney"), dsar = form.querySelector("#r-double_sar");
  // (WCAG 3.2.2, 4.1.3: the box unticked by the other is said, politely)
  const exclusive = (box, other, on, off) => box.addEventListener("change", () => {
    if (!box.checked || !other.checked) return;
    other.checked = false;
    announce(t("rules.unticked", { off: t(`rules.${off}`), on: t(`rules.${on}`) }));
  });
  exclusive(bav, dsar, "bavney", "double_sar");
  exclusive(dsar, bav, "double_sar", "bavney");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const btn = form.querySelector("button[type=submit]");
    const { players, rules } = gameBody();
    const on = applies(game());
    rules.target = target.value === "2x7" ? "2x7" : Number(target.value);
    if (on.deal) rules.deal = deal.value;
    if (on.teams) rules.teams = teams.value;
    for (const f of flags) if (on[f] !== false) rules[f] = form.querySelector(`#r-${f}`).checked;
    const seats = ["human", ...seatSel.slice(0, players - 1).map((s) => s.value)];
    busy(btn, true);
    try {
      const r = await api.create({ players, seats, rules, name: name(),
        turn_timeout: Number(turnLimit.value), disconnect_timeout: Number(awayLimit.value) });
      store.setToken(r.match_id, r.token);
      navigate(`/m/${r.match_id}`);
    } catch (e) { toast(errorText(e)); busy(btn, false); }
  });

  // ---- join ----
  // an address reads left to right, in a right-to-left page too (linkRow in table.js)
  const linkInput = h("input", { type: "text", id: "join-link", inputmode: "url", autocomplete: "off", dir: "ltr", placeholder: t("start.join_placeholder") });
  const joinForm = h("form.join", {}, field("join-link", t("start.join_label"), linkInput),
    h("button", { type: "submit", text: t("start.join_button") }));
  joinForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = linkInput.value.trim();
    const m = v.match(/(?:\/m\/)?([\w-]{4,})\/?$/);
    if (!m) { toast(t("start.join_invalid")); linkInput.focus(); return; }
    // the server's ids are lowercase: a link typed on a phone, capitalised, is the same match
    // (api.md; the gateway redirects such a page too, and this navigation asks it no page)
    navigate(`/m/${/^[A-Za-z0-9]+$/.test(m[1]) ? m[1].toLowerCase() : m[1]}`);
  });

  root.append(h("section.page.start", {},
    h("div.hero", {}, h("h1", { text: t("start.title") }), lead),
    h("div.panel", {}, field("player-name", t("start.your_name"), nameInput, t("start.name_hint"))),
    h("div.panel", {}, gameGroup),
    h("div.grid2", {},
      h("section.panel", { "aria-labelledby": "solo-h" }, h("h2", { id: "solo-h", text: t("start.solo_title") }),
        soloDesc, resume, levelGroup, soloBtn),
      h("section.panel", { "aria-labelledby": "join-h" }, h("h2", { id: "join-h", text: t("start.join_title") }),
        h("p", { text: t("start.join_desc") }), joinForm,
        h("p", {}, h("a", { href: "/how-to-play", "data-link": true, text: t("start.learn") })))),
    h("section.panel", { "aria-labelledby": "room-h" }, h("h2", { id: "room-h", text: t("start.room_title") }),
      h("p", { text: t("start.room_desc") }), form),
    recent.panel));

  // offer to resume the last solo match if it is still going (asked again when another tab
  // of this browser starts one)
  let soloAsked = 0;
  const showResume = () => {
    const mine = ++soloAsked;
    resume.hidden = true;
    resume.replaceChildren();
    const soloId = store.solo();
    if (soloId && store.token(soloId)) {
      api.summary(soloId).then((s) => {
        if (mine !== soloAsked) return;
        if (s.phase === "match_over") { store.dropSolo(); return; }
        // three players: each named with their points, in seat order (bare numbers named nobody)
        const name = (i) => { const x = (s.seats || [])[i]; return x && x.name ? x.name : t("start.seat_n", { n: i + 1 }); };
        const score = (s.score || []).length > 2 ? named(s.score.map((_, i) => i), s.score, name)
          : nums(s.score || [0, 0]);
        fill(resume, h("a.button.primary", { href: `/m/${soloId}`, "data-link": true, id: "resume-solo" },
          t("start.resume_solo"), h("span.sub", { text: " " + t("start.resume_score", { score }) })));
        resume.hidden = false;
      }).catch((e) => { if (e.status === 404 && mine === soloAsked) store.dropSolo(); });
    } else if (soloId) store.dropSolo();
  };
  showResume();
  const onSolo = (ev) => { if (ev.storageArea === localStorage && (ev.key === null || ev.key === "hokm.solo")) showResume(); };
  window.addEventListener("storage", onSolo);

  return { unmount() { recent.stop(); soloAsked++; window.removeEventListener("storage", onSolo); } };
}
