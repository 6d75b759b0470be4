"""What ``hokm replay LINK`` says of a step, without a server (``hokmplay.review``): the keys'
landmarks (a trick, a round), the analysis's progress while it is computed, and its verdict
on the decisions that are no card (a trump, the talon game's discard and draw)."""

from __future__ import annotations

from hokmplay.review import Analysis, Page, Story, analysis_line, render, verdict

VIEW = {"match_id": "m1", "players": 2, "sides": [[0], [1]], "seats": [
    {"name": "Ana", "bot": None, "empty": False}, {"name": "Bob", "bot": "hard", "empty": False}]}


def text(line: list[tuple[str, str]] | None) -> str:
    return "".join(t for _, t in line or [])


def test_a_trick_and_a_round_at_a_time() -> None:
    story = Story.of(40, [{"version": v, "events": [{"type": t}]} for v, t in (
        (5, "round_started"), (12, "trick_won"), (16, "trick_won"), (30, "round_started"))])
    assert (story.tricks, story.rounds) == ((12, 16), (5, 30))
    assert [story.after(story.tricks, s) for s in (0, 12, 13, 16)] == [12, 16, 16, 40]
    assert [story.before(story.tricks, s) for s in (12, 13, 16, 40)] == [0, 12, 12, 16]
    assert story.before(story.rounds, 30) == 5 and story.after(story.rounds, 30) == 40


def test_the_analysis_while_it_is_computed_and_when_it_fails() -> None:
    analysis = Analysis()
    assert text(analysis_line(analysis, 3, VIEW)) == "Asking for the analysis…"
    analysis.take({"status": "pending", "rounds": 5, "done": 2})
    assert text(analysis_line(analysis, 3, VIEW)) == "analysing… 2 of 5 rounds"
    analysis.take({"status": "done", "rounds": [{"moves": [
        {"version": 3, "seat": 1, "kind": "trump", "played": "H", "best": ["S"], "cost": "kot",
         "bot": {"choice": "S", "win_chance": None}, "exact": True}]}], "seats": []})
    assert analysis_line(analysis, 4, VIEW) is None  # no decision at step 4
    assert text(analysis_line(analysis, 3, VIEW)) == (
        "Analysis: Bob named trump ♥ hearts ? cost a kot · best: ♠ spades · hard bot: ♠ spades")
    page = Page(step=3, steps=3, answer={"step": 3, "view": {**VIEW, "hands": [[], []]},
                                         "events": []}, analysis=analysis)
    shown = "\n".join(text(line) for line in render(page, 80, 24))
    assert "step 3 of 3" in shown and "? cost a kot" in shown


def test_the_talon_games_decisions_read_as_what_was_done() -> None:
    discard = {"version": 9, "seat": 0, "kind": "discard", "played": "2C 3D 4H",
               "best": ["2C 3D 4H", "2C 3D 5S"], "cost": None, "exact": False,
               "bot": {"choice": "2C 3D 5S", "win_chance": 0.25}, "by": {"name": "Tess"}}
    assert text(verdict(discard, VIEW)) == (
        "Analysis: Tess laid aside 2♣ 3♦ 4♥, as good as the best · best: 2♣ 3♦ 4♥; 2♣ 3♦ 5♠"
        " · hard bot: 2♣ 3♦ 5♠, 25% round-win chance for Ana (by a playout: an estimate)")
    draw = {"version": 10, "seat": 1, "kind": "draw", "played": "KH", "best": ["QS"],
            "cost": "trick", "bot": {}}
    assert text(verdict(draw, VIEW)) == "Analysis: Bob kept K♥ from the talon ?! cost a trick" \
                                       " · best: Q♠"


def test_step_0s_empty_seats_are_named_once() -> None:
    """An audit's finding: at step 0 (no seat taken yet) a row read "seat 0 (open) (seat 0,
    team 0)"."""
    from hokmplay.review import hand_lines

    view = {"players": 4, "sides": [[0, 2], [1, 3]], "phase": "new", "hands": [[]] * 4,
            "seats": [{"empty": True}] * 3 + [{"empty": False, "name": "Kian"}]}
    rows = ["".join(text for _, text in line) for line in hand_lines(view)]
    assert rows[0] == "  open (seat 0, team 0): no cards"
    assert rows[3] == "  Kian (seat 3, team 1): no cards"


def test_s_says_the_summary_waits_for_the_analysis() -> None:
    """``s`` (the summary per player) while the analysis is computed says it shows once done
    (it showed nothing: a walkthrough's finding); once done, the summary itself."""
    analysis = Analysis()
    analysis.take({"status": "pending", "rounds": 5, "done": 2})
    page = Page(step=1, steps=3, answer={"step": 1, "view": {**VIEW, "hands": [[], []]},
                                         "events": []}, analysis=analysis)
    page.summary = True
    waiting = "The summary per player shows once the analysis is done."
    assert waiting in "\n".join(text(line) for line in render(page, 80, 24))
    page.summary = False
    assert waiting not in "\n".join(text(line) for line in render(page, 80, 24))
    analysis.take({"status": "done", "rounds": [{"moves": []}], "seats": [
        {"seat": 0, "moves": 3, "cost_trick": 1, "cost_round": 0, "cost_kot": 0}]})
    page.summary = True
    shown = "\n".join(text(line) for line in render(page, 80, 24))
    assert waiting not in shown and "The whole match, per player" in shown


def test_a_three_player_score_takes_its_own_line_on_80_columns() -> None:
    """The replay's header lays the score and the tricks on a line each where one would wrap
    in mid-phrase (the table's header does the same: ``test_screen_fit``)."""
    view = {**VIEW, "players": 3, "sides": [[0], [1], [2]], "round": 2, "target": 7,
            "seats": [{"name": "Anahita", "bot": None, "empty": False}, VIEW["seats"][1],
                      {"name": "Roxana", "bot": "easy", "empty": False}],
            "score": [3, 4, 5], "tricks": [2, 5, 6], "hands": [[], [], []], "phase": "playing"}
    page = Page(step=3, steps=90, answer={"step": 3, "view": view, "events": []})
    rows = [text(line) for line in render(page, 80, 40)]
    assert "Score  Anahita 3 · Bob 4 · Roxana 5" in rows, rows
    assert "Tricks this round  Anahita 2 · Bob 5 · Roxana 6" in rows, rows
    wide = [text(line) for line in render(page, 200, 40)]
    assert ("Score  Anahita 3 · Bob 4 · Roxana 5      Tricks this round  Anahita 2 · Bob 5 · "
            "Roxana 6") in wide, wide


def test_the_steps_before_the_first_deal_name_no_round() -> None:
    """A walkthrough's finding: steps 0 and 1 (the match created, the seats taken) said
    "round 0"."""
    from hokmplay.review import header

    before = text(header({**VIEW, "round": 0}, 1, 90)[0])
    assert "before the first deal" in before and "round 0" not in before, before
    dealt = text(header({**VIEW, "round": 2}, 40, 90)[0])
    assert "· round 2 ·" in dealt and "before the first deal" not in dealt, dealt


def test_the_way_out_stays_on_a_narrow_replay() -> None:
    """A walkthrough's finding: at 60 columns the keys' line was cut before "q: quit"."""
    page = Page(step=3, steps=9, answer={"step": 3, "view": {**VIEW, "hands": [[], []]},
                                         "events": []})
    for width in (60, 40):
        for height in range(10, 31):  # (on a short window the line is cut, not wrapped)
            shown = "\n".join(text(line) for line in render(page, width, height))
            assert "q: quit" in shown, (width, height, shown)
