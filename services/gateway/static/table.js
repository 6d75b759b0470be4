// The table of a match (/m/{id}).  Without a stored token it shows the match summary and offers
// a seat (invite links); with one it connects the WebSocket and renders every view it receives.
//
// Views are whole snapshots.  They are queued and shown one after another with short pauses
// (a completed trick, the ace draw, the deal, a round result stay visible for a moment), so the
// game can be followed even when bots answer instantly, with reduced motion too.
import { api, store, MatchSocket, commandId, gameOf, takeRematch, MAX_NAME } from "./api.js";
import { h, fill, fillAfter, cardButton, cardImage, cardBack, suitButton, suitBadge } from "./cards.js";
import { t, cardName, suitName, capitalize, isRtl, safeGet, num, nums, listOf, hintReason, isolated } from "./i18n.js";
import { announce, toast, copyText, errorText, focusPage, navigate, placeToast, replacePath, setToastAvoid } from "./ui.js";
import { sidesOf, sideOf, partnered, mySide, sideOrder, named, tally as tallyOf, points as pointsOf } from "./sides.js";

const POS = ["bottom", "right", "top", "left"]; // relative to the player: seat+1 sits to the RIGHT
/** The places around the table by seats after the player in playing order: two players face
 *  each other; with three the next player sits to the right and the one after to the left. */
const PLACES = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: POS };
const DECIDING = ["choosing_trump", "discarding", "drawing", "playing"]; // phases with a turn
const REMATCH_LOOK_MS = 4000; // how often the match-over panel asks whether a rematch was made
const REMATCH_LOOK_FOR_MS = 15 * 60 * 1000; // and for how long (then the link is the way on)
const COUNTDOWN_S = 20; // the turn limit is shown once fewer seconds than this are left (turn_limit)
const HTTP_PAINT_MS = 2000; // a seat's first view is asked over HTTP if its socket sent none by then

export function mount(root, [matchId]) {
  let current = null;
  let seated = null; // the token the table plays with (null: the join page, or watching)
  const show = (fn) => {
    if (current) current.unmount();
    root.replaceChildren();
    current = fn();
  };
  const ctl = {
    table: (token) => { seated = token || null; show(() => mountTable(root, matchId, token, ctl)); },
    join: (note) => { seated = null; show(() => mountJoin(root, matchId, ctl, note)); },
  };
  // another tab of this browser took a seat here: this one goes to that seat too (a browser
  // holds one seat of a match; joining again would take a second one and lose the first)
  const onStorage = (ev) => {
    if (ev.key !== `hokm.token.${matchId}` || !ev.newValue || ev.newValue === seated) return;
    ctl.table(ev.newValue);
  };
  window.addEventListener("storage", onStorage);
  // a seat link from the player's other device (/m/ID#seat=TOKEN, seatPanel): the seat is this
  // browser's from now on, and the token leaves the address bar (and so its history)
  const carried = /^#seat=([\w-]{16,64})$/.exec(location.hash);
  if (carried) {
    store.setToken(matchId, carried[1]);
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  const token = store.token(matchId);
  // /m/ID?watch=1 (the start page's "Watch" for a match this browser has no seat in, or left):
  // the match as a spectator, not its join page.  A seat this browser holds comes first.
  const watching = new URLSearchParams(location.search).get("watch") === "1";
  if (token) ctl.table(token);
  else if (watching) ctl.table(null);
  else ctl.join();
  return {
    unmount() {
      window.removeEventListener("storage", onStorage);
      if (current) current.unmount();
      current = null;
    },
    relabel() { if (current && current.relabel) current.relabel(); },
  };
}

// ---------------------------------------------------------------- names and labels
function seatName(view, s) {
  const seat = view.seats && view.seats[s];
  if (!seat || seat.empty || !seat.name) return t("seat.open");
  return seat.name;
}
const botLevel = (bot) => (bot ? String(bot).replace(/^bot:/, "") : "");
const nSeats = (v) => v.players || (v.seats || []).length || 4;
// The sides (seat tuples in the order of `tricks` and `score`) come from the view (sides.js):
// with two or three players nobody is a partner, so nothing here derives a side from a seat.
/** Whether the seats' sides are settled: with the ace draw deciding the teams (the four-player
 *  default) the sides of the view are only the seats' places until the draw is done. */
const teamsKnown = (v) => (v.rules?.teams || "ace_draw") !== "ace_draw" || !!(v.draw && v.draw.length);
function teamLabel(view, team) {
  const seats = sidesOf(view)[team] || [];
  if (!partnered(view)) return view.seat != null && seats.includes(view.seat) ? t("seat.you") : seatName(view, seats[0]);
  if (view.seat != null) return seats.includes(view.seat) ? t("team.us") : t("team.them");
  return t("team.pair", { a: seatName(view, seats[0]), b: seatName(view, seats[1]) });
}
function ruleSummary(rules) {
  if (!rules) return [];
  const out = [t("start.game") + ": " + t(`game.${gameOf(rules)}`),
    t("rules.target") + ": " + t(`rules.target_${rules.target}`)];
  if (rules.deal && rules.deal !== "talon") out.push(t("rules.deal") + ": " + rules.deal);
  if (rules.teams) out.push(t("rules.teams") + ": " + t(`rules.teams_${rules.teams}`));
  for (const f of ["must_trump", "satat", "bavney", "double_sar"]) if (rules[f]) out.push(t(`rules.${f}`));
  return out;
}
/** A number range of a text ("(7–0)", "۷–۵"), its brackets with it: kept on one line. */
const RANGE = /\(?[0-9\u06F0-\u06F9]+(?:–[0-9\u06F0-\u06F9]+)+\)?/g;
/** `text` as nodes whose number ranges are spans that never break (a narrow panel broke
 *  "(۷–" and "۰)" onto two lines); the text itself is unchanged. */
function unbroken(text) {
  const out = [];
  let at = 0;
  for (const m of String(text).matchAll(RANGE)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(h("span.range", { text: m[0] }));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}
/** A finished match's analysis (its replay with the panel open, ?analysis=1): where each round
 *  was won or lost, for its players and whoever watched (every hand is public by then). */
function analysisLink(matchId) {
  return h("a.button", { href: `/replay/${matchId}?analysis=1`, "data-link": true, id: "see-analysis", text: t("an.open") });
}

function inviteUrl(id) { return `${location.origin}/m/${id}`; }

/** The link that opens this seat on the player's other device (the token in the fragment,
 *  which no request carries: it stays out of every server's and proxy's log). */
function seatPanel(matchId, token) {
  return h("div.invite", {}, h("p", { text: t("seatlink.desc") }),
    h("label", { for: "seat-link", text: t("seatlink.label") }),
    linkRow(`${inviteUrl(matchId)}#seat=${token}`, "seat-link", "copy-seat-link"));
}

/** A link to hand on: the field (selected whole when focused) and its Copy button.  An address
 *  reads left to right in every language: in a right-to-left page the field showed its end
 *  and cut its start ("7.0.0.1:8400/m/…" for "http://127.0.0.1:8400/m/…"). */
function linkRow(url, id, copyId) {
  const input = h("input", { type: "text", id, readOnly: true, value: url, dir: "ltr" });
  input.addEventListener("focus", () => input.select());
  const copy = h("button", { type: "button", id: copyId, text: t("invite.copy") });
  copy.addEventListener("click", async () => toast((await copyText(url)) ? t("invite.copied") : t("invite.copy_failed")));
  return h("div.row", {}, input, copy);
}

function invitePanel(matchId) {
  const url = inviteUrl(matchId);
  const parts = [h("label", { for: "invite-link", text: t("invite.label") }), linkRow(url, "invite-link", "copy-link")];
  if (navigator.share) {
    const share = h("button", { type: "button", id: "share-link", text: t("invite.share") });
    share.addEventListener("click", () => navigator.share({ title: t("brand"), text: t("invite.share_text"), url }).catch(() => {}));
    parts[1].append(share);
  }
  return h("div.invite", {}, ...parts);
}

/** A finished match's result from its public summary: the winner and the final score, the
 *  winner's points first.  The summary names no sides: with four players side w is seats w and
 *  w + 2 (the seats as they ended, after the ace draw), with two or three a side is a seat. */
function summaryResult(s) {
  const w = s.winner;
  const score = s.score || [];
  if (w == null || !score.length) return t("join.over");
  const points = score.length > 2 ? summaryTally(s)
    : nums([w, ...score.map((_, i) => i).filter((i) => i !== w)].map((i) => score[i] ?? 0));
  if ((s.players || (s.seats || []).length || 4) === 4) {
    return t("over.winner", { team: t("team.pair", { a: summaryName(s, w), b: summaryName(s, w + 2) }), score: points });
  }
  return t("over1.winner", { name: summaryName(s, w), score: points });
}
/** A seat of a match's public summary by its player's name ("Seat 2" while open). */
function summaryName(s, i) {
  const x = (s.seats || [])[i];
  return x && !x.empty && x.name ? x.name : t("start.seat_n", { n: i + 1 });
}
/** A summary's score: "a–b" with two sides (seat order), every player named with their points
 *  in seat order with three ("Dara 1 · Roxana 0 · Kian 0": bare numbers named nobody). */
function summaryScore(s) {
  const score = s.score || [];
  return score.length > 2 ? summaryTally(s) : nums(score);
}
const summaryTally = (s) => named((s.score || []).map((_, i) => i), s.score, (i) => summaryName(s, i));

/** Ask every REMATCH_LOOK_MS (for REMATCH_LOOK_FOR_MS at most, and not once the match is
 *  gone) whether a player of the finished match asked for its rematch (the summary names it):
 *  found(id) then.  ``now``: the first look at once, else after REMATCH_LOOK_MS.  Returns the
 *  function that stops looking. */
function lookForRematch(matchId, now, found) {
  let timer = null;
  let stopped = false;
  const until = Date.now() + REMATCH_LOOK_FOR_MS;
  const again = () => { if (!stopped && Date.now() < until) timer = setTimeout(look, REMATCH_LOOK_MS); };
  const look = () => {
    if (stopped) return;
    api.summary(matchId).then((sum) => {
      if (stopped) return;
      if (sum.rematch) found(sum.rematch);
      else again();
    }).catch((e) => { if (e.status !== 404) again(); });
  };
  if (now) look();
  else again();
  return () => { stopped = true; clearTimeout(timer); };
}

// ---------------------------------------------------------------- join (invite link)
function mountJoin(root, matchId, ctl, note) {
  // the table replaces this page without a navigation: its heading takes the focus as the
  // host's does on arriving (else it was left on <body>, a watcher's for good)
  const enter = (token) => { ctl.table(token); focusPage(); };
  document.title = `${t("brand")} — ${t("join.title")}`;
  // the heading is kept, not rebuilt, when the summary comes: it may have the focus (focusPage)
  const heading = h("h1", { id: "join-title", text: t("join.title") });
  const box = h("section.page.narrow.join-page", { "aria-labelledby": "join-title" },
    heading, h("p", { text: t("join.loading") }));
  root.append(box);
  let alive = true;
  let heldTimer = null;
  let stopLook = null;
  api.summary(matchId).then((s) => {
    if (!alive) return;
    // a rematch's open seats kept for the last match's players (held, for held_for seconds)
    // are no one else's meanwhile: they are not offered (api.md, POST .../rematch)
    const open = (s.seats || []).filter((x) => x.empty && !x.held).length;
    const held = (s.seats || []).some((x) => x.empty && x.held) && s.held_for > 0;
    const over = s.phase === "match_over";
    // a finished match: nothing to join; the heading says so, the result and the replay follow.
    // Every seat taken (none kept for a player either): the match is there to watch
    const full = !over && open === 0 && !held;
    const title = over ? t("over.title") : full ? t("join.title_watch") : t("join.title");
    document.title = `${t("brand")} — ${title}`;
    // a list of "Seat 1: …" items, not an <ol>: the numbers are in the text already
    const seats = h("ul.seat-list", { "aria-label": t("join.seats") }, ...(s.seats || []).map((x, i) =>
      h("li", {}, h("span.seat-no", { text: t("start.seat_n", { n: i + 1 }) + ": " }),
        x.empty ? h("em", { text: t(x.held ? "seat.held" : "seat.open") }) : h("bdi", { text: x.name }),
        x.bot ? h("span.badge.bot", { text: t("seat.bot_level", { level: t(`level.${botLevel(x.bot)}`) }) }) : null)));
    const body = [
      note ? h("p.note", { role: "alert", text: note }) : null,
      // a room still waiting has no score yet (nobody's "Seat 2 0"): the seats say who is there
      h("p", { id: over ? "join-result" : null, text: over ? summaryResult(s)
        : s.phase === "waiting" ? t("join.status", { phase: t("phase.waiting") })
          : t("join.phase", { phase: t(`phase.${s.phase}`), score: summaryScore(s) }) }),
      seats,
      h("details", {}, h("summary", { text: t("table.house_rules") }), h("ul", {}, ...ruleSummary(s.rules).map((r) => h("li", { text: r })))),
    ];
    if (held) body.push(heldNote(s.held_for));
    if (!over && open > 0) {
      const name = h("input", { type: "text", id: "join-name", autocomplete: "nickname", maxlength: String(MAX_NAME), value: store.name() });
      const btn = h("button.primary", { type: "submit", id: "take-seat", text: t("join.take_seat") });
      const form = h("form.join-form", {}, h("div.field", {}, h("label", { for: "join-name", text: t("start.your_name") }), name), btn);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        // this browser has a seat here already (taken in another tab): that seat, not another
        const held = store.token(matchId);
        if (held) { enter(held); return; }
        btn.disabled = true;
        const n = name.value.trim() || t("start.default_name");
        store.setName(name.value.trim());
        try {
          const r = await api.join(matchId, { name: n });
          store.setToken(matchId, r.token);
          enter(r.token);
        } catch (e) {
          // the seats changed meanwhile (taken, or held): the page shows them as they are now
          if (e.code === "match_full" || e.code === "seat_taken") { ctl.join(errorText(e)); return; }
          toast(errorText(e)); btn.disabled = false;
        }
      });
      body.push(form);
    } else if (full) body.push(h("p", { text: t("join.full") }));
    const watch = h("button", { type: "button", id: "watch", text: t("join.watch") });
    watch.addEventListener("click", () => enter(null));
    // a finished match whose players meet again: its invite link leads on to the rematch, as
    // soon as one exists (looked for as the table's match-over panel does)
    const toRematch = (id) => h("a.button", { href: `/m/${id}`, "data-link": true, id: "to-rematch", text: t("join.to_rematch") });
    const home = h("a.button", { href: "/", "data-link": true, text: t("table.home") });
    body.push(h("p.actions", {}, over ? h("a.button.primary", { href: `/replay/${matchId}`, "data-link": true, id: "watch-replay", text: t("table.watch_replay") }) : watch,
      over ? analysisLink(matchId) : null, over && s.rematch ? toRematch(s.rematch) : null, home));
    if (over && !s.rematch) stopLook = lookForRematch(matchId, false, (id) => { if (alive) home.before(toRematch(id)); });
    heading.textContent = title;
    fillAfter(heading, body);
    const focusable = box.querySelector("#join-name");
    if (focusable) focusable.focus();
  }).catch((e) => {
    if (!alive) return;
    heading.textContent = t("join.title");
    fillAfter(heading, h("p", { role: "alert", text: e.status === 404 ? t("join.not_found") : errorText(e) }),
      h("p", {}, h("a", { href: "/", "data-link": true, text: t("table.home") })));
  });
  /** "A seat is kept for a player of the last match for N more seconds", counting down; when
   *  the hold ends the page is built again (the seat is anyone's then). */
  function heldNote(seconds) {
    const until = Date.now() + seconds * 1000;
    const p = h("p.note", { id: "join-held" });
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (!alive) return;
      if (left <= 0) { ctl.join(note); return; }
      p.textContent = t("join.held", { n: left });
      heldTimer = setTimeout(tick, 1000);
    };
    tick();
    return p;
  }
  return { unmount() { alive = false; clearTimeout(heldTimer); if (stopLook) stopLook(); }, relabel() { ctl.join(note); } };
}

// ---------------------------------------------------------------- the table
function paceSetting() {
  const asked = Number(safeGet("hokm.pace"));
  return asked >= 0.05 && asked <= 4 ? asked : 1;
}

function mountTable(root, matchId, token, ctl) {
  // multiplier for every pause (data-pace).  Reduced motion keeps the pauses: it takes the
  // movement away (style.css), not the time to read a trick or a result.  "hokm.pace" in
  // localStorage (0.05 to 4) changes them: the browser tests play fast with it
  const pace = paceSetting();
  const S = {
    view: null, queue: [], holding: false, holdTimer: null, afterHold: null, skipNow: false,
    pending: false, pendingTimer: null, pendingOnSocket: false, conn: "connecting",
    lost: false, // the connection was lost and is not back yet (the retries say so too)
    hints: { on: false, since: null, forVersion: null, data: null, note: "", exhausted: false },
    resultRound: null, trickKey: null, drawSeen: false, statusKey: null, dealKey: null,
    banner: null, // {kind: "result"|"draw"|"deal", ...} shown in the middle
    completed: null, // the completed trick being shown
    trumpShown: false, handSeen: false,
    handStop: null, // the card of the hand that Tab lands on (roving tabindex, `rove`)
    limit: null, limitTimer: null, // the turn limit told by the server: {version, seat, deadline}
    sentAt: null, // the version the player's last command was sent for
    picked: new Set(), pickKey: null, // the cards chosen to lay aside (talon game), for one decision
    talonKey: null, // the talon decision the panel was built for (keeps keyboard focus on it)
    rematch: null, stopLook: null, // the next match, once a player asked for it (lookForRematch)
    rematchFull: false, // joining it was refused: every seat is taken
    leave: "ask", // "Leave the table": "ask" (the button), "confirm" (asked first), "sending"
    seatGone: false, // the token lost its seat (seatLost: asked once)
    // a rematch's open seats kept for the last match's players (api.md, POST .../rematch),
    // which the view does not tell: from the summary, {key, seats, until} (openSeats)
    holds: null, holdsAsked: null, holdsTimer: null, heldTick: null,
  };
  const E = {};
  let socket = null;
  let alive = true;

  // ---- skeleton (built once; rebuilt by relabel) ----
  function build() {
    root.replaceChildren();
    // named status elements (not live: the announcements region speaks the changes), so an
    // agent or a screen reader can find whose turn it is and the connection by role and name
    E.conn = h("span.conn-status", { id: "conn-status", role: "status", "aria-live": "off", "aria-label": t("table.connection") });
    E.status = h("p.turn-status", { id: "turn-status", role: "status", "aria-live": "off", "aria-label": t("table.turn") });
    E.limit = h("p.turn-limit", { id: "turn-limit", role: "timer", "aria-live": "off", hidden: true });
    E.more = h("button.more-time", { type: "button", id: "more-time", hidden: true, text: t("limit.more_time") });
    // watching bots alone: their moves come faster than the table shows them, so the page may
    // fall minutes behind; this shows the match as it is now (the last round's result on the way)
    E.skip = h("button.skip-now", { type: "button", id: "skip-now", hidden: true, text: t("table.skip_to_now") });
    E.skip.addEventListener("click", skipToNow);
    E.more.addEventListener("click", askMoreTime);
    E.seats = POS.map((p) => h(`div.seat.pos-${p}`, { "data-pos": p }));
    E.slots = POS.map((p) => h(`li.slot.pos-${p}`));
    // the talon's face-down pile sits in the empty trick while the players discard and draw
    E.pile = h("li.talon-pile", { hidden: true });
    E.trick = h("ol.trick", { "aria-label": t("table.trick") }, ...E.slots, E.pile);
    E.banner = h("div.banner", { hidden: true });
    E.trump = h("section.trump-choice", { hidden: true, "aria-labelledby": "trump-h" });
    E.talon = h("section.talon-choice", { hidden: true, "aria-labelledby": "talon-h" });
    E.talon.addEventListener("keydown", choiceKeys);
    E.trump.addEventListener("keydown", (ev) => arrowKeys(ev, [...E.trump.querySelectorAll("button.suit-btn:not([disabled])")]));
    // named by aria-label (set in renderHand with the number of cards)
    E.handGroup = h("div.hand-cards", { role: "group", "aria-label": t("table.your_hand"), tabindex: "-1" });
    E.handGroup.addEventListener("keydown", handKeys);
    E.handGroup.addEventListener("focusin", (ev) => {
      if (ev.target.matches && ev.target.matches("button.card")) { S.handStop = ev.target.dataset.card; rove(); }
    });
    E.hand = h("section.hand", { "aria-labelledby": "hand-h" }, h("h2.sr-only", { id: "hand-h", text: t("table.your_hand") }), E.handGroup);
    E.score = h("div.scoreboard");
    E.lastTrick = h("div.last-trick");
    E.discards = h("div.own-discards", { id: "own-discards" });
    E.hintsBtn = h("button.hints-toggle", { type: "button", id: "hints-toggle", "aria-pressed": "false" });
    E.hintsBtn.addEventListener("click", toggleHints);
    E.hintsRestart = h("button", { type: "button", id: "hints-restart", hidden: true, text: t("hints.restart") });
    E.hintsRestart.addEventListener("click", restartHints);
    E.hintBox = h("div.hint-box", { "aria-live": "polite" });
    E.hints = h("section.hints", { "aria-labelledby": "hints-h" }, h("h2", { id: "hints-h", text: t("hints.title") }),
      h("div.row", {}, E.hintsBtn, E.hintsRestart), E.hintBox);
    E.waiting = h("section.waiting", { hidden: true, "aria-labelledby": "waiting-h" });
    E.info = h("div.info");
    E.leave = h("section.leave-box", { hidden: true, "aria-label": t("leave.button") });
    E.leave.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && S.leave === "confirm") { ev.stopPropagation(); cancelLeave(); }
    });
    E.page = h("section.table-page", { "aria-label": t("table.title") },
      h("h1.sr-only", { text: t("table.title") }),
      // the countdown and "More time" in one box: in the status line's row on a wide screen,
      // laid over the top of the screen on a phone (style.css) so they never push the hand down
      E.statusbar = h("div.statusbar", {}, E.status, h("div.limit-box", {}, E.limit, E.more), E.skip, E.conn),
      E.play = h("div.play-area", {}, E.waiting,
        E.board = h("div.board", {}, E.seats[2], E.seats[3], h("div.center", {}, E.trick), E.seats[1], E.seats[0], E.banner),
        E.trump, E.hand, E.talon),
      h("aside.side", { "aria-label": t("table.info") }, E.score, E.hints, E.discards, E.lastTrick, E.info, E.leave));
    root.append(E.page);
    S.trumpShown = false;
    S.talonKey = null;
  }

  // ---- views in, paced ----
  function onView(msg) {
    const v = msg.view || msg;
    if (v.version == null) v.version = msg.version;
    S.pending = false;
    clearTimeout(S.pendingTimer);
    const last = S.queue.length ? S.queue[S.queue.length - 1] : S.view;
    const reopened = msg.type === "view" ? S.reopened : null; // (an HTTP answer has no type)
    if (msg.type === "view") S.reopened = null;
    if (last && v.version < last.version) {
      if (reopened == null || v.version >= reopened) return; // older than what we have: ignore
      // the first view of a socket opened since `reopened`, and older: the match's log went
      // back (its store lost the newest records, and the server closed the socket with 1012,
      // docs/api.md): this is the match now, and what the table shows past it is gone
      S.queue = [];
      endHold();
    }
    // the token's player has no seat any more: it left (this page's own leave goes on in leaveTable)
    if (token && v.seat == null && S.leave !== "sending") { seatLost(); return; }
    if (token) store.setSeen(matchId, v.version);
    if (last && v.version === last.version) { // same record (e.g. presence changed): refresh in place
      if (S.queue.length) S.queue[S.queue.length - 1] = v;
      else { S.view = v; render(); }
      return;
    }
    passedLimit(v);
    S.queue.push(v);
    renderSkip();
    // the ace draw gives way as soon as the match needs the player: its pause ends here, and the
    // views before this one follow at their usual pace
    if (S.holding && S.banner && S.banner.kind === "draw" && isMyDecision(v)) endHold();
    pump();
  }

  function pump() {
    if (!alive || S.holding || !S.queue.length) return;
    // (a match of bots alone races ahead of any page: its views are all shown at the table's
    // pace while the page is in sight, else the page watching it, a player who just left a
    // solo match say, saw rounds flash by in a second)
    const skip = S.skipNow && S.queue.length > 0;
    S.skipNow = false;
    if (skip || (S.queue.length > 12 && (document.hidden || !botsOnly(S.queue[S.queue.length - 1])))) {
      // far behind (catch-up): show the latest, after the last round's
      // end on the way if its result was not told yet (a result is told at its round's end only)
      const latest = S.queue[S.queue.length - 1];
      const end = S.queue.filter((x) => x.phase === "round_over").pop();
      S.queue = end && end !== latest && end.round !== S.resultRound ? [end, latest] : [latest];
    }
    const v = S.queue.shift();
    const hold = step(v);
    render();
    if (hold > 0) {
      S.holding = true;
      S.holdTimer = setTimeout(endHold, hold * pace);
    } else pump();
  }

  /** Whether bots hold every seat of the match (nobody's decision holds the bots back). */
  const botsOnly = (v) => (v.seats || []).length > 0 && v.seats.every((x) => x && x.bot);

  /** How far behind the match a page watching bots alone may fall before it offers to skip. */
  const SKIP_BEHIND = 12;
  /** "Skip to now" while the page watching bots alone is more than SKIP_BEHIND views behind. */
  function renderSkip() {
    const last = S.queue.length ? S.queue[S.queue.length - 1] : null;
    const show = !!last && S.queue.length > SKIP_BEHIND && botsOnly(last);
    if (!show && E.skip.hidden) return;
    if (!show && document.activeElement === E.skip) { E.status.tabIndex = -1; E.status.focus(); } // not lost
    E.skip.hidden = !show;
  }

  /** The skip pressed: the pause ends and the queue collapses to now (pump's catch-up). */
  function skipToNow() {
    S.skipNow = true;
    if (S.holding) endHold();
    else pump();
  }

  /** The pause is over (its time is up, or the match needs the player): go on with the queue. */
  function endHold() {
    clearTimeout(S.holdTimer);
    if (!S.holding) return;
    S.holding = false;
    const after = S.afterHold; S.afterHold = null;
    if (after) { after(); render(); }
    pump();
  }

  /** Take the next view: find what happened (for announcements and pauses). Returns a pause. */
  function step(v) {
    const prev = S.view;
    S.view = v;
    let hold = 0;
    const msgs = [];
    const first = !prev;
    S.completed = null;
    if (!first && prev.seat != null && v.seat != null && prev.seat !== v.seat) {
      msgs.push(t("announce.moved", { n: v.seat + 1 }));
    }
    // A panel over the table (the ace draw, a round's result) is never shown while the player
    // has a decision to make: the draw is then told in the score panel, the result too.
    const mine = isMyDecision(v);
    // the ace draw
    if (v.draw && v.draw.length && !S.drawSeen) {
      S.drawSeen = true;
      const noTricks = (v.tricks || []).every((n) => n === 0) && !v.last_trick;
      if (v.round <= 1 && noTricks && v.phase !== "match_over") {
        msgs.push(drawText(v));
        if (!mine) {
          S.banner = { kind: "draw" };
          hold = Math.max(hold, Math.min(3500, 1200 + 120 * v.draw.length));
          S.afterHold = () => { if (S.banner && S.banner.kind === "draw") S.banner = null; };
        }
      }
    }
    // the cards the others played since the last view, named as the cards' buttons name them
    // (the player's own card was their own doing: not told back to them)
    const lt = v.last_trick;
    if (!first) for (const { seat, card } of newPlays(prev, v)) {
      if (seat !== v.seat) msgs.push(t("ev.card_played", { name: seatName(v, seat), card: cardName(card) }));
    }
    // a completed trick stays in the middle for a moment
    const tkey = lt ? `${v.round}:${(v.tricks || []).join(",")}:${v.pile ?? ""}:${lt.cards.map((c) => c.card).join("")}` : null;
    if (tkey && tkey !== S.trickKey) {
      if (!first && v.trick.length === 0) {
        S.completed = lt;
        msgs.push(trickWonText(v, lt.winner));
        hold = Math.max(hold, 1300);
        S.afterHold = S.afterHold || (() => { S.completed = null; });
      }
      S.trickKey = tkey;
    } else if (!first && v.trick.length > (prev.trick || []).length) {
      hold = Math.max(hold, 450); // another player's card: a short beat before the next one
    }
    // the deal: the Hakem's five cards, then everybody's thirteen
    const dkey = `${v.round}:${v.phase === "choosing_trump" ? "five" : v.trump || ""}`;
    if (dkey !== S.dealKey && DECIDING.includes(v.phase)) {
      if (!first) {
        if (v.phase === "choosing_trump") {
          msgs.push(v.hakem === v.seat ? t("announce.five_you", { round: v.round })
            : t("announce.five", { round: v.round, name: seatName(v, v.hakem) }));
          hold = Math.max(hold, 900);
        } else if (prev && prev.phase === "choosing_trump" && prev.round === v.round) {
          msgs.push(trumpText(v));
          hold = Math.max(hold, 900);
        }
      }
      S.dealKey = dkey;
    }
    // a round's result, told once as the round ends: the view carries the last result into the
    // next round (and two rounds may end alike), so what counts is the round whose end it is
    if (v.result && (v.phase === "round_over" || v.phase === "match_over") && v.round !== S.resultRound) {
      msgs.push(resultText(v, v.result));
      if (!mine) {
        S.banner = { kind: "result" };
        hold = Math.max(hold, v.phase === "match_over" ? 0 : 2600);
        if (v.phase !== "match_over") S.afterHold = () => { if (S.banner && S.banner.kind === "result") S.banner = null; };
      }
      S.resultRound = v.round;
    }
    if (v.phase === "match_over") {
      S.banner = { kind: "over" };
      if (prev && prev.phase !== "match_over") msgs.push(overText(v));
    }
    if (v.phase === "waiting" && !(v.draw && v.draw.length)) S.banner = null;
    // whose turn
    // (another player's turn to play is not told: their card is, a moment later)
    const skey = statusText(v);
    const othersPlay = v.phase === "playing" && v.turn !== v.seat;
    // (the match's end is its status too: told once, above)
    // (the first Hakem's draw is told by its own sentence, just above)
    const told = othersPlay || v.phase === "match_over" || (v.phase === "waiting" && !!(v.draw && v.draw.length));
    if (skey !== S.statusKey) { if ((!first || isMyDecision(v)) && !told) msgs.push(skey); S.statusKey = skey; }
    if (msgs.length) announce(msgs.join(". "));
    return hold;
  }

  /** The cards played between two views: those of the trick beyond the ones shown before, or,
   *  when the trick was completed meanwhile, the completed trick's cards not shown before.
   *  A jump over more than one trick (catching up) tells nothing. */
  function newPlays(prev, v) {
    const before = (prev.trick || []).map((c) => c.card);
    const now = (v.trick || []);
    const same = (cards) => before.every((c, i) => cards[i] && cards[i].card === c);
    if (now.length > before.length) return same(now) ? now.slice(before.length) : [];
    const lt = v.last_trick;
    const plKey = (x) => (x && x.cards ? x.cards.map((c) => c.card).join("") : "");
    if (!now.length && lt && lt.cards && plKey(lt) !== plKey(prev.last_trick) && same(lt.cards)) {
      return lt.cards.slice(before.length);
    }
    return [];
  }

  const isMyDecision = (v) => v.seat != null && DECIDING.includes(v.phase) &&
    v.turn === v.seat && Array.isArray(v.legal) && v.legal.length > 0;

  /** Trump is named: what everybody holds now (the talon game goes on with discards first). */
  function trumpText(v) {
    const suit = suitName(v.trump);
    if (v.phase === "discarding") return t("announce.trump_talon", { suit });
    const n = Math.max(0, ...(v.hand_counts || []));
    return n === 13 ? t("announce.trump", { suit }) : t("announce.trump_n", { suit, n });
  }

  /** The simple two-player game turns one card to each seat instead of looking for aces: the
   *  higher card of the last pair names the Hakem (a tie turned another pair). */
  const highCardDraw = (v) => gameOf(v.rules) === "simple";
  function drawWinners(v) {
    if (!highCardDraw(v)) return v.draw.filter((d) => d.card[0] === "A");
    const [a, b] = v.draw.slice(-2);
    if (!b) return [];
    const rank = (d) => "23456789TJQKA".indexOf(d.card[0]);
    return rank(a) === rank(b) ? [] : [rank(a) > rank(b) ? a : b];
  }
  function drawText(v) {
    const aces = drawWinners(v);
    if (!aces.length) return t(highCardDraw(v) ? "draw.title_high" : "draw.title");
    // the player hears "you" for their own draw (the seat they hold now may differ)
    const said = (key, seat) => (v.seat != null && drawSeat(v, seat) === v.seat
      ? t(`${key}_you`) : t(key, { name: seatName(v, drawSeat(v, seat)) }));
    let s = said(highCardDraw(v) ? "draw.hakem_high" : "draw.hakem", aces[0].seat);
    if (aces[1] && v.rules && v.rules.teams === "ace_draw") s += ". " + said("draw.partner", aces[1].seat);
    return s;
  }
  /** The seat now of who sat at `seat` during the draw: it may have swapped the partner opposite the Hakem. */
  function drawSeat(v, seat) {
    const aces = drawWinners(v);
    if (aces.length >= 2 && v.rules && v.rules.teams === "ace_draw") {
      const opp = (aces[0].seat + 2) % 4, p = aces[1].seat;
      if (p !== opp) { if (seat === p) return opp; if (seat === opp) return p; }
    }
    return seat;
  }
  function trickWonText(v, winner) {
    return winner === v.seat ? t("announce.trick_won_you") : t("announce.trick_won", { name: seatName(v, winner) });
  }

  /** "a–b" with one side first (the player's; the winner's for results and spectators).  More
   *  than two sides are each named with their number instead, always in one order, the
   *  viewer's first ("You 6 · Roxana 7 · Bahram 1", `tally`): bare numbers in an order that
   *  changed from line to line left the reader to guess whose they were. */
  const pair = (v, arr, first) => pointsOf(v, arr, first, (i) => teamLabel(v, i));
  /** Every side named with its number, the viewer's side first, then the others in seat order
   *  (as the terminal client's lines and the replay's, sides.js); the page's digits. */
  const tally = (v, arr) => tallyOf(v, arr, (i) => teamLabel(v, i));
  const myTeam = mySide;
  function resultText(v, r) {
    if (r.winner == null) return t(`result.${r.kind}`, { tricks: pair(v, r.tricks), points: r.points });
    // the subject of the sentence: "We" / "They" for a seated partner (the labels are "Us" / "Them")
    const team = partnered(v) && v.seat != null
      ? t(sidesOf(v)[r.winner].includes(v.seat) ? "team.we" : "team.they") : teamLabel(v, r.winner);
    const tricks = pair(v, r.tricks, r.winner);
    // with partners a side is "we" / "they"; alone it is one player: texts of their own
    return t(partnered(v) ? `result.${r.kind}` : `result1.${r.kind}`, { team, name: team, tricks, points: r.points });
  }
  const iWon = (v) => v.seat != null && v.winner === mySide(v);
  function overText(v) {
    // the winner's points first, whoever reads it ("Match to Roxana (7–5)", "The other team
    // wins the match 7–5"): the sentences name the winner
    const score = pair(v, v.score, v.winner ?? myTeam(v));
    if (!partnered(v)) return iWon(v) ? t("over1.won", { score }) : t("over1.winner", { name: teamLabel(v, v.winner), score });
    if (v.seat != null) return t(iWon(v) ? "over.won" : "over.lost", { score });
    return t("over.winner", { team: teamLabel(v, v.winner), score });
  }
  /** Every side's points, the player's first ("Score: Us 3 – Them 5" with partners). */
  function scoreLine(v) {
    if (partnered(v) && sidesOf(v).length === 2) {
      const m = myTeam(v);
      return t("table.score_line", { us: teamLabel(v, m), a: v.score[m], them: teamLabel(v, 1 - m), b: v.score[1 - m] });
    }
    return t("table.score_line_n", { scores: tally(v, v.score) });
  }

  /** The seat whose decision the match waits for when nobody sits in it (it left), else null:
   *  the match stops there until someone takes the seat or it is given to a bot. */
  function emptyTurn(v) {
    const s = v.phase === "choosing_trump" ? v.hakem : DECIDING.includes(v.phase) ? v.turn : null;
    return s != null && (v.seats || [])[s]?.empty ? s : null;
  }

  function statusText(v) {
    const me = v.seat;
    if (emptyTurn(v) != null) return t("status.empty_seat", { n: emptyTurn(v) + 1 });
    switch (v.phase) {
      case "waiting": {
        // every seat taken: the first Hakem's draw is on (its panel shows it), nobody waited for
        if (v.draw && v.draw.length) return t("status.first_hakem");
        const seated = (v.seats || []).filter((s) => !s.empty).length;
        return t("status.waiting", { n: seated, total: v.players || 4 });
      }
      case "choosing_trump":
        return v.hakem === me ? t("status.choose_trump") : t("status.hakem_choosing", { name: seatName(v, v.hakem) });
      case "discarding":
        return v.turn === me ? t("status.your_discard", { n: (v.talon && v.talon.discard) || 0 }) : t("status.discarding", { name: seatName(v, v.turn) });
      case "drawing":
        return v.turn === me ? t("status.your_draw") : t("status.drawing", { name: seatName(v, v.turn) });
      case "playing":
        return v.turn === me ? t("status.your_turn") : t("status.playing", { name: seatName(v, v.turn) });
      case "round_over": return t("status.round_over");
      case "match_over": return overText(v);
      default: return "";
    }
  }

  /** The status line as nodes: a seat's name in it is its own span, cut with an ellipsis when
   *  long (names have up to MAX_NAME characters); the text itself is statusText's. */
  function statusNodes(v) {
    const others = { playing: "status.playing", discarding: "status.discarding", drawing: "status.drawing" };
    const named = v.phase === "choosing_trump" && v.hakem !== v.seat ? ["status.hakem_choosing", v.hakem]
      : others[v.phase] && v.turn !== v.seat ? [others[v.phase], v.turn] : null;
    if (!named || emptyTurn(v) != null) return [statusText(v)];
    const name = seatName(v, named[1]);
    const [before, after] = t(named[0], { name: "\u0000" }).split("\u0000");
    if (after === undefined) return [statusText(v)];
    return [before, h("span.who", { text: name, title: name, dir: "auto" }), after].filter(Boolean);
  }

  // ---- rendering ----
  function render() {
    const v = S.view;
    if (!v || !alive) return;
    const me = v.seat;
    const base = me ?? 0;
    const n = nSeats(v);
    const places = PLACES[n] || POS;
    const pos = (s) => POS.indexOf(places[(s - base + n) % n]);
    const myTurn = isMyDecision(v);
    // nothing covers the table while the player has to act (the match-over panel never meets a turn)
    if (myTurn && S.banner && S.banner.kind !== "over") S.banner = null;
    // machine-readable state for tests and browser-driving agents
    Object.assign(E.page.dataset, { pace: String(pace), phase: v.phase, round: String(v.round), version: String(v.version),
      seat: v.seat == null ? "" : String(v.seat), turn: v.turn == null ? "" : String(v.turn), myTurn: String(myTurn) });
    document.title = myTurn ? `${t("brand")} — ${t("title.your_turn")}` : t("brand");
    fill(E.status, ...statusNodes(v));
    E.status.classList.toggle("mine", myTurn);
    renderLimit();
    renderConn();
    renderSkip();
    // seats around the table (with two or three players some places stay empty)
    E.board.dataset.players = String(n);
    const used = new Set();
    for (let s = 0; s < n; s++) { renderSeat(E.seats[pos(s)], v, s); used.add(pos(s)); }
    E.seats.forEach((el, p) => { el.hidden = !used.has(p); if (el.hidden) el.replaceChildren(); });
    // the trick in the middle, by seat relative to the player
    const shown = S.completed ? S.completed.cards : v.trick;
    const bySlot = new Map((shown || []).map(({ seat, card }) => [pos(seat), { seat, card }]));
    E.slots.forEach((el, p) => {
      const it = bySlot.get(p);
      const win = !!(it && S.completed && S.completed.winner === it.seat);
      el.classList.toggle("winner", win);
      el.classList.toggle("filled", !!it);
      // an empty place is no item of the trick for a screen reader
      el.setAttribute("aria-hidden", it ? "false" : "true");
      if (!it) { el.replaceChildren(); el.removeAttribute("aria-label"); delete el.dataset.card; return; }
      // a card already on the table stays (no replayed animation); a new one is drawn
      // read once, by the item's name ("Kibo: King of spades", which agents read too): the
      // picture and the visible name under it are hidden from the accessibility tree
      if (el.dataset.card !== it.card || el.dataset.lang !== document.documentElement.lang) {
        const img = cardImage(it.card);
        img.setAttribute("aria-hidden", "true");
        el.replaceChildren(img, h("span.slot-name", { text: seatName(v, it.seat), "aria-hidden": "true", dir: "auto" }));
        el.dataset.card = it.card;
        el.dataset.lang = document.documentElement.lang;
      }
      el.setAttribute("aria-label", `${isolated(seatName(v, it.seat))}: ${cardName(it.card)}${win ? " — " + t("table.wins_trick") : ""}`);
    });
    E.trick.classList.toggle("empty", !(shown && shown.length));
    renderPile(v);
    renderBanner(v);
    renderTrumpChoice(v);
    syncPicked(v);
    renderTalon(v, myTurn);
    renderHand(v, myTurn);
    focusChoice(myTurn);
    renderScore(v);
    renderLastTrick(v);
    renderDiscards(v);
    renderWaiting(v);
    renderHints(v);
    renderInfo(v);
    renderLeave(v);
    maybeFetchHint(v);
    placeToast(); // (the hand may have moved)
  }

  function renderConn() {
    // "Connecting…" for the first connection only: after a loss the retries say it is lost
    const st = S.conn === "open" ? "open" : S.conn === "connecting" && !S.lost ? "connecting" : "closed";
    E.conn.className = `conn-status ${st}`;
    E.conn.textContent = t(`conn.${st}`);
    const mine = document.getElementById("my-dot");
    if (mine && S.view) setDot(mine, S.conn === "open" && !!((S.view.seats || [])[S.view.seat] || {}).connected);
  }

  /** A human seat's presence dot, on (connected) or off, with its words for screen readers. */
  function setDot(dot, on) {
    dot.classList.toggle("on", on);
    dot.classList.toggle("off", !on);
    const words = t(on ? "seat.online" : "seat.offline");
    dot.setAttribute("role", "img");
    dot.setAttribute("aria-label", words);
    dot.title = words;
    return dot;
  }

  function renderSeat(el, v, s) {
    const seat = (v.seats || [])[s] || { empty: true };
    const me = v.seat;
    el.classList.toggle("turn", v.turn === s && DECIDING.includes(v.phase));
    el.classList.toggle("hakem", v.hakem === s);
    el.classList.toggle("me", s === me);
    el.dataset.seat = String(s);
    const badges = [];
    if (s === me) badges.push(h("span.badge.you", { text: t("seat.you") }));
    else if (me != null && partnered(v) && teamsKnown(v) && sideOf(v, s) === sideOf(v, me)) badges.push(h("span.badge.partner", { text: t("seat.partner") }));
    if (v.hakem === s) badges.push(h("span.badge.hakem", {}, h("span", { "aria-hidden": "true", text: "♛ " }), t("seat.hakem")));
    if (seat.bot) {
      // the server's bot names often carry the level already ("Kian (easy)")
      const lv = botLevel(seat.bot);
      const text = String(seat.name || "").toLowerCase().includes(lv) ? t("seat.bot") : t("seat.bot_level", { level: t(`level.${lv}`) });
      badges.push(h("span.badge.bot", { text, title: t("seat.bot_level", { level: t(`level.${lv}`) }) }));
    }
    if (!seat.empty && !seat.bot) {
      // the player's own dot follows this page's socket: the last view said "connected" all
      // through a lost connection (a QA finding: green beside "Connection lost")
      const on = s === me ? !!seat.connected && S.conn === "open" : !!seat.connected;
      const dot = h(`span.dot.${on ? "on" : "off"}`, s === me ? { id: "my-dot" } : {});
      badges.push(setDot(dot, on));
    }
    const count = (v.hand_counts || [])[s] || 0;
    const parts = [h("div.seat-head", {}, h("span.name", { text: seatName(v, s), title: seatName(v, s), dir: "auto" }), ...badges)];
    if (v.hands && v.hands[s] && s !== me) {
      parts.push(h("div.revealed", { role: "list", "aria-label": t("table.hand_of", { name: seatName(v, s) }) },
        ...v.hands[s].map((c) => h("span", { role: "listitem" }, cardImage(c, "mini")))));
    } else if (s !== me) {
      const backs = h(`div.backs${count > 13 ? ".many" : ""}`, { "aria-hidden": "true" });
      for (let i = 0; i < count; i++) backs.append(cardBack());
      // (in the waiting room nobody holds a card: "0 cards" said for every seat is noise)
      parts.push(backs, v.phase === "waiting" ? null : h("span.sr-only", { text: t("table.cards_left", { n: count }) }));
    }
    if (v.turn === s && DECIDING.includes(v.phase)) parts.push(h("span.turn-flag", { text: t("seat.to_play") }));
    fill(el, ...parts);
    el.setAttribute("aria-label", `${seatName(v, s)}`);
    el.setAttribute("role", "group");
  }

  function renderBanner(v) {
    const b = S.banner;
    if (!b) { E.banner.hidden = true; E.banner.replaceChildren(); delete E.banner.dataset.built; return; }
    if (b.kind !== "over") delete E.banner.dataset.built;
    E.banner.hidden = false;
    E.banner.className = `banner ${b.kind}`;
    if (b.kind === "draw") {
      const aces = drawWinners(v).map((d) => d.card);
      fill(E.banner, h("h2", { text: t(highCardDraw(v) ? "draw.title_high" : "draw.title") }),
        // every card turned, in order; the name of who got it under the aces only (it can be long)
        h("ol.draw", {}, ...v.draw.map((d, i) => h("li", { style: `--i:${i}`, class: aces.includes(d.card) ? "ace" : "" },
          cardImage(d.card, "mini"), aces.includes(d.card) ? h("span", { text: seatName(v, drawSeat(v, d.seat)), dir: "auto" }) : null))),
        h("p", { text: drawText(v) }));
    } else if (b.kind === "result" && v.result) {
      const lost = v.result.kind === "normal" && v.seat != null && v.result.winner != null
        && v.result.winner !== mySide(v); // "Round won" is the winners' heading
      fill(E.banner, h("h2", { text: t(lost ? "kind.normal_lost" : `kind.${v.result.kind}`) }), h("p", {}, unbroken(resultText(v, v.result))),
        h("p.score-line", {}, unbroken(scoreLine(v))));
    } else if (b.kind === "over") {
      const won = iWon(v);
      if (E.banner.dataset.built === `over:${document.documentElement.lang}`) return; // keeps focus
      E.banner.dataset.built = `over:${document.documentElement.lang}`;
      const ae = document.activeElement;
      // the match is over: a keyboard user at the table (or whose focus was lost with the hand)
      // is taken to the panel's heading; Play again, the replay and the start page follow it
      const take = !ae || ae === document.body || ae.disabled || E.page.contains(ae);
      fill(E.banner, h("h2", { id: "over-h", tabindex: "-1", text: v.seat == null ? t("over.title") : won ? t("over.title_won") : t("over.title_lost") }),
        h("p", {}, unbroken(overText(v))),
        v.result ? h("p", {}, unbroken(resultText(v, v.result))) : null,
        // a player's likeliest next step is the next match: Play again comes first
        h("p.actions", {}, v.seat != null && token ? rematchButton() : null,
          h(v.seat != null && token ? "a.button" : "a.button.primary", { href: `/replay/${matchId}`, "data-link": true, id: "watch-replay", text: t("table.watch_replay") }),
          analysisLink(matchId),
          h("a.button", { href: "/", "data-link": true, id: "new-match", text: t("table.new_match") })),
        v.seat != null && token ? h("p.rematch-note", { id: "rematch-note", role: "status", hidden: !S.rematchFull, text: t(S.rematchFull ? "over.rematch_full" : "over.rematch_waiting") })
          : h("p", {}, h("a.button", { id: "to-rematch", hidden: true, "data-link": true, href: "/", text: t("join.to_rematch") })));
      if (take) E.banner.querySelector("#over-h").focus({ preventScroll: false });
      watchRematch();
      return;
    }
  }

  // ---- rematch: the next match of this table (POST .../rematch; api.md) ----
  function rematchButton() {
    if (S.rematchFull) { // refused as full: no more joining, the way to watch it instead
      return h("a.button.primary", { id: "to-rematch", "data-link": true, href: S.rematch ? `/m/${S.rematch}` : "/", text: t("join.to_rematch") });
    }
    const btn = h("button.button.primary", { type: "button", id: "rematch", text: t(S.rematch ? "over.rematch_join" : "over.rematch") });
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      try {
        const r = await takeRematch(matchId, token);
        navigate(`/m/${r.match_id}`);
      } catch (e) {
        if (e.code === "match_full") { rematchFull(btn); return; }
        toast(errorText(e)); btn.disabled = false;
      }
    });
    return btn;
  }

  /** The rematch is full (the seat held for this player was given to a bot, or its hold ended
   *  and someone took it): say so, and offer to watch it instead of joining. */
  async function rematchFull(btn) {
    const id = S.rematch || (await api.summary(matchId).catch(() => ({}))).rematch;
    if (!alive) return;
    S.rematch = id || null;
    S.rematchFull = true;
    const note = E.banner.querySelector("#rematch-note");
    if (note) { note.textContent = t("over.rematch_full"); note.hidden = false; }
    const link = rematchButton();
    btn.replaceWith(link);
    link.focus();
  }

  /** While the match-over panel shows, look every few seconds (for REMATCH_LOOK_FOR_MS at
   *  most, and not once the match is gone) whether a player asked for the rematch (the summary
   *  names it): a player's button then says "join", a spectator gets a link to it. */
  function watchRematch() {
    const show = () => {
      const btn = E.banner.querySelector("#rematch");
      const note = E.banner.querySelector("#rematch-note");
      const link = E.banner.querySelector("#to-rematch");
      if (!S.rematch) return;
      if (btn) btn.textContent = t("over.rematch_join");
      if (note) note.hidden = false;
      if (link) { link.href = `/m/${S.rematch}`; link.hidden = false; }
    };
    show();
    if (S.stopLook || S.rematch) return;
    S.stopLook = lookForRematch(matchId, true, (id) => { if (alive) { S.rematch = id; show(); } });
  }

  function renderTrumpChoice(v) {
    const show = v.phase === "choosing_trump" && v.seat != null && v.hakem === v.seat && (v.legal || []).length > 0;
    // the trick is empty meanwhile: a phone shrinks it so that the five cards stay on the
    // screen with the suit buttons (style.css)
    E.play.classList.toggle("choosing-trump", show);
    if (!show) { E.trump.hidden = true; E.trump.replaceChildren(); S.trumpShown = false; return; }
    if (S.trumpShown) { for (const b of E.trump.querySelectorAll("button")) b.disabled = S.pending; return; }
    S.trumpShown = true;
    E.trump.hidden = false;
    const btns = v.legal.map((s) => suitButton(s, (suit) => send({ type: "choose_trump", suit })));
    fill(E.trump, h("h2", { id: "trump-h", text: t("trump.title") }), h("p", { text: t("trump.desc") }), h("div.suits", {}, ...btns));
  }

  // ---- the talon game: laying cards aside, then keep or discard (docs/rules-decisions.md) ----
  /** The picked cards belong to one discard decision: a new decision starts with none. */
  function syncPicked(v) {
    const key = `${v.round}:${v.phase}:${v.turn}`;
    if (S.pickKey !== key) { S.pickKey = key; S.picked = new Set(); }
    for (const c of [...S.picked]) if (!(v.hand || []).includes(c)) S.picked.delete(c);
  }
  const toDiscard = (v) => (v && v.talon && v.talon.discard) || 0;

  /** A card of the hand was chosen: played, or (while laying cards aside) picked or unpicked. */
  function onCard(card) {
    const v = S.view;
    if (!v) return;
    if (v.phase !== "discarding") { send({ type: "play", card }); return; }
    if (S.picked.has(card)) S.picked.delete(card);
    else if (S.picked.size < toDiscard(v)) S.picked.add(card);
    else { toast(t("talon.too_many", { n: toDiscard(v) })); return; }
    announce(t("talon.picked", { k: S.picked.size, n: toDiscard(v) }));
    render();
  }

  function renderPile(v) {
    const tal = v.talon;
    const on = !!(tal && tal.left > 0 && (v.phase === "discarding" || v.phase === "drawing"));
    E.pile.hidden = !on;
    if (!on) { E.pile.replaceChildren(); return; }
    const label = t("talon.left", { n: tal.left }); // its text names it (a label would say it twice)
    fill(E.pile, cardBack(false), h("span.pile-count", { text: label }));
  }

  function renderTalon(v, myTurn) {
    const tal = v.talon;
    const kind = !myTurn || !tal ? null : v.phase === "discarding" && tal.discard ? "discard"
      : v.phase === "drawing" && tal.top ? "draw" : null;
    if (!kind) { E.talon.hidden = true; E.talon.replaceChildren(); S.talonKey = null; return; }
    const key = `${kind}:${v.version}:${document.documentElement.lang}`;
    if (S.talonKey !== key) { // built once per decision, so keyboard focus stays on its buttons
      S.talonKey = key;
      E.talon.hidden = false;
      if (kind === "discard") {
        const confirm = h("button.primary", { type: "button", id: "talon-confirm", text: t("talon.lay_confirm", { n: tal.discard }) });
        confirm.addEventListener("click", () => {
          if (S.picked.size === toDiscard(S.view)) send({ type: "discard", cards: [...S.picked] });
        });
        fill(E.talon, h("h2", { id: "talon-h", text: t("talon.lay_title") }),
          h("p", { text: t("talon.lay_desc", { n: tal.discard }) }),
          h("p.picked-count", { id: "talon-picked" }), h("div.choices", {}, confirm));
      } else {
        const choice = (c) => {
          const b = h("button", { type: "button", "data-choice": c },
            h("strong", { text: t(`talon.${c}`) }), h("span.sub", { text: t(`talon.${c}_desc`) }));
          b.addEventListener("click", () => send({ type: "draw_talon", choice: c }));
          return b;
        };
        fill(E.talon, h("h2", { id: "talon-h", text: t("talon.draw_title") }),
          h("div.talon-top", {}, cardImage(tal.top), h("p", { text: t("talon.top", { card: cardName(tal.top), n: tal.left }) })),
          h("div.choices", { role: "group", "aria-label": t("talon.draw_title") }, choice("keep"), choice("discard")));
      }
    }
    for (const b of E.talon.querySelectorAll("button[data-choice]")) b.disabled = S.pending;
    const confirm = E.talon.querySelector("#talon-confirm");
    if (confirm) {
      confirm.disabled = S.pending || S.picked.size !== tal.discard;
      E.talon.querySelector("#talon-picked").textContent = t("talon.picked", { k: S.picked.size, n: tal.discard });
    }
  }

  /** The player's own cards laid aside (the talon game): only this seat's view lists them. */
  function renderDiscards(v) {
    const own = (v.talon && v.talon.discarded) || [];
    const key = `${document.documentElement.lang}:${own.join(",")}`;
    if (E.discards.dataset.key === key) return;
    E.discards.dataset.key = key;
    if (!own.length) { E.discards.replaceChildren(); return; }
    fill(E.discards, h("h2", { text: t("talon.your_discards", { n: own.length }) }),
      h("ul.mini-trick", {}, ...own.map((c) => h("li", {}, cardImage(c, "mini")))));
  }

  function renderHand(v, myTurn) {
    const hand = v.hand || [];
    const picking = myTurn && v.phase === "discarding";
    const legal = new Set(myTurn && (v.phase === "playing" || picking) ? v.legal : []);
    E.hand.hidden = v.seat == null;
    E.handGroup.classList.toggle("my-turn", myTurn && v.phase === "playing");
    E.handGroup.classList.toggle("deciding", myTurn); // any decision: new cards appear in place
    E.handGroup.classList.toggle("picking", picking);
    const had = new Map([...E.handGroup.querySelectorAll("button.card")].map((b) => [b.dataset.card, b]));
    const focused = document.activeElement;
    const wasInHand = E.handGroup.contains(focused);
    let lostFocus = false;
    for (const [card, b] of had) if (!hand.includes(card)) { if (b === focused) lostFocus = true; b.remove(); had.delete(card); }
    // new cards are dealt in from the left (the loop goes from the right): numbered the other
    // way, the first cards, often the ones to play, showed last, 1.2 s after "Your turn"
    let fresh = hand.filter((card) => !had.has(card)).length;
    let next = null;
    for (let i = hand.length - 1; i >= 0; i--) { // insert new cards in order without moving old ones
      const card = hand[i];
      let b = had.get(card);
      if (!b) {
        b = cardButton(card, onCard);
        if (S.handSeen) { // dealt in; the class goes once done, or it would pin the card's transform
          b.classList.add("dealt");
          b.style.setProperty("--i", String(--fresh));
          b.addEventListener("animationend", () => b.classList.remove("dealt"), { once: true });
        }
        E.handGroup.insertBefore(b, next);
      }
      b.setAttribute("aria-label", cardName(card));
      b.disabled = !legal.has(card) || S.pending;
      b.classList.toggle("legal", legal.has(card) && !picking);
      b.classList.toggle("picked", picking && S.picked.has(card));
      if (picking) b.setAttribute("aria-pressed", S.picked.has(card) ? "true" : "false");
      else b.removeAttribute("aria-pressed");
      next = b;
    }
    S.handSeen = true; // from now on, new cards are dealt in with an animation
    rove();
    E.handGroup.setAttribute("aria-label", hand.length ? t("table.your_hand_n", { n: hand.length }) : t("table.your_hand"));
    // keep keyboard users in the hand: the card they played went away, or was disabled while
    // the move is on its way (a disabled button loses the focus to <body>)
    const ae = document.activeElement;
    if (lostFocus || (wasInHand && (!ae || ae.disabled || !E.handGroup.contains(ae)))) E.handGroup.focus();
  }

  /** On the player's turn, a keyboard user whose focus was lost (the card they played, the
   *  trump buttons that went away) lands on the first choice.  Focus elsewhere is left alone. */
  function focusChoice(myTurn) {
    if (!myTurn) return;
    const ae = document.activeElement;
    const lost = !ae || ae === document.body || ae === root || ae === E.handGroup || ae.disabled || !ae.isConnected;
    if (!lost) return;
    const first = E.trump.querySelector("button:not([disabled])") || E.talon.querySelector("button[data-choice]:not([disabled])") ||
      E.handGroup.querySelector("button.card:not([disabled])");
    if (!first) return;
    first.focus({ preventScroll: true });
    first.scrollIntoView({ block: "nearest" });
    // then back up to the status line ("Your turn", the countdown, the connection) wherever the
    // whole hand still fits under it: on a 320 x 568 phone the page stayed 141 px down, the
    // line above the screen and the top seat's card cut (a QA finding)
    const bar = E.statusbar.getBoundingClientRect();
    const hand = E.handGroup.getBoundingClientRect();
    if (bar.top < 0 && hand.bottom - bar.top <= innerHeight) window.scrollBy({ top: bar.top, behavior: "instant" });
    // choosing trump, the five cards the choice is about (under the buttons) come into view
    // too, as far as the buttons stay on the screen below the countdown (at 320 x 568 the cards
    // lay under the screen's edge: an audit)
    if (!E.trump.hidden && E.trump.contains(first)) {
      const cards = [...E.handGroup.querySelectorAll("button.card")].map((b) => b.getBoundingClientRect().bottom);
      const under = Math.ceil(Math.max(0, ...cards) - innerHeight); // (a fraction of a pixel counts)
      const suits = first.parentElement.getBoundingClientRect();
      const limit = E.limit.closest(".limit-box").getBoundingClientRect();
      const room = suits.top - Math.max(0, limit.bottom) - 4;
      if (under > 0 && room > 0) window.scrollBy({ top: Math.min(under, room), behavior: "instant" });
    }
  }

  /** The hand is one Tab stop (roving tabindex, WAI-ARIA APG): of its enabled cards only the
   *  last one focused (else the first) has tabindex 0; the arrow keys move within the hand
   *  (`handKeys`).  Each card a stop of its own made 13 presses of Tab to get past the hand. */
  function rove() {
    const cards = [...E.handGroup.querySelectorAll("button.card")];
    const enabled = cards.filter((b) => !b.disabled);
    const stop = enabled.find((b) => b.dataset.card === S.handStop) || enabled[0];
    for (const b of cards) b.tabIndex = b === stop ? 0 : -1;
  }

  function handKeys(ev) { arrowKeys(ev, [...E.handGroup.querySelectorAll("button.card:not([disabled])")]); }
  /** The keep / discard buttons move with the arrows like the cards of the hand. */
  function choiceKeys(ev) {
    if (ev.target.closest && ev.target.closest(".choices[role=group]")) arrowKeys(ev, [...E.talon.querySelectorAll("button[data-choice]:not([disabled])")]);
  }
  /** Left / right (mirrored right-to-left), down / up, Home and End move the focus along `btns`
   *  (the hand, the talon's choice, the trump suits). */
  function arrowKeys(ev, btns) {
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(ev.key)) return;
    if (!btns.length) return;
    let i = btns.indexOf(document.activeElement);
    const fwd = ev.key === "ArrowDown" || (ev.key !== "ArrowUp" && (ev.key === "ArrowRight") !== isRtl());
    if (ev.key === "Home") i = 0;
    else if (ev.key === "End") i = btns.length - 1;
    else i = i < 0 ? 0 : (i + (fwd ? 1 : -1) + btns.length) % btns.length;
    btns[i].focus();
    ev.preventDefault();
  }

  function renderScore(v) {
    const rows = sideOrder(v, myTeam(v)).map((team) => h("tr", { class: v.seat != null && sideOf(v, v.seat) === team ? "ours" : "" },
      h("th", { scope: "row", text: teamLabel(v, team) }),
      h("td", { text: num((v.tricks || [])[team] ?? 0) }),
      h("td", { text: num((v.score || [])[team] ?? 0) }),
      v.sets ? h("td", { text: num(v.sets[team]) }) : null));
    const hakem = v.hakem != null ? seatName(v, v.hakem) : "—";
    // facts of the game: the card out of play (three players), the talon, the unused cards
    const facts = [];
    if ((v.removed || []).length) {
      facts.push(h("dt", { text: t("table.removed") }),
        h("dd.removed", { id: "removed-info" }, ...v.removed.map((c) => cardImage(c, "mini"))));
    }
    if (v.talon && (v.phase === "discarding" || v.phase === "drawing")) {
      facts.push(h("dt", { text: t("table.talon") }), h("dd", { id: "talon-info", text: t("table.cards_left", { n: v.talon.left }) }));
    }
    if (gameOf(v.rules) === "simple") facts.push(h("dt", { text: t("table.unused") }), h("dd.wrap", { text: t("table.unused_n", { n: 26 }) }));
    fill(E.score, ...[
      h("h2", { text: t("table.round_n", { n: v.round || 1 }) }),
      h("dl.facts", {},
        h("dt", { text: t("table.trump") }), h("dd", { id: "trump-info" }, v.trump ? suitBadge(v.trump) : t("table.no_trump")),
        h("dt", { text: t("table.hakem") }), h("dd", {}, h("bdi", { text: hakem })), ...facts),
      h("table.score", {},
        h("caption", { text: t("table.target", { n: v.target }) + (v.sets ? " · " + t("table.two_sets") : "") }),
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t(partnered(v) ? "table.team" : "table.player") }), h("th", { scope: "col", text: t("table.tricks") }),
          h("th", { scope: "col", text: t("table.points") }), v.sets ? h("th", { scope: "col", text: t("table.sets") }) : null)),
        h("tbody", {}, ...rows)),
      v.pile ? h("p", { text: t("table.pile", { n: v.pile }) }) : null,
      // who drew the aces stays readable here in the first round (the panel gives way to turns)
      (v.round || 1) <= 1 && v.draw && v.draw.length && !v.result ? h("p.draw-result", { text: drawText(v) }) : null,
      v.result && v.phase !== "round_over" && v.phase !== "match_over" ? h("p.last-result", { text: t("table.last_round") + ": " + resultText(v, v.result) }) : null,
    ].filter(Boolean));
  }

  function renderLastTrick(v) {
    const lt = v.last_trick;
    if (!lt || !lt.cards || !lt.cards.length) { E.lastTrick.replaceChildren(); return; }
    fill(E.lastTrick, h("h2", { text: t("table.last_trick") }),
      h("ul.mini-trick", {}, ...lt.cards.map(({ seat, card }) => h("li", { class: seat === lt.winner ? "winner" : "" },
        cardImage(card, "mini"), h("span", { text: seatName(v, seat), dir: "auto" })))),
      h("p", { text: trickWonText(v, lt.winner) }));
  }

  /** The empty seats of `v` as the invite link may offer them: `free` (anyone's) and `held`
   *  (a rematch's, kept for a player of the last match: nobody else may take it meanwhile,
   *  api.md, POST .../rematch), seat numbers; null until the summary has said which are held.
   *  The holds are set when the rematch is made and only end, so the summary is asked once,
   *  and again only when other seats are empty while a hold runs (a player left a seat). */
  function openSeats(v) {
    const empty = (v.seats || []).flatMap((s, i) => (s.empty ? [i] : []));
    if (!empty.length) return { free: [], held: [] };
    const key = empty.join(",");
    const H = S.holds;
    if (!H || (H.key !== key && H.until > Date.now())) askHolds(key);
    if (!H) return null;
    const kept = H.until > Date.now() ? H.seats : new Set();
    return { free: empty.filter((i) => !kept.has(i)), held: empty.filter((i) => kept.has(i)) };
  }

  /** Ask the summary which empty seats are held and for how long (`key`: the empty seats the
   *  answer is for); the panels are drawn again with the answer, and when the holds end. */
  function askHolds(key) {
    if (S.holdsAsked === key) return;
    S.holdsAsked = key;
    const held = (s) => {
      const seats = new Set((s.seats || []).flatMap((x, i) => (x.empty && x.held ? [i] : [])));
      const left = seats.size ? Number(s.held_for) || 0 : 0;
      return { key, seats, until: Date.now() + left * 1000 };
    };
    // (a summary refused or lost: no hold known; a stranger's join would be refused and say why)
    api.summary(matchId).then(held, () => ({ key, seats: new Set(), until: 0 })).then((H) => {
      if (!alive || S.holdsAsked !== key) return;
      S.holds = H;
      clearTimeout(S.holdsTimer);
      // the holds' end: the seats still open are anyone's, the invite link comes back
      if (H.until > Date.now()) S.holdsTimer = setTimeout(renderHolds, H.until - Date.now() + 100);
      renderHolds();
    });
  }
  function renderHolds() {
    if (!alive || !S.view) return;
    renderWaiting(S.view);
    renderInfo(S.view);
  }

  /** "The table waits for the last match's players: their seats are kept for N more seconds"
   *  (`seats`: how many are kept), counting down (the panel is drawn again when they end). */
  function keptNote(seats) {
    const key = seats === 1 ? "waiting.held_one" : "waiting.held";
    const p = h("p.note", { id: "waiting-held" });
    clearTimeout(S.heldTick);
    const tick = () => {
      const left = Math.ceil((S.holds.until - Date.now()) / 1000);
      if (!alive || left <= 0 || (p.textContent && !p.isConnected)) return; // (a panel gone)
      p.textContent = t(key, { n: left });
      S.heldTick = setTimeout(tick, 1000);
    };
    tick();
    return p;
  }

  /** The open seats and Give to a bot: while the room waits for players, and, for the seated
   *  players, whenever a seat is empty in a match in play (a player left it: the match stops
   *  at its turn until someone takes it, POST .../seats/{n}/bot takes it at any phase).  The
   *  invite link (a spectator: the way to the join page) only while a seat is anyone's: seats
   *  kept for the last match's players (openSeats) are said to be waited for instead. */
  function renderWaiting(v) {
    const waiting = v.phase === "waiting";
    const inPlay = !waiting && v.phase !== "match_over" && !!token && v.seat != null;
    const anyEmpty = (v.seats || []).some((s) => s.empty);
    E.waiting.hidden = !((waiting || inPlay) && anyEmpty);
    if (E.waiting.hidden) { E.waiting.replaceChildren(); delete E.waiting.dataset.key; return; }
    const open = openSeats(v);
    const onlyHeld = !!open && !open.free.length;
    const key = JSON.stringify([waiting, v.seats, open]);
    if (E.waiting.dataset.key === key) return; // keep focus on the buttons
    E.waiting.dataset.key = key;
    const list = h("ul.seat-list");
    (v.seats || []).forEach((s, i) => {
      const kept = !!open && open.held.includes(i);
      const li = h("li", {}, h("span.seat-no", { text: t("start.seat_n", { n: i + 1 }) + ": " }), s.empty ? h("em", { text: t(kept ? "seat.held" : "seat.open") }) : h("bdi", { text: s.name }));
      if (s.empty && token) {
        const b = h("button", { type: "button", "data-bot-seat": String(i), text: t("waiting.give_bot") });
        // WCAG 2.5.3: the name starts with the words shown ("Give to a bot: Seat 3")
        b.setAttribute("aria-label", `${t("waiting.give_bot")}: ${t("start.seat_n", { n: i + 1 })}`);
        b.addEventListener("click", async () => {
          b.disabled = true;
          try { await api.giveBot(matchId, i, token, "medium"); } catch (e) { toast(errorText(e)); b.disabled = false; }
        });
        li.append(" ", b);
      }
      list.append(li);
    });
    fill(E.waiting, h("h2", { id: "waiting-h", text: t(waiting ? "waiting.title" : "empty.title") }),
      // (mid-match the invite link is in the side panel's "Invite link": one field of that id)
      onlyHeld ? keptNote(open.held.length) : h("p", { text: t(waiting ? "waiting.desc" : "empty.desc") }),
      waiting && open && !onlyHeld ? (token ? invitePanel(matchId) : joinPath()) : null, list);
  }

  /** A spectator's way to a free seat: the join page (the invite panel is for the players,
   *  who send it to their friends; a spectator takes a seat there, with a name). */
  function joinPath() {
    return h("p.join-path", {}, h("a.button", { href: `/m/${matchId}`, "data-link": true, id: "join-free-seat", text: t("join.take_seat") }));
  }

  function renderInfo(v) {
    // the invite link while the match goes on (the waiting panel has its own), the seat's link
    // to another device until it ends: a finished match has nothing to join or to play on
    const stage = v.phase === "waiting" ? "waiting" : v.phase === "match_over" ? "over" : "on";
    // the invite link is for a player of a room with a free seat (a player left it); a
    // spectator of such a room is offered the join page instead, of a full room neither
    const player = !!token && v.seat != null;
    const open = stage === "on" ? openSeats(v) : null;
    const free = !!open && open.free.length > 0; // (not a seat kept for a player: renderWaiting)
    const key = `${document.documentElement.lang}:${stage}:${player}:${free}`;
    if (E.info.dataset.key === key) return; // built already (keeps an open <details> open)
    E.info.dataset.key = key;
    const rules = ruleSummary(v.rules);
    fill(E.info, ...[
      h("details", {}, h("summary", { text: t("table.house_rules") }), h("ul", {}, ...rules.map((r) => h("li", { text: r })))),
      free && player ? h("details.invite-details", {}, h("summary", { text: t("invite.title") }), invitePanel(matchId)) : null,
      free && !player ? joinPath() : null,
      token && v.seat != null && stage !== "over" ? h("details.seat-details", {}, h("summary", { text: t("seatlink.title") }), seatPanel(matchId, token)) : null,
      h("p.links", {}, h("a", { href: `/how-to-play?match=${matchId}`, "data-link": true, text: t("nav.howto") }), " · ",
        h("a", { href: "/", "data-link": true, text: t("table.home") })),
    ].filter(Boolean));
  }

  // ---- leaving the table (api.md, POST .../leave): a medium bot plays the seat on, and this
  // page watches the match from then on (the seat's token is forgotten: it no longer works)
  function renderLeave(v) {
    const can = !!token && v.seat != null && v.phase !== "waiting" && v.phase !== "match_over";
    E.leave.hidden = !can;
    if (!can) { E.leave.replaceChildren(); delete E.leave.dataset.key; return; }
    const key = `${document.documentElement.lang}:${S.leave}`;
    if (E.leave.dataset.key === key) return; // keeps the focus on its buttons
    E.leave.dataset.key = key;
    if (S.leave === "ask") {
      const b = h("button", { type: "button", id: "leave-table", text: t("leave.button") });
      b.addEventListener("click", () => { S.leave = "confirm"; if (S.view) renderLeave(S.view); E.leave.querySelector("#leave-confirm")?.focus(); });
      fill(E.leave, b);
      return;
    }
    // asked first (a second button, described by what it does), "Stay" or Escape goes back
    const yes = h("button.primary", { type: "button", id: "leave-confirm", "aria-describedby": "leave-desc", text: t("leave.confirm") });
    const no = h("button", { type: "button", id: "leave-cancel", text: t("leave.cancel") });
    yes.disabled = no.disabled = S.leave === "sending";
    yes.addEventListener("click", leaveTable);
    no.addEventListener("click", cancelLeave);
    fill(E.leave, h("p", { id: "leave-desc", text: t("leave.desc") }), h("div.row", {}, yes, no));
  }

  function cancelLeave() {
    S.leave = "ask";
    if (S.view) renderLeave(S.view);
    E.leave.querySelector("#leave-table")?.focus();
  }

  async function leaveTable() {
    S.leave = "sending";
    if (S.view) renderLeave(S.view);
    // the token leaves this browser's storage before the leave is sent: a start page of this
    // browser checking its seats meanwhile was refused once the leave was done (a 401, which
    // the browser logs as an error); a leave refused keeps it again
    const seen = store.seen(matchId);
    const mine = store.token(matchId) === token;
    if (mine) store.dropToken(matchId);
    try {
      await api.leave(matchId, token, "bot:medium");
    } catch (e) {
      if (mine && !store.token(matchId)) {
        store.setToken(matchId, token);
        if (seen) store.setSeen(matchId, seen);
      }
      if (!alive) return;
      // 429: the match would be left to bots alone and no bots-only slot is free; nothing
      // changed, the player keeps the seat
      toast(e.code === "rate_limited" ? t("leave.busy", { n: Math.ceil(e.retryAfter || 60) }) : errorText(e));
      cancelLeave();
      return;
    }
    store.dropToken(matchId);
    if (!alive) return;
    toast(t("leave.done"));
    watchOn(); // the match goes on: watched from here
  }

  /** This page watches the match on (its seat left).  The table is built anew: a keyboard
   *  user's focus (on "Leave and give my seat to a bot", or a card of the hand in the seat's
   *  other tab) would fall to <body> with it, so it goes to the new table's heading. */
  function watchOn() {
    const ae = document.activeElement;
    const ours = !ae || ae === document.body || root.contains(ae);
    // a reload (or the address opened again) watches on too, not the join page of a full room
    replacePath(`/m/${matchId}?watch=1`);
    ctl.table(null);
    if (ours) focusPage();
  }

  /** The token no longer holds a seat: its player left it ("Leave the table" in another tab of
   *  this browser, or on another device).  If a computer player has the seat the player was
   *  last shown in, this page watches the match on, as the leaving one does, and says so;
   *  otherwise (a seat left empty, or none known yet) the join page says the seat is lost. */
  function seatLost() {
    if (S.seatGone) return; // (asked once: the views that follow say the same)
    S.seatGone = true;
    const last = S.queue.length ? S.queue[S.queue.length - 1] : S.view;
    const seat = last ? last.seat : null;
    if (store.token(matchId) === token) store.dropToken(matchId); // (not a seat taken since)
    const botHas = seat == null ? Promise.resolve(false)
      : api.summary(matchId).then((m) => !!(m.seats && m.seats[seat] && m.seats[seat].bot), () => false);
    botHas.then((bot) => {
      if (!alive) return;
      if (bot) { toast(t("leave.elsewhere")); watchOn(); }
      else ctl.join(t("join.token_lost"));
    });
  }

  // ---- hints (rules.md: at most three own decisions from the version they were switched on) ----
  function toggleHints() {
    const H = S.hints;
    H.on = !H.on;
    H.since = H.on && S.view ? S.view.version : null;
    H.forVersion = null; H.data = null; H.note = ""; H.exhausted = false;
    render();
  }
  function restartHints() {
    const H = S.hints;
    H.on = true; H.since = S.view ? S.view.version : 0; H.forVersion = null; H.data = null; H.note = ""; H.exhausted = false;
    render();
  }
  function renderHints(v) {
    const H = S.hints;
    const started = v.seat != null && v.phase !== "waiting" && v.phase !== "match_over";
    E.hints.hidden = !started;
    E.hintsBtn.textContent = t("hints.title"); // the state is aria-pressed's (said once)
    E.hintsBtn.setAttribute("aria-pressed", H.on ? "true" : "false");
    E.hintsRestart.hidden = !H.on;
    for (const b of E.handGroup.querySelectorAll(".hinted")) b.classList.remove("hinted");
    for (const b of E.trump.querySelectorAll(".hinted")) b.classList.remove("hinted");
    for (const b of E.talon.querySelectorAll(".hinted")) b.classList.remove("hinted");
    if (!H.on) { sayHint(h("p.hint", { text: t("hints.desc") })); return; }
    if (H.data && H.forVersion === v.version) {
      const sug = H.data.suggestion;
      // a suit (trump), a card, the cards to lay aside ("2C 3D 4H"), or "keep" / "discard"
      const many = Array.isArray(sug) ? sug : String(sug || "").split(" ").filter(Boolean);
      const label = !sug ? "—" : listOf(many.map((x) => (x === "keep" || x === "discard" ? t(`talon.${x}`)
        : x.length === 1 ? capitalize(suitName(x)) : cardName(x))));
      sayHint(h("p", {}, h("strong", { text: t("hints.suggestion") + ": " }), label),
        H.data.reason ? h("p.hint-reason", { text: hintReason(H.data) }) : null,
        h("p.hint", { text: t("hints.remaining", { n: H.data.remaining }) }));
      for (const x of sug ? many : []) {
        const target = E.handGroup.querySelector(`[data-card="${x}"]`) || E.trump.querySelector(`[data-suit="${x}"]`) ||
          E.talon.querySelector(`[data-choice="${x}"]`);
        if (target) target.classList.add("hinted");
      }
    } else sayHint(h("p.hint", { text: H.note || t("hints.waiting") }));
  }
  /** The hint box is a polite live region: its text is put in only when it changes, or a
   *  screen reader said it again at every view of the table (after every card played). */
  function sayHint(...nodes) {
    const text = nodes.filter(Boolean).map((n) => n.textContent).join("\n");
    if (E.hintBox.dataset.text === text && E.hintBox.childNodes.length) return;
    E.hintBox.dataset.text = text;
    fill(E.hintBox, ...nodes);
  }
  function maybeFetchHint(v) {
    const H = S.hints;
    if (!H.on || !token || !isMyDecision(v) || H.forVersion === v.version || H.loading === v.version) return;
    if (H.exhausted) { // the three are used: say so without asking the server again (409 each time)
      H.forVersion = v.version; H.data = null; H.note = t("hints.exhausted");
      renderHints(v);
      return;
    }
    H.loading = v.version;
    const since = H.since; // an answer for hints since switched off and on again is dropped
    api.hint(matchId, token, since).then((d) => {
      H.loading = null;
      if (!alive || !H.on || H.since !== since || !S.view || S.view.version !== v.version) return;
      H.data = d; H.forVersion = v.version; H.note = ""; H.exhausted = d.remaining <= 0;
      renderHints(S.view);
    }).catch((e) => {
      H.loading = null;
      if (!alive || !H.on || H.since !== since) return;
      H.forVersion = v.version; H.data = null;
      if (e.code === "hints_exhausted") H.exhausted = true;
      H.note = e.code === "hints_exhausted" ? t("hints.exhausted") : e.code === "not_your_turn" ? t("hints.waiting") : errorText(e);
      renderHints(S.view);
    });
  }

  // ---- commands ----
  function send(cmd) {
    if (!S.view || S.pending) return;
    cmd.version = S.view.version;
    S.sentAt = cmd.version;
    cmd.id = commandId();
    S.pending = true;
    render();
    clearTimeout(S.pendingTimer);
    S.pendingTimer = setTimeout(noAnswer, 6000);
    S.pendingOnSocket = !!(socket && socket.sendRaw(cmd));
    if (!S.pendingOnSocket) {
      api.command(matchId, token, cmd).then(onAnswer)
        .catch((e) => onCommandError({ code: e.code, message: e.message }));
    }
  }
  /** The move got no answer (none in time, or its socket was lost): the player is told, since it
   *  may not have reached the server, and the table is asked for again. */
  function noAnswer() {
    if (!S.pending) return;
    S.pending = false;
    clearTimeout(S.pendingTimer);
    toast(t("conn.no_answer"));
    render();
    refetch();
  }
  function onCommandError(msg) {
    S.pending = false;
    clearTimeout(S.pendingTimer);
    if (msg.code === "stale_version") { refetch(); render(); return; } // a newer view is on its way
    toast(errorText(msg));
    render();
  }
  function refetch() {
    if (!token) return;
    api.view(matchId, token).then(onAnswer).catch(() => {});
  }

  /** A view answered over HTTP (GET /view, a command's answer), with the turn limit it
   *  carries while one runs for the seat (a page just loaded knows the time left at once). */
  function onAnswer(r) {
    const last = S.queue.length ? S.queue[S.queue.length - 1] : S.view;
    // a version the page has already came by the socket, whose frames follow presence as it
    // changes: the answer's may be older (its seat shown away the moment the socket came)
    if (!last || r.version > last.version) onView({ version: r.version, view: r.view });
    const now = S.queue.length ? S.queue[S.queue.length - 1] : S.view;
    if (r.turn_limit && (!now || r.turn_limit.version >= now.version)) onTurnLimit(r.turn_limit);
  }

  // ---- the room's turn limit (docs/api.md, turn_limit) ----
  /** The server tells the seat how long its turn at a version has before a stand-in decides:
   *  counted from the frame's (or the HTTP answer's) arrival (the browser's clock may be off;
   *  a delay is not).  One about an older version than the limit known is ignored. */
  function onTurnLimit(msg) {
    if (S.limit && msg.version < S.limit.version) return;
    const asked = S.limit && S.limit.version === msg.version && S.limit.asked;
    if (msg.extended && asked && !S.limit.extended) announce(t("limit.more_given", { s: Math.round(msg.left_ms / 1000) }));
    // grace: the seat's last turn ran out, so its turns are short until its player acts (api.md)
    S.limit = { version: msg.version, seat: msg.seat, deadline: Date.now() + msg.left_ms, extended: !!msg.extended, asked,
      grace: msg.grace ? msg.limit_s : null };
    clearInterval(S.limitTimer);
    S.limitTimer = setInterval(renderLimit, 1000);
    renderLimit();
  }

  /** "A stand-in plays in 12 s" (beside "Your turn: ...") while the turn shown has fewer than COUNTDOWN_S
   *  seconds left (said once to screen readers as it appears). */
  function renderLimit() {
    if (!E.limit) return;
    const v = S.view, lim = S.limit;
    const left = lim ? Math.ceil((lim.deadline - Date.now()) / 1000) : 0;
    const shown = !!(v && lim && v.version === lim.version && v.seat === lim.seat && isMyDecision(v)
      && left > 0 && left < COUNTDOWN_S);
    if (!lim || left <= 0) { clearInterval(S.limitTimer); S.limitTimer = null; }
    // a hurried seat's countdown says why it is short (QA: read as a broken clock)
    const says = (s) => lim.grace != null ? t("limit.countdown_grace", { s, limit: lim.grace }) : t("limit.countdown", { s });
    if (shown && E.limit.hidden) announce(says(left));
    E.limit.hidden = !shown;
    E.limit.textContent = shown ? says(left) : "";
    // "More time" beside the countdown, once a turn (docs/api.md, more_time)
    const more = shown && !lim.extended && !lim.asked;
    if (!more && document.activeElement === E.more) E.handGroup.focus();
    E.more.hidden = !more;
  }

  /** The player asks for the room's full limit from now (once a turn): the button goes, and
   *  the server's turn_limit (extended) brings the new deadline to every page of the seat. */
  function askMoreTime() {
    const lim = S.limit;
    if (!lim || lim.asked || !socket || !socket.sendRaw({ type: "more_time" })) return;
    lim.asked = true;
    renderLimit();
  }

  /** A view past the limited turn: if the player sent nothing for it and its time had run out,
   *  ask whether the seat's stand-in made that move, and tell the player so. */
  function passedLimit(v) {
    const lim = S.limit;
    if (!lim || v.version <= lim.version) return;
    S.limit = null;
    renderLimit();
    if (!token || S.sentAt === lim.version || Date.now() < lim.deadline - 2000) return;
    api.events(matchId, token, lim.version).then((r) => {
      const rec = (r.events || []).find((e) => e.version === lim.version + 1);
      if (!alive || !rec || !rec.stand_in || rec.actor !== lim.seat) return;
      const text = standInText("limit", rec);
      toast(text, 10000);
      announce(text);
    }, () => {});
  }

  /** What a stand-in did for the seat in one record, in `kind`'s words ("limit": the turn's
   *  time ran out; "away"): the card it played or the trump it named, else that it moved. */
  function standInText(kind, rec) {
    const e = (rec.events || []).find((x) => x.type === "card_played" || x.type === "trump_chosen");
    if (e && e.type === "card_played") return t(`${kind}.stand_in_card`, { card: cardName(e.card) });
    if (e) return t(`${kind}.stand_in_trump`, { suit: capitalize(suitName(e.suit)) });
    return t(kind === "limit" ? "limit.stand_in" : "away.stand_in_one");
  }

  // ---- connection ----
  function connect() {
    socket = new MatchSocket(matchId, token, {
      onView,
      onMissed,
      onTurnLimit,
      onError: onCommandError,
      onStatus: (st) => {
        const lost = st === "closed" && !S.lost; // said once per loss, not at every retry
        if (st === "closed") S.lost = true;
        else if (st === "open") S.lost = false;
        S.conn = st;
        if (E.conn) renderConn();
        if (lost && S.view) announce(t("conn.closed"));
        if (st === "closed" && S.pendingOnSocket) noAnswer(); // its answer would have come there
      },
      onFatal: (why, code) => {
        // a spectator refused (no such match, say): the join page says why, from the summary
        if (!token) { if (alive) ctl.join(); return; }
        if (S.leave === "sending") return; // (leaving: leaveTable goes on from here)
        // 4401 (api.md): the token holds no seat (left on the player's other device while
        // this socket was away).  Asking the view with it again only earned a 401, which the
        // browser logs as an error
        if (code === 4401) { if (alive) seatLost(); return; }
        // 4404: the match is gone (its lifetime ran out): its token with it, the join page says so
        if (code === 4404) { matchGone(); return; }
        api.view(matchId, token).catch((e) => {
          if (e.status === 401 || e.status === 403 || e.code === "bad_token") seatLost();
        });
      },
    }, () => {
      const last = S.queue.length ? S.queue[S.queue.length - 1] : S.view;
      S.reopened = last ? last.version : null; // the socket's first view may go back (onView)
      return last ? last.version : token ? store.seen(matchId) : null;
    });
  }

  /** The records this seat missed while its socket was away: a stand-in's moves for it are
   *  told (the cards themselves are on the table, in the last trick and the replay). */
  function onMissed(msg) {
    const latest = S.queue.length ? S.queue[S.queue.length - 1] : S.view;
    if (!token || latest?.seat == null) return;
    const seat = latest.seat;
    const tell = (records) => {
      const mine = records.filter((r) => r.stand_in && r.actor === seat);
      const n = mine.length;
      if (!alive || !n) return;
      const text = n === 1 ? standInText("away", mine[0]) : t("away.stand_in", { n });
      toast(text, 10000); // the player is just back: long enough to be read
      announce(text);
    };
    // too far behind for the socket to send the records (a whole match, say): ask for them
    if (msg.resync) api.events(matchId, token, msg.since).then((r) => tell(r.events || []), () => {});
    else tell(msg.records || []);
  }

  build();
  // a toast never lies over the player's cards, nor (at the top) over the countdown
  // (a spectator has no hand: the seats' names are kept clear instead, or the toast of "you
  // left the table" lay over the top seats on a phone)
  setToastAvoid(() => ({ keep: E.hand.hidden ? E.seats.filter((el) => !el.hidden) : [E.trump, E.talon, E.hand], under: E.statusbar }));
  E.status.textContent = t("table.connecting");
  renderConn();
  connect();
  // whether the token still holds a seat is asked at once, of GET .../seat (api.md), which
  // answers 200 either way: a GET /view with a dead token is a 401 that the browser logs as an
  // error (a seat left on another device is no error), and the socket's close code 4401 says
  // the same only once the socket is up (under load, seconds).  The seat's first view comes by
  // its socket; only a socket that sent no view in time (it does not open: a proxy without
  // WebSockets, say) leaves the first paint to HTTP, for a token known to hold its seat
  let httpPaint = null;
  if (token) {
    api.seat(matchId, token).then((r) => {
      if (!alive || S.seatGone) return;
      if (r.seat === null) { seatLost(); return; }
      httpPaint = setTimeout(() => {
        if (!alive || S.view || S.queue.length || S.seatGone) return;
        api.view(matchId, token).then(onAnswer).catch((e) => {
          if (e.status === 401 || e.status === 403 || e.code === "bad_token") seatLost();
          else if (e.status === 404) matchGone(); // (before the slow socket's 4404 says so)
        });
      }, HTTP_PAINT_MS);
    }, (e) => {
      if (e.status === 404) matchGone();
    });
  }

  /** The match is gone (its lifetime ran out): its token with it, the join page says so. */
  function matchGone() {
    if (!alive) return;
    if (store.token(matchId) === token) store.dropToken(matchId);
    ctl.join();
  }

  return {
    unmount() {
      alive = false;
      setToastAvoid(null);
      clearTimeout(S.holdTimer); clearTimeout(S.pendingTimer); if (S.stopLook) S.stopLook();
      clearInterval(S.limitTimer);
      clearTimeout(S.holdsTimer); clearTimeout(S.heldTick); clearTimeout(httpPaint);
      if (socket) socket.close();
    },
    relabel() { build(); S.trumpShown = false; S.handSeen = false; render(); },
  };
}
