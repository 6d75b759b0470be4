// The post-match analysis in the replay viewer (issue 15; the answer's format is
// GET /api/matches/{id}/analysis in docs/api.md).  Asked for with a button, polled while the
// server computes it ("Analysing: K of N rounds"), then shown beside the replayed step: the move
// last made against the best ones, chess-style marks on costly moves, one side's round-win
// chance move by move as an SVG graph (a click jumps the replay), and per seat a summary.  The
// graph's side is the viewer's when the replay is a seat's (the page holds a token of the
// match), else seat 0's (seats 0 and 2 with four players).  Offered once the public summary
// says the match is over, for every game.
import { api } from "./api.js";
import { h, fill } from "./cards.js";
import { t, cardName, suitName, capitalize, isRtl, lang, num, listOf } from "./i18n.js";
import { announce, errorText } from "./ui.js";

/** Worse costs get more question marks, as on chess sites (the legend spells them out). */
export const MARKS = { trick: "?!", kot: "?", round: "??" };
/** A mark as an element of its own: a left-to-right isolate (so "?!" reads "?!" in a
 *  right-to-left language too, whatever the words around it), hidden from screen readers (the
 *  words say the cost).  The space before the words goes outside it: inside, a right-to-left
 *  line would put it on the far side and glue the mark to the word. */
const mark = (cost, cls = "") => h(`bdi.an-mark${cls}`, { dir: "ltr", "aria-hidden": "true", text: MARKS[cost] });
const COSTS = ["trick", "kot", "round"];
/** A costly talon decision's words say what was done (a kept card, the cards laid aside): its
 *  cards alone read as cards played. */
const COSTLY_KEY = { draw: "an.costly_kept", discard: "an.costly_laid" };
const POLL_MS = 1000;
const TRANSIENT = new Set(["network", "unavailable", "rate_limited"]);
const RETRIES = 5; // transient failures in a row before giving up (opening it again retries)
const SVG_NS = "http://www.w3.org/2000/svg";
const W = 720;
const TALL = 200;
const TALL_PHONE = 360; // a phone's graph is narrow: taller drawing units keep it readable
const PAD = 16;

/** An SVG element (attributes only: the CSP forbids inline style, the classes carry it). */
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v != null) el.setAttribute(k, String(v));
  for (const c of children) if (c != null) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const pct = (p) => new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 0 }).format(p);
/** A choice's name: a card (the one kept from the talon too), a suit for the Hakem's trump
 *  choice, or the cards laid aside in the talon game (names one space apart). */
const choiceName = (m, c) => (m.kind === "trump" ? capitalize(suitName(c))
  : m.kind === "discard" ? listOf(String(c).split(" ").map((x) => cardName(x))) : cardName(c));
/** Choices told apart: each of the talon game's ways to lay aside is itself a list of cards,
 *  so those are set apart by a semicolon (the language's own: Persian "؛"), not the list's
 *  comma, which read as one list of every card named. */
const CHOICE_SEP = { fa: "؛ " };
const choicesOf = (m, list) => (m.kind === "discard" ? list.join(CHOICE_SEP[lang()] ?? "; ") : listOf(list));
const isChance = (p) => typeof p === "number" && p >= 0 && p <= 1;
/** The side of seat `g` (its pair, seats g and g+2, with four players; its player else), as a
 *  round's result numbers it (`winner_side`). */
const sideOf = (g, players) => (players === 4 ? g % 2 : g);
/** The mover's side's chance turned into the chance of seat `g`'s side; null if there is none.
 *  With three players another seat's chance says nothing of seat `g`'s (the round may end with
 *  no winner): only `g`'s own moves give one. */
const chanceFor = (m, players, g) => {
  if (!isChance(m.win_chance)) return null;
  if (players === 3) return m.seat === g ? m.win_chance : null;
  return sideOf(m.seat, players) === sideOf(g, players) ? m.win_chance : 1 - m.win_chance;
};

/** The answer made easy to look up: rounds in order, their moves in version order, and every
 *  move of the match in version order with its round. */
function indexed(d) {
  const rounds = [...(d.rounds || [])].sort((a, b) => a.round - b.round)
    .map((r) => ({ ...r, moves: [...(r.moves || [])].sort((a, b) => a.version - b.version) }));
  const flat = [];
  rounds.forEach((r, ri) => r.moves.forEach((m, mi) => flat.push({ m, ri, mi })));
  flat.sort((a, b) => a.m.version - b.m.version);
  return { rounds, flat, seats: d.seats || [] };
}

export class AnalysisPanel {
  /** jump(step) moves the replay to a step; `opened`: open as soon as it is offered (the
   *  link's ?analysis=1); moved() is called when it opens or closes (the link follows). */
  constructor(matchId, jump, opened = false, moved = () => {}) {
    this.matchId = matchId;
    this.jump = jump;
    this.moved = moved;
    this.alive = true;
    this.offered = false;
    this.open = false;
    this.status = "idle"; // idle | loading | pending | done | error
    this.progress = null;
    this.problem = null;
    this.data = null;
    this.timer = null;
    this.failures = 0;
    this.reveal = null; // the step a costly move's button jumped to: brought into view once shown
    this.choicesOpen = false;
    this.step = 0;
    this.players = 4;
    this.names = []; // the players' names from the summary: the replay's early steps have none
    this.replayName = () => null;
    this.viewer = null; // the seat whose replay it is (a token of the match's): the graph's side
    this.nameOf = (s) => this.firstMover(s) || this.replayName(s) || this.names[s] || t("start.seat_n", { n: s + 1 });
    this.el = h("section.analysis", { id: "rp-analysis", "aria-labelledby": "an-h", hidden: true });
    this.opened = opened;
  }

  /** The public summary `sm` (GET /api/matches/{id}), read by the replay when it opens and
   *  again while the match is live: the analysis is offered once it says the match is over
   *  (and opened then if the link asked for it). */
  summary(sm) {
    if (!this.alive || !sm) return;
    const was = this.offered;
    this.offered = sm.phase === "match_over";
    this.players = sm.players || 4;
    this.names = (sm.seats || []).map((seat) => (seat && seat.name) || "");
    this.el.dataset.offered = String(this.offered); // for tests: the summary has been read
    if (this.offered && !was && this.opened && !this.open) this.toggle();
    else this.render();
  }

  stop() { this.alive = false; clearTimeout(this.timer); }

  /** Before the match's first move, who first moved in seat `s` (the answer's `by`), else
   *  null: the four-player ace draw reseats the table before the first round, so the replay's
   *  names of those steps are not the pairs that played it. */
  firstMover(s) {
    const d = this.data;
    if (!d || !d.flat.length || this.step >= d.flat[0].m.version) return null;
    const first = d.flat.find((x) => x.m.seat === s);
    return (first && first.m.by && first.m.by.name) || null;
  }

  /** The replay shows `step`; nameOf(seat) is the name of the seat's player there, or null
   *  (before the seats are taken, at the replay's first steps: the summary's names then);
   *  `viewer` the seat whose replay it is (the answer's `view.seat`), or null: nobody's, the
   *  graph then from seat 0's side. */
  show(step, nameOf, viewer = null) {
    this.step = step;
    this.replayName = nameOf;
    this.viewer = Number.isInteger(viewer) && viewer >= 0 ? viewer : null;
    if (this.status === "done" && this.open) this.render();
    if (this.reveal === step) { this.reveal = null; this.revealMove(); }
  }

  /** After a costly move's button jumped the replay there (the buttons are far below the board
   *  and the verdict: on a phone nothing visible changed, an audit): the board and the move's
   *  verdict brought into view, or the verdict alone where both do not fit the window. */
  revealMove() {
    const move = this.bodyEl.querySelector("#an-move");
    if (!move) return;
    const board = document.querySelector(".replay .play-area");
    const top = board ? board.getBoundingClientRect().top : Infinity;
    if (board && move.getBoundingClientRect().bottom - top <= window.innerHeight) board.scrollIntoView({ block: "start" });
    else move.scrollIntoView({ block: "start" });
  }

  toggle() {
    this.open = !this.open;
    if (this.open && (this.status === "idle" || this.status === "error")) {
      this.status = "loading";
      this.failures = 0;
      this.problem = null;
      this.fetch();
    }
    this.render();
    this.moved();
  }

  fetch() {
    clearTimeout(this.timer);
    api.analysis(this.matchId).then((d) => {
      if (!this.alive) return;
      this.problem = null;
      this.failures = 0;
      if (d && d.status === "done") {
        this.data = indexed(d);
        this.status = "done";
        announce(t("an.ready"));
      } else {
        this.status = "pending";
        this.progress = { k: (d && d.done) || 0, n: (d && d.rounds) || 0 };
        this.timer = setTimeout(() => this.fetch(), POLL_MS);
      }
      this.render();
    }).catch((e) => {
      if (!this.alive) return;
      this.problem = e;
      this.failures += 1;
      if (TRANSIENT.has(e.code) && this.failures < RETRIES) this.timer = setTimeout(() => this.fetch(), POLL_MS * 2);
      else this.status = "error";
      this.render();
    });
  }

  render() {
    this.el.hidden = !this.offered;
    if (!this.offered) return;
    if (!this.head) {
      // built once: the toggle keeps its focus and the live region its identity across steps
      this.toggleButton = h("button", { type: "button", id: "rp-analysis-toggle", "aria-controls": "an-body" });
      this.toggleButton.addEventListener("click", () => this.toggle());
      this.title = h("h2", { id: "an-h" });
      this.head = h("div.an-head", {}, this.title, this.toggleButton);
      this.statusLine = h("p.an-status", { id: "an-status", role: "status" });
      this.bodyEl = h("div.an-body", { id: "an-body" });
      fill(this.el, this.head, this.statusLine, this.bodyEl);
    }
    this.title.textContent = t("an.title");
    this.toggleButton.textContent = t(this.open ? "an.close" : "an.open");
    this.toggleButton.setAttribute("aria-expanded", String(this.open));
    let status = "";
    if (this.status === "loading") status = t("an.loading");
    if (this.status === "pending" && this.progress) status = t("an.pending", this.progress);
    if (this.problem) status = errorText(this.problem);
    if (this.statusLine.textContent !== status) this.statusLine.textContent = status;
    this.statusLine.hidden = !this.open;
    this.bodyEl.hidden = !this.open || this.status !== "done";
    if (this.bodyEl.hidden) { this.bodyEl.replaceChildren(); return; }
    // the body is rebuilt on every step: keep the keyboard focus on the control it was on
    const active = document.activeElement;
    const key = active && this.bodyEl.contains(active) ? active.dataset.focus : null;
    fill(this.bodyEl, ...this.body());
    if (key) this.bodyEl.querySelector(`[data-focus="${key}"]`)?.focus();
  }

  body() {
    const d = this.data;
    let at = -1; // the last move made at or before the step shown
    for (let i = 0; i < d.flat.length && d.flat[i].m.version <= this.step; i++) at = i;
    const ri = at >= 0 ? d.flat[at].ri : 0;
    const round = d.rounds[ri];
    return [h("p.hint", { text: t("an.intro") }), this.legend(),
      this.current(at >= 0 ? d.flat[at].m : null), round ? this.graph(round) : null,
      round ? this.costly(round) : null, this.seats()];
  }

  legend() {
    return h("ul.an-legend", { "aria-label": t("an.legend") }, ...COSTS.map((c) =>
      h(`li.cost-${c}`, {}, mark(c), " ", t(`an.cost.${c}`))));
  }

  /** The move last made: what was played against the best choices, and the bot's view. */
  current(m) {
    if (!m) return h("div.an-move", { id: "an-move" }, h("p", { text: t("an.no_move") }));
    const who = this.nameOf(m.seat);
    const named = choiceName(m, m.played);
    const what = m.kind === "trump" ? t("an.named", { name: who, suit: named })
      : m.kind === "draw" ? t("an.kept", { name: who, card: named })
      : m.kind === "discard" ? t("an.laid", { name: who, cards: named })
      : t("an.played", { name: who, card: named });
    const best = choicesOf(m, (m.best || []).map((c) => choiceName(m, c)));
    const verdict = m.cost
      ? h(`p.an-verdict.cost-${m.cost}`, { "data-cost": m.cost },
        mark(m.cost), " ", t(`an.costly.${m.cost}`))
      // no cost claimed for a choice outside the best: a judgement by playout (its note says)
      : (m.best || []).includes(m.played) ? h("p.an-verdict", { text: t("an.good") }) : null;
    // (the talon's decisions and its trump have a choice but no estimate of their own)
    // the chance told in the graph's terms (its side, before this move) where it converts,
    // else the mover's own side's, named: never two numbers for one point without saying whose
    const mine = m.bot && m.bot.win_chance === m.win_chance ? chanceFor(m, this.players, this.side()) : null;
    const bot = !(m.bot && m.bot.choice) ? null
      : !isChance(m.bot.win_chance) ? h("p", { text: t("an.bot_choice", { name: who, card: choiceName(m, m.bot.choice) }) })
      : h("p.an-bot", { "data-chance": (mine ?? m.bot.win_chance).toFixed(3) }, t("an.bot_for", {
        name: who, card: choiceName(m, m.bot.choice), team: mine != null ? this.sideName() : this.moverSide(m.seat),
        pct: pct(mine ?? m.bot.win_chance) }));
    const choices = (m.alternatives || []).map((a) => {
      const parts = [t("an.tricks", { n: a.tricks }), t(a.wins ? "an.wins" : "an.loses")];
      if (a.kot) parts.push(t("an.kot"));
      const marks = [a.card === m.played ? t("an.chosen") : null, (m.best || []).includes(a.card) ? t("an.is_best") : null].filter(Boolean);
      return h("li", {}, `${choiceName(m, a.card)}: ${listOf(parts)}`, marks.length ? ` (${listOf(marks)})` : "");
    });
    return h("div.an-move", { id: "an-move", "data-version": String(m.version), "data-cost": m.cost || "" },
      h("p.an-played", { text: what }), h("p.an-best", { text: t("an.best", { cards: best }) }), verdict,
      m.exact === false ? h("p.hint.an-estimate", { text: t("an.estimate") }) : null, bot,
      choices.length ? this.choices(choices) : null);
  }

  choices(items) {
    // kept open from step to step once opened (the panel is rebuilt on every step)
    const d = h("details.an-all", { open: this.choicesOpen },
      h("summary", { "data-focus": "choices", text: t("an.choices") }), h("ul.an-choices", {}, ...items));
    d.addEventListener("toggle", () => { this.choicesOpen = d.open; });
    return d;
  }

  /** The seat whose side the graph shows: the viewer's, or seat 0 in a replay that is nobody's. */
  side() { return this.viewer ?? 0; }

  /** The graph's side named: the pair of the seat `side()` with four players, else its player. */
  sideName() { return this.moverSide(this.side()); }

  /** The side of the seat `s` named (its pair with four players, else its player). */
  moverSide(s) {
    return this.players === 4 ? t("team.pair", { a: this.nameOf(s % 2), b: this.nameOf(s % 2 + 2) }) : this.nameOf(s);
  }

  /** The chance of the graph's side (`side()`'s) to win the round after each move of the
   *  round, one line from that side's point of view (every estimate turned into its own): point
   *  j is the position after j moves (the last one the round's result), so the point shown is
   *  the step's.  A point without an estimate for the side (the talon's decisions; with three
   *  players another seat's move) is null: no number is made up for it, the line has a gap. */
  graph(round) {
    const moves = round.moves;
    const n = moves.length;
    const g = this.side();
    const vals = moves.map((m) => chanceFor(m, this.players, g));
    vals.push(round.result && round.result.winner_side === sideOf(g, this.players) ? 1 : 0);
    const rtl = isRtl();
    const phone = matchMedia("(max-width: 480px)").matches;
    const H = phone ? TALL_PHONE : TALL;
    const k = phone ? 2 : 1; // a phone shrinks the drawing about twice as much: bigger points
    const pad = PAD * k;
    const dx = n ? (W - 2 * pad) / n : 0;
    const X = (j) => (rtl ? W - pad - j * dx : pad + j * dx);
    const Y = (p) => pad + (1 - p) * (H - 2 * pad);
    let here = 0;
    while (here < n && moves[here].version <= this.step) here++;
    // point 0 is the round before its first move: the step just before that move
    const toPoint = (j) => this.jump(j === 0 ? Math.max(0, moves[0].version - 1) : moves[j - 1].version);
    // the line and its area: one piece per run of points with an estimate
    const runs = [];
    vals.forEach((p, j) => {
      if (p == null) return;
      if (j > 0 && vals[j - 1] != null) runs[runs.length - 1].push(j);
      else runs.push([j]);
    });
    const at = (j) => `${X(j).toFixed(1)},${Y(vals[j]).toFixed(1)}`;
    const lines = runs.map((r) => svg("polyline", { class: "an-line", points: r.map(at).join(" ") }));
    const areas = runs.map((r) => svg("polygon", { class: "an-area",
      points: `${X(r[0]).toFixed(1)},${Y(0)} ${r.map(at).join(" ")} ${X(r[r.length - 1]).toFixed(1)},${Y(0)}` }));
    // the side is a pair with four players ("… that Dara & Kian win"), else one seat ("… wins")
    const team = this.sideName();
    const none = H - pad / 2; // a point without an estimate: a hollow mark below the scale
    const title = this.players === 4 ? t("an.graph", { n: round.round + 1, team }) : t("an.graph1", { n: round.round + 1, name: team });
    // Costly moves side by side drew their marks over each other ("?!??"): a mark that would
    // touch one drawn before goes a line further from its point, then to its other side
    const LINE = 16 * k;
    const drawn = []; // the marks so far: { x, y, w } (y the baseline)
    const markAt = (x, y, text) => {
      const w = text.length * 9.5 * k;
      const clear = (my) => my >= LINE && my <= H - 2 * k && drawn.every((d) =>
        Math.abs(x - d.x) >= (w + d.w) / 2 + 2 * k || Math.abs(my - d.y) >= LINE);
      const up = (i) => y - 10 * k - i * LINE;
      const down = (i) => y + 20 * k + i * LINE;
      const ways = y > H / 2 ? [up, down] : [down, up];
      let my = ways[0](0);
      for (let i = 0; i < 4 && !clear(my); i++) {
        my = [ways[0](i), ways[1](i)].find(clear) ?? my;
      }
      drawn.push({ x, y: my, w });
      return my;
    };
    const points = vals.map((p, j) => {
      const cost = j > 0 ? moves[j - 1].cost : null;
      // a point without an estimate is a hollow dashed ring below the scale (drawn by its
      // attributes: no style rule of .an-pt fills it), so it never reads as a chance
      const cls = [p == null ? "an-gap" : "an-pt", cost ? `cost-${cost}` : "", j === here ? "here" : ""].filter(Boolean).join(" ");
      const y = p == null ? none : Y(p);
      const ring = p == null ? { fill: "none", stroke: "#8a8a8a", "stroke-width": j === here ? 3 : 1.5, "stroke-dasharray": "3 2" } : {};
      return svg("g", {}, svg("circle", { class: cls, cx: X(j).toFixed(1), cy: y.toFixed(1), r: k * (j === here ? 7 : cost ? 5.5 : 3.5), "data-j": j,
        "data-chance": p == null ? "" : p.toFixed(3), ...ring }),
        // (the mark is seen; read, it is the slider's content "?? ?! ?": the costly moves' buttons below say them)
        cost ? svg("text", { class: `an-pt-mark cost-${cost}`, x: X(j).toFixed(1), y: markAt(X(j), y, MARKS[cost]).toFixed(1), "text-anchor": "middle", direction: "ltr", "aria-hidden": "true" }, MARKS[cost]) : null);
    });
    const valueText = vals[here] == null ? t("an.now_none", { team }) : t("an.now_next", { team, pct: pct(vals[here]) });
    // a slider for the keyboard: arrows go point by point, Home and End to the round's ends
    const chart = svg("svg", { class: "an-chart", viewBox: `0 0 ${W} ${H}`, role: "slider", tabindex: 0,
      "aria-labelledby": "an-graph-t", "aria-valuemin": 0, "aria-valuemax": n, "aria-valuenow": here,
      "aria-valuetext": valueText, "aria-orientation": "horizontal", "data-focus": "graph", "data-here": here, "data-points": n + 1 },
      svg("title", { id: "an-graph-t" }, title),
      svg("rect", { class: "an-bg", x: 0, y: 0, width: W, height: H }),
      ...areas,
      svg("line", { class: "an-mid", x1: pad, x2: W - pad, y1: Y(0.5), y2: Y(0.5) }),
      ...lines,
      ...points);
    chart.addEventListener("click", (ev) => {
      const ctm = chart.getScreenCTM();
      if (!ctm || !n) return;
      // the drawing's own x of the click, whatever the box's size and letterboxing
      const u = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm.inverse()).x;
      const j = Math.min(n, Math.max(0, Math.round((rtl ? W - pad - u : u - pad) / dx)));
      toPoint(j);
    });
    chart.addEventListener("keydown", (ev) => {
      if (ev.altKey || ev.ctrlKey || ev.metaKey || !n) return;
      const fwd = rtl ? "ArrowLeft" : "ArrowRight";
      const back = rtl ? "ArrowRight" : "ArrowLeft";
      const to = { [fwd]: here + 1, [back]: here - 1, ArrowUp: here + 1, ArrowDown: here - 1, Home: 0, End: n }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      ev.stopPropagation(); // the replay's own keys step by record and go to the match's ends
      toPoint(Math.min(n, Math.max(0, to)));
    });
    return h("figure.an-graph", {}, h("figcaption", {}, h("strong", { text: title }), " ",
      h("span.an-now", { id: "an-now", text: valueText })),
    chart, h("p.hint", { text: t("an.graph_hint_side", { team }) }));
  }

  /** The round's costly moves as buttons that jump there (the keyboard's way to the marks). */
  costly(round) {
    const items = round.moves.filter((m) => m.cost).map((m) => {
      const b = h("button.an-jump", { type: "button", "data-focus": `v${m.version}`, "data-version": String(m.version), "data-cost": m.cost },
        mark(m.cost, `.cost-${m.cost}`), " ",
        t(COSTLY_KEY[m.kind] || "an.costly_item", { name: this.nameOf(m.seat), card: choiceName(m, m.played),
          cards: choiceName(m, m.played), cost: t(`an.cost.${m.cost}`) }));
      b.addEventListener("click", () => { this.reveal = m.version; this.jump(m.version); });
      return h("li", {}, b);
    });
    return h("div.an-costly", {}, h("h3", { text: t("an.costly_title", { n: round.round + 1 }) }),
      items.length ? h("ul", {}, ...items) : h("p.hint", { text: t("an.none_costly") }));
  }

  /** The whole match's counts per player: a row for each player who made a seat's moves, named
   *  with the seat (a bot that took over a seat is not charged with its predecessor's moves).
   *  An analysis stored before the split (no `players`) gets a row per seat, named by the
   *  seat's player at the step shown. */
  seats() {
    const col = (k) => h("th", { scope: "col", text: t(k) });
    const split = this.data.seats.length > 0 && this.data.seats.every((s) => Array.isArray(s.players));
    const rows = split
      ? this.data.seats.flatMap((s) => s.players.map((p, i) => ({ counts: p, seat: s.seat, i,
        name: t(p.bot ? "an.bot_at" : "an.player_at", { name: p.name || t("start.seat_n", { n: s.seat + 1 }), n: num(s.seat + 1) }) })))
      : this.data.seats.map((s) => ({ counts: s, seat: s.seat, i: 0, name: this.nameOf(s.seat) }));
    return h("table.score.an-seats", {}, h("caption", { text: t(split ? "an.seats_players" : "an.seats") }),
      h("thead", {}, h("tr", {}, col(split ? "an.col_player" : "an.col_seat"), col("an.col_moves"),
        ...COSTS.map((c) => h("th", { scope: "col" }, mark(c), " ", t(`an.cost.${c}`))))),
      h("tbody", {}, ...rows.map((r) => h("tr", { "data-seat": String(r.seat), "data-player": String(r.i) },
        h("th", { scope: "row", text: r.name }), h("td", { text: num(r.counts.moves) }),
        ...COSTS.map((c) => h("td", { text: num(r.counts[`cost_${c}`] ?? 0) }))))));
  }
}
