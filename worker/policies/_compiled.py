"""Use the mypyc-compiled hot modules only while they match their source.

``setup.py`` compiles the search's loops (``HOT``) and records each source's SHA-256 in
``_built.py``.  A compiled module shadows its ``.py`` on import, so after an edit without a
rebuild the old code would run: ``ensure_current`` (called first thing by ``worker.policies``)
then loads every hot module from its source instead, with a warning to run ``make install``.
``HOKM_PURE=1`` in the environment does the same on purpose (the tests compare both).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path

HOT = ("fast", "heuristic", "playout", "solver", "nsolver", "response", "worlds", "inference",
       "sampler")
"""The compiled modules, in import order (each imports only earlier ones)."""

_FOLDER = Path(__file__).parent


def pure() -> bool:
    """Whether ``HOKM_PURE`` asks for the plain-Python bots: 1, true, yes or on (as every
    HOKM_ switch; only ``1`` counted, and ``yes`` kept the compiled bots unsaid: an audit's
    finding).  Another value than those and 0, false, no or off is read as on, with a
    warning (a setting refused here would stop every import of the bots)."""
    from services.settings import SWITCH_OFF, SWITCH_ON

    text = os.environ.get("HOKM_PURE", "").strip().lower()
    if text in SWITCH_OFF:
        return False
    if text not in SWITCH_ON:
        warnings.warn(f"HOKM_PURE must be 1 or 0 (on or off), got {text!r}: read as on",
                      RuntimeWarning, stacklevel=2)
    return True


def compiled() -> list[str]:
    """The hot modules with a compiled build on disk."""
    return [name for name in HOT if any(_FOLDER.glob(f"{name}.cpython-*"))]


def stale() -> list[str]:
    """Compiled hot modules whose source no longer matches the build."""
    try:
        from ._built import BUILT
    except ImportError:
        BUILT = {}
    return [name for name in compiled()
            if BUILT.get(name) != hashlib.sha256((_FOLDER / f"{name}.py").read_bytes())
            .hexdigest()]


def ensure_current() -> str:
    """Load the hot modules from source if any compiled one is stale, or if ``HOKM_PURE=1``;
    say which are in use: ``"compiled"`` (mypyc) or ``"python"``."""
    if not compiled():
        return "python"
    if not pure():
        old = stale()
        if not old:
            return "compiled"
        warnings.warn(f"compiled {', '.join(old)} older than the source: running the bots as "
                      "plain Python (run `make install` to rebuild)", RuntimeWarning,
                      stacklevel=2)
    package = __name__.rsplit(".", 1)[0]
    for name in HOT:
        full = f"{package}.{name}"
        spec = importlib.util.spec_from_file_location(full, _FOLDER / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
    return "python"


MODE = ensure_current()
"""How the hot modules run in this process: ``"compiled"`` or ``"python"``."""
