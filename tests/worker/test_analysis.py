"""The post-match analysis: the solver's tricks, wins and kot against a brute-force minimax on
small endings; a constructed losing move is named; the bot's reported choice is the bot's."""

from __future__ import annotations

import random
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from engine import ChooseTrump, PlayCard, legal_choices
from engine.commands import LeaveSeat, TakeSeat
from engine.cards import NAMES
from engine.rules import Rules
from services.matches import MatchService
from services.store.memory import MemoryStore
from worker.analysis.bot import estimate
from worker.analysis.core import AnalysisConfig, _move, analyse_round
from worker.analysis.exact import Judge, Judged, Outcome, bounded
from worker.policies import MEDIUM, SearchPolicy
from worker.policies.fast import FAST_TABLES, FastState, bits, winner_decided
from worker.policies.solver import SolverLimit

from .helpers import Table, decisions, fast_state, late, leaked, states_by_version

SMALL = AnalysisConfig(nodes=4000, bot=MEDIUM)
"""A small solver budget (the endings are exact, the first tricks mostly judged by playouts)
and the light search as the reported bot."""


class Brute:
    """Every line of play, no pruning and no equivalent cards, one table per side: the most
    tricks the side is sure of before the round ends, whether it wins, whether it sweeps.  Each
    is its own minimax, so one pass takes the maximum (the side to move) or minimum (the others)
    of each component separately."""

    def __init__(self, team: int) -> None:
        self.team = team
        self.memo: dict[tuple[object, ...], tuple[int, int, int]] = {}

    def __call__(self, state: FastState) -> Outcome:
        tricks, wins, kot = self.value(state)
        return Outcome(tricks, bool(wins), bool(kot))

    def value(self, st: FastState) -> tuple[int, int, int]:
        key = (tuple(st.hands), tuple(st.trick), st.leader, tuple(st.tricks))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        team = self.team
        if winner_decided(st) is not None:
            mine, theirs = st.tricks[team], st.tricks[1 - team]
            out = (min(mine, 7), int(mine >= 7), int(mine >= 7 and theirs == 0))
        else:
            children = []
            for c in bits(st.legal()):
                nxt = st.copy()
                nxt.play(c)
                children.append(self.value(nxt))
            pick = max if st.turn & 1 == team else min
            out = (pick(v[0] for v in children), pick(v[1] for v in children),
                   pick(v[2] for v in children))
        self.memo[key] = out
        return out


@pytest.mark.parametrize("rules", [Rules(), Rules(must_trump=True)],
                         ids=["standard", "must_trump"])
def test_outcomes_match_brute_force_on_small_endings(rules: Rules) -> None:
    """Every position from four cards a hand (five in two deals) to the end of the round, in
    random deals and random play: every legal card judged as the analysis judges it."""
    compared = 0
    for seed in range(12):
        table = late(rules, seed, 5 if seed in (0, 9) else 4)
        if table is None:
            continue  # the random play ended this round early: the next seed
        rng = random.Random(seed)
        brutes = [Brute(0), Brute(1)]
        judges = [Judge(rules, 0), Judge(rules, 1)]  # one table per side, as in a round
        while table.live:
            st = fast_state(table)
            team = st.turn & 1
            for c in bits(st.legal()):
                after = st.copy()
                after.play(c)
                assert judges[team].outcome(after) == brutes[team](after), (seed, c)
                compared += 1
            table.act(table.random_move(rng))
    assert compared >= 100



@pytest.mark.parametrize("variant", [{}, {"must_trump": True}, {"double_sar": True}],
                         ids=["standard", "must_trump", "double_sar"])
def test_one_table_serves_the_positions_of_many_deals(variant: dict[str, bool]) -> None:
    """The solver's table holds a verdict for every position with the same lengths and the
    same holders of the top cards it read, whatever deal it came from: one judge a side for
    positions of 50 deals (four cards a hand, from trick starts and inside tricks), each answer
    the brute force's."""
    rules = Rules.from_dict(variant)
    judges = [Judge(rules, 0), Judge(rules, 1)]
    compared = 0
    for seed in range(50):
        table = late(rules, 100 + seed, 4)
        if table is None:
            continue
        rng = random.Random(seed)
        brutes = [Brute(0), Brute(1)]
        for _ in range(3):
            if not table.live:
                break
            st = fast_state(table)
            for team in (0, 1):
                assert judges[team].outcome(st) == brutes[team](st), (seed, team)
                compared += 1
            table.act(table.random_move(rng))
    assert compared >= 150
    assert all(judge.solver.memo for judge in judges)

def test_a_sweep_and_its_refutation() -> None:
    """Six tricks to none, seven cards each: seat 0 holds the seven top trumps (a kot for its
    side), or six of them with the top one at seat 1 (a win, no kot, one trick for the
    others)."""
    rules = Rules()
    low = [0, sum(1 << c for c in range(7)), sum(1 << c for c in range(16, 23)),
           sum(1 << c for c in range(32, 39))]
    sweep = [sum(1 << c for c in range(57, 64)), *low[1:]]
    st = FastState(sweep, [], 0, [6, 0], 6, 0, rules)
    assert Judge(rules, 0).outcome(st) == Outcome(7, True, True)
    assert Judge(rules, 1).outcome(st) == Outcome(0, False, False)
    one = [sum(1 << c for c in range(56, 63)), (1 << 63) | sum(1 << c for c in range(6)),
           *low[2:]]
    st = FastState(one, [], 0, [6, 0], 6, 0, rules)
    assert Judge(rules, 0).outcome(st) == Outcome(7, True, False)
    assert Judge(rules, 1).outcome(st) == Outcome(1, False, False)


def play_round(seed: int, blunder: bool) -> tuple[MemoryStore, str, int | None]:
    """Round 0 of a match with a stacked deck, random legal play; with ``blunder``, at the first
    position (four cards a hand or fewer) where some card wins the round for the mover's side
    and another loses it (said by the brute force, not the solver), the losing card is played.
    Returns the store, the match and the blunder's version."""
    store = MemoryStore()
    service = MatchService(store, allow_stacked=True)
    deck = list(NAMES)
    random.Random(seed).shuffle(deck)
    match_id = service.create(seats=["human"] * 4, first_hakem=0, decks=[deck])["match_id"]
    for i in range(3):
        service.join(match_id, f"P{i}")
    rng = random.Random(seed)
    made: int | None = None
    while True:
        loaded = service.load(match_id)
        state = loaded.state
        if state.deal.round_no > 1 or state.match.result is not None:
            return store, match_id, made
        seat = service.next_actor(state)
        assert seat is not None
        choices = legal_choices(state, seat)
        choice = rng.choice(choices)
        if blunder and made is None and state.phase == "playing" \
                and state.hand(seat).bit_count() <= 4:
            table = Table(state.rules)
            table.state = state
            st = fast_state(table)
            brute = Brute(seat & 1)
            outcomes = {}
            for c in bits(st.legal()):
                after = st.copy()
                after.play(c)
                outcomes[c] = brute(after).wins
            if any(outcomes.values()) and not all(outcomes.values()):
                assert state.deal.trump is not None
                ft = FAST_TABLES[(state.deal.trump, state.rules.satat)]
                choice = NAMES[ft.to_engine[min(c for c, w in outcomes.items() if not w)]]
                made = loaded.version + 1
        command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
        service.handle(match_id, seat, command, version=loaded.version)


def test_a_constructed_losing_move_is_named() -> None:
    for seed in range(20):
        store, match_id, made = play_round(seed, blunder=True)
        if made is not None:
            break
    assert made is not None, "no seed of 20 had a position to blunder in"
    result = analyse_round(store.read(match_id), 0, SMALL)
    by_version = {m["version"]: m for m in result["moves"]}
    move = by_version[made]
    assert move["cost"] == "round" and move["exact"]
    alternatives = {a["card"]: a for a in move["alternatives"]}
    assert not alternatives[move["played"]]["wins"]
    assert move["best"] and all(alternatives[c]["wins"] for c in move["best"])
    assert result["seats"][move["seat"]]["cost_round"] >= 1
    # a move is only marked when it was judged exactly and lost something against the best
    assert sum(m["exact"] for m in result["moves"]) >= 12
    for m in result["moves"]:
        alts = {a["card"]: a for a in m["alternatives"]}
        mine, top = alts[m["played"]], alts[m["best"][0]]
        lost = (top["wins"] > mine["wins"] or top["kot"] > mine["kot"]
                or top["tricks"] > mine["tricks"])
        if m["exact"]:
            assert (m["cost"] is not None) == lost
        elif m["cost"] is not None:  # named from the bounds: the shown outcomes agree
            assert lost


@given(hs.integers(0, 6), hs.integers(0, 7), hs.booleans(), hs.booleans(), hs.integers(0, 5))
def test_bounds_hold_wherever_the_budget_stops_the_questions(
        mine: int, best: int, clean: bool, sweep: bool, answered: int) -> None:
    """``bounded`` with questions that answer as a side that reaches ``best`` tricks at most
    (7: it wins, and sweeps when ``sweep`` and no other side counts one) and stop at the budget
    after ``answered`` answers: the true outcome lies within the bounds, which meet once every
    question was answered."""
    best = max(best, mine)
    truth = Outcome(best, best == 7, best == 7 and clean and sweep)
    asked = [0]

    def ask(answer: bool) -> bool:
        asked[0] += 1
        if asked[0] > answered:
            raise SolverLimit
        return answer

    low, high = bounded(mine, clean, 7, lambda k: ask(k <= best), lambda: ask(truth.kot))
    assert low.rank() <= truth.rank() <= high.rank()
    for o in (low, high):  # each bound an outcome best play could have
        assert (o.wins == (o.tricks == 7)) and (not o.kot or o.wins) and (clean or not o.kot)
    if asked[0] <= answered:  # nothing stopped
        assert low == truth == high


@pytest.mark.parametrize("rules", [Rules(), Rules(must_trump=True), Rules(double_sar=True)],
                         ids=["standard", "must_trump", "double_sar"])
def test_a_budget_leaves_bounds_that_hold_and_costs_that_are_exact(rules: Rules) -> None:
    """Every legal card of the first decisions from seven cards a hand, judged under budgets of
    20 to 2,000 nodes a question: best play (the unbounded judge, itself checked against the
    brute force above) lies within the bounds, the outcome shown too, and a cost named from the
    bounds is the cost the exact judgements name, whichever card was played.  The budgets leave
    some judgements partly settled (the round or some tricks known, not all) and name some costs
    on moves that are not exact."""
    partial = named = compared = 0
    for seed in range(12):
        table = late(rules, 300 + seed, 7)
        if table is None:
            continue
        rng = random.Random(seed)
        truths = [Judge(rules, 0), Judge(rules, 1)]
        budgets = {nodes: [Judge(rules, 0, nodes), Judge(rules, 1, nodes)]
                   for nodes in (20, 60, 200, 600, 2000)}
        for _ in range(6):
            if not table.live:
                break
            st = fast_state(table)
            team = st.turn & 1
            exact: dict[str, Judged] = {}
            bounded: dict[int, dict[str, Judged]] = {nodes: {} for nodes in budgets}
            for c in bits(st.legal()):
                after = st.copy()
                after.play(c)
                truth = truths[team].outcome(after)
                exact[str(c)] = Judged(truth, truth, truth)
                for nodes, judges in budgets.items():
                    j = judges[team].judge(after)
                    assert j.low.rank() <= truth.rank() <= j.high.rank(), (seed, c, nodes)
                    assert j.low.rank() <= j.outcome.rank() <= j.high.rank()
                    partial += not j.exact and j.low.rank() > (False, False, after.tricks[team])
                    bounded[nodes][str(c)] = j
                    compared += 1
            for played in exact:  # every card as the one played
                cost = _move("play", played, exact)["cost"]
                for judged in bounded.values():
                    move = _move("play", played, judged)
                    if move["cost"] is not None:
                        assert move["cost"] == cost, seed
                        named += not move["exact"]
            table.act(table.random_move(rng))
    assert compared >= 500 and partial >= 5 and named >= 5, (compared, partial, named)


def test_the_reported_choice_is_the_bots_own() -> None:
    """``estimate`` answers what ``SearchPolicy.choose`` plays on the same seed, from the view
    and history of the seat only."""
    store, match_id, _ = play_round(5, blunder=False)
    checked = 0
    for _, view, history, version in decisions(store.read(match_id), 4):
        policy = SearchPolicy(MEDIUM, "medium")
        played = policy.choose(view, list(history), random.Random(version))
        choice, chance = estimate(policy, view, history, random.Random(version))
        assert choice == played and 0.0 <= chance <= 1.0
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def test_the_bot_sees_only_what_its_seat_saw(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every view and history the analysis hands the bot: no card the seat could not know (the
    other hands, the undealt cards) anywhere in the view or in the events of the round so far."""
    from tests.gateway.helpers import hidden_from
    from worker.analysis import core

    store, match_id, _ = play_round(7, blunder=False)
    records = store.read(match_id)
    states = states_by_version(records)
    seen: list[tuple[dict[str, object], list[dict[str, object]]]] = []
    real = core.estimate

    def spy(policy: SearchPolicy, view: dict[str, object], history: list[dict[str, object]],
            rng: random.Random) -> tuple[str, float]:
        seen.append((view, history))
        return real(policy, view, history, rng)

    monkeypatch.setattr(core, "estimate", spy)
    analyse_round(records, 0, AnalysisConfig(nodes=2000, bot=MEDIUM))
    assert len(seen) > 20
    for view, history in seen:
        before = states[int(view["version"])]  # type: ignore[call-overload]
        hidden = hidden_from(before, int(view["seat"]))  # type: ignore[call-overload]
        assert hidden  # the other hands are there to leak
        assert not leaked(hidden, view, history), view["version"]


def test_a_seat_that_changed_hands_names_each_player() -> None:
    """The finding (QA): the per-seat summary was named after whoever sat there at the replay's
    step, so a bot that took over a seat mid-match was shown with its predecessor's moves.  Each
    move says who made it and the summary splits a seat's counts by player, in order."""
    store = MemoryStore()
    service = MatchService(store, allow_stacked=True)
    deck = list(NAMES)
    random.Random(5).shuffle(deck)
    match_id = service.create(seats=["human"] * 4, first_hakem=0, decks=[deck])["match_id"]
    for i in range(3):
        service.join(match_id, f"P{i}")
    rng = random.Random(5)
    left = False
    while True:
        loaded = service.load(match_id)
        state = loaded.state
        if state.deal.round_no > 1 or state.match.result is not None:
            break
        if not left and state.tricks_played == 2 and not state.trick:
            # seat 1's player leaves between tricks and a bot takes the seat
            service.handle(match_id, None, LeaveSeat(1, then=TakeSeat(1, "Kian", "bot-1",
                                                                      "medium")),
                           version=loaded.version)
            left = True
            continue
        seat = service.next_actor(state)
        assert seat is not None
        choice = rng.choice(legal_choices(state, seat))
        command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
        service.handle(match_id, seat, command, version=loaded.version)
    assert left
    result = analyse_round(store.read(match_id), 0, AnalysisConfig(nodes=300, bot=MEDIUM))
    by_seat1 = [m["by"] for m in result["moves"] if m["seat"] == 1]
    assert by_seat1[0] == {"name": "P0", "bot": None}
    assert by_seat1[-1] == {"name": "Kian", "bot": "medium"}
    before = sum(b == by_seat1[0] for b in by_seat1)
    assert before == 2  # two tricks played before the seat changed hands
    seat1 = result["seats"][1]
    assert [(p["name"], p["bot"], p["moves"]) for p in seat1["players"]] == [
        ("P0", None, 2), ("Kian", "medium", len(by_seat1) - 2)]
    assert sum(p["moves"] for p in seat1["players"]) == seat1["moves"]
    assert [len(s["players"]) for s in result["seats"]] == [1, 2, 1, 1]


@pytest.mark.parametrize("hakem", [0, 1])
def test_the_chance_is_the_movers_sides_from_either_partner(hakem: int) -> None:
    """The reported chance is the probability that the mover's own side wins the round (not a
    points value, not the other side's): the Hakem holds all thirteen trumps and has taken six
    tricks to none, so in the seventh trick each partner of the Hakem's side estimates above 0.9
    and each defender below 0.1, whichever side the Hakem sits on."""
    from engine.deal import owner_offsets
    from worker.policies import HARD, policy_for

    rules = Rules()
    offsets = owner_offsets(rules.deal, 4)
    spades = [n for n in NAMES if n.endswith("S")]
    rest = [n for n in NAMES if not n.endswith("S")]
    deck = tuple(spades.pop() if o == 0 else rest.pop() for o in offsets)
    table = Table(rules, hakem=hakem)
    table.deal(deck)
    heuristic = policy_for("heuristic")
    rng = random.Random(3)
    while table.state.tricks_played < 6:
        seat = table.state.turn
        assert seat is not None
        table.act(heuristic.choose(table.view(seat), table.histories[seat], rng))
    assert table.state.deal.trump == 0 and list(table.state.tricks)[hakem % 2] == 6
    policy = SearchPolicy(HARD, "hard")
    for _ in range(4):
        seat = table.state.turn
        assert seat is not None
        _, chance = estimate(policy, table.view(seat), table.histories[seat],
                             random.Random(seat))
        if seat % 2 == hakem % 2:
            assert chance > 0.9, (seat, chance)
        else:
            assert chance < 0.1, (seat, chance)
        table.act(heuristic.choose(table.view(seat), table.histories[seat], rng))
