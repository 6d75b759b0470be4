"""``python -m hokm``: the ``hokm`` command."""

import os
import signal
import sys

# Ctrl+C while the command's modules are imported: exit at once, quietly (as ``main`` does while
# it builds the parser); not where SIGINT is ignored or handled otherwise
quiet = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if quiet:
    signal.signal(signal.SIGINT, lambda signum, frame: os._exit(130))

from .cli import main  # noqa: E402

if quiet:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # ``main`` takes over
sys.exit(main())
