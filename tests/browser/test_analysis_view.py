"""The analysis graph's point of view and its gaps, and the summary per player (a QA finding):

* a move without an estimate (``win_chance: null``: the talon's decisions; with three players
  another seat's move for seat 0's line) was drawn at the level before it, or at 50 % before
  any ("Now: 50% for Sara"); it has no number, a gap in the line, and "Now:" says so;
* every point is the chance of one side (seats 0 and 2), the other side's estimates turned
  around, and the bot's line for the move shown says whose chance it gives and when;
* the whole match's summary was named after whoever sat in a seat at the step shown: a seat
  that changed hands has a row per player, named the same at every step."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE
from .helpers import finish_humans_match, http
from .test_analysis import bots_only_match, canned_analysis, serve_canned

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def four(gateway: str) -> tuple[str, dict[str, Any]]:
    match_id = bots_only_match(gateway)
    answer = canned_analysis(gateway, match_id)
    for r in answer["rounds"]:
        for m in r["moves"]:
            m["bot"]["win_chance"] = m["win_chance"]  # as the worker answers: the same estimate
    return match_id, answer


def opened(new_client: Any, match_id: str, answer: dict[str, Any], step: int) -> Any:
    """A desktop page on the replay at ``step`` with the analysis open, ``answer`` served."""
    page = new_client(viewport=DESKTOP).page
    serve_canned(page, answer, pending=0)
    page.goto(f"/replay/{match_id}?analysis=1&step={step}")
    return page


def chances(page: Any) -> list[str]:
    return page.eval_on_selector_all("svg.an-chart circle[data-j]",
                                     "(cs) => cs.map((c) => c.dataset.chance)")


def seen_from(side: int, got: list[str], moves: list[dict[str, Any]]) -> int:
    """Check that the graph's points ``got`` are side ``side``'s chances (four players: each
    estimate the mover's side's, turned around for the other side); returns how many."""
    assert len(got) == len(moves) + 1
    told = 0
    for j, m in enumerate(moves):
        if m["win_chance"] is None:
            continue
        want = m["win_chance"] if m["seat"] % 2 == side else 1 - m["win_chance"]
        assert float(got[j]) == pytest.approx(want, abs=1e-3), (j, m["seat"])
        told += 1
    return told


@pytest.mark.timeout(120)
def test_a_move_without_an_estimate_has_no_number(
        new_client: Any, four: tuple[str, dict[str, Any]]) -> None:
    match_id, answer = four
    moves = answer["rounds"][0]["moves"]
    assert moves[1]["win_chance"] is None
    page = opened(new_client, match_id, answer, moves[0]["version"])  # point 1
    chart = page.locator("svg.an-chart[data-here='1']")
    chart.wait_for()
    now = page.locator("#an-now").inner_text()
    assert now.startswith("Now: no estimate for "), now
    assert "%" not in now and "%" not in chart.get_attribute("aria-valuetext")
    assert page.locator("circle[data-j='1']").get_attribute("data-chance") == ""
    assert page.locator("circle[data-j='1']").get_attribute("class").split()[0] == "an-gap"
    # the line breaks there: a piece before, a piece after
    assert page.locator("svg.an-chart polyline.an-line").count() == 2


@pytest.mark.timeout(120)
def test_three_players_home_is_no_even_share(new_client: Any, gateway: str) -> None:
    """With three players only seat 0's own moves estimate seat 0's chance: Home said "Now: 50%
    for Ana" (an even share of three sides is not 50 %, and there was no estimate at all)."""
    match_id = bots_only_match(gateway, 3)
    answer = canned_analysis(gateway, match_id, players=3)
    moves = answer["rounds"][0]["moves"]  # Home: round 0's start (a later one's is the last
    # step of the round before)
    if moves[0]["seat"] == 0:  # the Hakem is seat 0: its trump made without an estimate
        moves[0]["win_chance"] = None
    page = opened(new_client, match_id, answer, moves[2]["version"])
    page.locator("svg.an-chart").wait_for()
    page.locator("svg.an-chart").focus()
    page.keyboard.press("Home")
    page.locator("svg.an-chart[data-here='0']").wait_for()
    now = page.locator("#an-now").inner_text()
    assert now.startswith("Now: no estimate for "), now
    got = chances(page)
    want = ["" if m["seat"] != 0 or m["win_chance"] is None else f"{m['win_chance']:.3f}"
            for m in moves]
    assert got[:-1] == want


@pytest.mark.timeout(120)
def test_the_graph_is_one_sides_chance_throughout(
        new_client: Any, four: tuple[str, dict[str, Any]]) -> None:
    match_id, answer = four
    moves = answer["rounds"][0]["moves"]
    page = opened(new_client, match_id, answer, moves[4]["version"])
    page.locator("svg.an-chart[data-here='5']").wait_for()
    got = chances(page)
    assert seen_from(0, got, moves) >= 10
    pairs = 0
    for j, m in enumerate(moves):
        if m["win_chance"] is None:
            continue
        nxt = moves[j + 1] if j + 1 < len(moves) else None
        if nxt and nxt["win_chance"] is not None and nxt["seat"] % 2 != m["seat"] % 2:
            # two estimates of the two sides: told as side 0's, complementary to the other's own
            assert float(got[j + 1]) == pytest.approx(1 - nxt["win_chance"] if nxt["seat"] % 2
                                                      else nxt["win_chance"], abs=1e-3)
            pairs += 1
    assert pairs >= 3
    # the bot's line for the move shown (move 4) gives the graph's point before it, named so
    bot = page.locator("#an-move .an-bot")
    assert bot.get_attribute("data-chance") == got[4]
    title = page.locator("figure.an-graph figcaption strong").inner_text()
    team = re.search(r"the chance that (.+) win the round", title)
    assert team, title
    assert f"before this move, the chance for {team.group(1)} to win the round: " in \
        bot.inner_text()
    assert "(the estimate before the next move)" in page.locator("#an-now").inner_text()


@pytest.mark.timeout(120)
def test_the_summary_names_each_player_of_a_seat(
        new_client: Any, gateway: str, four: tuple[str, dict[str, Any]]) -> None:
    match_id, canned = four
    answer = copy.deepcopy(canned)
    zero = {"moves": 0, "cost_trick": 0, "cost_round": 0, "cost_kot": 0}
    for s in answer["seats"]:
        s["players"] = [{"name": f"P{s['seat']}", "bot": None, **{k: s[k] for k in zero}}]
    answer["seats"][1]["players"] = [
        {"name": "Babak", "bot": None, **zero, "moves": 20, "cost_trick": 1},
        {"name": "Kian", "bot": "hard", **zero,
         "moves": answer["seats"][1]["moves"] - 20, "cost_round": 1}]
    moves = [m for r in answer["rounds"] for m in r["moves"]]
    page = opened(new_client, match_id, answer, moves[2]["version"])

    def rows() -> list[list[str]]:
        table = page.locator("table.an-seats")
        table.wait_for()
        # cell by cell: a row's innerText joins its cells with tabs only while it is laid
        # out, and a CI run read one row's text run together ("P0, seat 1138000")
        rows: list[list[str]] = table.locator("tbody tr").evaluate_all(
            "trs => trs.map(tr => Array.from(tr.cells, c => c.textContent.trim()))")
        return rows

    early = rows()
    page.get_by_label("Step", exact=True).fill(str(moves[-1]["version"]))
    page.locator(f"#an-move[data-version='{moves[-1]['version']}']").wait_for()
    late = rows()
    assert early == late  # the same names whatever step is shown
    assert len(early) == 5
    assert early[1] == ["Babak, seat 2", "20", "1", "0", "0"]
    assert early[2] == ["Kian (bot), seat 2", str(answer["seats"][1]["moves"] - 20), "0", "0",
                        "1"]
    assert early[0][0] == "P0, seat 1"
    assert page.locator("table.an-seats caption").inner_text() == "Per player, the whole match"


@pytest.mark.timeout(240)
def test_a_player_sees_the_graph_from_their_own_side(new_client: Any, gateway: str) -> None:
    """The replay of a finished match opened by one of its players (the page holds the seat's
    token) draws the graph from that player's side: it was always seats 0 and 2's, so the
    players of seats 1 and 3 read their opponents' chance (a "Left" item of session 27)."""
    match_id, tokens = finish_humans_match(gateway, 4, ["Ana", "Babak", "Dara", "Kian"])
    answer = canned_analysis(gateway, match_id)
    for r in answer["rounds"]:
        for m in r["moves"]:
            m["bot"]["win_chance"] = m["win_chance"]
    names = [s["name"] for s in http(gateway, "GET", f"/api/matches/{match_id}")["seats"]]
    page = new_client(viewport=DESKTOP).page
    serve_canned(page, answer, pending=0)
    page.goto("/")
    page.evaluate("([id, tok]) => localStorage.setItem(`hokm.token.${id}`, tok)",
                  [match_id, tokens[1]])
    rnd = answer["rounds"][0]
    moves = rnd["moves"]
    page.goto(f"/replay/{match_id}?analysis=1&step={moves[4]['version']}")
    page.locator("svg.an-chart[data-here='5']").wait_for()
    got = chances(page)
    assert seen_from(1, got, moves) >= 10
    assert float(got[-1]) == (1.0 if rnd["result"]["winner_side"] == 1 else 0.0)
    title = page.locator("figure.an-graph figcaption strong").inner_text()
    assert f"the chance that {names[1]} & {names[3]} win the round" in title, title
    # the same replay without the token is nobody's: seat 0's side, every point turned around
    other = new_client(viewport=DESKTOP).page
    serve_canned(other, answer, pending=0)
    other.goto(f"/replay/{match_id}?analysis=1&step={moves[4]['version']}")
    other.locator("svg.an-chart[data-here='5']").wait_for()
    assert [c if c == "" else f"{1 - float(c):.3f}" for c in chances(other)] == got


ROW_LABELS_JS = """() => [...document.querySelectorAll('table.an-seats th[scope=row]')]
  .map((th) => ({ text: th.innerText, clipped: th.scrollWidth > th.clientWidth }))"""
"""Each row of the summary per player: its label and whether part of it is cut off (an ellipsis:
``innerText`` still gives the whole label, the screen does not)."""


@pytest.mark.timeout(120)
def test_the_summary_rows_show_the_whole_label_on_a_phone(
        new_client: Any, four: tuple[str, dict[str, Any]]) -> None:
    """A row is named "Kian (bot), seat 2": on a phone, in Persian, the label ended in an
    ellipsis that cut off the seat ("Roxana (ربات)، جایگ…"), the one part that tells two players
    of a seat apart; a long name ("up to 40 characters") lost it in English too.  Each label
    is shown whole, on as many lines as it needs, and the page keeps to the phone's width."""
    match_id, canned = four
    answer = copy.deepcopy(canned)
    zero = {"moves": 0, "cost_trick": 0, "cost_round": 0, "cost_kot": 0}
    names = ["Roxana", "Shirin", "Kian", "Aleksandrakonstantinopolskayaova"]
    for s in answer["seats"]:
        s["players"] = [{"name": names[s["seat"]], "bot": "hard",
                         **{k: s[k] for k in zero}}]
    for locale, lang in (("fa-IR", "fa"), ("en-US", "en")):
        page = new_client(viewport=PHONE, locale=locale).page
        serve_canned(page, answer, pending=0)
        page.goto(f"/replay/{match_id}?analysis=1&step=1")
        page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
        page.locator("table.an-seats tbody tr").first.wait_for()
        rows = page.evaluate(ROW_LABELS_JS)
        assert len(rows) == 4
        assert [r["text"] for r in rows if r["clipped"]] == [], lang
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{lang}: the page is {width}px wide"


@pytest.mark.timeout(120)
def test_a_costly_talon_decision_says_what_was_done(
        new_client: Any, four: tuple[str, dict[str, Any]]) -> None:
    """The round's costly moves named the talon's decisions by their cards alone ("Sara: Four
    of hearts, cost a trick" for the card she kept, the same words as for playing it): a kept
    card and the cards laid aside are said so, as the move shown says them."""
    match_id, canned = four
    answer = copy.deepcopy(canned)
    moves = answer["rounds"][0]["moves"]
    kept, laid = moves[3], moves[6]  # the canned costly moves (the round, a kot)
    assert kept["cost"] == "round" and laid["cost"] == "kot"
    kept.update(kind="draw", played="4H", best=["9D"],
                alternatives=[{"card": "4H", "tricks": 3, "wins": False, "kot": False},
                              {"card": "9D", "tricks": 7, "wins": True, "kot": False}])
    laid.update(kind="discard", played="2C 3C", best=["2C 4D"],
                alternatives=[{"card": "2C 3C", "tricks": 7, "wins": True, "kot": False},
                              {"card": "2C 4D", "tricks": 7, "wins": True, "kot": True}])
    page = opened(new_client, match_id, answer, moves[0]["version"])
    jump = page.locator(".an-costly button.an-jump")
    jump.first.wait_for()
    said = {b.get_attribute("data-version"): b.inner_text() for b in jump.all()}
    assert "kept the Four of hearts" in said[str(kept["version"])], said
    assert "laid aside Two of clubs, Three of clubs" in said[str(laid["version"])], said
    page.locator("#lang-select").select_option("fa")
    page.get_by_role("button", name="پنهان کردن تحلیل").wait_for()
    said = {b.get_attribute("data-version"): b.inner_text() for b in jump.all()}
    assert "نگه داشت" in said[str(kept["version"])], said
    assert "کنار گذاشت" in said[str(laid["version"])], said


@pytest.mark.timeout(240)
def test_a_players_replay_sits_them_at_the_bottom(new_client: Any, gateway: str) -> None:
    """The replay a player opens (the page holds the seat's token: "Watch the replay" on the
    match-over panel) is theirs: their seat at the bottom of the board, as at the table (it was
    always seat 1's place, so the player of seat 2 found themselves on the right).  Nobody's
    replay keeps seat 1 there."""
    match_id, tokens = finish_humans_match(gateway, 4, ["Ana", "Babak", "Dara", "Kian"])
    names = [s["name"] for s in http(gateway, "GET", f"/api/matches/{match_id}")["seats"]]
    page = new_client(viewport=DESKTOP).page
    page.goto("/")
    page.evaluate("([id, tok]) => localStorage.setItem(`hokm.token.${id}`, tok)",
                  [match_id, tokens[1]])
    page.goto(f"/replay/{match_id}?step=40")
    where = {pos: page.locator(f".replay .seat.pos-{pos} .name")
             for pos in ("bottom", "right", "top", "left")}
    where["bottom"].get_by_text(names[1], exact=True).wait_for()
    assert [where[p].inner_text() for p in ("bottom", "right", "top", "left")] == \
        [names[1], names[2], names[3], names[0]]
    other = new_client(viewport=DESKTOP).page
    other.goto(f"/replay/{match_id}?step=40")
    other.locator(".replay .seat.pos-bottom .name").get_by_text(names[0], exact=True).wait_for()


@pytest.mark.timeout(120)
def test_the_best_ways_to_lay_aside_are_told_apart(
        new_client: Any, four: tuple[str, dict[str, Any]]) -> None:
    """The talon game's best discards, each two cards, were one flat list ("Best in hindsight:
    Two of diamonds, Eight of diamonds, Two of diamonds, King of diamonds"), which read as four
    cards to lay aside: each choice is set apart from the next (a semicolon; Persian's own)."""
    match_id, canned = four
    answer = copy.deepcopy(canned)
    laid = answer["rounds"][0]["moves"][6]
    laid.update(kind="discard", played="2C 3C", best=["2C 4D", "3C 4D"],
                alternatives=[{"card": "2C 3C", "tricks": 6, "wins": True, "kot": False},
                              {"card": "2C 4D", "tricks": 7, "wins": True, "kot": False},
                              {"card": "3C 4D", "tricks": 7, "wins": True, "kot": False}])
    page = opened(new_client, match_id, answer, laid["version"])
    best = page.locator(f"#an-move[data-version='{laid['version']}'] .an-best")
    best.wait_for()
    assert best.inner_text() == ("Best in hindsight: Two of clubs, Four of diamonds; "
                                 "Three of clubs, Four of diamonds")
    page.locator("#lang-select").select_option("fa")
    page.get_by_role("button", name="پنهان کردن تحلیل").wait_for()
    text = page.locator("#an-move .an-best").inner_text()
    assert text.count("؛ ") == 1 and text.count("، ") == 2, text


@pytest.mark.timeout(120)
def test_before_the_first_move_the_graph_names_who_played_the_round(
        new_client: Any, four: tuple[str, dict[str, Any]]) -> None:
    """The four-player ace draw reseats the table before the first round: opened at a step
    before it, the graph of round 1 named its side by the seats' players of that step ("the
    chance that Ali & Maryam win", seats 0 and 2 before the draw), who were not the pair that
    played it.  Before the first move the side is named by who moved in those seats (the
    answer's ``by``)."""
    match_id, canned = four
    answer = copy.deepcopy(canned)
    movers = ["Nima", "Omid", "Parsa", "Roya"]  # as the answer names who moved in each seat
    for r in answer["rounds"]:
        for m in r["moves"]:
            m["by"] = {"name": movers[m["seat"]], "bot": "easy"}
    first = answer["rounds"][0]["moves"][0]["version"]
    page = opened(new_client, match_id, answer, first - 1)
    caption = page.locator("figure.an-graph figcaption strong")
    caption.wait_for()
    assert "Nima & Parsa" in caption.inner_text(), caption.inner_text()
    # from the first move on: the replay's names of the step, as before
    page.goto(f"/replay/{match_id}?analysis=1&step={first}")
    page.locator(f"#an-move[data-version='{first}']").wait_for()
    assert "Nima" not in page.locator("figure.an-graph figcaption strong").inner_text()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_marks_of_costly_moves_side_by_side_do_not_overlap(
        new_client: Any, four: tuple[str, dict[str, Any]], viewport: dict[str, int]) -> None:
    """Two or three costly moves in a row drew their marks over each other ("?!" on "??":
    a walkthrough's finding): each mark's box is clear of every other's, and on the chart."""
    match_id, answer = four
    answer = copy.deepcopy(answer)
    moves = answer["rounds"][0]["moves"]
    for m in moves:
        m["cost"] = None
    priced = [j for j, m in enumerate(moves) if m["win_chance"] is not None][:6]
    for j, cost in zip(priced, ["trick", "round", "kot", "round", "trick", "trick"], strict=True):
        moves[j]["cost"] = cost
    page = new_client(viewport=viewport).page
    serve_canned(page, answer, pending=0)
    page.goto(f"/replay/{match_id}?analysis=1&step={moves[0]['version']}")
    page.locator("svg.an-chart").wait_for()
    boxes = page.eval_on_selector_all(
        "svg.an-chart text.an-pt-mark",
        "(ts) => ts.map((t) => { const b = t.getBoundingClientRect(); "
        "return [b.left, b.top, b.right, b.bottom]; })")
    chart = page.locator("svg.an-chart").bounding_box()
    assert len(boxes) == 6
    for i, a in enumerate(boxes):
        assert chart["y"] - 1 <= a[1] and a[3] <= chart["y"] + chart["height"] + 1, a
        for b in boxes[i + 1:]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (a, b)
