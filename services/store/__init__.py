"""The event store: one append-only stream of records per match.

``port`` defines the contract, ``codec`` turns a record into bytes and back, ``keys`` names the
Redis keys.  Implementations: ``memory`` (threads and an event loop), ``redis_streams``
(threads, one Redis or a Cluster), ``redis_async`` (the event loop on one Redis, with
``redis_wake``'s follower) and ``redis_cluster`` (the event loop on a Cluster, with
``replicas`` for acknowledged appends).  The threaded and the event-loop Redis stores differ only
in their I/O: what they send and how they read the answers is one I/O-free core that both call,
``entries`` (entry ids, read bounds, replies carrying entries), ``scripts`` (the Lua scripts,
an append's arguments and what its answer means), ``transient`` (which errors are
``StoreUnavailable``) and ``parking`` (the followers' ``waiting`` flag).  One contract test suite
per port runs against every implementation.
"""

from .port import Conflict, EventStore, Record

__all__ = ["Conflict", "EventStore", "Record"]
