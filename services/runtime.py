"""Wiring: the Redis clients, the event store, the bot scheduler and the match service of one
process, built from ``Settings``.  Without a Redis URL (the embedded default) everything uses one
in-process fakeredis server, shared by the synchronous clients and the gateway's asyncio client.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio as aioredis

from .bots import RQScheduler
from .matches import MatchService
from .quotas import Quotas
from .settings import Settings
from .store.redis_streams import RedisStore


@dataclass
class Runtime:
    settings: Settings
    client: redis.Redis
    store: RedisStore
    scheduler: RQScheduler
    service: MatchService
    fake_server: Any = None
    _async: dict[int, aioredis.Redis] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        return self.fake_server is not None

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
                # Blocking: a burst of more than 64 concurrent commands (sockets connecting)
                # waits for a free connection instead of failing with "Too many connections".
                pool = aioredis.BlockingConnectionPool.from_url(
                    self.settings.redis_url, max_connections=64, timeout=30)
                client = aioredis.Redis(connection_pool=pool)
            self._async[loop_id] = client
        return client


def build_runtime(settings: Settings | None = None) -> Runtime:
    settings = settings or Settings.from_env()
    fake_server = None
    if settings.redis_url is None:
        import fakeredis

        fake_server = fakeredis.FakeServer()
        client: redis.Redis = fakeredis.FakeRedis(server=fake_server)
    else:
        client = redis.Redis.from_url(settings.redis_url)
    store = RedisStore(client)
    scheduler = RQScheduler(client, settings.queue, settings.bot_timeout_s)
    service = MatchService(store, scheduler=scheduler,
                           allow_stacked=settings.allow_stacked_decks,
                           quotas=Quotas.from_settings(settings))
    return Runtime(settings, client, store, scheduler, service, fake_server)
