"""Settings from the environment, read once at start-up.

A value that is not valid is refused by ``Settings.from_env`` (so at the start of ``hokm serve``
and ``hokm worker``, before anything runs) with a ``SettingError``: one line naming the variable,
what it must be and what it was given.  An empty value is the default, as if the variable were
not set.

Zero: where 0 would leave the server unusable (no request body fits, every request or bot turn
times out at once, a window of no time) the minimum is above it; where a limit can be lifted,
0 means "no limit" or "off" (the rates, the quotas, the connection cap, the TTLs, the garbage
collector's timers), as each field says.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from .clitools import WHOLE, CliError

MIN_BODY = 1024
"""The least HOKM_MAX_BODY: the API's requests and commands (a create with every rule and a
long name included) stay well under a KiB; below that the game cannot be played."""

ANALYSIS_BOTS = ("hard", "medium", "expert")
"""The values of HOKM_ANALYSIS_BOT (``worker/analysis/jobs.py`` maps them to their searches)."""


class SettingError(CliError):
    """A HOKM_ variable whose value is not valid: ``name`` and the one-line message.  A
    ``CliError`` (exit status 2, the status of a command started wrongly), and deliberately not
    a ``ValueError``: the commands report it as it is, in one line, instead of wrapping it."""

    def __init__(self, name: str, must: str, value: str | None) -> None:
        got = "it is not set" if value is None else f"got {value!r}"
        super().__init__(f"{name} must be {must} ({got})", 2)
        self.name = name


def _text(name: str) -> str:
    """The variable's value; empty when unset (or set to blanks)."""
    return os.environ.get(name, "").strip()


def env_text(name: str, default: str = "") -> str:
    """A text setting: its value without surrounding blanks, ``default`` when unset or empty."""
    return _text(name) or default


QUEUE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
"""A queue's name (HOKM_QUEUE): letters, digits and ``_.:-``, 64 at most.  RQ takes any text,
but a name with spaces, braces or another script is a typing slip that nothing else would
catch: the workers and the gateways would each serve a queue the other does not see."""


def env_queue(name: str, default: str) -> str:
    """A queue name setting (``QUEUE_NAME``), ``default`` when unset or empty."""
    value = _text(name) or default
    if not QUEUE_NAME.fullmatch(value):
        raise SettingError(name, "a queue name of letters, digits and _.:- (64 at most)",
                           value)
    return value


SWITCH_ON = ("1", "true", "yes", "on")
SWITCH_OFF = ("", "0", "false", "no", "off")
"""The words of a HOKM_ switch (in any case, blanks around them ignored; unset is off)."""


def _flag(name: str) -> bool:
    """A switch: 1, true, yes or on, or 0, false, no or off (off when unset or empty); any
    other value is refused (``maybe`` read as off said nothing, an audit's finding)."""
    text = _text(name).lower()
    if text in SWITCH_ON:
        return True
    if text in SWITCH_OFF:
        return False
    raise SettingError(name, "1 or 0 (on or off)", _text(name))


_ASCII_NUMBER = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?\.[0-9]+")
"""A number as the settings take it: ASCII digits only (``float`` reads the digits of every
script, ``٣`` as 3, and ``1_0`` as 10; the command lines' options and the API refuse them, and
the settings do as well; whole numbers as the options do, ``clitools.WHOLE``)."""


MAXIMUM = 10**9
"""The largest number any setting takes unless it says otherwise: a billion (seconds: 31
years; requests a second; bytes).  Larger values are mistakes, and some would reach Redis as
expiry times it refuses (every create answering 500), so they are refused at start."""


def _at_most(name: str, value: float, maximum: float, text: str) -> None:
    if value > maximum:
        raise SettingError(name, f"a number of at most {maximum:,.0f}", text)


def env_int(name: str, default: int, minimum: int = 0, maximum: int = MAXIMUM) -> int:
    """A whole number of ``minimum`` or more and at most ``maximum`` (``default`` when unset or
    empty)."""
    text = _text(name)
    if not text:
        return default
    try:
        value = int(text, 10) if WHOLE.fullmatch(text) else minimum - 1
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise SettingError(name, f"a whole number of {minimum} or more", text)
    _at_most(name, value, maximum, text)
    return value


def env_float(name: str, default: float, *, positive: bool = False,
              minimum: float = 0.0, maximum: float = MAXIMUM) -> float:
    """A finite number of ``minimum`` (0 unless given) or more, or above 0 when ``positive``,
    and at most ``maximum`` (``default`` when unset or empty)."""
    text = _text(name)
    if not text:
        return default
    try:
        value = float(text) if _ASCII_NUMBER.fullmatch(text) else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum or (positive and value <= 0):
        raise SettingError(name, "a number above 0" if positive else
                           f"a number of {minimum:g} or more", text)
    _at_most(name, value, maximum, text)
    return value


def env_bot_think_s() -> float:
    """HOKM_BOT_THINK_S: seconds of 0 to 60 (a pause to watch bots at a human pace; longer
    would stall their tables), 0 when unset."""
    return env_float("HOKM_BOT_THINK_S", 0.0, maximum=60.0)


def env_choice(name: str, default: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (``default`` when unset or empty)."""
    text = _text(name)
    if not text:
        return default
    if text not in choices:
        raise SettingError(name, f"one of {', '.join(choices)}", text)
    return text


def env_proxies(name: str) -> tuple[str, ...]:
    """Comma-separated IP addresses and networks (``10.0.0.5``, ``10.1.0.0/16``, IPv6 alike),
    or ``*`` alone (every peer: only for a gateway that nothing but its proxy can reach); ()
    when unset or empty.  A network with host bits set is read as the network it lies in
    (``10.0.0.5/8``: ``10.0.0.0/8``), the form both readers of the list expect
    (``services/gateway/app.py``'s forwarding headers, ``server.py``'s connection cap)."""
    text = _text(name)
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if parts == ["*"]:
        return ("*",)
    found = []
    for part in parts:
        try:
            if "/" in part:
                found.append(str(ipaddress.ip_network(part, strict=False)))
            else:
                found.append(str(ipaddress.ip_address(part)))
        except ValueError:
            raise SettingError(name, "IP addresses or networks separated by commas, such as "
                               f"10.0.0.5,10.1.0.0/16 ({part!r} is neither)", text) from None
    return tuple(found)


def env_store_url(name: str) -> str | None:
    """A Redis URL (``services/store/connect.py`` says which forms); None when unset or empty.
    Blanks alone are not taken for unset: the commands that read the variable themselves
    (``hokm worker``) would take them for a URL."""
    text = os.environ.get(name, "")
    if not text:
        return None
    from .store.connect import parse  # (connect imports this module)

    parse(text, name)
    return text


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str | None
    """None: the embedded default (fakeredis in-process, in-process bot worker).  Otherwise a
    single Redis (``redis://host:port/db``) or a Redis Cluster
    (``redis+cluster://host:port,host:port``; ``services/store/connect.py``)."""
    allow_stacked_decks: bool
    queue: str
    """The RQ queue of bot turns (HOKM_QUEUE; bots-only matches use ``<queue>-bots-only``)."""
    bot_timeout_s: float
    """A bot turn not played after this long is re-enqueued (a worker died mid-job); above 0
    (0 would enqueue every turn again at once)."""
    max_body: int
    """Bytes of a request body or a WebSocket frame: ``MIN_BODY`` or more."""
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
    """How long an append waits for those replicas (HOKM_REPLICA_WAIT_MS): 1 or more, since
    Redis's ``WAIT`` with 0 waits for ever."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses (or networks, ``10.0.0.0/8``) of the proxies whose ``X-Forwarded-For`` is
    believed (HOKM_TRUSTED_PROXIES, comma-separated).  Nobody by default: the TCP peer is the
    client, whatever headers it sends."""
    connections_per_address: int = 64
    """Connections open at once from one client address (0: no limit)."""
    request_timeout_s: float = 10.0
    """A request's head and body must arrive within this time (slow clients are cut off);
    above 0."""
    keep_alive_s: float = 5.0
    """Idle keep-alive connections are closed after this: 1 or more (uvicorn counts it in
    whole seconds)."""
    creates_per_window: int = 30
    """Matches one client address may create per ``create_window_s`` (0: no limit)."""
    create_window_s: float = 600.0
    """... per this many seconds: above 0 (the window the creates are counted in)."""
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
    bot_think_s: float = 0.0
    """A pause before every bot move (HOKM_BOT_THINK_S; read by ``worker/jobs.py``, checked
    here so that a server or a worker with a bad value does not start)."""
    analysis_nodes: int | None = None
    """The post-match analysis's solver nodes per question (HOKM_ANALYSIS_NODES, 0: no limit;
    None: the analysis's default, ``AnalysisConfig.nodes``).  Read by the workers that run the
    analysis (``worker/analysis/jobs.py``); checked here too, so that a server or a worker
    with a bad value does not start."""
    analysis_bot: str = "hard"
    """The search whose choice the analysis reports (HOKM_ANALYSIS_BOT, one of
    ``ANALYSIS_BOTS``)."""
    analysis_ttl_s: float = 60.0
    """How long a running analysis job's mark lasts unless refreshed (HOKM_ANALYSIS_TTL)."""
    worker_metrics_port: int = 0
    """``hokm worker`` answers ``GET /metrics`` on this port, every interface
    (HOKM_WORKER_METRICS_PORT; 0: off; ``worker/metrics.py``)."""
    metrics: bool = True
    """A gateway answers ``GET /metrics`` (Prometheus; HOKM_METRICS ``on`` or ``off``:
    ``services/gateway/metrics.py``)."""
    public_url: str | None = None
    """The address players reach the site at (HOKM_PUBLIC_URL, ``https://hokm.example``, no
    path): invite links (``invite_url``) are made from it.  None: from each request's
    ``Host`` (and, from a trusted proxy, ``X-Forwarded-Proto``), which a proxy may rewrite to
    its upstream's name (nginx does unless told ``proxy_set_header Host $host``)."""

    @classmethod
    def from_env(cls) -> Settings:
        """The settings of the environment; ``SettingError`` for the first value that is not
        valid (a Redis URL too: ``BadStoreUrl``, a ``SettingError``)."""
        redis_url = env_store_url("HOKM_REDIS_URL")
        queue_url = env_store_url("HOKM_QUEUE_URL")
        if redis_url is not None:
            from .store.connect import queue_url as queue_of

            queue_of(redis_url, queue_url)  # a cluster needs a queue of its own
        return cls(
            redis_url=redis_url,
            allow_stacked_decks=_flag("HOKM_ALLOW_STACKED_DECKS"),
            queue=env_queue("HOKM_QUEUE", "hokm-bots"),
            bot_timeout_s=env_float("HOKM_BOT_TIMEOUT", 3.0, positive=True),
            max_body=env_int("HOKM_MAX_BODY", 16 * 1024, minimum=MIN_BODY),
            rate_per_token=env_float("HOKM_RATE_PER_TOKEN", 20.0),
            rate_per_address=env_float("HOKM_RATE_PER_ADDRESS", 50.0),
            queue_url=queue_url,
            replica_acks=env_int("HOKM_REPLICA_ACKS", 0),
            replica_wait_ms=env_int("HOKM_REPLICA_WAIT_MS", 100, minimum=1),
            trusted_proxies=env_proxies("HOKM_TRUSTED_PROXIES"),
            connections_per_address=env_int("HOKM_CONNECTIONS_PER_ADDRESS", 64),
            request_timeout_s=env_float("HOKM_REQUEST_TIMEOUT", 10.0, positive=True),
            keep_alive_s=env_float("HOKM_KEEP_ALIVE", 5.0, minimum=1.0),
            creates_per_window=env_int("HOKM_CREATES_PER_WINDOW", 30),
            create_window_s=env_float("HOKM_CREATE_WINDOW", 600.0, positive=True),
            bot_matches=env_int("HOKM_BOT_MATCHES", 8),
            bot_matches_per_address=env_int("HOKM_BOT_MATCHES_PER_ADDRESS", 2),
            idle_ttl_s=env_float("HOKM_IDLE_TTL", 24 * 3600.0),
            finished_ttl_s=env_float("HOKM_FINISHED_TTL", 90 * 24 * 3600.0),
            gc_freeze_s=env_float("HOKM_GC_FREEZE", 0.05),
            gc_thaw_s=env_float("HOKM_GC_THAW", 900.0),
            data_dir=env_text("HOKM_DATA") or (None if redis_url else default_data_dir()),
            bot_think_s=env_bot_think_s(),
            analysis_nodes=env_analysis_nodes(),
            analysis_bot=env_analysis_bot(),
            analysis_ttl_s=env_analysis_ttl_s(),
            metrics=env_choice("HOKM_METRICS", "on", ("on", "off")) == "on",
            worker_metrics_port=env_port("HOKM_WORKER_METRICS_PORT"),
            public_url=env_public_url("HOKM_PUBLIC_URL"),
        )


def env_public_url(name: str) -> str | None:
    """An ``http`` or ``https`` address of a site's root (a host, an optional port, no path,
    query or user), without a trailing slash; None when unset."""
    text = _text(name)
    if not text:
        return None
    must = "an http:// or https:// address of the site's root, e.g. https://hokm.example"
    try:
        parts = urlsplit(text)
        port = parts.port  # a bad port raises ValueError
    except ValueError:
        raise SettingError(name, must, text) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username or parts.password \
            or port == 0 or any(c.isspace() for c in text):
        raise SettingError(name, must, text)
    return f"{parts.scheme}://{parts.netloc}"


def env_port(name: str) -> int:
    """A TCP port, 1 to 65535, or 0 (the default): off."""
    try:
        return env_int(name, 0, maximum=65535)
    except SettingError:
        raise SettingError(name, "a port, 1 to 65535 (0: off)", _text(name)) from None


def env_analysis_nodes() -> int | None:
    """HOKM_ANALYSIS_NODES: a whole number of 0 or more; None when unset."""
    return env_int("HOKM_ANALYSIS_NODES", 0) if _text("HOKM_ANALYSIS_NODES") else None


def env_analysis_bot() -> str:
    """HOKM_ANALYSIS_BOT: one of ``ANALYSIS_BOTS``, ``hard`` when unset."""
    return env_choice("HOKM_ANALYSIS_BOT", "hard", ANALYSIS_BOTS)


def env_analysis_ttl_s() -> float:
    """HOKM_ANALYSIS_TTL: seconds above 0, 60 when unset."""
    return env_float("HOKM_ANALYSIS_TTL", 60.0, positive=True)


def default_data_dir() -> str:
    """Where the embedded server keeps its matches by default: ``$XDG_DATA_HOME/hokm``, else
    ``~/.local/share/hokm``."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "hokm")
