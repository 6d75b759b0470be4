"""``services.gateway.offload``: a refusal raised in a worker thread reaches the loop without
leaving a reference cycle (a hostile-client finding: 4 to 7 KB kept per refused request until
the collector's thaw, ``gcpolicy``), and every blocking call of the gateway goes through it."""

from __future__ import annotations

import concurrent.futures
import gc
import pathlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from starlette.concurrency import run_in_threadpool

from engine.errors import MatchFull
from services.gateway.offload import off_loop

GATEWAY = pathlib.Path(__file__).resolve().parents[2] / "services" / "gateway"


def refuse() -> None:
    try:
        {}["missing"]
    except KeyError:  # a refusal raised while handling another error: its context too
        raise MatchFull("every seat is taken") from None


@contextmanager
def garbage() -> Iterator[list[Any]]:
    """The objects only the cycle collector could free, made inside the block."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list[Any] = []
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def run_loop(main: Callable[[], Any]) -> Any:
    """``anyio.run(main)`` in a thread of its own: a browser test before this one in the same
    process (Playwright's sync API) may have left an event loop set in this thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result(timeout=60)


def ours(found: list[Any]) -> list[Any]:
    """The refusals among ``found``, and the frames of the calls that raised them."""
    names = {"refuse", "_capture", "off_loop", "main"}
    return [o for o in found if isinstance(o, MatchFull)
            or (type(o).__name__ == "frame" and o.f_code.co_name in names)]


def refused_many(run: Callable[..., Any]) -> list[str]:
    async def main() -> list[str]:
        codes = []
        for _ in range(20):
            try:
                await run(refuse)
            except MatchFull as error:
                codes.append(f"{error.code}: {error}")
        return codes
    return list(run_loop(main))


def test_a_refusal_from_the_thread_leaves_no_cycle() -> None:
    with garbage() as left:
        codes = refused_many(off_loop)
    assert codes == ["match_full: every seat is taken"] * 20
    # (other threads of the test process may leave garbage of their own meanwhile: only what
    # these calls made counts)
    assert not ours(left), ours(left)[:5]


def test_the_plain_threadpool_leaves_one_per_refusal() -> None:
    """What the helper is for: the check above sees the cycle ``run_in_threadpool`` leaves."""
    with garbage() as left:
        refused_many(run_in_threadpool)
    assert sum(isinstance(o, MatchFull) for o in left) >= 20


def test_values_and_other_errors_pass_as_before() -> None:
    def boom() -> None:
        raise RuntimeError("a bug")

    async def main() -> None:
        assert await off_loop(lambda a, b=0: a + b, 2, b=3) == 5
        with pytest.raises(RuntimeError) as caught:
            await off_loop(boom)
        # a bug keeps its traceback, down to the thread's frame that raised it, for the log
        names = []
        tb = caught.value.__traceback__
        while tb is not None:
            names.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        assert "boom" in names
    run_loop(main)


def test_the_gateway_runs_its_blocking_calls_through_the_helper() -> None:
    users = sorted(p.name for p in GATEWAY.glob("*.py")
                   if "run_in_threadpool" in p.read_text() and p.name != "offload.py")
    assert users == []
    assert any("off_loop(" in p.read_text() for p in GATEWAY.glob("api.py"))
