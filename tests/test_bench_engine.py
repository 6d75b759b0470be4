"""``make bench`` (``bench/engine.py``) in a clone without the workspace's ``shared/`` folder.

The finding (a new user following the README's ``make bench``): the reference loop it compares
with, ``../shared/bench/bare_round.py``, is outside the repository, and without it the script
ended in a ``FileNotFoundError`` traceback.  It now says in one line what is missing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_a_missing_reference_loop_is_one_line_naming_it(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # run as a script, bench/ is on the path (engine.py imports its neighbour benchcli)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("bench_engine", ROOT / "bench" / "engine.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.BARE = tmp_path / "shared" / "bench" / "bare_round.py"
    with pytest.raises(SystemExit) as ended:
        bench.load_bare_round()
    assert str(ended.value).startswith("bench/engine.py: the reference loop ")
    assert str(bench.BARE) in str(ended.value)
