"""What the benchmark scripts share on their command line: option types that refuse a bad value
with argparse's one-line message (``error: argument --deals: must be 1 or more (got 0)``), and
``run``, which turns an unreachable Redis into one line and exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def _number(text: str, kind: type[int] | type[float]) -> float:
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    value = int(_number(text, int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more (got {value})")
    return value


def nonnegative_int(text: str) -> int:
    value = int(_number(text, int))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more (got {value})")
    return value


def positive_float(text: str) -> float:
    value = _number(text, float)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0 (got {text})")
    return value


def nonnegative_float(text: str) -> float:
    value = _number(text, float)
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of 0 or more (got {text})")
    return value


def run(main: Callable[[], int | None]) -> int:
    """``main()``'s exit status; a Redis that cannot be reached is one line on stderr and 2."""
    import redis

    name = sys.argv[0].rsplit("/", 1)[-1]
    try:
        return main() or 0
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        print(f"{name}: cannot reach Redis: {exc} (is it running? bench/README.md says how to "
              "point the benchmarks at another Redis)", file=sys.stderr)
        return 2
