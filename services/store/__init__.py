"""The event store: one append-only stream of records per match.

``port`` defines the contract, ``memory`` and ``redis_streams`` implement it, ``codec`` turns a
record into bytes and back.  One contract test suite runs against every implementation.
"""

from .port import Conflict, EventStore, Record

__all__ = ["Conflict", "EventStore", "Record"]
