"""Scripts the store runs on Redis (Redis Cluster: ``redis_cluster.py``, ``redis_streams.py``).

On a real Redis, one or a cluster, every writer — the gateway's event loop and the service's
threads, bot workers and system steps alike — appends through ``APPEND``, so that every stored
record wakes the followers of its match (``redis_cluster.ShardedFollower``,
``redis_wake.WakeFollower``), whoever wrote it.  (fakeredis, the embedded server, appends plain
``XADD``s: its follower reads the streams.)
"""

from __future__ import annotations

APPEND = """
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
whose answer it lost, say across a failover): stored, not a conflict."""

