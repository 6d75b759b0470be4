// The replay viewer (/replay/{id}?step=k): every hand shown, step forward and back, a slider to
// jump, arrow keys, and a shareable link to the step shown; below the table the match's analysis
// (analysis.js), which follows the step shown and can jump the replay.
import { api, store, gameOf } from "./api.js";
import { h, fill, cardImage, suitBadge, RANK_FACE } from "./cards.js";
import { t, cardName, cardWords, suitName, isRtl, num, listOf, SUIT_SYMBOL, isolated } from "./i18n.js";
import { toast, copyText, errorText } from "./ui.js";
import { AnalysisPanel } from "./analysis.js";
import { sidesOf, partnered, points } from "./sides.js";

const POS = ["bottom", "right", "top", "left"];
/** How often the public summary is asked for while the match is live (the page learns that it
 *  ended without a reload); not at all while the page is hidden. */
const WATCH_MS = 5000;

/** A card as its face shows it ("10♥", "K♠"; the rank's digits in the page's, Persian "۷♥"):
 *  the compact form of the step line, for the draw's many cards and the talon's few. */
const face = (c) => {
  const rank = RANK_FACE[c[0]] || c[0];
  return `${/^\d+$/.test(rank) ? num(Number(rank)) : rank}${SUIT_SYMBOL[c[1]] || c[1]}`;
};
/** The cards an event names, each as `card` writes it, as a list of the page's language; null
 *  when the event names none (a redacted one: the replay of a live match, to a seat, gives
 *  another seat's talon cards only as a count, and the page never shows more than it gets). */
const cardsOf = (list, card) => (Array.isArray(list) && list.length && list.every((c) => typeof c === "string")
  ? listOf(list.map(card)) : null);

export function mount(root, [matchId]) {
  document.title = `${t("brand")} — ${t("replay.title")}`;
  const token = store.token(matchId);
  const params = new URLSearchParams(location.search);
  let step = Math.max(0, parseInt(params.get("step") || "0", 10) || 0);
  let steps = null; // the last step (the replay's answer says it; before that, the summary's version)
  let data = null;
  let seq = 0;
  let alive = true;
  let debounce = null;
  let blocked = false; // nothing to show (a live match to a stranger, an unknown match): controls off
  let over = null; // the summary's word on the match: null before it has answered
  let watchTimer = null;
  // ?analysis=1 (before the step, so links keep ending in step=k) opens the analysis at once
  const analysis = new AnalysisPanel(matchId, (k) => go(k), params.get("analysis") === "1",
    () => history.replaceState(null, "", here()));
  const here = () => `/replay/${matchId}?${analysis.open ? "analysis=1&" : ""}step=${step}`;

  // The row follows the page's direction (in Persian "first" is on the right, where the
  // slider starts, and the arrow keys are mirrored too), and so do the glyphs, chosen below per
  // direction: each is a picture drawn left to right as written ("▶|": the bar on the right),
  // not reordered by the bidi algorithm as neutral characters in a right-to-left line would be
  const btn = (id, label, text, fn) => {
    const b = h("button", { type: "button", id, "aria-label": label, title: label }, h("span", { "aria-hidden": "true", dir: "ltr", text }));
    b.addEventListener("click", fn);
    return b;
  };
  const E = {};
  function build() {
    const rtl = isRtl();
    E.first = btn("rp-first", t("replay.first"), rtl ? "▶|" : "|◀", () => go(0));
    E.prev = btn("rp-prev", t("replay.prev"), rtl ? "▶" : "◀", () => go(step - 1));
    E.next = btn("rp-next", t("replay.next"), rtl ? "◀" : "▶", () => go(step + 1));
    E.last = btn("rp-last", t("replay.last"), rtl ? "|◀" : "▶|", () => toLast());
    E.slider = h("input", { type: "range", id: "rp-slider", min: "0", max: String(steps ?? 0), value: String(step), "aria-label": t("replay.slider") });
    E.slider.addEventListener("input", () => {
      clearTimeout(debounce);
      const k = Number(E.slider.value);
      debounce = setTimeout(() => go(k), 120);
    });
    E.counter = h("p.counter", { id: "rp-counter", "aria-live": "polite" });
    E.events = h("p.step-events", { id: "rp-events" });
    E.seats = POS.map((p) => h(`div.seat.pos-${p}`));
    E.slots = POS.map((p) => h(`li.slot.pos-${p}`));
    E.trick = h("ol.trick", { "aria-label": t("table.trick") }, ...E.slots);
    E.facts = h("div.scoreboard");
    E.msg = h("p", { role: "alert", hidden: true });
    const share = E.share = h("button", { type: "button", id: "rp-share", text: t("replay.share") });
    share.addEventListener("click", async () => {
      const url = `${location.origin}${here()}`;
      if (navigator.share) { navigator.share({ title: t("brand"), url }).catch(() => {}); return; }
      toast((await copyText(url)) ? t("invite.copied") : t("invite.copy_failed"));
    });
    fill(root, h("section.page.replay", { "aria-labelledby": "rp-h" },
      h("h1", { id: "rp-h", text: t("replay.title") }),
      h("p.hint", { text: t("replay.keys") }),
      E.msg,
      h("div.controls", { role: "group", "aria-label": t("replay.controls") }, E.first, E.prev, E.slider, E.next, E.last),
      E.counter, E.events,
      h("div.table-page", {},
        h("div.play-area", {}, h("div.board", {}, E.seats[2], E.seats[3], h("div.center", {}, E.trick), E.seats[1], E.seats[0])),
        h("aside.side", {}, E.facts, h("div", {}, share, " ",
          h("a.button", { href: `/m/${matchId}`, "data-link": true, text: t("replay.to_table") })))),
      analysis.el));
    analysis.render();
    if (data && !blocked) paint();
    else controls(false);
  }

  /** The controls (the step buttons, the slider, Share) on or off: off until a step is shown,
   *  and while there is nothing to show (paint() sets the step buttons by the step). */
  function controls(on) {
    for (const el of [E.first, E.prev, E.next, E.last, E.slider, E.share]) el.disabled = !on;
  }

  /** Shows step `k` (clamped to the steps known); `toEnd`: `k` is the last step the page
   *  knows, and a later one the answer names is asked for too (Last, End). */
  function go(k, toEnd = false) {
    if (blocked) return; // nothing to ask for until the watch says the match is over
    if (steps != null) k = Math.min(Math.max(0, k), steps);
    else k = Math.max(0, k);
    step = k;
    load(toEnd);
  }

  /** Learns the number of steps from the public summary (its version: the replay's last step)
   *  when no replay answer has said it yet, so that a step past the end (a link's ?step=99999)
   *  is clamped before it is asked for. */
  function learnSteps() {
    return api.summary(matchId).then((s) => {
      if (steps == null && Number.isSafeInteger(s && s.version) && s.version >= 0) steps = s.version;
    });
  }

  /** The last step (Last, End): known, or learned first. */
  function toLast() {
    if (blocked) return;
    if (steps != null) { go(steps, true); return; }
    const my = seq;
    learnSteps().then(() => { if (alive && my === seq && steps != null) go(steps, true); }, () => {});
  }

  /** Reads the public summary (the analysis is offered by it); while the match is live, again
   *  every WATCH_MS while the page is visible.  Once the summary says the match is over the
   *  step shown is asked for again: the replay opens for anyone then, every hand shown.
   *  Resolves to the first summary (rejects with its error). */
  function watch() {
    clearTimeout(watchTimer);
    watchTimer = null;
    return api.summary(matchId).then((sm) => {
      if (!alive) return sm;
      analysis.summary(sm);
      const ended = sm.phase === "match_over";
      if (ended && over === false) { blocked = false; load(); }
      over = ended;
      if (!ended) later();
      return sm;
    }, (e) => {
      if (alive && e.status !== 404 && over === false) later(); // a passing failure: ask again
      throw e;
    });
  }
  function later() {
    if (alive && !document.hidden && watchTimer == null) watchTimer = setTimeout(() => watch().catch(() => {}), WATCH_MS);
  }
  function visibility() {
    if (document.hidden) { clearTimeout(watchTimer); watchTimer = null; }
    else if (over === false) watch().catch(() => {});
  }

  function fail(e) {
    const notOver = e.code === "bad_token" || e.status === 401 || e.status === 403 || e.status === 409;
    E.msg.hidden = false;
    E.msg.textContent = e.status === 404 ? t("join.not_found") : notOver ? t("replay.not_over") : errorText(e);
    // no match, or none to show yet: every control would ask again for the same refusal
    if (e.status === 404 || notOver) { blocked = true; controls(false); }
  }

  function load(toEnd = false) {
    const my = ++seq;
    api.replay(matchId, step, token).then((d) => {
      if (!alive || my !== seq) return;
      // the last step the page knew is not the last any more (the page opened the replay
      // between the match's end and the deck secret's reveal, a record of its own; a seat's
      // live match moved on): Last asks once more, for the step the answer says is the last
      if (toEnd && d.steps > d.step) { steps = d.steps; go(d.steps); return; }
      data = d; steps = d.steps; step = d.step;
      history.replaceState(null, "", here());
      E.msg.hidden = true;
      paint();
    }).catch((e) => {
      if (!alive || my !== seq) return;
      // a step past the end that the summary could not clamp first: learn the last step, go there
      if (e.status === 400 && steps == null && step > 0) {
        learnSteps().then(() => {
          if (!alive || my !== seq) return;
          if (steps != null && step > steps) go(steps);
          else fail(e);
        }, () => { if (alive && my === seq) fail(e); });
        return;
      }
      fail(e);
    });
  }

  function name(v, s) {
    const seat = v.seats && v.seats[s];
    return seat && seat.name ? seat.name : t("start.seat_n", { n: s + 1 });
  }
  // Two and three players (issue 13): the view's sides name who plays with whom (nobody, there),
  // and the seats take the table's places: two face each other, three sit bottom, right, left.
  function sideName(v, w) {
    const side = sidesOf(v)[w] || [];
    return side.length > 1 ? t("team.pair", { a: name(v, side[0]), b: name(v, side[1]) }) : name(v, side[0]);
  }
  // The replay of a seat (`view.seat`: a live match's, or a finished one's opened by one of its
  // players) sits that seat at the bottom, as the table does; nobody's replay, seat 1.
  const PLACE = { 2: [0, 2], 3: [0, 1, 3], 4: [0, 1, 2, 3] }; // seat after the viewer -> index of POS
  const place = (v, s) => {
    const n = PLACE[v.players] ? v.players : 4;
    const me = Number.isInteger(v.seat) && v.seat >= 0 && v.seat < n ? v.seat : 0;
    return PLACE[n][(s - me + n) % n];
  };

  /** The event in words; `card` writes a card (`face` on the line shown, `cardWords` for the
   *  screen reader's copy in the live counter).  Cards are named only as the answer gives them:
   *  every card once the match is over; while it is live, to its seat, the seat's own talon
   *  cards and the public draw, another seat's laid-aside cards as a count. */
  function describe(ev, v, card = face) {
    const team = (w) => sideName(v, w);
    // as the table says them (sides.js): two sides "7–5", the winner's first; three, each named
    // with its number in seat order ("Dara 7 · Roxana 2 · Kian 1"), the viewer's first when the
    // replay is a seat's (by the page's token of the match: a live match's, or a finished one's
    // that the player played to its end)
    const tally = (a, w) => points(v, a, w != null && w in (a || []) ? w : 0, team);
    const one = partnered(v) ? "" : "1"; // one player a side: texts of their own (result1.*, over1.*)
    switch (ev.type) {
      case "match_created": return t("ev.match_created");
      case "seat_taken": return t("ev.seat_taken", { name: ev.name, n: ev.seat + 1 });
      case "seat_left": return t("ev.seat_left", { n: ev.seat + 1 });
      case "seat_renamed": return t("ev.seat_renamed", { name: ev.name, n: ev.seat + 1 });
      case "hakem_drawn": {
        // the draw is public: every card turned, in order (as the table's draw shows them)
        const cards = cardsOf((ev.draw || []).map((d) => (Array.isArray(d) ? d[1] : d && d.card)), card);
        const high = gameOf(v.rules) === "simple"; // the simple game turns the higher card
        return cards ? t(high ? "ev.hakem_drawn_high_cards" : "ev.hakem_drawn_cards", { name: name(v, ev.hakem), cards })
          : t("ev.hakem_drawn", { name: name(v, ev.hakem) });
      }
      case "round_started": return t("ev.round_started", { round: ev.round, name: name(v, ev.hakem) });
      case "trump_chosen": return t("ev.trump_chosen", { name: name(v, ev.seat), suit: suitName(ev.suit) });
      case "card_played": return t("ev.card_played", { name: name(v, ev.seat), card: cardName(ev.card) });
      case "trick_won": return t("announce.trick_won", { name: name(v, ev.seat) });
      case "round_ended": return t(ev.winner == null ? `result.${ev.kind}` : `result${one}.${ev.kind}`, { team: team(ev.winner), name: team(ev.winner), tricks: tally(ev.tricks, ev.winner), points: ev.points });
      case "cards_discarded": {
        const cards = cardsOf(ev.cards, card);
        if (cards) return t("ev.cards_discarded_cards", { name: name(v, ev.seat), cards });
        if (Number.isSafeInteger(ev.cards) && ev.cards > 0) return t("ev.cards_discarded_n", { name: name(v, ev.seat), n: ev.cards });
        return t("ev.cards_discarded", { name: name(v, ev.seat) });
      }
      case "talon_drawn":
        return typeof ev.kept === "string" && typeof ev.discarded === "string"
          ? t("ev.talon_drawn_cards", { name: name(v, ev.seat), kept: card(ev.kept), discarded: card(ev.discarded) })
          : t("ev.talon_drawn", { name: name(v, ev.seat) });
      case "set_won": return t("ev.set_won", { team: team(ev.winner) });
      case "match_ended": return t(`over${one}.winner`, { team: team(ev.winner), name: team(ev.winner), score: tally(ev.score, ev.winner) });
      case "secret_revealed": return t("ev.secret_revealed");
      default: return ev.type;
    }
  }

  function paint() {
    const v = data.view;
    analysis.show(step, (s) => (v.seats && v.seats[s] && v.seats[s].name) || null, v.seat);
    E.slider.max = String(steps);
    E.slider.value = String(step);
    E.slider.setAttribute("aria-valuetext", t("replay.step", { k: step, n: steps }));
    const tell = (card) => (data.events || []).map((ev) => describe(ev, v, card)).join(" · ") || t("replay.start");
    const said = tell(face);
    // the live counter says the move too (for screen readers, the cards in words: "7♥" would be
    // read as a symbol's name; the line below shows it)
    fill(E.counter, t("replay.step", { k: step, n: steps }), h("span.sr-only", { text: ": " + tell(cardWords) }));
    // a step button that disables itself (First, Last, the ends of Back and Forward) would drop
    // the keyboard focus to <body>: it goes to the slider instead
    const ae = document.activeElement;
    E.slider.disabled = E.share.disabled = false;
    E.first.disabled = E.prev.disabled = step <= 0;
    E.next.disabled = E.last.disabled = step >= steps;
    if ([E.first, E.prev, E.next, E.last].includes(ae) && ae.disabled) E.slider.focus();
    E.events.textContent = said;
    const hands = v.hands || [];
    E.seats.forEach((el) => { el.hidden = true; });
    for (let s = 0; s < (v.players || 4); s++) {
      const el = E.seats[place(v, s)];
      el.hidden = false;
      el.classList.toggle("turn", v.turn === s);
      el.classList.toggle("hakem", v.hakem === s);
      const cards = hands[s] || (v.seat === s ? v.hand : []) || [];
      fill(el, h("div.seat-head", {}, h("span.name", { text: name(v, s), dir: "auto" }),
        v.hakem === s ? h("span.badge.hakem", {}, h("span", { "aria-hidden": "true", text: "♛ " }), t("seat.hakem")) : null),
      h("div.revealed", { role: "list", "aria-label": t("table.hand_of", { name: name(v, s) }) },
        ...cards.map((c) => h("span", { role: "listitem" }, cardImage(c, "mini")))),
      !cards.length && (v.hand_counts || [])[s] ? h("p.hint", { text: t("table.cards_left", { n: v.hand_counts[s] }) }) : null);
    }
    // an empty place is no item of the trick; a card is read once (by its name, the rest hidden)
    for (const sl of E.slots) { sl.replaceChildren(); sl.classList.remove("filled", "winner"); sl.setAttribute("aria-hidden", "true"); sl.removeAttribute("aria-label"); }
    let shown = v.trick || [];
    let winner = null;
    if (!shown.length && v.last_trick && (data.events || []).some((e) => e.type === "trick_won")) {
      shown = v.last_trick.cards; winner = v.last_trick.winner;
    }
    for (const { seat, card } of shown) {
      const sl = E.slots[place(v, seat)];
      sl.classList.add("filled");
      if (seat === winner) sl.classList.add("winner");
      const img = cardImage(card);
      img.setAttribute("aria-hidden", "true");
      sl.append(img, h("span.slot-name", { text: name(v, seat), "aria-hidden": "true", dir: "auto" }));
      sl.setAttribute("aria-label", `${isolated(name(v, seat))}: ${cardName(card)}${seat === winner ? " — " + t("table.wins_trick") : ""}`);
      sl.setAttribute("aria-hidden", "false");
    }
    const team = (w) => sideName(v, w);
    fill(E.facts, h("h2", { text: t("table.round_n", { n: v.round || 1 }) }),
      h("dl.facts", {},
        // trump as the table shows it: the suit's sign in its colour, and its name
        h("dt", { text: t("table.trump") }), h("dd", { id: "rp-trump" }, v.trump ? suitBadge(v.trump) : t("table.no_trump")),
        h("dt", { text: t("table.hakem") }), h("dd", {}, h("bdi", { text: v.hakem != null ? name(v, v.hakem) : "—" })),
        // the three-player game's 2♣, out of play in every deal (public: the view's `removed`)
        ...((v.removed || []).length ? [h("dt", { text: t("replay.removed") }),
          h("dd", { id: "rp-removed" }, listOf(v.removed.map(face)),
            h("span.sr-only", { text: ` (${listOf(v.removed.map(cardName))})` }))] : [])),
      h("table.score", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t(partnered(v) ? "table.team" : "table.player") }),
        h("th", { scope: "col", text: t("table.tricks") }), h("th", { scope: "col", text: t("table.points") }))),
      h("tbody", {}, ...sidesOf(v).map((_, w) => h("tr", {}, h("th", { scope: "row", text: team(w) }),
        h("td", { text: num((v.tricks || [0, 0])[w]) }), h("td", { text: num((v.score || [0, 0])[w]) }))))));
  }

  function keys(ev) {
    const tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const back = isRtl() ? "ArrowRight" : "ArrowLeft";
    const fwd = isRtl() ? "ArrowLeft" : "ArrowRight";
    if (ev.key === back) go(step - 1);
    else if (ev.key === fwd) go(step + 1);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") toLast();
    else return;
    ev.preventDefault();
  }
  document.addEventListener("keydown", keys);
  document.addEventListener("visibilitychange", visibility);
  build();
  // The summary first: a live match's replay is for its seats only (a stranger is told to come
  // back, and the watch opens it at the end); a link's step past the end shows the last step
  // (the summary's version; any answer will do: without it the replay is asked for the step as
  // given).
  watch().then((sm) => {
    if (!alive || seq !== 0) return;
    if (sm.phase !== "match_over" && !token) { fail({ status: 409 }); return; }
    if (step > 0 && steps == null && Number.isSafeInteger(sm.version) && sm.version >= 0) steps = sm.version;
    go(step);
  }, (e) => {
    if (!alive || seq !== 0) return;
    if (e.status === 404) fail(e);
    else go(step);
  });
  return {
    unmount() {
      alive = false; clearTimeout(debounce); clearTimeout(watchTimer); analysis.stop();
      document.removeEventListener("keydown", keys);
      document.removeEventListener("visibilitychange", visibility);
    },
    relabel() { document.title = `${t("brand")} — ${t("replay.title")}`; build(); },
  };
}
