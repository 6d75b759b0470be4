"""``hokm analyze``: the summary of a finished match from the workers' stored results or computed
in the process (``--local``), and one-line refusals (a match not over, no such match)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from hokm.cli import main
from services.runtime import Runtime, build_runtime
from tests.conftest import real_redis_client, redis_db_url
from tests.gateway.helpers import make_settings

from .test_analysis_jobs import FAST, finished_match

DB = 10
pytestmark = pytest.mark.redis


@pytest.fixture
def rt() -> Iterator[Runtime]:
    client = real_redis_client(DB)
    client.flushdb()
    yield build_runtime(make_settings(redis_url=redis_db_url(DB), queue="test-analyze"))
    client.flushdb()


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def analyze(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
            ) -> Callable[..., Ran]:
    """``hokm analyze ARGS`` in this process (``hokm.cli.main``: the exit status and the
    output exactly as the command gives them)."""
    for name, value in {"HOKM_REDIS_URL": redis_db_url(DB), **FAST}.items():
        monkeypatch.setenv(name, value)

    def run(*args: str) -> Ran:
        capsys.readouterr()
        code = main(["analyze", *args])
        out = capsys.readouterr()
        return Ran(code, out.out, out.err)

    return run


def stored(round_no: int, cost: str | None, seat: int = 2,
           by: dict[str, str | None] | None = None) -> bytes:
    move: dict[str, object] = {
            "version": 10 + round_no, "seat": seat, "kind": "play", "played": "QH",
            "alternatives": [{"card": "QH", "tricks": 5, "wins": False, "kot": False},
                             {"card": "AH", "tricks": 7, "wins": True, "kot": False}],
            "best": ["AH"], "cost": cost, "exact": True,
            "bot": {"choice": "AH", "win_chance": 0.5}, "win_chance": 0.5}
    if by is not None:  # who made the move (an analysis stored before the field has none)
        move["by"] = by
    return json.dumps({"round": round_no, "moves": [move]}).encode()


def test_the_summary_and_the_costly_moves(rt: Runtime, analyze: Callable[..., Ran]) -> None:
    match_id, rounds = finished_match(rt, 3)
    for r in range(rounds):
        rt.store.put_analysis(match_id, r, stored(r, "round" if r == 1 else None))
    done = analyze(match_id)  # every round stored: no worker needed
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"Match {match_id}: {rounds} rounds analysed" in lines
    assert any(line.split() == ["2", str(rounds), "0", "1", "0"] for line in lines)
    assert any("round 2, record 11, seat 2: Q♥ cost the round (best: A♥" in line
               for line in lines)


def test_a_three_player_match_has_a_row_per_seat(rt: Runtime,
                                                 analyze: Callable[..., Ran]) -> None:
    match_id, rounds = finished_match(rt, 5, {"players": 3})
    for r in range(rounds):
        rt.store.put_analysis(match_id, r, stored(r, "kot" if r == 0 else None))
    done = analyze(match_id)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    table = lines[lines.index("seat  decisions  cost a trick  cost the round  cost a kot") + 1:]
    assert [line.split()[0] for line in table[:4]] == ["0", "1", "2", "Costly"]
    assert table[2].split() == ["2", str(rounds), "0", "0", "1"]


HEAD = "decisions  cost a trick  cost the round  cost a kot"


def test_a_seat_that_changed_hands_has_a_row_per_player(rt: Runtime,
                                                        analyze: Callable[..., Ran]) -> None:
    """The summary is per player, as the replay's: seat 2's first round was Babak's, the rest
    the bot's that took the seat over (each charged with its own moves only)."""
    match_id, rounds = finished_match(rt, 3)
    assert rounds >= 2
    for r in range(rounds):
        by = {"name": "Babak", "bot": None} if r == 0 else {"name": "Kian", "bot": "medium"}
        rt.store.put_analysis(match_id, r, stored(r, "round" if r == 0 else None, by=by))
    done = analyze(match_id)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.endswith(HEAD))
    assert lines[head].split()[0] == "player", lines[head]
    rows = [line.rsplit(maxsplit=4) for line in lines[head + 1:head + 3]]
    assert rows == [["Babak, seat 2", "1", "0", "1", "0"],
                    ["Kian (bot), seat 2", str(rounds - 1), "0", "0", "0"]], lines
    assert lines[head + 3] == "Costly moves:", lines
    # the columns line up: every row's counts end where the header's do
    assert {len(line) for line in lines[head:head + 3]} == {len(lines[head])}, lines


def test_a_costly_move_names_who_made_it(rt: Runtime, analyze: Callable[..., Ran]) -> None:
    """The summary is per player, but its costly moves said "seat 2" alone: which of the seat's
    players (Babak, or the bot that took his seat over) made the move is named as in the
    summary's rows ("Babak, seat 2", "Kian (bot), seat 2")."""
    match_id, rounds = finished_match(rt, 3)
    assert rounds >= 2
    for r in range(rounds):
        by = {"name": "Babak", "bot": None} if r == 0 else {"name": "Kian", "bot": "medium"}
        rt.store.put_analysis(match_id, r, stored(r, "round" if r < 2 else None, by=by))
    done = analyze(match_id)
    assert done.returncode == 0, done.stderr
    costly = done.stdout.split("Costly moves:\n", 1)[1].splitlines()
    assert costly[0].startswith("  round 1, record 10, Babak, seat 2: Q♥ cost the round"), costly
    assert costly[1].startswith("  round 2, record 11, Kian (bot), seat 2: Q♥ cost the round"), \
        costly


def test_an_analysis_stored_without_its_movers_keeps_a_row_per_seat(
        rt: Runtime, analyze: Callable[..., Ran]) -> None:
    """A round stored before moves named their mover: one of them unnamed is enough for the
    summary to stay per seat (a partial split would misname the counts)."""
    match_id, rounds = finished_match(rt, 3)
    for r in range(rounds):
        by = {"name": "Babak", "bot": None} if r else None
        rt.store.put_analysis(match_id, r, stored(r, None, by=by))
    done = analyze(match_id)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    table = lines[lines.index(f"seat  {HEAD}") + 1:]
    assert [line.split() for line in table[:4]] == [
        ["0", "0", "0", "0", "0"], ["1", "0", "0", "0", "0"],
        ["2", str(rounds), "0", "0", "0"], ["3", "0", "0", "0", "0"]], lines


def test_local_computes_the_missing_rounds_and_stores_them(rt: Runtime,
                                                           analyze: Callable[..., Ran]) -> None:
    match_id, rounds = finished_match(rt, 4)
    for r in range(1, rounds):
        rt.store.put_analysis(match_id, r, stored(r, None))
    done = analyze(match_id, "--local")
    assert done.returncode == 0, done.stderr
    assert "analysed" in done.stdout  # the progress, a plain line without a terminal
    first = json.loads(rt.store.analysis_results(match_id)[0])
    assert first["round"] == 0 and first["moves"][0]["kind"] == "trump"


def test_local_analyses_a_talon_round(rt: Runtime, analyze: Callable[..., Ran]) -> None:
    match_id, rounds = finished_match(rt, 6, {"players": 2, "two_player": "talon"})
    for r in range(1, rounds):
        rt.store.put_analysis(match_id, r, stored(r, None, seat=1))
    done = analyze(match_id, "--local")
    assert done.returncode == 0, done.stderr
    first = json.loads(rt.store.analysis_results(match_id)[0])
    assert first["moves"][0]["kind"] == "trump" and first["moves"][0]["win_chance"] is None
    assert {m["seat"] for m in first["moves"]} == {0, 1}
    assert len(first["seats"]) == 2


def test_refusals_are_one_line(rt: Runtime, analyze: Callable[..., Ran]) -> None:
    match_id = rt.service.create(seats=["human"] * 4)["match_id"]
    for args, words in (((match_id,), "is not over"), (("nosuchmatch",), "no match")):
        result = analyze(*args)
        assert result.returncode != 0
        assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr
        assert "Traceback" not in result.stderr


def test_a_damaged_match_is_refused_in_one_line_and_its_jobs_analyse_nothing(
        rt: Runtime, analyze: Callable[..., Ran]) -> None:
    """A log with a record taken out (edited by hand, a restore that lost an entry) would be
    read as moves never made: the command names the damage, the job stores nothing."""
    from services.store import keys
    from worker.analysis.jobs import analyse_and_store, config

    match_id, _ = finished_match(rt, seed=3)
    client = real_redis_client(DB)
    entries = client.xrange(keys.log(match_id))
    client.xdel(keys.log(match_id), entries[7][0])
    for args in ((match_id,), (match_id, "--local")):
        result = analyze(*args)
        assert result.returncode != 0
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "damaged" in result.stderr and "hokm verify" in result.stderr
    assert analyse_and_store(rt.store, match_id, 0, config()) == "damaged"
    assert rt.store.analysis_results(match_id) == {}


PROGRESS = re.compile(r"analysed \d+ of \d+ rounds")


def said_beside_the_progress(done: Ran) -> list[str]:
    """What ``hokm analyze`` said on stderr beside its progress, which goes there too: stdout
    is the report alone (``hokm analyze M > report.txt``), no progress line in it."""
    assert not any(PROGRESS.fullmatch(line) for line in done.stdout.splitlines()), done.stdout
    return [line for line in done.stderr.splitlines() if not PROGRESS.fullmatch(line)]


@pytest.mark.parametrize("listening", [False, True])
def test_no_worker_listening_is_said_at_once_and_the_command_waits_on(
        rt: Runtime, analyze: Callable[..., Ran], listening: bool) -> None:
    """The hint came only once ``--wait`` (900 s) ran out; now it comes first, and the command
    still takes the results a worker (here: this test, once the rounds are queued) stores."""
    import threading
    import time

    from rq import Worker

    from worker.analysis.jobs import queue

    match_id, rounds = finished_match(rt, 3)
    analysing = build_runtime(make_settings(redis_url=redis_db_url(DB)))  # the command's queue
    if listening:  # a worker registered on the queue (as `hokm worker` is): nothing said
        Worker([queue(analysing)], connection=analysing.scheduler.client).register_birth()
    assert Worker.count(connection=analysing.scheduler.client,
                        queue=queue(analysing)) == listening

    def a_worker_at_last() -> None:
        deadline = time.monotonic() + 60
        while len(queue(analysing)) < rounds and time.monotonic() < deadline:
            time.sleep(0.05)
        for r in range(rounds):
            rt.store.put_analysis(match_id, r, stored(r, None))

    worker = threading.Thread(target=a_worker_at_last, daemon=True)
    worker.start()
    done = analyze(match_id, "--wait", "120")
    worker.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"Match {match_id}: {rounds} rounds analysed" in done.stdout
    said = [] if listening else [
        "hokm analyze: no worker listens on the queue hokm-bots-analysis: is `hokm worker` "
        "running? (or use --local); waiting up to 120 s for one"]
    assert said_beside_the_progress(done) == said


def test_nothing_is_said_when_every_round_is_stored(rt: Runtime,
                                                    analyze: Callable[..., Ran]) -> None:
    match_id, rounds = finished_match(rt, 3)
    for r in range(rounds):
        rt.store.put_analysis(match_id, r, stored(r, None))
    done = analyze(match_id)
    assert done.returncode == 0 and said_beside_the_progress(done) == []
