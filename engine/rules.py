"""The house rules of a match, validated once and recorded in the match's first event.

``Rules.from_dict`` is the only way untrusted input becomes a ``Rules``; it refuses unknown names,
wrong types and contradictory combinations with :class:`~engine.errors.BadRules`.
``Rules.to_dict`` gives the canonical plain form, which ``from_dict`` reads back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import BadRules
from .variants import TWO_PLAYER_GAMES, Variant, variant_for

DEALS = ("5-4-4", "5-3-3-2")
TEAMS = ("ace_draw", "as_seated")
TARGETS: dict[Any, tuple[int, int]] = {7: (7, 1), 10: (10, 1), "2x7": (7, 2)}
"""Accepted ``target`` values -> (points per set, sets to win).  ``"2x7"`` is two sets of 7."""

_BOOLS = ("must_trump", "satat", "bavney", "double_sar")
IMPLEMENTED = ("simple", "talon")
"""The two-player games the engine plays."""


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
    two_player: str | None = None
    """With ``players: 2``: ``simple`` (seed 004, the default) or ``talon`` (seed 001)."""
    variant: Variant = field(init=False, compare=False, repr=False)
    """The game these rules play (derived from ``players`` and ``two_player``)."""
    side_of: tuple[int, ...] = field(init=False, compare=False, repr=False)
    """``side_of[seat]``: the side (index into ``tricks`` and ``score``) of each seat."""

    def __post_init__(self) -> None:
        variant = variant_for(self.players, self.two_player)
        object.__setattr__(self, "variant", variant)
        object.__setattr__(self, "side_of", variant.side_of)

    @property
    def n_teams(self) -> int:
        return len(self.variant.sides)

    @property
    def hand_size(self) -> int:
        return self.variant.hand_size

    def team_of(self, seat: int) -> int:
        """The team (index into ``tricks`` and ``score``) of a seat: ``seat % 2`` with four."""
        return self.side_of[seat]

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Validate untrusted house rules (``None`` or ``{}`` gives the standard game)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise BadRules("rules must be an object of house rules by name")
        known = {"players", "two_player", "target", "sets", "deal", "teams", *_BOOLS}
        unknown = sorted(set(map(str, data)) - known)
        if unknown:
            raise BadRules(f"unknown house rule {unknown[0]!r}")
        players = data.get("players", 4)
        if type(players) is not int or players not in (2, 3, 4):
            raise BadRules("players must be 2, 3 or 4")
        two_player = data.get("two_player", TWO_PLAYER_GAMES[0] if players == 2 else None)
        if players == 2:
            if two_player not in TWO_PLAYER_GAMES:
                raise BadRules(f"two_player must be one of {', '.join(TWO_PLAYER_GAMES)}")
            if two_player not in IMPLEMENTED:
                raise BadRules(f"the two-player {two_player} game is not available yet")
        elif "two_player" in data:
            raise BadRules("two_player is a rule of the two-player games (players: 2)")
        variant = variant_for(players, two_player)
        if players != 4 and "teams" in data:
            raise BadRules(f"teams: there are no partnerships with {players} players")
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
        deal = data.get("deal", variant.deals[0])
        if type(deal) is not str or deal not in variant.deals:
            raise BadRules(f"deal must be one of {', '.join(variant.deals)}"
                           + (f" with {players} players" if players != 4 else ""))
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
        if players == 3:
            for name in ("bavney", "double_sar"):
                if flags[name]:
                    raise BadRules(f"{name} is not defined for three players (17 tricks, "
                                   "three sides)")
        return cls(players=players, target=target, sets=sets, deal=deal, teams=teams,
                   two_player=two_player, **flags)

    def to_dict(self) -> dict[str, Any]:
        """The canonical plain form (what events and views carry).  Four players: exactly the
        keys of before the variants (recorded matches encode the same bytes); two players add
        ``two_player``; ``teams`` is a rule of the four-player game only."""
        out: dict[str, Any] = {
            "players": self.players,
            "target": "2x7" if self.sets == 2 else self.target,
            "deal": self.deal,
            "teams": self.teams,
            "must_trump": self.must_trump,
            "satat": self.satat,
            "bavney": self.bavney,
            "double_sar": self.double_sar,
        }
        if self.players != 4:
            del out["teams"]
        if self.players == 2:
            out = {"players": 2, "two_player": self.two_player, **out}
        return out


STANDARD = Rules()
