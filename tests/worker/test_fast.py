"""The fast bit-mask model (``worker.policies.fast``) and the solver agree with the engine."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CARD_INDEX, NAMES, Rules
from engine.cards import cards_of
from engine.events import RoundEnded, TrickWon
from engine.state import PLAYING, TRUMP_TABLES
from engine.views import legal_mask
from worker.policies.fast import (
    FAST_TABLES,
    FastState,
    legal,
    quick_tricks,
    sure_tricks,
    trick_winner_index,
    winner_decided,
)
from worker.policies.playout import choose, playout
from worker.policies.solver import Solver, SolverLimit, representatives

from .helpers import Table, fast_state, late, random_deck, reach, rules_strategy


def test_tables_keep_the_engine_order() -> None:
    for (trump, satat), ft in FAST_TABLES.items():
        et = TRUMP_TABLES[(trump, satat)]
        assert sorted(ft.to_fast) == sorted(set(ft.to_fast))
        for c in range(52):
            f = ft.to_fast[c]
            assert ft.to_engine[f] == c
            assert (f >= 48) == (et.eff_suit[c] == trump)
            for d in range(52):
                if et.eff_suit[c] == et.eff_suit[d]:
                    assert (ft.to_fast[c] > ft.to_fast[d]) == (et.power[c] > et.power[d])
        mask = random.Random(trump).getrandbits(52)
        assert ft.mask_to_engine(ft.mask_to_fast(mask)) == mask


@settings(max_examples=200, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_fast_model_plays_rounds_like_the_engine(rules: Rules, seed: int) -> None:
    """Same legal cards, trick winners, counted tricks, pile and round result, card by card."""
    rng = random.Random(seed)
    table = Table(rules, hakem=rng.randrange(4))
    table.deal(random_deck(rng))
    table.act("SHDC"[rng.randrange(4)])
    fs = fast_state(table)
    s = table.state
    assert s.deal.trump is not None
    ft = FAST_TABLES[(s.deal.trump, rules.satat)]
    while table.state.phase == PLAYING:
        s = table.state
        seat = s.turn
        assert seat is not None and fs.turn == seat
        assert ft.mask_to_engine(fs.legal()) == legal_mask(s, seat)
        card = rng.choice(cards_of(legal_mask(s, seat)))
        events = table.act(NAMES[card])
        won = fs.play(ft.to_fast[card])
        trick_won = [e for e in events if isinstance(e, TrickWon)]
        assert (won is None) == (not trick_won)
        if trick_won:
            assert won == trick_won[0].seat
        s = table.state
        assert [ft.mask_to_engine(h) for h in fs.hands] == list(s.hands)
        assert fs.tricks == list(s.tricks) and fs.played == s.tricks_played
        assert fs.pile == s.pile and fs.run_team == s.run_team
        ended = [e for e in events if isinstance(e, RoundEnded)]
        if ended:
            e = ended[0]
            assert fs.result == (e.winner, e.points, e.kind)
            assert winner_decided(fs) == e.winner
        else:
            assert fs.result is None
            decided = winner_decided(fs)
            if decided is not None:  # bavney: the round goes on, its winner is already known
                assert rules.bavney and max(fs.tricks) >= 7
    assert table.state.phase != PLAYING


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 45))
def test_rule_policy_and_legal_cards(rules: Rules, seed: int, steps: int) -> None:
    table = reach(rules, seed, steps)
    if table.state.phase != PLAYING:
        return
    fs = fast_state(table)
    s = table.state
    assert s.deal.trump is not None and s.turn is not None
    ft = FAST_TABLES[(s.deal.trump, rules.satat)]
    card = choose(fs.hands, fs.trick, fs.leader, fs.turn, rules.must_trump)
    assert legal_mask(s, s.turn) >> ft.to_engine[card] & 1
    assert legal(fs.hands[fs.turn], fs.trick, rules.must_trump) == fs.legal()
    won = playout(fs.copy())
    assert won in (0, 1)
    if fs.trick:
        assert 0 <= trick_winner_index(fs.trick) < len(fs.trick)


def _brute(fs: FastState, team: int) -> bool:
    """Minimax over every legal card (no pruning, no equivalences)."""
    decided = winner_decided(fs)
    if decided is not None:
        return decided == team
    ours = fs.turn & 1 == team
    outcomes = []
    m = fs.legal()
    for c in cards_of_fast(m):
        child = fs.copy()
        child.play(c)
        outcomes.append(_brute(child, team))
    return any(outcomes) if ours else all(outcomes)


def cards_of_fast(mask: int) -> list[int]:
    return [i for i in range(64) if mask >> i & 1]


@settings(max_examples=150, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 3))
def test_solver_matches_brute_force_on_engine_endgames(rules: Rules, seed: int, extra: int) -> None:
    """Reach a late position through the engine; the solver's verdict for both teams equals
    plain minimax, and its card equivalences never change the value."""
    rng = random.Random(seed)
    table = Table(rules, hakem=rng.randrange(4))
    table.deal(random_deck(rng))
    table.act("SHDC"[rng.randrange(4)])
    # play until at most 3 cards a hand remain (plus a few cards into the trick)
    while table.state.phase == PLAYING and (
            max(h.bit_count() for h in table.state.hands) > 3 or extra > 0):
        if max(h.bit_count() for h in table.state.hands) <= 3:
            extra -= 1
        s = table.state
        assert s.turn is not None
        table.act(NAMES[rng.choice(cards_of(legal_mask(s, s.turn)))])
    if table.state.phase != PLAYING:
        return
    fs = fast_state(table)
    for team in (0, 1):
        truth = _brute(fs, team)
        assert Solver(team, rules.must_trump, rules.double_sar).wins(fs.copy()) == truth
        assert Solver(team, rules.must_trump, rules.double_sar, sure=True).wins(fs.copy()) == truth
    # exactly one side wins with best play from both
    assert Solver(0, rules.must_trump, rules.double_sar).wins(fs.copy()) != \
        Solver(1, rules.must_trump, rules.double_sar).wins(fs.copy())


def test_representatives_keep_one_card_per_run() -> None:
    ft = FAST_TABLES[(0, False)]  # spades trump
    hand = ft.mask_to_fast(sum(1 << CARD_INDEX[c] for c in ("9H", "TH", "KH", "2D")))
    others = ft.mask_to_fast(sum(1 << CARD_INDEX[c] for c in ("QH", "3H", "5D")))
    reps = representatives(hand, hand | others)
    names = sorted(NAMES[ft.to_engine[c]] for c in reps)
    assert names == ["2D", "9H", "KH"]  # 9H-TH touch (no card in play between them)
    # with JH in the open trick, TH and KH stay apart from it but 9H-TH still touch
    in_play = hand | others | (1 << ft.to_fast[CARD_INDEX["JH"]])
    assert sorted(NAMES[ft.to_engine[c]] for c in representatives(hand, in_play)) == names


def _cashes(hands: list[int], leader: int, friend: int, q: int, must_trump: bool,
            trick: list[int] | None = None) -> bool:
    """Plain minimax: can ``leader`` win the next ``q`` tricks itself, one after another, with
    ``friend`` (or nobody, -1) on its side and every other seat against it?"""
    trick = trick or []
    n = len(hands)
    if len(trick) == n:
        if (leader + trick_winner_index(trick)) % n != leader:
            return False
        return q == 1 or _cashes(hands, leader, friend, q - 1, must_trump)
    if q == 0:
        return True
    seat = (leader + len(trick)) % n
    outcomes = []
    for c in cards_of_fast(legal(hands[seat], trick, must_trump)):
        hands[seat] ^= 1 << c
        outcomes.append(_cashes(hands, leader, friend, q, must_trump, trick + [c]))
        hands[seat] ^= 1 << c
    return any(outcomes) if seat in (leader, friend) else all(outcomes)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4), size=st.integers(1, 4),
       suits=st.integers(2, 4), must_trump=st.booleans())
def test_quick_tricks_are_cashed_whatever_the_others_play(seed: int, n: int, size: int,
                                                          suits: int, must_trump: bool) -> None:
    """The leader's counted winners are won by it, one trick after another, however the other
    seats play (its partner on its side only where no rule makes a void hand trump); deals from
    few suits, so that voids and ruffs are common."""
    rng = random.Random(seed)
    ft = FAST_TABLES[(rng.randrange(4), False)]
    kept = rng.sample(range(4), suits)
    pool = [ft.to_fast[c] for c in range(52) if c // 13 in kept]
    cards = rng.sample(pool, n * size)
    hands = [sum(1 << c for c in cards[i * size:(i + 1) * size]) for i in range(n)]
    leader = rng.randrange(n)
    friend = (leader + 2) % n if n == 4 and not must_trump else -1
    q = quick_tricks(hands, leader, friend)
    assert 0 <= q <= size
    assert _cashes(hands[:], leader, friend, q, must_trump)



def _small_shuffled(hands: list[int], read: int, rng: random.Random) -> list[int]:
    """The hands with the cards below what a table entry reads (``read``, closed as the
    solvers close it) dealt again at random among their holders, each hand keeping its length
    in every suit: a position that entry would match."""
    from worker.policies.fast import BLOCK
    from worker.policies.solver import top_closed

    in_play = 0
    for h in hands:
        in_play |= h
    read = top_closed(read, hands, in_play)
    out = [h & read for h in hands]
    for block in BLOCK:
        small = [c for c in range(64) if (in_play & ~read & block) >> c & 1]
        holders = [i for i, h in enumerate(hands) for c in small if h >> c & 1]
        rng.shuffle(holders)
        for c, i in zip(small, holders, strict=True):
            out[i] |= 1 << c
    return out


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4), size=st.integers(1, 13),
       must_trump=st.booleans())
def test_the_cuts_read_only_the_cards_they_name(seed: int, n: int, size: int,
                                                must_trump: bool) -> None:
    """What the solvers' tables store a cut's verdict under: the leader's cashable winners
    (``quick_rel``) and a side's sure trumps (``sure_rel``), at least as many as needed, hold
    in every position with the same lengths and the same holders of the cards named (the
    small cards dealt again)."""
    from worker.policies.solver import quick_rel, sure_rel

    rng = random.Random(seed)
    ft = FAST_TABLES[(rng.randrange(4), False)]
    cards = rng.sample([ft.to_fast[c] for c in range(52)], n * size)
    hands = [sum(1 << c for c in cards[i * size:(i + 1) * size]) for i in range(n)]
    leader = rng.randrange(n)
    friend = (leader + 2) % n if n == 4 and not must_trump else -1
    quick = quick_tricks(hands, leader, friend)
    need = rng.randint(1, max(1, quick))
    other = _small_shuffled(hands, quick_rel(hands, leader, friend, need), rng)
    assert quick_tricks(other, leader, friend) >= min(need, quick)
    other = _small_shuffled(hands, quick_rel(hands, leader, friend, quick), rng)
    assert quick_tricks(other, leader, friend) >= quick
    if n == 4:
        for team in (0, 1):
            sure = sure_tricks(hands, team)[0]
            need = rng.randint(1, max(1, sure))
            other = _small_shuffled(hands, sure_rel(hands, team, need), rng)
            assert sure_tricks(other, team)[0] >= min(need, sure)


def test_quick_tricks_stop_where_a_void_hand_can_ruff() -> None:
    """Spades trump: the two top trumps count; the ace of hearts does not while the next seat,
    void in hearts, holds a trump, and does once that trump is gone."""
    ft = FAST_TABLES[(0, False)]

    def f(*names: str) -> int:
        return sum(1 << ft.to_fast[CARD_INDEX[n]] for n in names)

    hands = [f("AS", "KS", "AH"), f("2S", "3D", "4D"), f("5H", "6H", "7H")]
    assert quick_tricks(hands, 0, -1) == 2
    hands[1] = f("2C", "3D", "4D")
    assert quick_tricks(hands, 0, -1) == 3
    assert quick_tricks(hands, 2, -1) == 0  # the ace of hearts is out against its hearts


def test_solver_finds_a_forced_win() -> None:
    """Seat 0 leads with the two top trumps: its side wins the last two tricks it needs."""
    ft = FAST_TABLES[(0, False)]

    def f(*names: str) -> int:
        return sum(1 << ft.to_fast[CARD_INDEX[n]] for n in names)

    hands = [f("AS", "KS"), f("2H", "3H"), f("4H", "5H"), f("6H", "7H")]
    fs = FastState(hands, [], 0, [5, 6], 11, 0, Rules())
    assert Solver(0, False, False).wins(fs)
    assert not Solver(1, False, False).wins(fs)


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), cards=st.integers(3, 6))
def test_solver_cuts_keep_the_verdict(rules: Rules, seed: int, cards: int) -> None:
    """The sure-trump cut (``sure``) gives the plain solver's verdict (not always in fewer
    nodes: what a cut reads can make the entries above it match fewer positions than the search
    it replaces would; on the analysis's match it saves 8 % of the nodes); a node limit raises
    ``SolverLimit`` and leaves a solver whose table still answers exactly."""
    table = late(rules, seed, cards)
    if table is None:
        return
    fs = fast_state(table)
    for team in (0, 1):
        plain = Solver(team, rules.must_trump, rules.double_sar)
        cut = Solver(team, rules.must_trump, rules.double_sar, sure=True)
        verdict = plain.wins(fs.copy())
        assert cut.wins(fs.copy()) == verdict
        if cut.nodes > 2:
            limited = Solver(team, rules.must_trump, rules.double_sar, limit=2, sure=True)
            with pytest.raises(SolverLimit):
                limited.wins(fs.copy())
            limited.limit = 0
            assert limited.wins(fs.copy()) == verdict


def test_table_key_is_the_shape_of_the_hands() -> None:
    """Hands that differ only in which of two adjacent cards (nothing in play between them) is
    left share the suits' codes and lengths; moving a card between hands, or past another card,
    changes them; a code's top digits are the holders of the top cards."""
    from worker.policies.solver import suit_codes

    def _key(hands: list[int]) -> tuple[list[int], int]:
        return suit_codes(hands)

    assert suit_codes([0b0100, 0b0001, 0b1000, 0])[0][0] == 0b1_10_00_01  # seat 2, 0, 1

    base = [0b0001, 0b0100, 0b1000, 0b10000 << 16]
    swapped = [0b0010, 0b0100, 0b1000, 0b10000 << 16]  # 2 -> 3: still below seat 1's card
    assert _key(base) == _key(swapped)
    assert _key(base) != _key([0b0100, 0b0001, 0b1000, 0b10000 << 16])
    assert _key(base) != _key([0b1_0000, 0b0100, 0b1000, 0b10000 << 16])  # now above seat 2


@pytest.mark.parametrize("variant", [{}, {"must_trump": True}, {"double_sar": True}],
                         ids=["standard", "must_trump", "double_sar"])
def test_a_table_of_winning_ranks_gives_the_whole_keys_verdicts(variant: dict[str, bool]) -> None:
    """One solver a side, its table shared by positions of 70 random deals (seven or eight cards
    a hand, some inside a trick, head starts of 0 to 3 tricks), answers as a fresh solver whose
    table keys every card in play (``whole``; checked against brute force above): a verdict
    stored for the top cards it read is never applied where it does not hold."""
    rules = Rules.from_dict(variant)
    shared = [Solver(team, rules.must_trump, rules.double_sar, sure=True) for team in (0, 1)]
    compared = 0
    for seed in range(70):
        table = late(rules, 500 + seed, 7 + seed % 2)
        if table is None:
            continue
        rng = random.Random(seed)
        for _ in range(seed % 3):
            if table.live:
                table.act(table.random_move(rng))
        if not table.live:
            continue
        fs = fast_state(table)
        for team in (0, 1):
            for head in range(4):
                st = fs.copy()
                st.tricks[team] += head
                whole = Solver(team, rules.must_trump, rules.double_sar, sure=True, whole=True)
                assert shared[team].wins(st.copy()) == whole.wins(st.copy()), (seed, team, head)
                compared += 1
    assert compared >= 400
