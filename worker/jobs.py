"""RQ entry points.  Arguments are plain JSON (match id, seat, expected version).

``bot_turn`` plays one bot move through the same decide-and-append path as a human's command:
it loads the match, does nothing if the version moved on or it is not that seat's turn, builds
that seat's view and witnessed history only, asks the seat's policy, and submits the command with
the version it was scheduled for, so a duplicate job can never play twice (it is refused as
stale).

It also plays for a human who has been away longer than the room's ``disconnect_timeout``
(a ``medium`` bot stands in; the seat stays the player's, who takes it back by reconnecting),
and for a present human whose turn outlasted the room's ``turn_timeout`` (``turn_due``, which
the watchdog asks, marks the turn; ``services/turns.py``).
``HOKM_BOT_THINK_S`` adds a thinking pause before each bot move (0 by default).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import TYPE_CHECKING

from engine import State, view_for
from services.bots import RQScheduler
from services.errors import HokmError, RateLimited
from services.lobby import stand_in_key
from services.matches import MatchService, bots_only, human_seats
from services.runtime import Runtime, build_runtime
from services.settings import env_bot_think_s
from services.store import keys
from services.store.connect import UNREACHABLE, one_line
from services.turns import applies, hurry_score, mark, mark_hurry

from .history import Histories
from .metrics import metrics

if TYPE_CHECKING:
    from .policies.base import History, View

log = logging.getLogger("hokm.worker")
_runtime: Runtime | None = None
_histories = Histories()
_rng = random.Random()
SUBSTITUTE_LEVEL = "medium"
THINK_S = env_bot_think_s()  # (checked at start: Settings.from_env)


_thread_runtime = threading.local()


def set_runtime(runtime: Runtime, *, this_thread: bool = False) -> None:
    """Use this runtime for jobs in this process, or (``this_thread``) in the calling thread
    only: the embedded server's worker and watchdog threads, so that two embedded servers in
    one process (tests) never run each other's jobs against the wrong store."""
    global _runtime
    if this_thread:
        _thread_runtime.rt = runtime
    else:
        _runtime = runtime


def runtime() -> Runtime:
    found: Runtime | None = getattr(_thread_runtime, "rt", None)
    if found is not None:
        return found
    global _runtime
    if _runtime is None:
        _runtime = build_runtime()
    return _runtime


CHAIN_S = 0.5
"""How long a job may go on playing the bot turns that follow its own (see ``bot_turn``)."""


class _Keeper:
    """The bot scheduler of a job's own match service: the bot turn that follows the job's move
    is kept for the job (``RQScheduler.claim`` with ``keep_if_idle``) while ``may_keep``."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.scheduler = rt.scheduler
        self.may_keep = False
        self.kept: tuple[str, int, int] | None = None

    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False, humans: tuple[int, ...] = ()) -> None:
        """A table whose every human is away past the room's ``disconnect_timeout`` (its
        stand-ins play) is played on the bots-only queue: nobody waits for it, and it
        delayed the tables where players do (players walk away from tables all the time).
        Asked here only, after a bot's or a stand-in's move: a move of a player's own says
        the table is attended."""
        if not bots_only and humans:
            bots_only = not present(self.rt, match_id, humans,
                                    self.rt.service.disconnect_timeout(match_id))
        if self.scheduler.claim(match_id, seat, version, keep_if_idle=self.may_keep,
                                bots_only=bots_only):
            self.kept = (match_id, seat, version)


_local = threading.local()


def _job_service(rt: Runtime) -> tuple[MatchService, _Keeper]:
    """This thread's match service for bot jobs (one per worker thread and runtime)."""
    if getattr(_local, "runtime", None) is not rt:
        keeper = _Keeper(rt)
        _local.runtime = rt
        _local.keeper = keeper
        _local.service = MatchService(rt.store, scheduler=keeper,
                                      allow_stacked=rt.service.allow_stacked,
                                      quotas=rt.service.quotas)
    return _local.service, _local.keeper


def bot_turn(match_id: str, seat: int, version: int) -> str:
    """Play the bot's move due at ``version``; returns what happened (for logs and tests).

    Then, while no other job waits in the queue and for at most ``CHAIN_S``, play the bot turns
    of this match that follow, each through the same checked path: a bot's reply then costs
    a few round trips instead of a trip through the queue (about twenty in RQ).  Each kept turn
    is marked pending before it is played, so if this worker dies the watchdog recovers it.
    """
    rt = runtime()
    service, keeper = _job_service(rt)
    until = time.monotonic() + CHAIN_S
    turn: tuple[str, int, int] | None = (match_id, seat, version)
    results: list[str] = []
    while turn is not None:
        keeper.may_keep = time.monotonic() < until and not STOPPING.is_set()
        keeper.kept = None
        try:
            results.append(_play(rt, service, *turn, fresh=not results))
        except UNREACHABLE as exc:
            _unplayed(turn, exc)
            if not results:
                return UNAVAILABLE
            break
        turn = keeper.kept
    return results[0] if len(results) == 1 else f"{results[0]} (+{len(results) - 1} kept)"


STOPPING = threading.Event()
"""Set when the worker is asked to stop (``worker.main``'s stop request): a job plays the turn
in hand and keeps no more (an audit's finding: SIGTERM finished the turn in hand, then played
the next one it kept, two think times before the worker stopped); the next goes to the queue."""


UNAVAILABLE = "unavailable"
"""What ``bot_turn`` answers when the store could not be reached for its turn."""


def _unplayed(turn: tuple[str, int, int], exc: BaseException) -> None:
    """A bot turn not played because the store (or the queue's Redis) did not answer: a
    restart, a failover, a slot migrating.  Expected, so one line and no traceback (RQ's would
    be one per job), and the job ends as a success, not in RQ's failed jobs
    (``hokm_queue_failed_jobs`` is for jobs that met a bug): the turn is not lost, its pending
    mark stays (``done`` was not reached), so a watchdog enqueues it again after its deadline,
    until the store answers.  Counted in ``hokm_bot_turns_total{outcome="unavailable"}``."""
    match_id, seat, version = turn
    log.warning("bot turn of %s (seat %d, version %d) not played: the store is unreachable "
                "(%s); it is enqueued again after its deadline", match_id, seat, version,
                one_line(exc))
    metrics().turn(UNAVAILABLE)


def _play(rt: Runtime, service: MatchService, match_id: str, seat: int, version: int, *,
          fresh: bool) -> str:
    """One bot move (``fresh``: check the stream first; a kept turn's state is already current,
    and a move made on a stale one is refused at the append).

    The turn's pending mark is removed once the turn is settled (played, refused, or found
    moved on).  If the store fails instead (a failover under way), the error goes up to
    ``bot_turn`` and the mark stays: the watchdog enqueues the turn again after its deadline,
    until the store answers.

    Meanwhile the turn is in this process's hands (``turns_in_hand``): the watchdog moves its
    deadline on while it is played, however long the bot thinks (``HOKM_BOT_THINK_S``)."""
    held = (rt.scheduler, match_id, seat, version)
    with _hands_lock:
        _in_hand.add(held)
    try:
        settled = _settle(rt, service, match_id, seat, version, fresh=fresh)
        rt.scheduler.done(match_id, seat, version)
        metrics().turn(settled)
    finally:
        with _hands_lock:
            _in_hand.discard(held)
    return settled


_in_hand: set[tuple[RQScheduler, str, int, int]] = set()
"""The bot turns being played in this process, with their scheduler (``_play``)."""
_hands_lock = threading.Lock()


def turns_in_hand(scheduler: RQScheduler) -> list[tuple[str, int, int]]:
    """The turns (match, seat, version) of ``scheduler`` being played in this process now: the
    watchdog extends their deadlines (``RQScheduler.extend``)."""
    with _hands_lock:
        return [(match_id, seat, version)
                for owner, match_id, seat, version in _in_hand if owner is scheduler]


def _settle(rt: Runtime, service: MatchService, match_id: str, seat: int, version: int, *,
            fresh: bool) -> str:
    loaded = service.load(match_id, fresh=fresh)
    state = loaded.state
    if loaded.version != version or service.next_actor(state) != seat:
        return "stale"
    occupant = state.match.seats[seat]
    if occupant is None:
        return "empty seat"
    level = occupant.bot
    if level is None:
        if away_for(rt, match_id, seat) < rt.service.disconnect_timeout(match_id) and \
                not timed_out(rt, match_id, occupant.player, version):
            return "not a bot"
        level = SUBSTITUTE_LEVEL
    if THINK_S > 0:
        time.sleep(THINK_S)
    view = view_for(state, seat, version)
    history = _histories.for_seat(rt.store, match_id, seat, version)
    choice = _choose(level, view, history, match_id)
    from .policies.base import command_for

    command = command_for(state.phase, choice)
    try:
        # no command id for a bot's seat: the expected version already makes a duplicate job
        # harmless (it is refused as stale), and ids would cost room in every record; a
        # stand-in's move carries one that says so, for the player when they are back
        outcome = service.handle(
            match_id, seat, command, version=version,
            command_id=stand_in_key(version + 1) if occupant.bot is None else None)
    except HokmError as refusal:
        return f"refused: {refusal.code}"
    # (a stand-in's move that another job made first is found by its command id)
    return "already played" if outcome.duplicate else "played"


def _choose(level: str, view: View, history: History, match_id: str) -> str:
    """The policy's choice, or, should the policy fail or answer something not legal (a bug),
    the heuristic's: a bot must never stall its table.  The log names no card."""
    from .policies import policy_for
    from .policies.base import is_legal

    start = time.perf_counter()
    try:
        choice = policy_for(level).choose(view, history, _rng)
        if is_legal(view, choice):
            metrics().decisions.labels(level).observe(time.perf_counter() - start)
            return choice
        log.error("bot %s chose a move that is not legal (match %s, version %s, seat %s); "
                  "the heuristic plays instead", level, match_id, view["version"], view["seat"])
    except Exception:
        log.exception("bot %s failed (match %s, version %s, seat %s); the heuristic plays instead",
                      level, match_id, view["version"], view["seat"])
    metrics().fallbacks.labels(level).inc()
    return policy_for("heuristic").choose(view, history, _rng)


def still_due(match_id: str, seat: int, version: int) -> bool:
    """Whether the bot turn (match, seat, version) has still not been played.

    When it has, the match is moved on if it now waits for a system step or a bot nobody has
    scheduled (``MatchService.advance``, idempotent): a job that died after appending its move
    but before scheduling the next left exactly this overdue mark behind, and nothing else
    would notice a match nobody watches."""
    service = runtime().service
    try:
        loaded = service.load(match_id)
    except HokmError:
        return False
    if loaded.version == version and service.next_actor(loaded.state) == seat:
        return True
    try:
        service.advance(match_id, loaded)
    except HokmError:
        pass
    return False


def is_bots_only(match_id: str) -> bool:
    """Whether only bots sit at the match (its turns go to the bots-only queue)."""
    service = runtime().service
    try:
        return bots_only(service.load(match_id, fresh=False).state)
    except HokmError:
        return False


def away_for(rt: Runtime, match_id: str, seat: int) -> float:
    """How long the human at ``seat`` has had no connection (0 when connected)."""
    since = rt.client.zscore(keys.AWAY, keys.away_member(match_id, seat))
    return 0.0 if since is None else max(0.0, time.time() - float(since))


def away_due(match_id: str, seat: int, away_s: float) -> tuple[int, bool] | None:
    """For the watchdog: the version at which a long-away human's seat must move now, and
    whether nobody waits for that move (no other human of the table is there: the bots-only
    queue's, as ``_Keeper.schedule`` says)."""
    rt = runtime()
    try:
        loaded = rt.service.load(match_id)
    except HokmError:
        rt.client.zrem(keys.AWAY, keys.away_member(match_id, seat))  # the match is gone
        return None
    state = loaded.state
    if state.phase == "match_over":
        rt.client.zrem(keys.AWAY, keys.away_member(match_id, seat))
        return None
    occupant = state.match.seats[seat]
    if occupant is None or occupant.bot is not None:  # left, or given to a bot: nobody away
        # (a new player is marked when seated)
        rt.client.zrem(keys.AWAY, keys.away_member(match_id, seat))
        return None
    timeout = rt.service.disconnect_timeout(match_id)
    if rt.service.next_actor(state) != seat or away_s < timeout:
        return None
    if attended(rt, match_id, state, seat, timeout):
        return loaded.version, False
    try:
        rt.service.hold_unattended(match_id)
    except RateLimited:  # nobody waits at this table: its stand-in waits for a free slot
        return None
    return loaded.version, True


def attended(rt: Runtime, match_id: str, state: State, seat: int, timeout: float) -> bool:
    """Whether another human of the match is there (connected, or away for less than the
    room's ``timeout``), waiting for ``seat``'s stand-in: if none is, the stand-in would play
    the match to bots alone (``Lobby.hold_unattended``)."""
    return present(rt, match_id, tuple(i for i in human_seats(state) if i != seat), timeout)


def present(rt: Runtime, match_id: str, seats: tuple[int, ...], timeout: float) -> bool:
    """Whether a human of ``seats`` is there: connected, or away for less than ``timeout``
    (the room's ``disconnect_timeout``; infinite when the room never substitutes)."""
    if not seats:
        return False
    since = rt.client.zmscore(keys.AWAY, [keys.away_member(match_id, i) for i in seats])
    now = time.time()
    return any(s is None or now - float(s) < timeout for s in since)


def timed_out(rt: Runtime, match_id: str, player: str, version: int) -> bool:
    """Whether the watchdog ordered a stand-in for the turn of ``player`` at ``version``, its
    limit past (``turn_due`` marked the seat hurried for the record that move makes)."""
    score = rt.client.zscore(keys.hurry(match_id), player)
    return score is not None and int(score) == hurry_score(version + 1, own=False)


def turn_due(match_id: str, seat: int, version: int) -> int | None:
    """For the watchdog: the version at which a present human's seat, whose turn at
    ``version`` outlasted the room's ``turn_timeout``, must move now (None: not due).  The
    match must still wait for that turn, the limit still apply (another human seated) and the
    seat be present, or a socket of it have seen the turn past its deadline, however briefly
    (``scripts.TURN_DEADLINE``'s ``seen``; one away otherwise is the away path's, after the
    room's ``disconnect_timeout``), and its player not have been given more time past now
    (``scripts.MORE_TIME``).  Marks the seat hurried for the stand-in's record first
    (``services/turns.py``): a watchdog or a job dying after it leaves the turn to be
    scheduled or recovered all the same, and the player's own command at that version, should
    it come first, outranks the mark."""
    rt = runtime()
    try:
        loaded = rt.service.load(match_id)
        room = rt.service.room(match_id)
    except HokmError:
        return None  # the match is gone
    state = loaded.state
    if loaded.version != version or rt.service.next_actor(state) != seat \
            or not applies(state, seat, room.turn_timeout):
        return None
    occupant = state.match.seats[seat]
    assert occupant is not None  # (applies)
    found, seen = keys.turn_seen(rt.client.hmget(keys.turn(match_id), *keys.SEEN_FIELDS),
                                 mark(state, seat), occupant.player)
    if found is not None and found[3] and found[0] > time.time():
        return None  # given more time as the watchdog looked (its entry was moved)
    if not keys.present(rt.client.hgetall(keys.presence(match_id)),
                        state.rules.players)[seat] \
            and (found is None or seen < found[0]):
        return None  # away, and no socket of it saw the turn past its deadline (QA: one
        # that opens and closes at once is rarely open when a watchdog looks)
    pipe = rt.client.pipeline(transaction=False)
    mark_hurry(pipe, match_id, occupant.player, hurry_score(version + 1, own=False))
    pipe.execute()
    return version
