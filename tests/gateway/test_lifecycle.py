"""The embedded gateway's in-process bot worker ends with the gateway (it used to poll its
fakeredis for ever, and to play with whatever runtime the process had last set)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from .helpers import create, gateway, wait_for


def _workers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "hokm-bot-worker"}


def test_the_in_process_worker_plays_then_stops_with_its_gateway() -> None:
    before = _workers()
    with gateway() as gw:
        mine = _workers() - before
        assert len(mine) == 1
        created = create(gw, seats=["bot:easy"] * 4)
        match_id = created["match_id"]
        start = gw.version(match_id)
        wait_for(lambda: gw.version(match_id) > start + 4, 20, what="the bots playing")
    wait_for(lambda: not any(t.is_alive() for t in mine), 15, what="the worker thread's end")


def test_stopping_the_hub_ends_a_task_that_drops_its_first_cancellation() -> None:
    """Python 3.11's ``asyncio.wait_for`` drops a cancellation that arrives as its inner wait
    completes, so a follower cancelled once could read on for good (a gateway whose shutdown
    never ended, in CI).  ``stop_tasks`` cancels again until every task has ended."""
    from services.gateway.hub import stop_tasks

    # the sleeps of 30 s are tasks that run on until they are stopped (nothing waits them out)
    async def stubborn(dropped: list[int], running: asyncio.Event) -> None:
        running.set()
        while True:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                if not dropped:
                    dropped.append(1)  # as wait_for does: swallowed, the loop goes on
                    continue
                raise

    async def failing(running: asyncio.Event) -> None:
        running.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            raise RuntimeError("broke while stopping") from None

    async def scenario() -> tuple[list[int], list[asyncio.Task[None]]]:
        dropped: list[int] = []
        running = [asyncio.Event(), asyncio.Event()]
        tasks = [asyncio.create_task(stubborn(dropped, running[0])),
                 asyncio.create_task(failing(running[1]))]
        # both inside their sleeps before the stop (a task cancelled before it ever ran
        # would drop nothing)
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in running)), 10)
        await asyncio.wait_for(stop_tasks(tasks, again_s=0.05), 10)
        return dropped, tasks

    # a loop of its own in a thread of its own (the browser tests' sync Playwright leaves an
    # event loop running in the main thread)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        dropped, tasks = pool.submit(asyncio.run, scenario()).result(timeout=30)
    assert dropped == [1]  # the first cancellation was dropped, and still it ended
    assert tasks[0].cancelled()
    assert isinstance(tasks[1].exception(), RuntimeError)  # logged, not raised by the stop
