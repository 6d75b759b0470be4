"""Settings from the environment, read once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str | None
    """None: the embedded default (fakeredis in-process, in-process bot worker)."""
    allow_stacked_decks: bool
    queue: str
    bot_timeout_s: float
    """A bot turn not played after this long is re-enqueued (a worker died mid-job)."""
    max_body: int
    rate_per_token: float
    """Commands per second allowed per token (burst of 4x)."""
    rate_per_address: float
    """Requests per second allowed per client address (burst of 4x)."""

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
        )
