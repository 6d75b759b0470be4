"""Wiring: the Redis clients, the event store, the bot scheduler and the match service of one
process, built from ``Settings``.  Without a Redis URL (the embedded default) everything uses one
in-process fakeredis server, shared by the synchronous clients and the gateway's asyncio client.

With ``Settings.data_dir`` as well, that server keeps its matches in the data folder
(``services/store/journal.py``): ``build_runtime`` locks the folder, replays its journal, and
resumes every unfinished match (``resume_matches``); ``Runtime.close`` releases it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio as aioredis

from .bots import RQScheduler
from .matches import MatchService
from .quotas import Quotas
from .settings import Settings
from .store import connect
from .store.journal import DataFolder, stored_matches
from .store.port import AsyncEventStore
from .store.redis_async import AsyncRedisStore
from .store.redis_streams import RedisStore
from .store.replicas import ReplicaCheck

log = logging.getLogger("hokm.runtime")


@dataclass
class Runtime:
    settings: Settings
    client: Any
    """The match store's client: ``redis.Redis`` (or fakeredis) or ``RedisCluster``."""
    store: RedisStore
    scheduler: RQScheduler
    service: MatchService
    fake_server: Any = None
    data: DataFolder | None = None
    """The data folder the embedded server keeps its matches in (None: memory only)."""
    resumed: int = 0
    """Unfinished matches found in the data folder at start and set going again."""
    replicas: ReplicaCheck | None = None
    """On a cluster with ``HOKM_REPLICA_ACKS``: whether every primary has those replicas (the
    gateway's readiness)."""
    _async: dict[int, aioredis.Redis] = field(default_factory=dict)
    _async_stores: dict[int, AsyncEventStore] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        return self.fake_server is not None

    @property
    def cluster(self) -> bool:
        """Whether the matches live on a Redis Cluster."""
        url = self.settings.redis_url
        return url is not None and connect.parse(url).cluster

    def async_client(self) -> aioredis.Redis:
        """An asyncio client for the current event loop (the gateway's tail and presence)."""
        import asyncio

        loop_id = id(asyncio.get_running_loop())
        client = self._async.get(loop_id)
        if client is None:
            if self.fake_server is not None:
                import fakeredis.aioredis

                client = fakeredis.aioredis.FakeRedis(server=self.fake_server)
            else:
                assert self.settings.redis_url is not None
                client = connect.async_client(connect.parse(self.settings.redis_url),
                                              **connect.SERVING)
            self._async[loop_id] = client
        return client

    def async_store(self) -> AsyncEventStore:
        """The event store port for the current event loop (the gateway's appends, reads and
        follower)."""
        import asyncio

        loop_id = id(asyncio.get_running_loop())
        store = self._async_stores.get(loop_id)
        if store is None:
            client = self.async_client()
            if self.cluster:
                from .store.redis_cluster import AsyncClusterStore

                store = AsyncClusterStore(client, replica_acks=self.settings.replica_acks,
                                          wait_ms=self.settings.replica_wait_ms)
            else:
                store = AsyncRedisStore(client)
            self._async_stores[loop_id] = store
        return store

    def close(self) -> None:
        """Release the data folder (the journal is fsynced), if any.  Idempotent."""
        if self.data is not None:
            self.data.close()
            self.data = None


def build_runtime(settings: Settings | None = None) -> Runtime:
    """The runtime of ``settings`` (from the environment if None).  Embedded with a data
    folder: raises what ``DataFolder.open`` raises (the folder is busy, damaged, unwritable)."""
    settings = settings or Settings.from_env()
    fake_server = None
    data = None
    if settings.redis_url is None:
        import fakeredis

        fake_server = fakeredis.FakeServer()
        if settings.data_dir is not None:
            data = DataFolder.open(settings.data_dir, fake_server)
        client: Any = fakeredis.FakeRedis(server=fake_server)
        queue_client: Any = client
    else:
        target = connect.parse(settings.redis_url)
        client = connect.sync_client(target, **connect.SERVING)
        queue_client = redis.Redis.from_url(
            connect.queue_url(settings.redis_url, settings.queue_url))
    store = RedisStore(client, replica_acks=settings.replica_acks,
                       wait_ms=settings.replica_wait_ms)
    scheduler = RQScheduler(queue_client, settings.queue, settings.bot_timeout_s)
    service = MatchService(store, scheduler=scheduler,
                           allow_stacked=settings.allow_stacked_decks,
                           quotas=Quotas.from_settings(settings))
    rt = Runtime(settings, client, store, scheduler, service, fake_server, data)
    if settings.replica_acks and settings.redis_url and connect.parse(settings.redis_url).cluster:
        rt.replicas = ReplicaCheck(client, settings.replica_acks)
    if data is not None:
        rt.resumed = resume_matches(rt)
    return rt


def resume_matches(rt: Runtime) -> int:
    """Set every unfinished stored match going again after a restart: perform any system step it
    waits for and schedule the bot whose turn it is (``MatchService.advance``).  A match that
    cannot be loaded is logged and left as it is.  Returns how many were resumed."""
    from engine.state import MATCH_OVER

    resumed = 0
    for match_id in stored_matches(rt.client):
        try:
            loaded = rt.service.load(match_id)
            if loaded.state.phase == MATCH_OVER:
                continue
            rt.service.advance(match_id, loaded)
            resumed += 1
        except Exception as exc:  # one damaged match must not keep the others stopped
            log.warning("match %s was not resumed: %s", match_id, exc)
    return resumed
