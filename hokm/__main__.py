"""``python -m hokm``: the ``hokm`` command."""

import sys

from .cli import main

sys.exit(main())
