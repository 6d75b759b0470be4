"""The blocking :class:`Seat`: an :class:`~hokmclient.seat.AsyncSeat` run on an event loop of
its own, in a background thread, so a plain script can follow a match without asyncio.

Contract: every method of :class:`Seat` is the same-named method of ``AsyncSeat`` run to its
end (or its ``timeout``) and returns its result or raises its exception (:meth:`Seat.turns`
and :meth:`Seat.views` are plain iterators); ``view``, ``missed``, ``errors``, ``reconnects``
read the live seat.  ``on_view``/``on_missed`` callbacks run in the
background thread.  Close the seat (or use ``with``) to stop the thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from .http import JSON, Choice
from .seat import AsyncSeat, over

T = TypeVar("T")


class _Loop:
    """An event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="hokmclient",
                                       daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


class Seat:
    """A seat (or spectator) followed over its WebSocket; see :class:`AsyncSeat`.

    ``Seat.join(invite_link, name=...)``, ``Seat.create(server, seats=[...])``,
    ``Seat.resume(link, token)``, ``Seat.spectate(link)``; then ``with seat:`` (or
    :meth:`start`), :meth:`turns`, :meth:`decide` / :meth:`play` / :meth:`choose_trump`."""

    def __init__(self, make: Coroutine[Any, Any, AsyncSeat] | None = None, *,
                 seat: AsyncSeat | None = None, loop: _Loop | None = None) -> None:
        self._loop = loop or _Loop()
        try:
            self.aseat: AsyncSeat = seat if seat is not None else self._loop.run(make)  # type: ignore[arg-type]
        except BaseException:
            self._loop.stop()
            raise

    @classmethod
    def join(cls, link: str, *, name: str | None = None, seat: int | None = None,
             **kw: Any) -> Seat:
        """Claim an open seat of the match an invite link names."""
        return cls(AsyncSeat.join(link, name=name, seat=seat, **kw))

    @classmethod
    def create(cls, server: str, *, seats: list[str] | None = None, rules: JSON | None = None,
               name: str | None = None, **kw: Any) -> Seat:
        """Create a match on ``server`` and take its first human seat; the seat's keywords
        (``on_view``...) go to the seat, the others (``players``, ``disconnect_timeout``...) to
        the create request (:meth:`AsyncSeat.create`)."""
        return cls(AsyncSeat.create(server, seats=seats, rules=rules, name=name, **kw))

    @classmethod
    def resume(cls, link: str, token: str | None, **kw: Any) -> Seat:
        """The seat of ``token`` in the match ``link`` names (None: a spectator)."""
        async def make() -> AsyncSeat:
            return AsyncSeat.resume(link, token, **kw)

        return cls(make())

    @classmethod
    def spectate(cls, link: str, **kw: Any) -> Seat:
        """Watch the match ``link`` names."""
        return cls.resume(link, None, **kw)

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return self._loop.run(coro, timeout)

    # -- state -------------------------------------------------------------------------------

    @property
    def view(self) -> JSON | None:
        return self.aseat.view

    @property
    def version(self) -> int:
        return self.aseat.version

    @property
    def match_id(self) -> str:
        return self.aseat.match_id

    @property
    def token(self) -> str | None:
        return self.aseat.token

    @property
    def created(self) -> JSON | None:
        return self.aseat.created

    @property
    def missed(self) -> list[JSON]:
        return self.aseat.missed

    @property
    def errors(self) -> list[JSON]:
        return self.aseat.errors

    @property
    def reconnects(self) -> int:
        return self.aseat.reconnects

    @property
    def connected(self) -> bool:
        return self.aseat.connected

    # -- the socket and waiting ----------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> JSON:
        return self._run(self.aseat.start(timeout))

    def wait(self, predicate: Any, timeout: float | None = None) -> JSON:
        return self._run(self.aseat.wait(predicate, timeout))

    def turn(self, timeout: float | None = None) -> JSON:
        return self._run(self.aseat.turn(timeout))

    def turns(self, timeout: float | None = None) -> Iterator[JSON]:
        """Each view at which this seat must decide, until the match is over (``timeout``:
        the longest wait for one); after a command refused with ``stale_version``, the newest
        (as :meth:`AsyncSeat.turns`)."""
        while True:
            view, seen = self._run(self._now(self.aseat.turn(timeout)))
            if over(view):
                return
            yield view
            if self.aseat._seq == seen:
                self._run(self._newer(seen, timeout))

    def views(self, timeout: float | None = None) -> Iterator[JSON]:
        """Every new view as it arrives (a consumer slower than the match sees the newest only),
        until the match is over (``timeout``: the longest wait for one)."""
        seen = -1
        while True:
            view, seen = self._run(self._newer(seen, timeout))
            yield view
            if over(view):
                return

    async def _now(self, waited: Coroutine[Any, Any, JSON]) -> tuple[JSON, int]:
        """The view ``waited`` returns and the seat's change number, read together in the
        seat's loop: read from this thread, the number could count views that arrived after,
        and waiting for a change past it could sleep through the last view of the match."""
        view = await waited
        return view, self.aseat._seq

    def _newer(self, seen: int, timeout: float | None) -> Coroutine[Any, Any, tuple[JSON, int]]:
        """The view once there is one newer than change ``seen``, and its change number."""
        return self._now(self.aseat.wait(lambda v: self.aseat._seq > seen, timeout))

    def drop(self) -> None:
        self._loop.loop.call_soon_threadsafe(self.aseat.drop)

    # -- commands --------------------------------------------------------------------------------

    def play(self, card: str, version: int | None = None) -> JSON:
        return self._run(self.aseat.play(card, version))

    def choose_trump(self, suit: str, version: int | None = None) -> JSON:
        return self._run(self.aseat.choose_trump(suit, version))

    def discard(self, cards: Choice, version: int | None = None) -> JSON:
        return self._run(self.aseat.discard(cards, version))

    def draw_talon(self, choice: str, version: int | None = None) -> JSON:
        return self._run(self.aseat.draw_talon(choice, version))

    def decide(self, choice: Choice, view: JSON | None = None) -> JSON:
        return self._run(self.aseat.decide(choice, view))

    def send(self, body: JSON) -> None:
        self._run(self.aseat.send(body))

    def hint(self, since: int) -> JSON:
        return self._run(self.aseat.hint(since))

    def events(self, since: int = 0) -> JSON:
        return self._run(self.aseat.events(since))

    def leave(self, replace_with: str | None = None) -> JSON:
        return self._run(self.aseat.leave(replace_with))

    def close(self) -> None:
        try:
            self._run(self.aseat.close(), 15)
        finally:
            self._loop.stop()

    def __enter__(self) -> Seat:
        try:
            self.start()
        except BaseException:
            self.close()  # (``with`` calls no __exit__ when __enter__ fails: stop the thread)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
