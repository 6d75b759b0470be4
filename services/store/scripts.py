"""Scripts the store runs on Redis (Redis Cluster: ``redis_cluster.py``, ``redis_streams.py``).

On a real Redis, one or a cluster, every writer — the gateway's event loop and the service's
threads, bot workers and system steps alike — appends through ``APPEND``, so that every stored
record wakes the followers of its match (``redis_cluster.ShardedFollower``,
``redis_wake.WakeFollower``), whoever wrote it.  (fakeredis, the embedded server, appends plain
``XADD``s: its follower reads the streams.)
"""

from __future__ import annotations

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
redis.call('SPUBLISH', KEYS[2], ARGV[1])
return 1
"""
"""KEYS: the log, the wake channel (one slot); ARGV: the entry id, the payload.  A refused id
whose entry holds these very bytes is this append again (the cluster client retries a command
whose answer it lost, say across a failover): stored, not a conflict.  An entry whose
predecessor is not the log's top is refused (``GAP``): the log expired, was deleted or lost its
newest records while a writer held the match in its cache, and an append must never start a
log anew in the middle of a match (the next read would find versions from ``v`` on only)."""

REFUSED = "equal or smaller"
"""The text of Redis's refusal of an entry id that is not above the stream's top."""
GAP = "HOKMGAP"
"""The mark of ``APPEND``'s refusal of an entry that would leave a gap (or start a log)."""


def refused(answer: object) -> bool:
    """Whether a Redis error answer to an append is a refusal (the log is not where the writer
    thought: another writer first, or no log to follow), not a failure."""
    text = str(answer)
    return REFUSED in text or GAP in text

