"""Build hook: compile the bots' hot loops with mypyc (a C extension per module).

The search policy spends nearly all its time in pure-Python integer code (playouts, the
behaviour model, the sampler, the solvers); mypyc compiles that same, type-checked source to C
and measured about 3x faster here (``bench/bots.py`` and ``hokm arena`` print which is in use).
Nothing changes in behaviour: the modules are the same files, checked by the same tests.

Set ``HOKM_PURE=1`` to install without compiling (then everything runs as plain Python, as it
also does on a machine with no C compiler).
``worker.policies`` refuses compiled modules older than their source (see ``_compiled.py``).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent
POLICIES = ROOT / "worker" / "policies"
_listed = re.search(r"^HOT = (\(.*?\))", (POLICIES / "_compiled.py").read_text(), re.M | re.S)
assert _listed is not None
HOT: list[str] = list(ast.literal_eval(_listed.group(1)))
"""The compiled modules of ``worker/policies`` (the loops of the search), as ``_compiled.py``
lists them."""


def _record(paths: list[Path]) -> None:
    """Write the source digests the compiled modules were built from."""
    lines = ['"""Written by setup.py: the SHA-256 of each compiled module\'s source."""', "",
             "BUILT: dict[str, str] = {"]
    for p in paths:
        lines.append(f'    "{p.stem}": "{hashlib.sha256(p.read_bytes()).hexdigest()}",')
    lines.append("}")
    (POLICIES / "_built.py").write_text("\n".join(lines) + "\n")


def _compiler() -> bool:
    """Is there a C compiler?  Without one the install goes on as plain Python."""
    return any(shutil.which(c) for c in (os.environ.get("CC", "cc"), "gcc", "clang"))


ext_modules = []
# (services/settings.py's SWITCH_ON and SWITCH_OFF, as worker/policies/_compiled.py's ``pure``
# reads them: this build script does not import the package it builds)
if os.environ.get("HOKM_PURE", "").strip().lower() in ("", "0", "false", "no", "off") \
        and _compiler():
    from mypyc.build import mypycify

    sources = [POLICIES / f"{name}.py" for name in HOT]
    _record(sources)
    ext_modules = mypycify([str(p.relative_to(ROOT)) for p in sources], opt_level="3")
else:  # plain Python: no build of an earlier install may shadow the source
    (POLICIES / "_built.py").unlink(missing_ok=True)
    for name in HOT:
        for old in POLICIES.glob(f"{name}.cpython-*"):
            old.unlink()

setup(ext_modules=ext_modules)
