"""The ``hokm`` command line: every sub-command (listed from the parser, so a new one is
covered without being named here) fails with one short line on stderr and a non-zero exit,
never a traceback: bad options, values of the wrong kind, an unreachable Redis, a missing
match, a closed pipe.  Also what it prints: defaults in ``--help``, the arena's interval on a
tiny run, one card notation in the terminal, the worker's start and progress lines, and
``hokm serve`` on a busy port."""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
import fakeredis
import pytest

from services.audit import card_text, describe, export_lines
from hokm.cli import build_parser, main, subcommands
from services.matches import MatchService
from services.store.journal import DataFolder
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client, redis_db_url, wait_for
from tests.hokm_command import HOKM, ROOT, parallel, run
from worker.policies import LEVELS, POLICIES
from tests.services.test_audit import finished_match
from worker import arena
from worker import main as worker_main

UNREACHABLE = "redis://:secret@127.0.0.1:1/0"
NO_REDIS = {"demo", "arena", "play"}
"""Sub-commands that never use Redis (with any other, an unreachable one is an error)."""
TWO_LETTER = re.compile(r"(?<![\w♠♥♦♣])(?:[2-9TJQKA][SHDC])(?!\w)")


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int | None = None
                          ) -> str:
    where = f"hokm {' '.join(result.args[1:])}: rc {result.returncode}, stderr {result.stderr!r}"
    assert result.returncode != 0, where
    if code is not None:
        assert result.returncode == code, where
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, where
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300 and lines[0].startswith("hokm"), where
    return lines[0]


def positionals(parser: argparse.ArgumentParser) -> list[str]:
    """A dummy value for every required positional argument (``hokm play``'s URL one its
    type takes: a bare word is refused as no link before any option is read)."""
    return ["http://x.invalid" if a.dest == "url" else "x" for a in parser._actions
            if not a.option_strings and a.nargs not in ("?", "*") and a.dest != "help"]


def typed_options(parser: argparse.ArgumentParser) -> list[str]:
    """The options whose values are checked (a ``type`` other than plain text)."""
    return [a.option_strings[-1] for a in parser._actions
            if a.option_strings and a.type not in (None, str) and a.nargs != 0]


COMMANDS = subcommands(build_parser())


def test_the_parser_lists_every_sub_command() -> None:
    assert {"demo", "arena", "worker", "serve", "replay", "export", "verify"} <= set(COMMANDS)


def test_a_command_imports_its_own_modules_alone() -> None:
    """``hokm play`` (and every command but ``serve``) starts without importing the server's
    stack (about a second of CPU at each start, QA: ``hokm play`` with a bad link took that long
    to say so); a word that is no command, and ``hokm`` alone, register every command, so the
    error and the help list them all."""
    code = ("import sys\nfrom hokm.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit as end:\n    print(end.code, sorted(m for m in ("
            "'services.gateway.serve', 'hokm.compose', 'worker.main', 'hokmplay.cli') "
            "if m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    done = subprocess.run([sys.executable, "-c", code, "play", "ftp://nowhere/"], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "2 ['hokmplay.cli']", done
    assert "not an http(s) link" in done.stderr, done
    every = run("nosuch")
    assert_one_line_error(every, 2)
    for name in COMMANDS:
        assert f"'{name}'" in every.stderr, every.stderr


def test_bad_options_and_values_of_every_sub_command_are_one_line() -> None:
    jobs: list[tuple[str, ...]] = [()]  # no sub-command at all
    for name, parser in COMMANDS.items():
        jobs.append((name, *positionals(parser), "--no-such-option"))
        for option in typed_options(parser):
            jobs.append((name, *positionals(parser), option, "-5x"))
    assert any("--deals" in job for job in jobs)  # the typed options were found
    for result in parallel(jobs):
        line = assert_one_line_error(result, 2)
        assert "--help" in line


def integer_options(parser: argparse.ArgumentParser) -> list[str]:
    """The options whose values are whole numbers (their type turns "3" into 3)."""
    found = []
    for action in parser._actions:
        if not action.option_strings or action.type in (None, str) or action.nargs == 0:
            continue
        try:
            value = action.type("3")  # type: ignore[misc,operator]
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            continue
        if type(value) is int:
            found.append(action.option_strings[-1])
    return found


def test_integer_options_take_ascii_digits_only() -> None:
    """``int`` takes the digits of every script (``٣`` is 3) and ``1_0``; the API refuses them,
    and so does every integer option of the command lines (a QA finding: ``hokm demo --seed
    ٣`` ran), with the usual one-line usage error; so is a number of 5,000 digits (it met
    Python's limit on ``int``, and the line echoed every digit: an audit's finding)."""
    jobs: list[tuple[str, ...]] = []
    for name, parser in COMMANDS.items():
        for option in integer_options(parser):
            jobs += [(name, *positionals(parser), option, bad)
                     for bad in ("\u0663", "1_0", "9" * 5000)]
    assert {("demo", "--seed"), ("play", "--players"), ("play", "--seat"),
            ("arena", "--players")} <= {(job[0], job[-2]) for job in jobs}
    for result in parallel(jobs):
        line = assert_one_line_error(result, 2)
        assert "whole number" in line and "--help" in line and len(line) < 300, line[:400]


@pytest.mark.parametrize("args", [
    ("arena", "heuristic", "random", "--deals", "0"),
    ("arena", "heuristic", "random", "--deals", "-3"),
    ("arena", "heuristic", "random", "--jobs", "0"),
    ("arena", "heuristic", "random", "--jobs", "257"),  # (an audit: 100000 forked ~1000)
    ("arena", "heuristic", "random", "--deals", "1000001"),  # (a list of them all: 1 GB in 12 s)
    ("arena", "heuristic", "random", "--seed", "-1"),
    ("arena", "heuristic", "random", "--rules", "notjson"),
    ("arena", "heuristic", "random", "--rules", "[1]"),
    ("arena", "heuristic", "random", "--rules", '{"bogus": 1}'),
    ("arena", "heuristic", "nobody"),
    ("demo", "--seed", "-1"),
    ("serve", "--port", "70000"),
    ("worker", "--processes", "0"),
    ("worker", "--processes", "100000"),
    ("replay", "m", "--seat", "9"),
    ("replay", "m", "--step", "-1"),
    ("analyze", "m", "--wait", "86401"),  # (10**20 s was taken: an audit's finding)
    # a plot that cannot be written: refused before any deal (it said "plot skipped", 0)
    ("arena", "random", "random", "--deals", "1", "--plot", "/nonexistent/x.png"),
    ("arena", "random", "random", "--deals", "1", "--plot", "/tmp"),
])
def test_values_out_of_range_are_refused_by_the_parser(args: tuple[str, ...]) -> None:
    line = assert_one_line_error(run(*args), 2)
    assert "Expecting value" not in line  # the JSON parser's own words are not the message


def test_every_sub_command_with_an_unreachable_redis_ends_in_one_line() -> None:
    jobs = []
    for name, parser in COMMANDS.items():
        port = ("--port", "0") if "--port" in typed_options(parser) else ()
        jobs.append((name, *positionals(parser), *port))
    for job, result in zip(jobs, parallel(jobs, env={"HOKM_REDIS_URL": UNREACHABLE}),
                           strict=True):
        if job[0] in NO_REDIS and result.returncode == 0:
            continue
        line = assert_one_line_error(result)
        if job[0] not in NO_REDIS:
            assert "cannot reach Redis at redis://:***@127.0.0.1:1/0" in line, line
        assert "secret" not in result.stderr + result.stdout  # the password is not printed
        assert "running at" not in result.stdout


def test_arena_plot_is_written_or_refused_before_any_deal(tmp_path: Path) -> None:
    """``--plot PATH``: the plot written where matplotlib is installed; where it is not, the
    command refused at once (status 2, nothing played: it ended 0 with "plot skipped")."""
    path = tmp_path / "rate.png"
    result = run("arena", "random", "random", "--deals", "1", "--plot", str(path), "--quiet")
    if importlib.util.find_spec("matplotlib") is None:
        line = assert_one_line_error(result, 2)
        assert "--plot needs matplotlib" in line and "RESULT" not in result.stdout
        assert not path.exists()
    else:
        assert result.returncode == 0 and path.stat().st_size > 0, result.stderr


@pytest.mark.redis
def test_a_database_the_redis_has_not_is_said_as_bad_input_not_an_outage() -> None:
    """A URL's database past the Redis's (``/99999`` of a server of 16): status 2 and the
    database named, where it read "cannot reach Redis" (status 1), as an outage would (an
    audit's finding); by every command that uses Redis."""
    url = redis_db_url(99999)
    jobs = [(name, *positionals(parser)) + (("--port", "0") if "--port" in
                                           typed_options(parser) else ())
            for name, parser in COMMANDS.items() if name not in NO_REDIS]
    for job, result in zip(jobs, parallel(jobs, env={"HOKM_REDIS_URL": url}), strict=True):
        line = assert_one_line_error(result, 2)
        assert "has no database 99999 (DB index is out of range)" in line, (job, line)


@pytest.fixture
def data(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A data folder holding one finished match (written through the journal)."""
    server = fakeredis.FakeServer()
    folder = DataFolder.open(tmp_path / "data", server)
    service = MatchService(RedisStore(fakeredis.FakeRedis(server=server)))
    match_id = finished_match(service, seed=5)
    folder.close()
    yield tmp_path / "data", match_id


def test_replay_without_a_match_lists_every_match_there(tmp_path: Path) -> None:
    """The README: ``hokm replay`` without ``MATCH`` shows the matches there.  It refused
    with an error naming eight of them and "N more", ordered by id, so a player's match could
    not be found among more (QA)."""
    server = fakeredis.FakeServer()
    folder = DataFolder.open(tmp_path / "data", server)
    service = MatchService(RedisStore(fakeredis.FakeRedis(server=server)))
    ids = {service.create(name="P")["match_id"] for _ in range(11)}
    folder.close()
    result = run("replay", "--data", str(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith(f"11 matches in the data folder {tmp_path / 'data'}"), lines
    assert {line.split()[0] for line in lines[1:]} == ids
    assert all(line.endswith(" 2 records") for line in lines[1:]), lines  # created, seat taken
    empty = tmp_path / "empty"
    DataFolder.open(empty, fakeredis.FakeServer()).close()
    result = run("replay", "--data", str(empty))
    assert result.returncode == 0 and result.stdout.startswith("0 matches in"), result


def test_missing_matches_and_files_are_one_line(data: tuple[Path, str], tmp_path: Path) -> None:
    folder, match_id = data
    empty = tmp_path / "empty"
    empty.mkdir()
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("this is not an export\n")
    jobs: list[tuple[str, ...]] = []
    for name, parser in COMMANDS.items():
        if any(a.dest == "match" for a in parser._actions):
            jobs += [(name, "nosuchmatch", "--data", str(folder)),
                     (name, "nosuchmatch", "--data", str(empty)),
                     *([(name, "--data", str(folder))] if name != "replay" else [])]
            # (no match id given: replay lists the matches, test_replay_without_a_match...)
    assert len(jobs) >= 9
    jobs += [("verify", "--file", str(tmp_path / "missing.jsonl")),
             ("verify", "--file", str(garbage)),
             ("replay", "--file", str(tmp_path / "missing.jsonl")),
             ("export", match_id, "--data", str(folder), "-o", str(tmp_path / "no" / "x")),
             ("serve", "--port", "0", "--data", "/dev/null/x")]
    said = {tuple(r.args[1:]): assert_one_line_error(r) for r in parallel(jobs)}
    assert (f"no match 'nosuchmatch' in the data folder {folder}"
            in said[(HOKM, "verify", "nosuchmatch", "--data", str(folder))[1:]])
    assert (f"no matches in {empty}: it holds no journal"
            in said[("verify", "nosuchmatch", "--data", str(empty))])
    assert match_id in said[("export", "--data", str(folder))]  # the matches there are named
    assert "No such file or directory" in said[("verify", "--file",
                                                str(tmp_path / "missing.jsonl"))]
    assert not (tmp_path / "no").exists()
    # with HOKM_REDIS_URL set, --data is not for serve
    assert_one_line_error(run("serve", "--port", "0", "--data", str(folder),
                              env={"HOKM_REDIS_URL": UNREACHABLE}), 2)


@pytest.mark.redis
def test_a_match_missing_from_redis_is_one_line() -> None:
    real_redis_client(11).flushdb()
    for name in ("replay", "export", "verify"):
        line = assert_one_line_error(run(name, "nosuchmatch",
                                         env={"HOKM_REDIS_URL": redis_db_url(11)}), 2)
        assert "no match 'nosuchmatch' in Redis at" in line


def test_the_audit_commands_read_the_data_folder(data: tuple[Path, str]) -> None:
    folder, match_id = data
    verified = run("verify", match_id, "--data", str(folder))
    assert verified.returncode == 0 and "every deal matches the revealed secret" in verified.stdout
    exported = run("export", match_id, "--data", str(folder))
    assert exported.returncode == 0 and len(exported.stdout.splitlines()) > 100
    replayed = run("replay", match_id, "--data", str(folder), env={"NO_COLOR": "1"})
    assert replayed.returncode == 0 and "MATCH OVER" in replayed.stdout
    # an id typed in capitals is the same match, as in a link (an audit's finding: "no match")
    loud = match_id.upper()
    assert loud != match_id
    assert run("verify", loud, "--data", str(folder)).stdout == verified.stdout
    assert run("export", loud, "--data", str(folder)).stdout == exported.stdout
    again = run("replay", loud, "--data", str(folder), env={"NO_COLOR": "1"})
    assert again.returncode == 0 and again.stdout == replayed.stdout


def test_every_audit_command_reads_a_match_id_in_lowercase() -> None:
    from hokm.cli import build_parser

    for command in ("replay", "export", "verify", "analyze"):
        args = build_parser().parse_args([command, "2C5F66FAA05A9C2D"])
        assert args.match == "2c5f66faa05a9c2d", command
    link = "http://Host:8000/m/ABC123"  # a link: its id read (and lowercased) by the command
    assert build_parser().parse_args(["replay", link]).match == link


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``hokm export MATCH | head -1``: the reader goes away early.  The export must be more
    than a pipe holds, so that the writer meets the closed end: a match's length depends on its
    deals, which the server shuffles, and one of seven points can be as short as three rounds,
    so matches are played into the folder until one is long enough (most are: 110 to 140 kB)."""
    server = fakeredis.FakeServer()
    store = DataFolder.open(tmp_path / "data", server)
    service = MatchService(RedisStore(fakeredis.FakeRedis(server=server)))
    size, match_id = 0, ""
    for seed in range(20):
        match_id = finished_match(service, seed=seed)
        size = sum(len(line) + 1 for line in export_lines(service.store.read(match_id)))
        if size > 65536 + 4096:
            break
    store.close()
    assert size > 65536 + 4096  # more than a pipe holds: the writer must meet the closed end
    folder = tmp_path / "data"
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    proc = subprocess.Popen([HOKM, "export", match_id, "--data", str(folder)], env=base,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    assert proc.stdout is not None and proc.stderr is not None
    assert os.read(proc.stdout.fileno(), 100).startswith(b"{")
    proc.stdout.close()  # like head after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) != 0
    assert "Traceback" not in err and "Exception ignored" not in err and err.strip() == ""


def test_serve_on_a_busy_port_says_so_in_one_line_and_does_not_claim_to_run(
        tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = run("serve", "--port", str(port), "--data", str(tmp_path))
    line = assert_one_line_error(result, 1)
    assert f"cannot listen on 127.0.0.1:{port}" in line
    assert result.stdout == ""


def test_serve_on_an_address_not_of_this_machine_is_the_command_lines(tmp_path: Path) -> None:
    """A ``--host`` that resolves to no address here (a name that does not resolve, an address
    of another machine) exited 1, as a busy port does; changing the command fixes it: 2."""
    # (TEST-NET-1: nobody's address; a name is not tried: without a name server it fails as
    # one that did not answer, 1)
    result = run("serve", "--host", "192.0.2.1", "--port", "0", "--data", str(tmp_path))
    line = assert_one_line_error(result, 2)
    assert "cannot listen on 192.0.2.1:0 (Cannot assign requested address)" in line, line
    assert result.stdout == ""


def test_every_sub_commands_help_says_what_it_does_in_plain_words() -> None:
    """Each ``hokm X --help`` has a sentence under its usage, with no reStructuredText markup
    (``hokm arena``'s showed ````hokm arena A B````; ``demo``'s and ``analyze``'s had none)."""
    for name, parser in COMMANDS.items():
        assert parser.description, name
        assert "``" not in parser.format_help(), name


def test_help_shows_the_defaults_of_every_sub_command() -> None:
    for name, parser in COMMANDS.items():
        text = " ".join(parser.format_help().split())
        for action in parser._actions:
            shown = action.default not in (None, False, "", argparse.SUPPRESS)
            if action.option_strings and shown and action.help != argparse.SUPPRESS:
                assert f"(default: {action.default})" in text, (name, action.dest)
    arena_help = " ".join(COMMANDS["arena"].format_help().split())
    assert "(default: 100)" in arena_help
    for name in [*LEVELS, *POLICIES]:  # every level and policy it accepts, expert included
        assert name in arena_help, name


@pytest.mark.parametrize("name", ["serve", "worker"])
def test_serve_and_worker_help_say_how_to_reach_an_external_redis(name: str) -> None:
    """QA: the cluster's URL form and the queue's own Redis were only in the README's table."""
    text = " ".join(COMMANDS[name].format_help().split())
    assert "HOKM_REDIS_URL=redis://host:6379/0" in text, text
    assert "redis+cluster://host:7000,host:7001" in text, text
    assert "HOKM_QUEUE_URL=redis://" in text and "required with a cluster" in text, text
    assert "AOF" in text, text  # both Redis keep their data


def test_a_run_too_small_for_an_interval_says_so() -> None:
    out = io.StringIO()
    figures = arena.arena("heuristic", "random", 2, seed=4, out=out, progress=False)
    text = out.getvalue()
    assert "95% CI not available (too few deals: 2 of the 10 it needs)" in text
    assert "CI [" not in text and "ci_low=nan ci_high=nan" in text
    assert figures["ci_low"] != figures["ci_low"]  # nan
    big = io.StringIO()
    arena.arena("heuristic", "heuristic", 10, seed=4, out=big, progress=False)
    assert "95% CI [0.500, 0.500]" in big.getvalue()
    with pytest.raises(ValueError):
        arena.arena("heuristic", "random", 0, out=io.StringIO(), progress=False)


def test_the_terminal_writes_cards_one_way(capsys: pytest.CaptureFixture[str]) -> None:
    assert card_text("TD") == "10♦" and card_text("QS") == "Q♠"
    assert main(["demo", "--seed", "3"]) == 0
    demo = capsys.readouterr().out
    assert "10" in demo and "♦" in demo and not TWO_LETTER.search(demo), TWO_LETTER.search(demo)
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    replay = "\n".join(describe(service.store.read(finished_match(service, seed=2))))
    assert "♠" in replay and not TWO_LETTER.search(replay)


def test_the_worker_counts_turns_and_reports_them_now_and_then(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert worker_main.turns_played("played") == 1
    assert worker_main.turns_played("played (+3 kept)") == 4
    assert worker_main.turns_played("stale (+2 kept)") == 2
    assert worker_main.turns_played("stale") == worker_main.turns_played(None) == 0

    class Counter:
        value = 0

    counter, stop = Counter(), threading.Event()
    monkeypatch.setattr(worker_main, "PROGRESS_EVERY_S", 0.01)
    reporter = threading.Thread(target=worker_main._report, args=(counter, stop))
    reporter.start()
    seen: list[str] = []
    try:
        counter.value = 7
        wait_for(lambda: seen.extend(capsys.readouterr().out.splitlines()) or seen,
                 what="a progress line")
    finally:
        stop.set()
        reporter.join()
    seen.extend(capsys.readouterr().out.splitlines())
    assert seen == ["hokm worker: 7 bot turns played in the last 0 s (7 since start)"]


@pytest.mark.redis
def test_the_worker_names_the_queues_redis_when_it_has_its_own() -> None:
    result = run("worker", "--burst", env={"HOKM_REDIS_URL": redis_db_url(11),
                                           "HOKM_QUEUE_URL": redis_db_url(12),
                                           "HOKM_QUEUE": "hokm-cli-queue-url"}, timeout=120)
    assert result.returncode == 0, result.stderr
    first = result.stdout.strip().splitlines()[0]
    # the queues at the queue's Redis, the matches at the store's (it named the store only)
    assert f"at {redis_db_url(12)}, for the matches at {redis_db_url(11)}" in first, first


@pytest.mark.redis
def test_the_worker_says_what_it_serves_and_how_many_turns_it_played() -> None:
    from services.bots import RQScheduler

    client = real_redis_client(11)
    client.flushdb()
    scheduler = RQScheduler(client, "hokm-cli-test", 3.0)
    service = MatchService(RedisStore(client), scheduler=scheduler)
    service.create(seats=["bot:easy"] * 4)  # the first bot turn is enqueued
    result = run("worker", "--burst",
                 env={"HOKM_REDIS_URL": redis_db_url(11), "HOKM_QUEUE": "hokm-cli-test"},
                 timeout=300)
    client.flushdb()
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("hokm worker: 1 process playing bot turns from hokm-cli-test")
    assert redis_db_url(11) in lines[0] and "until the queues are empty" in lines[0]
    played = re.fullmatch(r"hokm worker: stopped after (\d+) bot turns\.", lines[-1])
    assert played and int(played.group(1)) > 0, lines
    assert "Traceback" not in result.stderr



def test_make_play_takes_the_address_and_the_data_folder() -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT", "DATA")}
    planned = subprocess.run(["make", "-n", "play", "PORT=8001", "HOST=0.0.0.0",
                              "DATA=/my data/d"],
                             cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)
    assert planned.returncode == 0, planned.stderr
    # a folder with a space stays one argument (the finding: "unrecognized arguments: data/d")
    assert "hokm serve --host '0.0.0.0' --port '8001' --data '/my data/d' --open" in \
        planned.stdout
    # the environment's HOST, PORT and DATA (tcsh exports HOST, the machine's name) are not
    # the server's: only `make play HOST=...` is (the finding: it listened on HOST's address)
    default = subprocess.run(["make", "-n", "play"], cwd=ROOT,
                             env={**base, "HOST": "0.0.0.0", "PORT": "9", "DATA": "/x"},
                             capture_output=True, text=True, timeout=60)
    assert re.search(r"hokm serve --host '127\.0\.0\.1' --port '8000' +--open", default.stdout)


def test_the_data_folder_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from services.settings import Settings

    for name in ("HOKM_DATA", "HOKM_REDIS_URL", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Settings.from_env().data_dir == str(tmp_path / ".local" / "share" / "hokm")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")
    assert Settings.from_env().data_dir == str(tmp_path / ".local" / "share" / "hokm")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert Settings.from_env().data_dir == str(tmp_path / "xdg" / "hokm")
    monkeypatch.setenv("HOKM_DATA", str(tmp_path / "mine"))
    assert Settings.from_env().data_dir == str(tmp_path / "mine")
    monkeypatch.delenv("HOKM_DATA")
    monkeypatch.setenv("HOKM_REDIS_URL", "redis://127.0.0.1:6379/0")
    assert Settings.from_env().data_dir is None  # with a Redis, no default folder


def test_export_files_that_are_not_exports_are_named_in_one_line(data: tuple[Path, str],
                                                                tmp_path: Path) -> None:
    """verify and replay --file refuse, in one line that says what is wrong: an empty file
    (it used to verify as 'OK: 0 records'), a line without a version or payload, a payload
    that is not base64, and a match id beside --file (it used to be ignored)."""
    folder, match_id = data
    good = tmp_path / "good.jsonl"
    assert run("export", match_id, "--data", str(folder), "-o", str(good)).returncode == 0
    files = {"empty": "\n", "fields": '{"v": 1}\n', "types": '{"version": "1", "payload": ""}\n',
             "base64": '{"version": 1, "payload": "not base64!"}\n'}
    for name, text in files.items():
        (tmp_path / f"{name}.jsonl").write_text(text)
    jobs = [(command, "--file", str(tmp_path / f"{name}.jsonl"))
            for command in ("verify", "replay") for name in files]
    jobs.append(("verify", match_id, "--file", str(good)))
    said = {tuple(r.args[1:]): (r, assert_one_line_error(r)) for r in parallel(jobs)}
    for command in ("verify", "replay"):
        assert "holds no records" in said[(command, "--file", str(tmp_path / "empty.jsonl"))][1]
        for name in ("fields", "types"):
            assert "line 1 is not a record" in said[(command, "--file",
                                                    str(tmp_path / f"{name}.jsonl"))][1]
        assert "line 1: the payload is not base64" in said[
            (command, "--file", str(tmp_path / "base64.jsonl"))][1]
    both, text = said[("verify", match_id, "--file", str(good))]
    assert both.returncode == 2 and "not both" in text
    assert run("verify", "--file", str(good)).returncode == 0  # the export itself verifies


def test_replay_refuses_a_step_past_the_last_record(data: tuple[Path, str]) -> None:
    """``--step 999`` of a shorter match printed "after record 999" as if there were one."""
    folder, match_id = data
    exported = run("export", match_id, "--data", str(folder))
    assert exported.returncode == 0, exported.stderr
    records = len(exported.stdout.splitlines())  # one a line
    line = assert_one_line_error(run("replay", match_id, "--data", str(folder), "--step",
                                     str(records + 1)), 2)
    assert f"--step {records + 1}: this match has records 1 to {records}" in line
    within = run("replay", match_id, "--data", str(folder), "--step", str(records))
    assert within.returncode == 0 and f"after record {records}:" in within.stdout


def test_the_audit_commands_refuse_data_with_a_redis_url(data: tuple[Path, str]) -> None:
    """With HOKM_REDIS_URL set, --data was silently ignored (serve refuses it)."""
    folder, match_id = data
    jobs = [(name, match_id, "--data", str(folder)) for name in ("replay", "export", "verify")]
    for result in parallel(jobs, env={"HOKM_REDIS_URL": UNREACHABLE}):
        line = assert_one_line_error(result, 2)
        assert "--data is for the embedded server's data folder" in line, line
        assert "HOKM_REDIS_URL" in line and result.stdout == ""


def test_verify_file_fails_on_an_edited_readable_field(data: tuple[Path, str],
                                                      tmp_path: Path) -> None:
    """Only the payload was checked: an export whose readable card was changed verified OK."""
    folder, match_id = data
    exported = tmp_path / "e.jsonl"
    assert run("export", match_id, "--data", str(folder), "-o", str(exported)).returncode == 0
    lines = exported.read_text().splitlines()
    number = next(n for n, line in enumerate(lines, 1) if '"card":' in line)
    card = re.search(r'"card":"(\w\w)"', lines[number - 1])
    assert card is not None
    other = "2C" if card.group(1) != "2C" else "3C"
    lines[number - 1] = lines[number - 1].replace(f'"card":"{card.group(1)}"',
                                                  f'"card":"{other}"', 1)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    verified = run("verify", "--file", str(edited))
    assert verified.returncode == 1, verified.stdout
    assert verified.stdout.startswith(f"FAIL line {number} "), verified.stdout
    assert f'"{other}" but the record\'s bytes hold "{card.group(1)}"' in verified.stdout
    assert "OK" not in verified.stdout and "Traceback" not in verified.stderr
    replayed = assert_one_line_error(run("replay", "--file", str(edited)), 1)
    assert f"line {number} " in replayed
    assert run("verify", "--file", str(exported)).returncode == 0  # the export itself is OK


def test_replay_refuses_a_file_with_a_gap_and_verify_names_it_once(data: tuple[Path, str],
                                                                    tmp_path: Path) -> None:
    """``hokm replay --file`` printed a match with a record deleted as if whole (moves of a
    seat never made), and ``hokm verify --file`` gave a line for every record after it."""
    folder, match_id = data
    exported = tmp_path / "e.jsonl"
    assert run("export", match_id, "--data", str(folder), "-o", str(exported)).returncode == 0
    lines = exported.read_text().splitlines()
    gap = tmp_path / "gap.jsonl"
    gap.write_text("\n".join(lines[:2] + lines[3:]) + "\n")
    line = assert_one_line_error(run("replay", "--file", str(gap)), 1)
    assert f"{gap}'s log is damaged (record 4 does not follow record 2)" in line, line
    verified = run("verify", "--file", str(gap))
    assert verified.returncode == 1 and verified.stdout.splitlines() == [
        "FAIL record 4: record 3 is missing"], verified.stdout


def test_export_of_a_match_in_play_asks_for_unfinished(tmp_path: Path) -> None:
    """The log of a match in play holds every hand and the undealt deck: ``hokm export`` wrote
    it without a word; now only with ``--unfinished``."""
    server = fakeredis.FakeServer()
    folder = DataFolder.open(tmp_path / "data", server)
    service = MatchService(RedisStore(fakeredis.FakeRedis(server=server)))
    match_id = service.create(seats=["bot:easy"] * 4)["match_id"]
    folder.close()
    line = assert_one_line_error(run("export", match_id, "--data", str(tmp_path / "data")), 2)
    assert f"match {match_id} is not over" in line and "--unfinished" in line
    out = tmp_path / "m.jsonl"
    assert not out.exists()
    forced = run("export", match_id, "--data", str(tmp_path / "data"), "--unfinished",
                 "-o", str(out))
    assert forced.returncode == 0, forced.stderr
    assert "round_started" in out.read_text()


def test_a_damaged_journal_is_named_with_its_reason(tmp_path: Path) -> None:
    """``… is damaged at byte N: `` ended with an empty reason for some msgpack errors."""
    import msgpack

    from services.store import journal

    folder = tmp_path / "data"
    folder.mkdir()
    header = msgpack.packb({"hokm-journal": journal.VERSION})
    (folder / journal.JOURNAL).write_bytes(header + b"\xc1" + msgpack.packb([1.0, []]))
    line = assert_one_line_error(run("serve", "--port", "0", "--data", str(folder)), 1)
    assert line.endswith(f"is damaged at byte {len(header)}: bytes that are not msgpack "
                         "(FormatError)"), line


def test_serve_refuses_an_empty_address_and_names_a_file_in_the_data_folders_place(
        tmp_path: Path) -> None:
    """The findings (a new user): ``--host ""`` listened on every interface without a word, and
    a file where the data folder should be was reported as "(File exists)"."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    empty = subprocess.run([HOKM, "serve", "--host", "", "--port", "0"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert empty.returncode == 2 and "an address is needed" in empty.stderr, empty.stderr
    afile = tmp_path / "afile"
    afile.write_text("x")
    taken = subprocess.run([HOKM, "serve", "--data", str(afile), "--port", "0"], env=env,
                           capture_output=True, text=True, timeout=60)
    line = assert_one_line_error(taken, 2)  # the command line's: 2, as for ``--file``
    assert "a file is there, not a folder" in line, line
    under = subprocess.run([HOKM, "serve", "--data", str(afile / "data"), "--port", "0"],
                           env=env, capture_output=True, text=True, timeout=60)
    line = assert_one_line_error(under, 2)
    assert f"cannot use the data folder {afile / 'data'}" in line, line
    for command in (["replay"], ["export", "x"], ["verify", "x"], ["analyze", "x"]):
        read = subprocess.run([HOKM, *command, "--data", str(afile)], env=env,
                              capture_output=True, text=True, timeout=60)
        line = assert_one_line_error(read, 2)
        assert f"no matches in {afile}: it is a file, not a data folder" in line, line


def test_serve_on_every_address_prints_one_to_open_and_says_when_no_browser_opens(
        tmp_path: Path) -> None:
    """``make play HOST=0.0.0.0`` printed and opened ``http://0.0.0.0:PORT/``, an address no
    browser of another machine can use, and ``--open`` on a machine without a browser said
    nothing (a QA finding): it prints this machine's own address, says that other machines use
    this machine's, and says when no browser could be opened."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    env = {**base, "BROWSER": str(tmp_path / "no-such-browser")}
    with subprocess.Popen([HOKM, "serve", "--host", "0.0.0.0", "--port", "0", "--open",
                           "--data", str(tmp_path / "data")], env=env, cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        lines: list[str] = []
        out = proc.stdout
        assert out is not None
        reader = threading.Thread(target=lambda: lines.extend(iter(out.readline, "")),
                                  daemon=True)
        reader.start()
        try:
            wait_for(lambda: len(lines) >= 4, timeout=30, what=f"four lines: {lines}")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    running = re.match(r"Hokm is running at (http://127\.0\.0\.1:(\d+)/) ", lines[0])
    assert running, lines
    url, port = running.groups()
    assert lines[1] == (f"It listens on every address of this machine: other machines open it "
                        f"at this machine's address, port {port}.\n"), lines
    assert lines[2].startswith("Matches are kept in "), lines
    assert lines[3] == f"No browser could be opened here: open {url} in yours.\n", lines


def test_exit_statuses_follow_one_convention(data: tuple[Path, str], tmp_path: Path) -> None:
    """``services/clitools.py``'s convention, the same for every sub-command: 2 for what the
    command line (or a setting) asks that cannot be: a match id, malformed or not, that names
    no match, a missing ``--file``, no match id, a match not over (``hokm analyze`` exited 1
    there and ``hokm export`` 2); 1 for a command that could not be carried out (a Redis that
    does not answer); never a traceback."""
    folder, match_id = data
    server = fakeredis.FakeServer()
    live = DataFolder.open(tmp_path / "live", server)
    playing = MatchService(RedisStore(fakeredis.FakeRedis(server=server))).create(
        seats=["bot:easy"] * 4)["match_id"]
    live.close()
    usage: list[tuple[str, ...]] = [
        ("export", playing, "--data", str(tmp_path / "live")),
        ("analyze", playing, "--data", str(tmp_path / "live")),
        ("verify", "--file", str(tmp_path / "missing.jsonl")),
        ("replay", "--file", str(tmp_path / "missing.jsonl")),
        ("analyze", "--data", str(folder))]
    for name in ("replay", "export", "verify", "analyze"):
        usage += [(name, "nosuchmatch", "--data", str(folder)),
                  (name, "{bad id}/../\u00e9", "--data", str(folder)),
                  (name, "nosuchmatch", "--data", str(tmp_path / "nothing"))]
    runtime = [(name, match_id) for name in ("replay", "export", "verify", "analyze")]
    said = {tuple(r.args[1:]): assert_one_line_error(r, 2) for r in parallel(usage)}
    assert "is not over" in said[usage[0]] and "is not over" in said[usage[1]]
    for result in parallel(runtime, env={"HOKM_REDIS_URL": UNREACHABLE}):
        assert "cannot reach Redis" in assert_one_line_error(result, 1)


@pytest.mark.redis
def test_exit_statuses_with_a_redis(tmp_path: Path) -> None:
    """As with a data folder: a match id that names no match in the Redis is 2, and a
    HOKM_ setting that is not valid is 2 for ``hokm worker`` and ``hokm analyze`` alike."""
    real_redis_client(11).flushdb()
    url = redis_db_url(11)
    jobs = [(name, bad) for name in ("replay", "export", "verify", "analyze")
            for bad in ("nosuchmatch", "{x}", "a b")]
    for result in parallel(jobs, env={"HOKM_REDIS_URL": url}):
        assert "no match" in assert_one_line_error(result, 2)
    for name in ("worker", "analyze"):
        result = run(name, *(("m",) if name == "analyze" else ()),
                     env={"HOKM_REDIS_URL": url, "HOKM_BOT_TIMEOUT": "-1"})
        assert "HOKM_BOT_TIMEOUT" in assert_one_line_error(result, 2)


def test_a_path_that_names_no_file_is_asked_for_what_cannot_be(data: tuple[Path, str],
                                                              tmp_path: Path) -> None:
    """``services/clitools.py``'s convention: a ``--file`` (``verify``, ``replay``,
    ``export``) or ``-o`` (``export``) that is a folder, under a file or a missing folder, or a
    socket exits 2 as a missing file does, in one line naming the option and the path (a
    folder given as ``--file`` exited 1, "Is a directory", as if the disk had failed)."""
    folder, match_id = data
    afile = tmp_path / "afile"
    afile.write_text("x")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    try:
        paths = [tmp_path, afile / "x", tmp_path / "no" / "x", tmp_path / "sock"]
        jobs = [(name, "--file", str(path)) for name in ("verify", "replay", "export")
                for path in paths]
        jobs += [("export", match_id, "--data", str(folder), "-o", str(path)) for path in paths]
        for result in parallel(jobs):
            line = assert_one_line_error(result, 2)
            option, path = result.args[-2:]
            verb = "write" if option == "-o" else "read"
            assert line.startswith(f"hokm {result.args[1]}: cannot {verb} {option} {path}: "), \
                line
    finally:
        sock.close()
    assert afile.read_text() == "x" and not (tmp_path / "no").exists()  # nothing written


def test_an_unknown_option_is_said_by_its_command_and_the_version_is_told() -> None:
    """``hokm serve --bogus`` named ``hokm`` and its help, not the command given the option;
    ``hokm --version`` said a command was needed (an audit's findings)."""
    results = parallel([("serve", "--bogus"), ("arena", "random", "random", "--bogus", "x"),
                        ("--version",)])
    assert assert_one_line_error(results[0], 2) == (
        "hokm serve: unrecognized arguments: --bogus (see hokm serve --help)")
    assert assert_one_line_error(results[1], 2) == (
        "hokm arena: unrecognized arguments: --bogus x (see hokm arena --help)")
    assert results[2].returncode == 0 and re.fullmatch(r"hokm \S+\n", results[2].stdout)
