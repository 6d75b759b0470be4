"""Append to ``records.hex`` the records of ``tests/services/test_golden.py``'s ``EXPECTED``
that it does not hold yet, encoded with today's codec.

    .venv/bin/python -m tests.services.golden.make_records

Lines already in the file are never rewritten: they are the bytes old streams hold, and the
test exists to catch a codec that no longer reads them.  To pin a new record form, add its
Record at the end of ``EXPECTED`` with ``prev=b""``, run this, and paste the ``prev`` it prints
(the digest of the stored record before it) into that Record.  The test never runs this.
"""

from __future__ import annotations

import hashlib
import sys

from services.store.codec import encode
from services.store.port import Record
from tests.services.test_golden import EXPECTED, GOLDEN, STORED

HEADER = """\
# Golden records for tests/services/test_golden.py: <version> <hex of the stored bytes>.
# Written by tests/services/golden/make_records.py with the codec of the day each line was
# added; append only: an existing line never changes (old streams hold these bytes).
"""


def main() -> int:
    have = len(STORED)
    if [v for v, _ in STORED] != [r.version for r in EXPECTED[:have]]:
        print("records.hex and EXPECTED disagree about the versions already stored",
              file=sys.stderr)
        return 1
    before = STORED[-1][1] if STORED else None
    lines = []
    for record in EXPECTED[have:]:
        prev = b"" if before is None else hashlib.sha256(before).digest()[:8]
        payload = encode(Record(record.version, record.events, record.actor, record.command_id,
                                record.time_ms, prev))
        lines.append(f"{record.version} {payload.hex()}\n")
        print(f"v{record.version}: prev = bytes.fromhex({prev.hex()!r})")
        before = payload
    text = GOLDEN.read_text() if GOLDEN.exists() else HEADER
    GOLDEN.write_text(text + "".join(lines))
    print(f"{len(lines)} records appended to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
