// The gateway API (docs/api.md): HTTP calls, tokens kept per match, and a WebSocket that
// reconnects by itself with backoff and catches up with `since=<last version>`.
import { safeDel, safeGet, safeSet, withBotNames } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter; // seconds (the Retry-After of a 429 or 503), else null
  }
}

async function request(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, "network", String(e.message || e));
  }
  let data = null;
  try { data = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok) {
    const err = (data && data.error) || {};
    const wait = Number(res.headers.get("Retry-After"));
    throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || res.statusText,
      Number.isFinite(wait) && wait > 0 ? wait : null);
  }
  return withBotNames(data);
}

/** The games a room can play (docs/rules-decisions.md, "The variants"): what create sends for
 *  each.  Four players is the default; with two, `two_player` names the simple or the talon game. */
export const GAMES = {
  four: { players: 4 },
  simple: { players: 2, two_player: "simple" },
  talon: { players: 2, two_player: "talon" },
  three: { players: 3 },
};
/** The game of a match's recorded rules (a key of GAMES). */
export function gameOf(rules) {
  const n = (rules && rules.players) || 4;
  if (n === 3) return "three";
  if (n === 2) return rules.two_player === "talon" ? "talon" : "simple";
  return "four";
}

/** The longest player name the server takes (engine.decide.MAX_NAME; matches record it). */
export const MAX_NAME = 40;

/** A fresh request key (docs/api.md, POST /api/matches): 24 random base64url characters. */
export function requestKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** How many times a create or a join is sent at most, and the longest pause between two. */
export const ONCE_TRIES = 6;
const ONCE_MAX_PAUSE_S = 5;

/** A create or a join, safe to send again: every try carries the same request key `id`, so
 *  a try answered 503 (or lost on the way back) whose seat was stored all the same is answered
 *  by the next try with that seat and its token, and nothing is taken twice.  Sent again only
 *  while the server is briefly unreachable (503 but `match_damaged`, a proxy's 502 or 504, no
 *  answer at all), after `Retry-After` or a doubling pause, `ONCE_TRIES` times at most. */
async function requestOnce(path, body) {
  const keyed = { ...body, id: requestKey() };
  for (let attempt = 1; ; attempt++) {
    try {
      return await request("POST", path, { body: keyed });
    } catch (e) {
      const passing = (e.status === 503 && e.code !== "match_damaged") || e.status === 502
        || e.status === 504 || e.code === "network";
      if (!passing || attempt >= ONCE_TRIES) throw e;
      const pause = Math.min(e.retryAfter ?? 0.25 * 2 ** (attempt - 1), ONCE_MAX_PAUSE_S);
      await new Promise((resolve) => setTimeout(resolve, pause * 1000));
    }
  }
}

const enc = encodeURIComponent;
export const api = {
  create: (body) => requestOnce("/api/matches", body),
  join: (id, body) => requestOnce(`/api/matches/${enc(id)}/join`, body),
  rematch: (id, token) => request("POST", `/api/matches/${enc(id)}/rematch`, { body: {}, token }),
  summary: (id) => request("GET", `/api/matches/${enc(id)}`),
  events: (id, token, since) => request("GET", `/api/matches/${enc(id)}/events?since=${since}`, { token }),
  /** {"seat": n} while the token holds a seat of the match, else {"seat": null} (no error). */
  seat: (id, token) => request("GET", `/api/matches/${enc(id)}/seat`, { token }),
  view: (id, token) => request("GET", `/api/matches/${enc(id)}/view`, { token }),
  command: (id, token, cmd) => request("POST", `/api/matches/${enc(id)}/commands`, { body: cmd, token }),
  replay: (id, step, token) => request("GET", `/api/matches/${enc(id)}/replay?step=${step}`, { token }),
  /** 200 {"status": "done", ...} or 202 {"status": "pending", "rounds", "done"} (poll again). */
  analysis: (id) => request("GET", `/api/matches/${enc(id)}/analysis`),
  hint: (id, token, since) => request("GET", `/api/matches/${enc(id)}/hint?since=${since}`, { token }),
  /** replace_with "bot:<level>" hands the seat to a bot (else it is left empty); the token
   *  stops working.  429 rate_limited when that would leave the match to bots alone and no
   *  bots-only slot is free: nothing changed. */
  leave: (id, token, replaceWith) =>
    request("POST", `/api/matches/${enc(id)}/leave`, { body: replaceWith ? { replace_with: replaceWith } : {}, token }),
  giveBot: (id, seat, token, level) =>
    request("POST", `/api/matches/${enc(id)}/seats/${seat}/bot`, { body: { level }, token }),
};

// ---- what the browser remembers (no sign-up: a name, one token per match, the recent matches) ----
const RECENT = "hokm.recent";
/** How many matches the start page's list remembers, the latest first. */
export const RECENT_MAX = 8;
const MATCH_ID = /^[\w-]{1,64}$/;

/** The matches this browser took a seat in, the latest first.  A browser from before the list
 *  starts it from the matches it holds a token of (in no known order). */
function recentIds() {
  let ids = null;
  try { ids = JSON.parse(safeGet(RECENT) || "null"); } catch { ids = null; }
  if (!Array.isArray(ids)) {
    ids = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const k = localStorage.key(i);
        if (k && k.startsWith("hokm.token.")) ids.push(k.slice("hokm.token.".length));
      }
    } catch { /* storage off: no list */ }
  }
  return [...new Set(ids.filter((x) => typeof x === "string" && MATCH_ID.test(x)))].slice(0, RECENT_MAX);
}
const keepRecent = (ids) => safeSet(RECENT, JSON.stringify(ids.slice(0, RECENT_MAX)));

export const store = {
  token: (id) => safeGet(`hokm.token.${id}`),
  // a seat taken is a match to come back to (the start page's list): kept when the seat is
  // left or the match ends, for its replay and analysis
  setToken: (id, token) => { safeSet(`hokm.token.${id}`, token); store.remember(id); },
  recent: recentIds,
  remember: (id) => keepRecent([id, ...recentIds().filter((x) => x !== id)]),
  forget: (id) => keepRecent(recentIds().filter((x) => x !== id)),
  dropToken: (id) => { safeDel(`hokm.token.${id}`); safeDel(`hokm.seen.${id}`); },
  // the last version this browser showed of a match: a page opened again asks the socket for
  // what it missed since (the moves a stand-in made for the player, among them)
  seen: (id) => { const v = Number(safeGet(`hokm.seen.${id}`)); return Number.isInteger(v) && v > 0 ? v : null; },
  setSeen: (id, v) => safeSet(`hokm.seen.${id}`, String(v)),
  name: () => safeGet("hokm.name") || "",
  setName: (n) => safeSet("hokm.name", n),
  solo: () => safeGet("hokm.solo"),
  setSolo: (id) => safeSet("hokm.solo", id),
  dropSolo: () => safeDel("hokm.solo"),
};

/** Take the seat of `token` in the rematch of the finished match `id` (POST .../rematch): the
 *  new match's token is kept (and it becomes the solo match if `id` was); its answer. */
export async function takeRematch(id, token) {
  const r = await api.rematch(id, token);
  store.setToken(r.match_id, r.token);
  if (store.solo() === id) store.setSolo(r.match_id);
  return r;
}

let counter = 0;
/** A unique command id, so a retried command is never applied twice. */
export const commandId = () => `c-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** How often an open socket is pinged, and how long it is given to answer (a pong, or any frame)
 *  before it is taken for dead: a network gone silent (no FIN, no RST) leaves a socket OPEN for
 *  minutes, so silence is the only sign.  A socket not open within CONNECT_DEADLINE is given up
 *  and tried again.  In milliseconds. */
export const PING_EVERY = 25000;
export const PONG_DEADLINE = 10000;
export const CONNECT_DEADLINE = 15000;

/**
 * A match socket.  handlers: onView(msg), onMissed(msg), onTurnLimit(msg), onError(msg),
 * onStatus("connecting"|"open"|"closed"),
 * onFatal(reason, code) when the server refuses us for good (code 4401: the token holds no seat).  `since()` gives the version shown,
 * so a reconnect asks only for what is new.  The socket is pinged every PING_EVERY ms, and at once
 * when the browser is back online or the page comes to the front (check()); one that stays
 * silent PONG_DEADLINE ms after it is asked is closed and replaced as after a close.
 */
export class MatchSocket {
  constructor(matchId, token, handlers, since) {
    this.matchId = matchId;
    this.token = token;
    this.h = handlers;
    this.since = since;
    this.attempt = 0;
    this.closed = false;
    this.ws = null;
    this.timer = null;
    this.pinger = null;
    this.deadline = null; // the answer awaited from the open socket
    this.wake = () => { if (this.isOpen()) this.check(); else this.reconnectNow(); };
    window.addEventListener("online", this.wake);
    document.addEventListener("visibilitychange", this.wake);
    this.connect();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = new URLSearchParams();
    if (this.token) q.set("token", this.token);
    const v = this.since();
    if (v != null && v >= 0) q.set("since", String(v));
    return `${proto}//${location.host}/api/matches/${enc(this.matchId)}/ws?${q}`;
  }

  isOpen() { return this.ws && this.ws.readyState === WebSocket.OPEN; }

  connect() {
    if (this.closed) return;
    this.h.onStatus?.("connecting");
    let ws;
    try { ws = new WebSocket(this.url()); } catch { this.schedule(); return; }
    this.ws = ws;
    this.stopTimers();
    // a handshake lost in a silent network would hang for minutes: give it up and try again
    this.deadline = setTimeout(() => this.dead(ws), CONNECT_DEADLINE);
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      clearTimeout(this.deadline);
      this.deadline = null;
      this.h.onStatus?.("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.check(), PING_EVERY);
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return; // a socket given up for dead
      clearTimeout(this.deadline); // any frame shows the socket is alive
      this.deadline = null;
      let msg;
      try { msg = withBotNames(JSON.parse(ev.data)); } catch { return; }
      if (msg.type === "view") this.h.onView?.(msg);
      else if (msg.type === "missed") this.h.onMissed?.(msg);
      else if (msg.type === "turn_limit") this.h.onTurnLimit?.(msg);
      else if (msg.type === "error") this.h.onError?.(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopTimers();
      if (this.closed) return;
      // 1008 (policy) or 4xxx: the server refused us (bad token, unknown match): do not hammer it.
      if (ev.code === 1008 || (ev.code >= 4000 && ev.code < 5000)) {
        this.h.onStatus?.("closed");
        this.h.onFatal?.(ev.reason || String(ev.code), ev.code);
        return;
      }
      this.schedule();
    };
    ws.onerror = () => { /* onclose follows and schedules the retry */ };
  }

  /** Ask the open socket for a sign of life: a ping, to be answered within PONG_DEADLINE
   *  (nothing new while an answer is awaited already). */
  check() {
    if (!this.isOpen() || this.deadline) return;
    this.ws.send(JSON.stringify({ type: "ping" }));
    this.expectAnswer();
  }

  /** Some frame must come from the open socket within PONG_DEADLINE (every command and ping
   *  is answered: a view, an error or a pong). */
  expectAnswer() {
    if (!this.isOpen() || this.deadline) return;
    const ws = this.ws;
    this.deadline = setTimeout(() => this.dead(ws), PONG_DEADLINE);
  }

  /** `ws` stayed silent: drop it (its close handshake may never end, so its close event is not
   *  waited for) and reconnect as after a close. */
  dead(ws) {
    if (this.ws !== ws || this.closed) return;
    this.ws = null;
    this.stopTimers();
    try { ws.close(4000, "no answer"); } catch { /* closing already */ }
    this.schedule(); // at once after an open socket (onopen reset the backoff); later after a handshake
  }

  stopTimers() {
    clearInterval(this.pinger);
    clearTimeout(this.deadline);
    this.pinger = null;
    this.deadline = null;
  }

  schedule() {
    this.h.onStatus?.("closed");
    clearTimeout(this.timer);
    const delay = Math.min(10000, 400 * 2 ** this.attempt) * (0.75 + Math.random() / 2);
    this.attempt = Math.min(this.attempt + 1, 6);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.closed || (this.ws && this.ws.readyState === WebSocket.CONNECTING)) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    this.connect();
  }

  /** Send a frame on the open socket (false if there is none).  Its answer is awaited, so a
   *  dead socket is found within PONG_DEADLINE of a move. */
  sendRaw(obj) {
    if (!this.isOpen()) return false;
    this.ws.send(JSON.stringify(obj));
    this.expectAnswer();
    return true;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.stopTimers();
    window.removeEventListener("online", this.wake);
    document.removeEventListener("visibilitychange", this.wake);
    if (this.ws) { const ws = this.ws; this.ws = null; ws.close(1000); }
  }
}
