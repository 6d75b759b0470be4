"""``hokm replay LINK``: a finished match move by move in the terminal, with its analysis.

Contract: :func:`open_replay` asks the public summary first and goes no further for a match
that is not over (:class:`Refused`, status 2: nothing of it is asked for or shown: its replay
would need a seat's token and show that seat alone, its analysis opens at its end), nor for a
match the server does not have (2), nor a ``--step`` past the match's last (2).  Then
:class:`ReplayApp` shows a step (:func:`hokmplay.review.render` of ``GET .../replay?step=k``,
every hand shown) and moves by the keys ``hokm replay --help`` lists
(``hokmplay.cli.REPLAY_KEYS_HELP``): a step, a trick (to the step
that won the next or the last one: ``[`` / ``]``), a round (to the next or the last deal:
PgUp / PgDn), the ends.  Steps already shown are kept (a finished match does not change), and
only the newest step asked is fetched, so a key held down does not queue requests.  The
analysis is asked once at the start and, while the server computes it (202), again every
:data:`ANALYSIS_POLL_S` seconds until :data:`ANALYSIS_WAIT_S` have passed; meanwhile the
screen says how far it is and the keys work.  A request that fails while the table is shown
is said in the message line, and the next key asks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from hokmclient import ApiError, AsyncClient, Link, NetworkError

from .app import STYLE, said
from .review import Page, Story, render

RETRIES = 2
"""Retries of a request (the library's backoff): a server that does not answer is said in
about a second, not after the ~12 s of ``hokm play``'s joining."""
ANALYSIS_POLL_S = 2.0
ANALYSIS_WAIT_S = 15 * 60.0
"""How often, and for how long, a pending analysis is asked for again."""
ANALYSIS_RETRIES = 5
"""Failures in a row to reach the analysis (the server away) before giving it up."""

class Refused(Exception):
    """A replay that cannot be shown, in one line (``code``: the exit status)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def refusal(error: ApiError, where: Link) -> Refused:
    """The one line of a request refused (or not answered) before the table is shown."""
    if isinstance(error, NetworkError):
        return Refused(f"cannot reach the server at {where.base} ({error.reason})")
    if error.code == "not_found":
        return Refused(f"there is no match {where.match_id} on {where.base} (not_found)", 2)
    if error.code in ("match_not_over", "bad_token"):  # (the replay's answer without a token)
        return Refused(not_over(where), 2)
    if error.code == "not_hokm":
        return Refused(f"the server at {where.base} is not a Hokm server (it answered HTTP "
                       f"{error.status})", 2)  # a link that is no match link, as hokm play
    return Refused(f"the server refused: {error.code} ({error.message})")


def not_over(where: Link) -> str:
    return (f"match {where.match_id} is not over yet (match_not_over): its replay and its "
            "analysis open at its end")


async def open_replay(where: Link, step: int | None) -> tuple[AsyncClient, Story, int]:
    """The client, the match's landmarks and the first step to show, for the finished match of
    ``where``; :class:`Refused` otherwise (see the module docstring)."""
    assert where.match_id is not None
    client = AsyncClient(where.base, retries=RETRIES)
    try:
        summary = await client.summary(where.match_id)
        if summary.get("phase") != "match_over":
            raise Refused(not_over(where), 2)
        steps = int(summary.get("version") or 0)
        if step is not None and step > steps:
            raise Refused(f"--step {step}: this match has steps 0 to {steps}", 2)
        records = (await client.events(where.match_id, 0)).get("events") or []
    except ApiError as error:
        await client.aclose()
        raise refusal(error, where) from None
    except Refused:
        await client.aclose()
        raise
    return client, Story.of(steps, list(records)), step or 0


class ReplayApp:
    """The replay of one finished match at the terminal."""

    def __init__(self, client: AsyncClient, match_id: str, story: Story, step: int) -> None:
        self.client = client
        self.match_id = match_id
        self.story = story
        self.page = Page(step=step, steps=story.steps)
        self.shown: dict[int, dict[str, Any]] = {}
        """The replay's answers by step (a finished match's steps never change)."""
        self._loading = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.app: Application[int] = Application(
            layout=Layout(Window(FormattedTextControl(self._text, focusable=True,
                                                      show_cursor=False), wrap_lines=False)),
            key_bindings=self._keys(), style=STYLE, full_screen=True, mouse_support=False)

    def _text(self) -> StyleAndTextTuples:
        size = self.app.output.get_size()
        out: StyleAndTextTuples = []
        for i, line in enumerate(render(self.page, size.columns, size.rows)):
            if i:
                out.append(("", "\n"))
            out.extend(line)
        return out

    # -- moving --------------------------------------------------------------------------------

    def go(self, step: int) -> None:
        """Show ``step`` (kept within the match): at once if it was shown before, else once
        its answer comes."""
        self.page.step = max(0, min(step, self.story.steps))
        known = self.shown.get(self.page.step)
        if known is not None:
            self.page.answer = known
            self.page.message = ""
        elif not self._loading:
            self._loading = True
            self._spawn(self._load())
        self.app.invalidate()

    async def _load(self) -> None:
        """Fetch the step asked last until it is shown (steps asked meanwhile are skipped)."""
        try:
            while self.page.step not in self.shown:
                want = self.page.step
                try:
                    answer = await self.client.replay(self.match_id, want)
                except ApiError as error:
                    self.page.message = f"Step {want} not shown: {said(error)}."
                    return
                self.shown[want] = answer
                if self.page.step == want:
                    self.page.answer = answer
                    self.page.message = ""
        finally:
            self._loading = False
            self.app.invalidate()

    async def _analyse(self) -> None:
        """Ask for the analysis until it is done (see the module docstring)."""
        analysis = self.page.analysis
        until = time.monotonic() + ANALYSIS_WAIT_S
        failures = 0
        while True:
            try:
                answer = await self.client.analysis(self.match_id)
                failures = 0
            except ApiError as error:
                failures += 1
                if not isinstance(error, NetworkError) or failures >= ANALYSIS_RETRIES:
                    analysis.status, analysis.problem = "failed", said(error)
                    self.app.invalidate()
                    return
                answer = None
            if answer is not None:
                analysis.take(answer)
                self.app.invalidate()
                if analysis.status == "done":
                    return
            if time.monotonic() >= until:
                analysis.status = "failed"
                analysis.problem = (f"not ready after {ANALYSIS_WAIT_S / 60:g} minutes: "
                                    "open the replay again later")
                self.app.invalidate()
                return
            await asyncio.sleep(ANALYSIS_POLL_S)

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c-c")
        @kb.add("q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        def at() -> int:
            return self.page.step

        def story() -> Story:
            return self.story

        moves = {"left": lambda: at() - 1, "right": lambda: at() + 1,
                 "[": lambda: story().before(story().tricks, at()),
                 "]": lambda: story().after(story().tricks, at()),
                 "pageup": lambda: story().before(story().rounds, at()),
                 "pagedown": lambda: story().after(story().rounds, at()),
                 "home": lambda: 0, "end": lambda: story().steps}
        for key, where in moves.items():
            def _move(event: KeyPressEvent, where: Any = where) -> None:
                self.go(where())
            kb.add(key)(_move)

        @kb.add("s")
        def _summary(event: KeyPressEvent) -> None:
            self.page.summary = not self.page.summary

        return kb

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self) -> int:
        """Show the replay until the viewer quits; returns the exit status (0)."""
        def started() -> None:
            self._spawn(self._analyse())
            self.go(self.page.step)

        try:
            return await self.app.run_async(pre_run=started) or 0
        finally:
            for task in list(self._tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                await self.client.aclose()
