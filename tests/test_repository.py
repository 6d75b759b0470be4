"""The repository's own files: no merge left half done.

A merge whose conflict was committed with its markers still in a file (it happened to
``services/gateway/static/README.md``) breaks nothing a test runs when the file is
documentation, so it is looked for here in every file git tracks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(rb"^(<<<<<<<|>>>>>>>) ", re.MULTILINE)


def test_no_file_holds_merge_conflict_markers() -> None:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                             capture_output=True).stdout.split(b"\0")
    found = []
    for name in filter(None, tracked):
        path = ROOT / name.decode()
        if path.is_file() and MARKER.search(path.read_bytes()):
            found.append(name.decode())
    assert tracked and not found, found
