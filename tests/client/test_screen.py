"""The terminal table's seats: play goes counter-clockwise (rules.md, "How to play"), so the
seat that plays next sits on one's right and the one before on one's left, as in the browser
client (``static/table.js``: seat + 1 to the right)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hokmplay.screen import table


def seats_by_row(players: int, me: int) -> list[list[int]]:
    """The seat numbers of each row of ``table`` for the player in seat ``me``, left to
    right."""
    view = {"players": players, "seat": me, "phase": "playing", "turn": None,
            "seats": [{"name": f"P{s}", "bot": None, "connected": True, "empty": False}
                      for s in range(players)],
            "hand_counts": [5] * players, "sides": [[s] for s in range(players)]}
    rows = table(view)
    return [[int(m) for text in row for m in re.findall(r"\(seat (\d)", text[1])]
            for row in rows]


@pytest.mark.parametrize("me", range(4))
def test_four_players_the_next_seat_sits_on_the_right(me: int) -> None:
    rows = [r for r in seats_by_row(4, me) if r]
    assert rows == [[(me + 2) % 4], [(me + 3) % 4, (me + 1) % 4], [me]]


@pytest.mark.parametrize("me", range(3))
def test_three_players_the_next_seat_sits_on_the_right(me: int) -> None:
    rows = [r for r in seats_by_row(3, me) if r]
    assert rows == [[(me + 2) % 3, (me + 1) % 3], [me]]


def test_two_players_the_other_across() -> None:
    assert [r for r in seats_by_row(2, 1) if r] == [[0], [1]]


def test_an_open_seat_is_named_once() -> None:
    view = {"players": 4, "seat": None, "phase": "waiting",
            "seats": [{"name": "Ann", "bot": None, "connected": True, "empty": False}]
            + [{"name": None, "bot": None, "connected": False, "empty": True}] * 3}
    texts = [text for row in table(view) for _, text in row if "seat" in text]
    assert "open seat (seat 1)" in texts and all(t.count("seat 1") <= 1 for t in texts), texts


def test_the_turn_limit_is_counted_down_in_the_status_line() -> None:
    """Once fewer than 20 s of the room's turn limit are left (the server's ``turn_limit``
    frame), the status line says when the stand-in plays; not for another seat's turn."""
    from hokmplay.screen import Cursor, status

    view = {"players": 4, "seat": 0, "phase": "playing", "turn": 0, "legal": ["QH"],
            "seats": [{"name": f"P{s}", "bot": None, "connected": True, "empty": False}
                      for s in range(4)]}
    texts = [text for line in status(view, Cursor(limit_left=12)) for _, text in line]
    assert "Your turn — a stand-in plays in 12 s" in texts
    assert " + asks for more time." in texts  # the key of more_time, while it counts down
    texts = [text for line in status(view, Cursor()) for _, text in line]
    assert not any("stand-in" in text or "more time" in text for text in texts)
    waiting = {**view, "turn": 1, "legal": []}
    texts = [text for line in status(waiting, Cursor(limit_left=12)) for _, text in line]
    assert not any("stand-in" in text for text in texts)


@pytest.mark.parametrize("me", range(4))
def test_the_score_puts_the_players_side_first_at_every_seat(me: int) -> None:
    """"us" before "them" whichever seat one has (QA: seat 1 read "them 0 · us 0"), and the
    player before the others in a game without partners; a spectator's in side order."""
    from hokmplay.screen import per_side

    four = {"players": 4, "seat": me, "score": [3, 5], "tricks": [1, 2],
            "seats": [{"name": f"P{s}"} for s in range(4)]}
    ours, theirs = four["score"][me % 2], four["score"][1 - me % 2]
    assert per_side(four, "score") == f"us {ours} · them {theirs}"
    three = {"players": 3, "seat": me % 3, "score": [1, 2, 3], "sides": [[0], [1], [2]],
             "seats": [{"name": f"P{s}"} for s in range(3)]}
    assert per_side(three, "score").startswith(f"you {me % 3 + 1} · ")
    assert per_side({**four, "seat": None}, "score") == ("team 0 (seats 0, 2) 3 · "
                                                         "team 1 (seats 1, 3) 5")


def _drawn_view(players: int, me: int | None, draw: Any, **more: Any) -> dict[str, Any]:
    rules: dict[str, Any] = {"players": players, **more.pop("rules", {})}
    return {"players": players, "seat": me, "phase": "choosing_trump", "round": 1,
            "tricks": [0] * (2 if players == 4 else players), "last_trick": None,
            "rules": rules, "draw": [{"seat": s, "card": c} for s, c in draw],
            "seats": [{"name": f"P{s}", "bot": None, "connected": True, "empty": False}
                      for s in range(players)], **more}


def test_the_draw_for_the_first_hakem_is_one_line_naming_who_turned_each_card() -> None:
    """QA: ``hokm play`` never showed the draw.  Four players: the partner's ace moves its
    player opposite the Hakem (the engine's swap), and the view names seats after it: each
    card is still named by the player who turned it."""
    from engine.cards import CARD_INDEX
    from engine.decide import ace_draw, high_card_draw
    from hokmplay.screen import draw_text, table_notes

    cards = tuple(CARD_INDEX[c] for c in ("7S", "AH", "3D", "KC", "AS", *["2C"] * 10))
    drawn = ace_draw(cards, 4, True)
    assert drawn.hakem == 1 and drawn.swap == (0, 3)  # the player of seat 0 now sits at 3
    view = _drawn_view(4, 2, drawn.draw, rules={"teams": "ace_draw"})
    assert draw_text(view) == ("Ace draw (the first ace is Hakem, the second ace their partner): "
                               "P3 7♠, P1 A♥, you 3♦, P0 K♣, P3 A♠ -> Hakem P1")
    assert draw_text(_drawn_view(4, 2, drawn.draw, rules={"teams": "as_seated"})) == (
        "Ace draw (the first ace is Hakem): P0 7♠, P1 A♥, you 3♦, P3 K♣, P0 A♠ -> Hakem P1")
    # the simple game of two: the higher card, a tie drawing again
    tie = high_card_draw(tuple(CARD_INDEX[c] for c in ("9S", "9H", "4D", "JC")), 2)
    assert tie.hakem == 1
    assert draw_text(_drawn_view(2, 0, tie.draw, rules={"two_player": "simple"})) == (
        "High-card draw (the highest card is Hakem): you 9♠, P1 9♥, you 4♦, P1 J♣ -> Hakem P1")
    assert draw_text(_drawn_view(3, None, ((0, "5H"), (1, "AD")))) == (
        "Ace draw (the first ace is Hakem): P0 5♥, P1 A♦ -> Hakem P1")
    # on the table until the first round's first trick is won
    def notes(view: dict[str, Any]) -> str:
        return "\n".join("".join(text for _, text in line) for line in table_notes(view))

    assert notes(_drawn_view(3, 0, ((0, "AD"),))) == (
        "Ace draw (the first ace is Hakem): you A♦ -> Hakem you")
    assert notes(_drawn_view(3, 0, ((0, "AD"),), tricks=[1, 0, 0])) == ""
    assert notes(_drawn_view(3, 0, ((0, "AD"),), round=2)) == ""
    assert notes(_drawn_view(3, 0, ())) == ""  # (before the draw)


@pytest.mark.parametrize(("kind", "points", "named"), [
    ("kot", 2, "kot"), ("hakem_koti", 3, "Hakem koti"), ("bavney", 3, "bavney")])
def test_a_sweep_is_named_as_the_rules_name_it(kind: str, points: int, named: str) -> None:
    """The round's result names the sweep as rules.md does ("Hakem koti": the opponents take
    the first seven; it read "Hakem kot")."""
    from hokmplay.screen import result_text

    view = {"players": 4, "seat": 1, "phase": "round_over", "round": 3,
            "seats": [{"name": f"P{s}"} for s in range(4)],
            "result": {"winner": 1, "points": points, "kind": kind, "tricks": [0, 7]}}
    assert result_text(view) == f"Round 3: we won {points} points, {named} (tricks 7-0)"


def test_a_match_in_two_sets_says_so_and_counts_the_sets() -> None:
    """Target ``"2x7"`` (rules.md: "two sets of 7"): the view's ``target`` is a set's 7 points
    and ``sets`` the sets won.  The header said "to 7 points" and never showed the sets, so a
    side reaching 7 and the score starting again at 0-0 read as a wrong score."""
    from hokmplay.screen import Cursor, header

    view = {"match_id": "m", "players": 4, "seat": 1, "round": 9, "target": 7, "sets": [1, 0],
            "score": [0, 3], "tricks": [0, 0], "trump": None, "hakem": None,
            "seats": [{"name": f"P{s}"} for s in range(4)]}
    first = "".join(text for _, text in header(view, Cursor())[0])
    assert " · two sets of 7 points (sets won: us 0 · them 1) · " in first, first
    plain = "".join(text for _, text in header({**view, "sets": None}, Cursor())[0])
    assert " · to 7 points · " in plain and "sets" not in plain, plain


def test_a_set_won_and_a_match_won_in_sets_are_said() -> None:
    """Target ``"2x7"``: at the end of the round that wins a set, the status says which side
    won which set and that the points start again; at the end of the match it gives the sets,
    then the last set's points (it said "you lost the match, 0-7" after a match of two sets:
    the points of the last set alone, read as the whole match's).  A match of one set
    unchanged."""
    from hokmplay.screen import Cursor, status

    def said(view: dict[str, Any]) -> str:
        return "\n".join("".join(text for _, text in line) for line in status(view, Cursor()))

    seats = [{"name": f"P{s}"} for s in range(4)]
    ended = {"match_id": "m", "players": 4, "seat": 1, "round": 8, "target": 7, "sets": [1, 0],
             "score": [7, 4], "phase": "round_over", "seats": seats,
             "result": {"winner": 0, "points": 1, "kind": "normal", "tricks": [7, 3]}}
    assert ("The round is over and they won set 1 (sets won: us 0 · them 1): the next deal "
            "starts the points again at 0.") in said(ended), said(ended)
    # a round that won no set, and a match of one set: no set is named
    assert "The round is over; the next deal is coming." in said({**ended, "score": [6, 4]})
    assert "The round is over; the next deal is coming." in said({**ended, "sets": None})
    over = {**ended, "phase": "match_over", "winner": 0, "sets": [2, 1], "score": [7, 2]}
    assert "Match over: you lost the match, sets 1-2 (the last set 2-7)." in said(over)
    spectator = {**over, "seat": None}
    assert "Match over: team 0 (seats 0, 2) won the match, sets 2-1 (the last set 7-2)." \
        in said(spectator), said(spectator)
    assert "Match over: you lost the match, 2-7." in said({**over, "sets": None})


def test_the_double_sar_pile_is_shown_beside_the_tricks() -> None:
    """``double_sar`` (rules.md): a trick won by a side that did not win the one before waits
    in a pile, counted for nobody yet.  The browser says so ("2 trick(s) waiting in the
    pile"); the terminal showed only the banked counts, "us 0 · them 0" under a trick just
    won."""
    from hokmplay.screen import Cursor, header

    view = {"match_id": "m", "players": 4, "seat": 1, "round": 2, "target": 7, "sets": None,
            "score": [0, 1], "tricks": [0, 0], "pile": 2, "trump": "S", "hakem": 0,
            "seats": [{"name": f"P{s}"} for s in range(4)]}

    def score_line(view: dict[str, Any]) -> str:
        return "".join(text for _, text in header(view, Cursor())[2])

    assert score_line(view).endswith("Tricks this round  us 0 · them 0 · 2 tricks waiting in "
                                     "the pile"), score_line(view)
    assert score_line({**view, "pile": 1}).endswith(" · 1 trick waiting in the pile")
    for none in (0, None):  # an empty pile, or a room without double_sar
        assert score_line({**view, "pile": none}).endswith("us 0 · them 0")


def test_a_match_of_three_lost_names_its_winner() -> None:
    """Three players, each a side: the end of the match names who won it (QA: it said "you
    lost the match, you 0 · Roxana 5 · Kian 7", the winner left to be worked out; the browser
    says "Match to Kian"); two sides, where the other is the winner, unchanged."""
    from hokmplay.screen import Cursor, status

    def said(view: dict[str, Any]) -> str:
        return "\n".join("".join(text for _, text in line) for line in status(view, Cursor()))

    seats = [{"name": n} for n in ("Tess", "Roxana", "Kian")]
    over = {"match_id": "m", "players": 3, "seat": 0, "round": 12, "target": 7,
            "sides": [[0], [1], [2]], "score": [0, 5, 7], "phase": "match_over", "winner": 2,
            "seats": seats, "result": {"winner": 2, "points": 1, "kind": "normal",
                                       "tricks": [2, 6, 7]}}
    assert "Match over: you lost the match to Kian, you 0 · Roxana 5 · Kian 7." in said(over), \
        said(over)
    assert "Match over: you won the match, you 7 · Roxana 5 · Kian 0." in said(
        {**over, "score": [7, 5, 0], "winner": 0})
    assert "Match over: Kian won the match" in said({**over, "seat": None})
    two = {**over, "players": 2, "sides": [[0], [1]], "seats": seats[:2], "score": [3, 7],
           "winner": 1, "result": {"winner": 1, "points": 1, "kind": "normal", "tricks": [3, 7]}}
    assert "Match over: you lost the match, 3-7." in said(two), said(two)
