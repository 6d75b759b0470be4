"""Links a person pastes: an invite link or match URL (``http://host/m/<id>``), a replay URL
(``http://host/replay/<id>``) or a server URL (``http://host:8000/``).

Contract: :func:`parse_link` returns a :class:`Link` with the server's base URL (scheme, host
and port, no trailing slash) and the match id (None for a server URL), or raises ``ValueError``
with a sentence saying what was expected.  A missing scheme means ``http://``.  Match ids are
lowercase letters and digits (what the server makes); an id spelt with capitals (a link typed on
a phone: ``http://host/m/ABC123``) is the same match, lowercased.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

_MATCH_ID = re.compile(r"^[A-Za-z0-9]{1,40}$")
_PATH = re.compile(r"^/(?:m|replay)/([^/]+)/?$")


@dataclass(frozen=True)
class Link:
    """``base`` (``http://127.0.0.1:8000``) and ``match_id`` (None: the server itself)."""

    base: str
    match_id: str | None = None

    @property
    def ws_base(self) -> str:
        """The base URL of the server's WebSockets (``ws://`` or ``wss://``)."""
        return ("wss://" + self.base[8:]) if self.base.startswith("https://") else (
            "ws://" + self.base[7:])

    @property
    def invite_url(self) -> str:
        """The match's invite link (the table page), for a match link."""
        if self.match_id is None:
            raise ValueError("a server link has no match")
        return f"{self.base}/m/{self.match_id}"


def parse_link(text: str) -> Link:
    """Parse what a person pasted (see the module docstring)."""
    raw = text.strip()
    if not raw:
        raise ValueError("give a link: an invite link (http://HOST/m/MATCH) or a server "
                         "(http://HOST:PORT)")
    if "://" not in raw:
        raw = "http://" + raw
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r} is not a link") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{text!r} is not an http(s) link to a Hokm server")
    host = parts.hostname
    if ":" in host:
        host = f"[{host}]"
    base = f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")
    path = parts.path or "/"
    if path == "/":
        return Link(base)
    found = _PATH.match(path)
    if not found or not _MATCH_ID.match(found.group(1)):
        raise ValueError(f"{text!r} is neither a server (http://HOST:PORT) nor a match link "
                         "(http://HOST/m/MATCH)")
    return Link(base, found.group(1).lower())


def match_link(base: str, code: str) -> Link:
    """The link of match ``code`` on the server at ``base`` (a match code typed alone)."""
    server = parse_link(base)
    if not _MATCH_ID.match(code):
        raise ValueError(f"{code!r} is not a match code (letters and digits)")
    return Link(server.base, code.lower())
