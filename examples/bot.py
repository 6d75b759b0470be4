"""A Hokm bot in forty lines, on the client library (docs/bots.md explains each step).

    python examples/bot.py http://127.0.0.1:8000/m/MATCH [NAME]

It claims an open seat from the invite link and plays the match to its end, in any game (four,
three or two players, the talon game too); choose(view) is its whole strategy."""

import sys

from hokmclient import ApiError, Seat, rank_of, suit_of


def worth(card, view, lead=None):  # a trump beats the suit led, which beats the rest
    return rank_of(card) + 100 * (suit_of(card) == view["trump"]) + 50 * (suit_of(card) == lead)


def winning(card, view):  # would this card beat every card of the open trick?
    lead = suit_of(view["trick"][0]["card"]) if view["trick"] else suit_of(card)
    return all(worth(card, view, lead) > worth(t["card"], view, lead) for t in view["trick"])


def choose(view):
    if view["phase"] == "choosing_trump":  # the suit it holds most of
        return max(view["legal"], key=lambda s: sum(suit_of(c) == s for c in view["hand"]))
    if view["phase"] == "discarding":  # the talon game: as many cards as asked, the lowest
        return sorted(view["legal"], key=lambda c: worth(c, view))[:view["talon"]["discard"]]
    if view["phase"] == "drawing":  # the talon game: keep its top card if a trump or J+
        return "keep" if worth(view["talon"]["top"], view) >= rank_of("JS") else "discard"
    winners = [c for c in view["legal"] if winning(c, view)]
    return min(winners or view["legal"], key=rank_of)  # the lowest that wins, or the lowest


def play(link, name="Example bot"):  # joins, plays every turn, prints the result
    with Seat.join(link, name=name) as seat:
        for view in seat.turns():  # waits on the WebSocket until this seat must decide
            try:
                seat.decide(choose(view), view)
            except ApiError as refused:  # stale_version: the match moved on (a player came or
                if refused.code != "stale_version":  # left): turns() gives the newest view next
                    raise
        end, me = seat.view, seat.view["seat"]  # "sides": two teams of two, or a seat a side
        won, mine = end["winner"], [me in seats for seats in end["sides"]].index(True)
        rest = "-".join(str(points) for side, points in enumerate(end["score"]) if side != won)
        who = "team" if len(end["sides"][won]) > 1 else "player"  # a side of one is a player
        print(f"match over: {who} {won} won {end['score'][won]}-{rest}",
              f"(I was seat {me}, {who} {mine})")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print("usage: python examples/bot.py INVITE_LINK [NAME]", file=sys.stderr)
        sys.exit(2)
    try:
        play(*sys.argv[1:])
    except (ApiError, ValueError) as error:  # refused (no such match, it is over...), a bad link
        sys.exit(f"bot.py: {error}")
