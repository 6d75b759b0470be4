"""Scripts the store runs on Redis (Redis Cluster: ``redis_cluster.py``, ``redis_streams.py``).

On a real Redis, one or a cluster, every writer — the gateway's event loop and the service's
threads, bot workers and system steps alike — appends through ``APPEND``, so that every stored
record wakes the followers of its match (``redis_cluster.ShardedFollower``,
``redis_wake.WakeFollower``), whoever wrote it.  (fakeredis, the embedded server, appends plain
``XADD``s: its follower reads the streams.)  Beside the scripts, the I/O-free parts of an
append that every store shares, threaded or on the event loop: its arguments (``append_args``,
``xadd_args``) and what its answer means (``refused``, ``append_answer``).
"""

from __future__ import annotations

from typing import Any

from . import keys
from .entries import FIELD, entry_id

APPEND = """
local v = tonumber(string.match(ARGV[1], '^(%d+)-'))
if v > 1 then
  local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #top == 0 or tonumber(string.match(top[1][1], '^(%d+)-')) < v - 1 then
    return redis.error_reply('HOKMGAP the log does not reach the entry before ' .. ARGV[1])
  end
end
local ok = redis.pcall('XADD', KEYS[1], ARGV[1], 'd', ARGV[2])
if type(ok) == 'table' and ok.err then
  local got = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
  if #got == 1 and got[1][2][2] == ARGV[2] then return 1 end
  return ok
end
redis.call('SPUBLISH', ARGV[3], ARGV[1])
return 1
"""
"""KEYS: the log; ARGV: the entry id, the payload, the wake channel (``append_args``).  A refused id
whose entry holds these very bytes is this append again (the cluster client retries a command
whose answer it lost, say across a failover): stored, not a conflict.  An entry whose
predecessor is not the log's top is refused (``GAP``): the log expired, was deleted or lost its
newest records while a writer held the match in its cache, and an append must never start a
log anew in the middle of a match (the next read would find versions from ``v`` on only).

The wake channel (same slot as the log) is an argument, not a declared key: it never exists
as a key, and while its slot migrates (``MIGRATING``/``IMPORTING``) Redis refuses a command
whose declared keys are partly missing (``TRYAGAIN``) for the whole migration, so every
append of every match in the slot failed (QA F2).  With the log alone declared, the source
runs the append while it holds the log and redirects it (``ASK``) once the log has moved;
``SPUBLISH`` inside a script is served by whichever of the two runs it."""


def append_args(match_id: str, version: int, payload: bytes) -> tuple[Any, ...]:
    """What follows the script in ``EVAL APPEND ...``: one key, the log; the entry id, the
    payload and the wake channel."""
    return (1, keys.log(match_id), entry_id(version), payload, keys.wake_channel(match_id))


def publishes(client: Any) -> bool:
    """Whether appends on ``client`` publish wake-ups (``APPEND``): on every real Redis,
    single or Cluster, whose followers wait for them (``redis_wake.py``,
    ``redis_cluster.py``); not on fakeredis, where the embedded server's follower reads the
    streams themselves (``redis_async.StreamsFollower``) and appends are plain ``XADD``s
    (``xadd_args``), which the journal records as they are."""
    return not type(client).__module__.startswith("fakeredis")


def xadd_args(match_id: str, version: int, payload: bytes) -> tuple[Any, ...]:
    """What follows ``XADD`` in an append where ``APPEND`` is not run (fakeredis: one process,
    no script): the log; past version 1 ``NOMKSTREAM``, so that a log that expired or was
    deleted is not started anew in the middle of a match (the answer is nil instead); the
    entry id, and the one field with the payload.  (The gap ``APPEND`` refuses is the
    caller's to check first: ``entries.reaches``.)"""
    start = () if version == 1 else ("NOMKSTREAM",)
    return (keys.log(match_id), *start, entry_id(version), FIELD, payload)

HELD = """
if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1]) == 0 then return 0 end
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
redis.call('XSETID', KEYS[1], top[1][1])
return 1
"""
"""KEYS: the log; ARGV: an entry id.  0 if this node's log lacks the entry; else 1, after a
write that changes nothing (the log's last id set to its top entry's, which it is: logs are
never trimmed) but is replicated like any other, so that a ``WAIT`` after it on the same
connection counts the replicas that hold the entry (``replicas.Acked.held``)."""

REFUSED = "equal or smaller"
"""The text of Redis's refusal of an entry id that is not above the stream's top."""
GAP = "HOKMGAP"
"""The mark of ``APPEND``'s refusal of an entry that would leave a gap (or start a log)."""


def refused(answer: object) -> bool:
    """Whether a Redis error answer to an append is a refusal (the log is not where the writer
    thought: another writer first, or no log to follow), not a failure."""
    text = str(answer)
    return REFUSED in text or GAP in text


def append_answer(answer: object) -> bool | BaseException:
    """What the answer to one append (``EVAL APPEND``, or ``XADD``: ``xadd_args``), an error
    taken as a value, says: True, stored; False, refused (``refused``: another writer was
    first, or no log to continue; or nil, ``NOMKSTREAM`` finding no log); else the error
    itself, for the caller to raise or pass on as its I/O does."""
    if isinstance(answer, BaseException):
        return False if refused(answer) else answer
    return answer is not None


TURN_NOTE = "turn"
"""The wake-up (on a match's wake channel, where ``APPEND`` publishes the entry ids of records)
that says the deadline of the match's turn changed beside its log (``TURN_DEADLINE`` set it,
``MORE_TIME`` extended it): no record to read, the turn's hash to look at again."""


TURN_DEADLINE = """
local t = redis.call('HMGET', KEYS[1], 'turn', 'version', 'player', 'deadline', 'limit',
                     'grace', 'extended', 'seen')
local version, player, now = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local set = false
local seen = string.format('%.6f', math.max(tonumber(t[8] or '0'), now))
if t[1] ~= ARGV[1] then
  if t[2] and tonumber(t[2]) >= version then return false end
  local mark = redis.call('ZSCORE', KEYS[2], player)
  local grace = mark and tonumber(mark) % 2 == 0
  local limit = tonumber(grace and ARGV[6] or ARGV[5])
  t = {ARGV[1], version, player, string.format('%.6f', now + limit), ARGV[grace and 6 or 5],
       grace and '1' or '0', '0'}
  seen = string.format('%.6f', now)
  set = true
elseif t[3] ~= player then
  if tonumber(t[2]) > version then return false end
  t[3] = player
  t[4] = string.format('%.6f', math.max(tonumber(t[4]), now + tonumber(ARGV[6])))
  set = true
end
redis.call('HSET', KEYS[1], 'turn', t[1], 'version', math.max(tonumber(t[2]), version),
           'player', t[3], 'deadline', t[4], 'limit', t[5], 'grace', t[6],
           'extended', t[7] or '0', 'seen', seen)
redis.call('EXPIRE', KEYS[1], ARGV[7])
if set then redis.call('SPUBLISH', ARGV[8], '""" + TURN_NOTE + """') end
return {t[4], t[5], t[6], t[7] or '0'}
"""
"""The deadline of a human turn, set once for the turn (``services/turns.py``).  KEYS: the
match's ``keys.turn`` hash, its ``keys.hurry`` marks (one slot); ARGV: the turn's mark
(``turns.mark``: the seat and how far the match is, so a record that only seats or unseats
someone leaves it the same turn), the match's version, the seat's player, now (epoch seconds),
the room's limit, the grace (``turns.limit_s(..., True)``), the hash's lifetime in seconds,
the match's wake channel (``keys.wake_channel``, as for ``MORE_TIME``).

The hash holds one turn.  Another turn than the hash's replaces it with a deadline of now plus
the limit (the grace if the player's hurried mark is even: ``turns.is_hurried``), unless the
hash was written at this version or a later one (the caller is behind: the match moved on;
nil).  The same turn keeps its deadline, whichever gateway asks and however often; for another
player than the one it was set for (a newcomer in the seat) it becomes at least now plus the
grace (asked at an older version than the hash's, where the seat had another player: nil).
A deadline set (a new turn's, a newcomer's) publishes ``TURN_NOTE`` on the wake channel, so
the gateways without a socket of the seat tell their spectators (``TurnLimits.changed``).
Every call also keeps the latest "now" it was given for the turn in ``seen``: only a gateway
holding a socket of the seat calls it, so a ``seen`` past the deadline means a socket of the
seat was open after it, which the watchdog takes as the seat present then, however soon that
socket closed (``worker.jobs.turn_due``).
Returns the deadline, the seconds, "1" if they were the grace and "1" if the turn was given
more time (``MORE_TIME``), as strings."""


MORE_TIME = """
local t = redis.call('HMGET', KEYS[1], 'turn', 'player', 'deadline', 'extended')
local now = tonumber(ARGV[3])
if t[1] ~= ARGV[1] or t[2] ~= ARGV[2] or tonumber(t[3]) <= now then return 'none' end
if t[4] == '1' then return 'again' end
local deadline = string.format('%.6f', now + tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'deadline', deadline, 'limit', ARGV[4], 'grace', '0',
           'extended', '1')
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], 'GT', ARGV[5], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('SPUBLISH', ARGV[7], '""" + TURN_NOTE + """')
return {deadline, ARGV[4], '0', '1'}
"""
"""More time for a human turn (the player asked: ``services/turns.py``), once per turn.
KEYS: the match's ``keys.turn`` hash, its ``keys.hurry`` marks (one slot); ARGV: the turn's
mark (``turns.mark``), the seat's player, now (epoch seconds), the room's limit, the player's
hurried mark as after an own command (``turns.hurry_score(version, own=True)``), the keys'
lifetime in seconds, the match's wake channel (``keys.wake_channel``: not a declared key, as
for ``APPEND``).

Only the turn the hash holds, for that player and before its deadline, is given more time:
its deadline becomes now plus the room's full limit (never the grace), it is marked as
extended (a second ask finds the mark), and the player's hurried mark is cleared as their own
command would (``ZADD GT``: a stand-in's newer mark still wins); ``TURN_NOTE`` is published
on the match's wake channel, so every gateway following the match learns it at once
(``Follower.on_note``), as it learns of a new record.  Returns what
``TURN_DEADLINE`` returns, or "none" (no such turn, or its time is up: nothing changed) or
"again" (the turn was given more time already: nothing changed)."""


TURN_SEEN = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""
"""The watchdog is done with an entry of ``keys.TURNS`` (KEYS) it read as due: ARGV: the
member, the time it was read at.  The member leaves the set unless its turn was rescheduled
meanwhile (``MORE_TIME``: its score is now past that time), so a turn given more time as the
watchdog looked at it keeps its new deadline."""
