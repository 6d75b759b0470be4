"""A Hokm bot in thirty lines, on the client library (docs/bots.md explains each step).

    python examples/bot.py http://127.0.0.1:8000/m/MATCH [NAME]

It claims an open seat from the invite link and plays the match to its end.  Its rule: as
Hakem, name the suit it holds most of; when it can win the trick, its lowest card that wins;
otherwise its lowest card.
"""

import sys

from hokmclient import Seat, rank_of, suit_of


def winning(card, view):
    """Would ``card`` beat every card of the open trick?"""
    lead = view["trick"][0]["card"] if view["trick"] else card
    def power(c):  # trump beats the suit led, which beats the rest
        return rank_of(c) + 100 * (suit_of(c) == view["trump"]) + 50 * (suit_of(c) == suit_of(lead))
    return all(power(card) > power(t["card"]) for t in view["trick"])


def choose(view):
    if view["phase"] == "choosing_trump":
        return max(view["legal"], key=lambda s: sum(suit_of(c) == s for c in view["hand"]))
    winners = [c for c in view["legal"] if winning(c, view)]
    return min(winners or view["legal"], key=rank_of)


with Seat.join(sys.argv[1], name=sys.argv[2] if len(sys.argv) > 2 else "Example bot") as seat:
    for view in seat.turns():  # waits on the WebSocket until this seat must decide
        seat.decide(choose(view), view)
    won, score, me = seat.view["winner"], seat.view["score"], seat.view["seat"]
    print(f"match over: team {won} won {score[won]}-{score[1 - won]}"
          f" (I was seat {me}, team {me % 2})")
