"""The house rules of a match, validated once and recorded in the match's first event.

``Rules.from_dict`` is the only way untrusted input becomes a ``Rules``; it refuses unknown names,
wrong types and contradictory combinations with :class:`~engine.errors.BadRules`.
``Rules.to_dict`` gives the canonical plain form, which ``from_dict`` reads back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import BadRules

DEALS = ("5-4-4", "5-3-3-2")
TEAMS = ("ace_draw", "as_seated")
TARGETS: dict[Any, tuple[int, int]] = {7: (7, 1), 10: (10, 1), "2x7": (7, 2)}
"""Accepted ``target`` values -> (points per set, sets to win).  ``"2x7"`` is two sets of 7."""

_BOOLS = ("must_trump", "satat", "bavney", "double_sar")


@dataclass(frozen=True, slots=True)
class Rules:
    """Validated house rules.  The defaults are the standard four-player game of rules.md."""

    players: int = 4
    target: int = 7
    sets: int = 1
    deal: str = "5-4-4"
    teams: str = "ace_draw"
    must_trump: bool = False
    satat: bool = False
    bavney: bool = False
    double_sar: bool = False

    @property
    def n_teams(self) -> int:
        return 2 if self.players == 4 else self.players

    def team_of(self, seat: int) -> int:
        """The team (index into ``tricks`` and ``score``) of a seat: ``seat % 2`` with four."""
        return seat % 2 if self.players == 4 else seat

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Validate untrusted house rules (``None`` or ``{}`` gives the standard game)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise BadRules("rules must be an object of house rules by name")
        known = {"players", "target", "sets", "deal", "teams", *_BOOLS}
        unknown = sorted(set(map(str, data)) - known)
        if unknown:
            raise BadRules(f"unknown house rule {unknown[0]!r}")
        players = data.get("players", 4)
        if type(players) is not int or players not in (2, 3, 4):
            raise BadRules("players must be 4 (2 and 3 are variants)")
        if players != 4:
            raise BadRules("the two- and three-player variants are not available yet")
        raw_target = data.get("target", 7)
        # exact types first: 7.0 or True must not pass as 7, and a list or dict is unhashable
        if type(raw_target) not in (int, str) or raw_target not in TARGETS:
            raise BadRules("target must be 7, 10 or \"2x7\" (two sets of 7)")
        target, sets = TARGETS[raw_target]
        if "sets" in data:
            if type(data["sets"]) is not int or data["sets"] not in (1, 2):
                raise BadRules("sets must be 1 or 2")
            if data["sets"] != sets:
                raise BadRules("sets contradicts target (use target \"2x7\" for two sets of 7)")
        deal = data.get("deal", "5-4-4")
        if deal not in DEALS:
            raise BadRules(f"deal must be one of {', '.join(DEALS)}")
        teams = data.get("teams", "ace_draw")
        if teams not in TEAMS:
            raise BadRules(f"teams must be one of {', '.join(TEAMS)}")
        flags = {}
        for name in _BOOLS:
            value = data.get(name, False)
            if type(value) is not bool:
                raise BadRules(f"{name} must be true or false")
            flags[name] = value
        if flags["bavney"] and flags["double_sar"]:
            # bavney plays on while one side holds every trick; under double_sar tricks wait in a
            # pile, so "every trick so far" is not defined until the pile is banked.
            raise BadRules("bavney and double_sar cannot be combined")
        return cls(players=players, target=target, sets=sets, deal=deal, teams=teams, **flags)

    def to_dict(self) -> dict[str, Any]:
        """The canonical plain form (what events and views carry)."""
        return {
            "players": self.players,
            "target": "2x7" if self.sets == 2 else self.target,
            "deal": self.deal,
            "teams": self.teams,
            "must_trump": self.must_trump,
            "satat": self.satat,
            "bavney": self.bavney,
            "double_sar": self.double_sar,
        }


STANDARD = Rules()
