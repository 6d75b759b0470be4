"""The two- and three-player games in a real browser (issue 13): a player picks each game on the
start page, plays a whole round against easy bots by clicking (the talon game's discards and
keep-or-discard decisions too, some with the keyboard), and at every own decision nothing covers
the trick, the hand or the decision's buttons, and no card the seat may not know is on the page.
The Persian (right-to-left) start page and table render the games too."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import wait_for

from .conftest import DESKTOP, PHONE, ROOT
from .helpers import click_one_move, http, open_room, state
from .test_layout import UNCOVERED_JS

pytestmark = pytest.mark.browser

GAMES = {"simple": "Two players", "talon": "Two players with the talon", "three": "Three players"}
PLAYERS = {"simple": 2, "talon": 2, "three": 3}
STATIC = ROOT / "services" / "gateway" / "static"

# Where a card may be on a player's page: the own hand, the trick, the last trick, the own
# discards, the talon's top card (to the seat drawing), the public card out of play and the draw
# for the first Hakem (banner).  Every hand is shown only once the match is over.
CARDS_JS = """
() => {
  const page = document.querySelector('.table-page');
  const allowed = ['.hand-cards', '.trick', '.last-trick', '#own-discards', '.talon-top',
    '#removed-info', '.banner.draw'].join(', ');
  const stray = [...page.querySelectorAll('[data-card]')].filter((el) => !el.closest(allowed))
    .map((el) => `${el.dataset.card} in ${el.parentElement.className}`);
  return { stray, revealed: page.querySelectorAll('.revealed').length, phase: page.dataset.phase,
    top: document.querySelector('.talon-top [data-card]')?.dataset.card || null,
    drawing: page.dataset.phase === 'drawing' && page.dataset.myTurn === 'true',
    hand: [...document.querySelectorAll('.hand-cards button.card')].map((b) => b.dataset.card),
    discards: [...document.querySelectorAll('#own-discards [data-card]')]
      .map((e) => e.dataset.card) };
}
"""


# Every card element on the page outside the first Hakem's draw (public): its card, whether it is
# visible, and the chain of its containers up to the table (what a failure names).
SHOWN_JS = """
() => [...document.querySelectorAll('.table-page [data-card]')]
  .filter((el) => !el.closest('.banner.draw'))
  .map((el) => {
    const path = [];
    for (let e = el; e && !e.classList.contains('table-page'); e = e.parentElement) {
      path.unshift(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
        + [...e.classList].map((c) => '.' + c).join(''));
    }
    return `${el.dataset.card} (${el.getClientRects().length ? 'visible' : 'not rendered'}) in `
      + path.join(' > ');
  })
"""


def start_solo(page: Any, game: str) -> None:
    page.goto("/")
    page.get_by_label("Your name").fill("Ana")
    page.get_by_role("radio", name=GAMES[game], exact=True).check()
    page.get_by_role("radio", name="Easy").check()
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    page.wait_for_function("() => document.querySelector('.table-page')?.dataset.phase")


def check_table(page: Any, game: str) -> None:
    """The seats and the score follow the game: one per player, nobody a partner."""
    n = PLAYERS[game]
    seen = page.evaluate("""() => ({
      seats: [...document.querySelectorAll('.board .seat:not([hidden])')].map((s) => s.dataset.pos),
      partners: document.querySelectorAll('.badge.partner').length,
      rows: document.querySelectorAll('table.score tbody tr').length,
      removed: [...document.querySelectorAll('#removed-info [data-card]')]
        .map((e) => e.dataset.card),
    })""")
    want = {2: ["top", "bottom"], 3: ["left", "right", "bottom"]}[n]
    assert sorted(seen["seats"]) == sorted(want), seen
    assert seen["partners"] == 0 and seen["rows"] == n, seen
    assert seen["removed"] == (["2C"] if game == "three" else []), seen


def lay_aside(page: Any) -> list[str]:
    """The discard step by clicking: hints on, the hint marks the cards to lay aside; the
    confirm button waits for exactly the cards asked for; a card too many is refused with a
    message; the cards laid aside are then shown as own."""
    panel = page.locator(".talon-choice")
    need = int(re.findall(r"\d+", page.locator("#talon-picked").inner_text())[1])  # "0 of 3"
    assert need in (2, 3)
    page.locator("#hints-toggle").click()
    page.wait_for_function(
        "n => document.querySelectorAll('.hand-cards .card.hinted').length === n", arg=need)
    hinted: list[str] = page.eval_on_selector_all(".hand-cards .card.hinted",
                                                  "els => els.map(e => e.dataset.card)")
    others = page.eval_on_selector_all(".hand-cards button.card:not(.hinted)",
                                       "els => els.map(e => e.dataset.card)")
    cards: list[str] = hinted + others  # the hinted ones are laid aside
    confirm = page.locator("#talon-confirm")
    for i, card in enumerate(cards[:need]):
        assert confirm.is_disabled()
        button = page.locator(f'.hand-cards button.card[data-card="{card}"]')
        if i == 0:  # the keyboard: Enter on a card picks it, and picks it only
            button.focus()
            page.keyboard.press("Enter")
            button.and_(page.locator("[aria-pressed=true]")).wait_for()
        else:
            button.click()
    assert confirm.is_enabled()
    assert page.locator(".hand-cards button.card[aria-pressed=true]").count() == need
    page.locator(f'.hand-cards button.card[data-card="{cards[need]}"]').click()  # one too many
    page.locator("#toast.show").wait_for()
    assert page.locator(".hand-cards button.card[aria-pressed=true]").count() == need
    assert panel.is_visible()
    confirm.click()
    page.wait_for_function(
        "cs => cs.every(c => document.querySelector(`#own-discards [data-card='${c}']`))",
        arg=cards[:need])
    return cards[:need]


def draw_once(page: Any, n: int) -> None:
    """One keep-or-discard decision: the top card is shown to this player only; keep it (it
    joins the hand) or lay it aside (it joins the own discards).  Every other one is made with
    the keyboard: focus is on "Keep it", an arrow moves to "Lay it aside", Enter decides.  The
    third one comes after a reload."""
    seen = page.evaluate(CARDS_JS)
    top = seen["top"]
    assert top and top not in seen["hand"]
    before = state(page)["version"]
    if n == 2:  # a reload mid-talon: the same decision, the same top card, the own discards
        page.reload()
        page.wait_for_function("v => document.querySelector('.table-page')?.dataset.version === v"
                               " && document.querySelector('.talon-top [data-card]')", arg=before)
        again = page.evaluate(CARDS_JS)
        assert (again["top"], again["hand"], again["discards"]) == (
            top, seen["hand"], seen["discards"]), (seen, again)
    keep = n % 2 == 0
    if n == 0:  # hints are on (from the discard step): one of the two choices is suggested
        page.wait_for_function("() => document.querySelectorAll('.talon-choice .hinted').length"
                               " === 1")
    if n % 2:  # the keyboard: the first choice has the focus, the arrows move along
        page.wait_for_function("() => document.activeElement?.dataset.choice === 'keep'")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.activeElement.dataset.choice") == "discard"
        page.keyboard.press("Enter")
    else:
        page.locator('.talon-choice button[data-choice="keep"]').click()
    page.wait_for_function(
        "v => document.querySelector('.table-page').dataset.version !== v", arg=before)
    where = "hand-cards" if keep else "own-discards"
    page.wait_for_function(
        "([c, w]) => document.querySelector(`.${w} [data-card='${c}'], #${w} [data-card='${c}']`)",
        arg=[top, where])


def play_round(page: Any, game: str, shots: Path, timeout: float = 120) -> dict[str, int]:
    """Play by clicking until the second round starts (or the match ends), checking the layout
    and the cards on the page at every own decision."""
    counts = {"checks": 0, "moves": 0, "draws": 0, "discards": 0}
    deadline = time.monotonic() + timeout
    while int(state(page).get("round") or 1) < 2 and state(page).get("phase") != "match_over":
        assert time.monotonic() < deadline, f"{game}: too slow; {counts} state {state(page)}"
        seen = page.evaluate(UNCOVERED_JS)
        if seen is not None:
            assert not seen["problems"], f"{game} {seen['phase']}: {seen['problems']}"
            counts["checks"] += 1
        cards = page.evaluate(CARDS_JS)
        assert not cards["stray"], cards
        assert cards["revealed"] == 0 or cards["phase"] == "match_over", cards
        st = state(page)
        if st.get("myTurn") == "true" and st.get("phase") == "discarding":
            page.screenshot(path=str(shots / f"{game}-discard.png"))
            lay_aside(page)
            counts["discards"] += 1
            check_table(page, game)
        elif cards["drawing"] and cards["top"]:
            if counts["draws"] == 1:
                page.screenshot(path=str(shots / f"{game}-draw.png"))
            draw_once(page, counts["draws"])
            counts["draws"] += 1
        elif click_one_move(page):
            counts["moves"] += 1
            if counts["moves"] == 3:
                check_table(page, game)
                page.screenshot(path=str(shots / f"{game}-playing.png"))
        else:
            time.sleep(0.05)
    return counts


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("game", "viewport", "reduced"), [
    ("simple", DESKTOP, True), ("talon", PHONE, True), ("three", PHONE, False)],
    ids=["simple-desktop", "talon-phone", "three-phone-real-pauses"])
def test_a_round_of_each_game_against_bots_by_clicking(
        new_client: Any, shots: Path, game: str, viewport: dict[str, int],
        reduced: bool) -> None:
    # one with real pauses, as test_layout.py: the first Hakem's draw and the round's result
    # stay up for seconds and must give way to the player's decisions (the others are paced
    # as with prefers-reduced-motion, to keep the suite quick)
    c = new_client(viewport=viewport, reduced=reduced)
    page = c.page
    start_solo(page, game)
    counts = play_round(page, game, shots)
    # a round ends when a player has seven tricks (or, with three, all 17 are played)
    assert counts["moves"] >= 7, counts
    if game == "talon":  # one discard step; 10 or 11 of the talon's 21 turns are this player's
        assert counts["discards"] == 1 and counts["draws"] in (10, 11), counts
    else:
        assert counts["discards"] == counts["draws"] == 0, counts
    result = ".last-result, .banner.result, .banner.over"
    page.wait_for_function("sel => document.querySelector(sel)", arg=result)
    text = page.locator(result).first.inner_text()
    assert not re.search(r"\b(result1?|over1?|kind|talon|game)\.\w+", text), text  # no raw key


@pytest.mark.timeout(120)
def test_the_games_in_persian_right_to_left(new_client: Any) -> None:
    c = new_client(viewport=PHONE, locale="fa-IR")
    page = c.page
    page.goto("/")
    page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    page.locator("#game-choice label strong").first.wait_for()
    labels = page.locator("#game-choice label strong").all_inner_texts()
    assert labels == ["چهار نفره", "دو نفره", "دو نفره با ورق‌های وسط", "سه نفره"], labels
    page.locator("#game-three").check()
    assert "هر کس برای خودش" in page.locator("#solo-desc").inner_text()
    page.locator("input[name=level][value=easy]").check()
    page.locator(".start button.primary").first.click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    page.wait_for_function("() => document.querySelector('.table-page')?.dataset.myTurn === 'true'")
    check_table(page, "three")
    seen = page.evaluate("""() => ({ dir: document.documentElement.dir,
      board: getComputedStyle(document.querySelector('.board')).direction,
      text: document.querySelector('.table-page').innerText,
      width: document.documentElement.scrollWidth })""")
    assert seen["dir"] == "rtl" and seen["board"] == "ltr", seen  # the seats keep their places
    assert seen["width"] <= PHONE["width"], seen
    assert "بیرون از بازی" in seen["text"] and "بازیکن" in seen["text"], seen["text"]
    assert not re.search(r"\b(table|status|talon|game|seat)\.\w+", seen["text"]), seen["text"]


def bots_only(base: str, players: int, rules: dict[str, Any]) -> str:
    """A match of easy bots for ``players`` played to its end (seconds in the embedded server)."""
    created = http(base, "POST", "/api/matches", {
        "players": players, "seats": ["bot:easy"] * players, "rules": {**rules, "target": 7}})
    match_id = str(created["match_id"])
    wait_for(lambda: http(base, "GET", f"/api/matches/{match_id}")["phase"] == "match_over",
             timeout=60, every=0.2, what="the bots-only match is over")
    return match_id


@pytest.mark.timeout(120)
@pytest.mark.parametrize("game", ["talon", "three"])
def test_the_replay_of_a_finished_game(new_client: Any, gateway: str, game: str) -> None:
    """The replay viewer seats two or three players (no empty seat), a side per player in the
    score (a column of players, not of teams), and tells the talon game's steps in words."""
    rules = {"two_player": "talon"} if game == "talon" else {}
    match_id = bots_only(gateway, PLAYERS[game], rules)
    page = new_client(viewport=DESKTOP).page
    page.goto(f"/replay/{match_id}?step=30")
    page.locator("#rp-counter").get_by_text(re.compile(r"30")).wait_for()
    seen = page.evaluate("""() => ({
      seats: [...document.querySelectorAll('.replay .board .seat:not([hidden])')]
        .map((s) => s.querySelector('.name')?.textContent),
      rows: document.querySelectorAll('.replay table.score tbody tr').length,
      column: document.querySelector('.replay table.score thead th').textContent,
      events: document.querySelector('#rp-events').textContent })""")
    assert len(seen["seats"]) == PLAYERS[game] and all(seen["seats"]), seen
    assert seen["rows"] == PLAYERS[game] and seen["column"] == "Player", seen
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", seen["events"]), seen  # no raw event type
    # the step that ends the match: to its winner, two sides the winner's points first
    summary = http(gateway, "GET", f"/api/matches/{match_id}")
    won, score, names = summary["winner"], summary["score"], summary["seats"]
    # (three players: each named with their points in seat order, as the table says it)
    final = " · ".join(f"{s['name']} {p}" for s, p in zip(names, score, strict=True)) \
        if len(score) > 2 else \
        "–".join(str(p) for p in [score[won]] + [p for i, p in enumerate(score) if i != won])
    records = http(gateway, "GET", f"/api/matches/{match_id}/events?since=0")["events"]
    end = next(r["version"] for r in records
               if any(e["type"] == "match_ended" for e in r["events"]))
    page.goto(f"/replay/{match_id}?step={end}")
    page.locator("#rp-events").get_by_text(f"Match to {names[won]['name']} ({final})").wait_for()


@pytest.mark.timeout(120)
def test_a_spectator_of_the_talon_game_sees_no_hidden_card(
        new_client: Any, gateway: str) -> None:
    """While the players lay cards aside and draw, a spectator sees the talon's count and the
    hands' sizes, never a card of them (the server redacts; the page shows what comes)."""
    created = http(gateway, "POST", "/api/matches", {
        "players": 2, "seats": ["human", "bot:easy"], "rules": {"two_player": "talon"}})
    match_id, token = created["match_id"], created["token"]
    page = new_client(viewport=PHONE).page
    page.goto(f"/m/{match_id}")
    page.locator("#watch").click()
    phases = set()
    deadline = time.monotonic() + 90
    while "drawing" not in phases:  # the seat's own decisions, made over HTTP, one by one
        view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)
        v = view["view"]
        assert time.monotonic() < deadline, (
            f"the seat's turn to draw never came: phases seen {sorted(phases)}, last view "
            f"version {view['version']} phase {v['phase']} turn {v.get('turn')} seat {v['seat']}")
        phases.add(v["phase"])
        if v["phase"] in ("discarding", "drawing") and v["turn"] == v["seat"]:
            page.wait_for_function(
                "v => Number(document.querySelector('.table-page')?.dataset.version) >= v",
                arg=view["version"])
            seen = page.evaluate(CARDS_JS)
            shown = page.evaluate(SHOWN_JS)  # the first Hakem's draw is public
            pile = page.locator(".talon-pile").inner_text()
            assert shown == [] and not seen["top"] and not seen["discards"], (
                f"{v['phase']} at version {view['version']}: the spectator's page shows "
                f"{len(shown)} card(s): {shown}; {seen}")
            assert page.locator(".talon-choice").is_hidden() and page.locator(".hand").is_hidden()
            assert str(v["talon"]["left"]) in pile, pile
            if v["phase"] == "drawing":
                break
            cmd = {"type": "discard", "cards": v["hand"][:v["talon"]["discard"]]}
        elif v["phase"] == "choosing_trump" and v["hakem"] == v["seat"]:
            cmd = {"type": "choose_trump", "suit": "S"}
        else:
            time.sleep(0.05)  # a bot's turn: look again
            continue
        http(gateway, "POST", f"/api/matches/{match_id}/commands",
             {**cmd, "version": view["version"], "id": f"c{view['version']}"}, token=token)
    assert {"discarding", "drawing"} <= phases


@pytest.mark.timeout(60)
def test_how_to_play_has_a_section_per_game_in_every_language(
        new_client: Any, gateway: str) -> None:
    """Every language's how-to-play text has the three games with the same parts as English;
    the page shows them, and from a room for three it points to that game's section."""
    texts = {lang: json.loads((STATIC / "howto" / f"{lang}.json").read_text())["variants"]
             for lang in ("en", "de", "sv", "nl", "es", "fa")}
    shape = [(g["id"], len(g["p"]), len(g["list"])) for g in texts["en"]["games"]]
    assert [s[0] for s in shape] == ["simple", "talon", "three"]
    for lang, v in texts.items():
        assert [(g["id"], len(g["p"]), len(g["list"])) for g in v["games"]] == shape, lang
        assert v["title"] and v["intro"], lang
    created = http(gateway, "POST", "/api/matches", {
        "players": 3, "seats": ["human", "human", "bot:easy"]})
    page = new_client(viewport=PHONE, locale="fa-IR").page
    page.goto(f"/how-to-play?match={created['match_id']}")
    for g in texts["fa"]["games"]:
        assert page.locator(f"h3#variant-{g['id']}").inner_text() == g["h"]
    link = page.locator(".room-rules a[href='#variant-three']")
    assert link.inner_text() == "سه نفره"
    assert page.locator(".room-rules dt").count() >= 3  # target, must trump, satat: no teams
    # no rule changed: the house rules are standard (said of the rules, not of the game)
    assert "قوانین خانگی" in page.locator(".room-rules p").nth(1).inner_text()
    assert "rules.teams" not in page.locator(".room-rules").inner_text()


@pytest.mark.timeout(120)
def test_a_room_for_three_created_and_joined_by_invite_link(new_client: Any) -> None:
    """The start page makes a room for three (no teams to choose; seats 2 and 3 only); a friend
    opens the invite link, sees three seats and takes the open one; both play at a three-seat
    table against a bot, and nothing covers the host's trick or hand on the desktop table."""
    host, guest = new_client(viewport=DESKTOP).page, new_client(viewport=PHONE).page
    host.goto("/")
    hint = host.locator("form.room fieldset").nth(1).locator("> p.hint")  # the seats' hint
    host.get_by_role("radio", name="Two players", exact=True).check()
    assert "opposite" in hint.inner_text() and "right" not in hint.inner_text()  # one opponent
    host.get_by_role("radio", name="Three players", exact=True).check()
    assert "to your right" in hint.inner_text()  # the next in playing order
    assert host.get_by_label("Teams").is_hidden() and host.get_by_label("Seat 4").is_hidden()
    link = open_room(host, "Host", {"Seat 2": "human", "Seat 3": "bot:easy"}, "Three players")
    guest.goto(link)
    guest.get_by_role("heading", name="Join the match").wait_for()
    guest.locator(".seat-list li").nth(2).wait_for()
    assert guest.locator(".seat-list li").count() == 3
    guest.get_by_label("Your name").fill("Guest")
    guest.get_by_role("button", name="Take a seat").click()
    moves = 0
    deadline = time.monotonic() + 90
    checks = 0
    while moves < 6:
        assert time.monotonic() < deadline, f"{moves} moves: {state(host)} {state(guest)}"
        seen = host.evaluate(UNCOVERED_JS)
        if seen is not None:
            assert not seen["problems"], seen
            checks += 1
        made = [click_one_move(p) for p in (host, guest)]
        moves += sum(1 for m in made if m)
        if not any(made):
            time.sleep(0.05)
    assert checks >= 1
    for p in (host, guest):
        check_table(p, "three")
        names = p.locator(".seat .name").all_inner_texts()
        assert "Host" in names and "Guest" in names, names
