"""Settings from the environment, read once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str | None
    """None: the embedded default (fakeredis in-process, in-process bot worker).  Otherwise a
    single Redis (``redis://host:port/db``) or a Redis Cluster
    (``redis+cluster://host:port,host:port``; ``services/store/connect.py``)."""
    allow_stacked_decks: bool
    queue: str
    bot_timeout_s: float
    """A bot turn not played after this long is re-enqueued (a worker died mid-job)."""
    max_body: int
    rate_per_token: float
    """Commands per second allowed per token (burst of 4x)."""
    rate_per_address: float
    """Requests per second allowed per client address (burst of 4x)."""
    queue_url: str | None = None
    """RQ's own single Redis (HOKM_QUEUE_URL): defaults to ``redis_url`` when that is a single
    Redis, and is required with a cluster."""
    replica_acks: int = 0
    """On a Redis Cluster: replicas that must hold each record before its append is
    acknowledged (HOKM_REPLICA_ACKS; 0: asynchronous replication, as Redis does by default;
    ``services/store/replicas.py``)."""
    replica_wait_ms: int = 100
    """How long an append waits for those replicas (HOKM_REPLICA_WAIT_MS)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses (or networks, ``10.0.0.0/8``) of the proxies whose ``X-Forwarded-For`` is
    believed (HOKM_TRUSTED_PROXIES, comma-separated).  Nobody by default: the TCP peer is the
    client, whatever headers it sends."""
    connections_per_address: int = 64
    """Connections open at once from one client address (0: no limit)."""
    request_timeout_s: float = 10.0
    """A request's head and body must arrive within this time (slow clients are cut off)."""
    keep_alive_s: float = 5.0
    """Idle keep-alive connections are closed after this."""
    creates_per_window: int = 30
    """Matches one client address may create per ``create_window_s`` (0: no limit)."""
    create_window_s: float = 600.0
    bot_matches: int = 8
    """Bots-only matches (nobody seated, only watchers) playing at once, all gateways
    together (0: no limit)."""
    bot_matches_per_address: int = 2
    """Bots-only matches one address may have playing at once (0: no limit)."""
    idle_ttl_s: float = 24 * 3600.0
    """An unfinished match with no new record for this long is deleted (0: never)."""
    finished_ttl_s: float = 90 * 24 * 3600.0
    """A finished match's log (and its secret, for ``hokm verify``) is kept this long (0: for
    ever)."""
    gc_freeze_s: float = 0.05
    """A gateway freezes what it allocated out of the garbage collector's passes this
    often (``services/gateway/gcpolicy.py``; 0: off)."""
    gc_thaw_s: float = 900.0
    """... and unfreezes them for one full collection this often (0: never)."""
    data_dir: str | None = None
    """The folder where the embedded server keeps its matches across restarts (a journal, see
    ``services/store/journal.py``); None: in memory only.  ``from_env``: HOKM_DATA, else in
    the embedded mode ``default_data_dir()``."""

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            redis_url=os.environ.get("HOKM_REDIS_URL") or None,
            allow_stacked_decks=_flag("HOKM_ALLOW_STACKED_DECKS"),
            queue=os.environ.get("HOKM_QUEUE", "hokm-bots"),
            bot_timeout_s=float(os.environ.get("HOKM_BOT_TIMEOUT", "3")),
            max_body=int(os.environ.get("HOKM_MAX_BODY", str(16 * 1024))),
            rate_per_token=float(os.environ.get("HOKM_RATE_PER_TOKEN", "20")),
            rate_per_address=float(os.environ.get("HOKM_RATE_PER_ADDRESS", "50")),
            queue_url=os.environ.get("HOKM_QUEUE_URL") or None,
            replica_acks=int(os.environ.get("HOKM_REPLICA_ACKS", "0")),
            replica_wait_ms=int(os.environ.get("HOKM_REPLICA_WAIT_MS", "100")),
            trusted_proxies=tuple(p.strip() for p in os.environ.get(
                "HOKM_TRUSTED_PROXIES", "").split(",") if p.strip()),
            connections_per_address=int(os.environ.get("HOKM_CONNECTIONS_PER_ADDRESS", "64")),
            request_timeout_s=float(os.environ.get("HOKM_REQUEST_TIMEOUT", "10")),
            keep_alive_s=float(os.environ.get("HOKM_KEEP_ALIVE", "5")),
            creates_per_window=int(os.environ.get("HOKM_CREATES_PER_WINDOW", "30")),
            create_window_s=float(os.environ.get("HOKM_CREATE_WINDOW", "600")),
            bot_matches=int(os.environ.get("HOKM_BOT_MATCHES", "8")),
            bot_matches_per_address=int(os.environ.get("HOKM_BOT_MATCHES_PER_ADDRESS", "2")),
            idle_ttl_s=float(os.environ.get("HOKM_IDLE_TTL", str(24 * 3600))),
            finished_ttl_s=float(os.environ.get("HOKM_FINISHED_TTL", str(90 * 24 * 3600))),
            gc_freeze_s=float(os.environ.get("HOKM_GC_FREEZE", "0.05")),
            gc_thaw_s=float(os.environ.get("HOKM_GC_THAW", "900")),
            data_dir=os.environ.get("HOKM_DATA") or (
                None if os.environ.get("HOKM_REDIS_URL") else default_data_dir()),
        )


def default_data_dir() -> str:
    """Where the embedded server keeps its matches by default: ``$XDG_DATA_HOME/hokm``, else
    ``~/.local/share/hokm``."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "hokm")
