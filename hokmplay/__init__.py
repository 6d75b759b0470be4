"""``hokm play``: the terminal client (``hokmplay.cli`` registers the sub-command).

An application on :mod:`hokmclient` (it speaks to the server through the public API only);
with ``--bot`` it also runs one of the project's policies (``worker.policies``) locally.
"""

LEVELS = ("easy", "medium", "hard", "expert")
"""The levels of ``--bot`` and of a solo match's bots (``worker.policies.LEVELS``)."""
