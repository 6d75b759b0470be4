"""``search``: Perfect Information Monte Carlo over the seat's own knowledge.

Contract: as every policy (``base.py``); it reads only ``view`` and ``history``, draws its
randomness only from ``rng`` and is deterministic given them (the budget counts work, not time;
``max_ms`` is an optional, non-deterministic safety stop, off by default).

A card decision:

1. rebuild the seat's knowledge (``knowledge.py``) and translate it to fast cards (``fast.py``);
2. reduce the legal cards to one per run of equivalent cards (``solver.representatives``);
3. sample the hidden hands consistently with it (``sampler.py``: public counts, shown voids) and
   keep, of every ``oversample`` draws, the likeliest by weighted sampling without replacement:
   the weight is the likelihood of the Hakem's trump choice times that of every play seen this
   round under a behaviour model (``inference.py``);
4. score every candidate on every kept deal: with at most ``response_cards`` cards in the
   seat's hand by its best response to heuristic opponents (``response.py``: can the seat win
   the race to seven if the others play the heuristic on what they would know), else with at
   most ``solver_cards`` exactly (``solver.py``: does our side win with best play by all),
   otherwise by a playout in which every seat plays the heuristic on what it would know
   (``playout.py``), to the point where the round's winner is certain; with ``lookahead`` the
   best response decides only after the seat's next card, which is chosen per information set
   on fresh deals (``lookahead.py``; no level uses it); with ``ismcts`` the late cards are decided
   instead by a search over the seat's own information sets (``ismcts.py``; no level uses
   it);
5. race (when ``race > 0``; ``hard`` and ``expert`` do not): deals come in batches, and after
   each batch a candidate whose win total trails the leader's by more than
   ``race * sqrt(deals)`` is dropped, so the budget goes to close calls;
   stop at ``samples`` deals, at the ``work`` budget, or when one candidate is left;
6. play the best mean; candidates within ``tie`` of it go to the heuristic's choice when it is
   among them, else to the lowest card.

Views of the games of two and three players go to the N-seat search instead
(``nseat.search_card``), with a budget derived from the same config.

Naming trump it keeps the heuristic's suit (the five cards only); ``trump_samples > 0`` instead
plays every suit out on the same deals of the 47 unseen cards (measured: no better).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

from engine.cards import NAMES, SUITS

from . import heuristic, ismcts, nseat
from .base import History, View
from .fast import FAST_TABLES, FastState, trick_winner_index, voids_after, winner_decided
from .inference import PlayModel
from .lookahead import lookahead, outcome_value
from .knowledge import FastKnowledge, Knowledge, fast_knowledge, knowledge, mask_of_names
from .playout import heuristic_playout, playout
from .points import utilities
from .sampler import Sampler, walk
from .response import Response
from .solver import Solver, SolverLimit, representatives, stands_for
from .worlds import Worlds

CHAIN_STEP_WORK = 2
"""Work units charged for one step of the Markov chain.  Since the chain keeps each seat's
likelihood factor per hand and runs compiled (issue 15, session 9), a step costs about as much
as two cards played in a playout, whatever the number of plays seen (measured in session 12:
charging the plays seen made the chain's nominal work 20 times its time at two cards in hand, so
a work budget would have cut the round's cheap last decisions and spared its costly ones)."""


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """The budget and switches of one search policy."""

    samples: int = 128
    """Most sampled deals per decision."""
    min_samples: int = 8
    """Deals every candidate is scored on before any is dropped (and before the budget stops
    the search)."""
    batch: int = 8
    """Deals drawn at a time; candidates are raced after each batch."""
    work: int = 90000
    """Budget per decision in work units: a card played in a playout is 1, a node of the exact
    solver or the best response 2, a play replayed to weigh a drawn deal 1, a step of the Markov
    chain ``CHAIN_STEP_WORK`` (compiled, about 1 to 1.8 microseconds a unit on session 12's
    machine).  Checked after each ``batch`` of deals, once ``min_samples`` are scored."""
    small_work: int = 0
    """The work budget the games of two and three players derive their own from
    (``nseat.Budget.of``; 0: ``work``)."""
    race: float = 1.5
    """0: every candidate is scored on every deal.  Else drop a candidate once its win total
    trails the leader's by more than ``race`` times the square root of the deals scored (the
    bound on the standard deviation of the paired sum).  Measured (issue 15): racing cost rounds
    (seed 5, 200 deals: 0.6675 with it, 0.6775 without, the same deals and chain), likely
    because a card dropped on a few deals' evidence can no longer win the tie that goes to the
    heuristic's card."""
    solver_cards: int = 5
    """Solve exactly when the seat holds at most this many cards."""
    solver_nodes: int = 0
    """Most solver nodes per sampled deal (0: no limit); a deal that needs more is scored by
    playouts instead."""
    solver_sure: bool = True
    """Let the solver cut positions where sure trump tricks decide the race (same verdicts,
    fewer nodes; see ``Solver.sure``)."""
    response_cards: int = 8
    """Score a candidate by the side's best response to heuristic opponents (``response.py``)
    when the seat holds at most this many cards (before the exact solver; not with
    ``double_sar``)."""
    response_nodes: int = 0
    """Most best-response nodes per candidate and sampled deal (0: no limit); a search stopped
    there scores a loss (its first line, the heuristic's own cards, lost)."""
    response_partner: bool = False
    """The best response plans the partner's cards too (else the partner plays the heuristic)."""
    worlds: int = 0
    """With the best response: the seat's next ``worlds`` cards are chosen fusion-free, one card
    for all the deals of a batch that show the same plays (``worlds.py``), before each deal is
    finished by the per-deal best response (0: the per-deal best response alone).  The partner
    then plays the heuristic, whatever ``response_partner`` says."""
    playout_response: bool = False
    """Where the heuristic playouts score: stop each playout at the first trick start where the
    seat holds at most ``response_cards`` cards and finish the deal by the seat's best response
    (the partner playing the heuristic), as the seat will from there (else the playout runs to
    the round's end with the seat on the heuristic too).  Not with ``double_sar``."""
    worlds_playout: int = 0
    """Where the heuristic playouts score (more cards than ``response_cards``): the seat's next
    ``worlds_playout`` cards are chosen the same fusion-free way, each deal then finished by a
    heuristic playout (0: playouts alone)."""
    trump_samples: int = 0
    """Deals per suit when naming trump by playouts (0: the heuristic's suit)."""
    trump_margin: float = 0.0
    """Keep the heuristic's suit unless another wins this much more often in the playouts."""
    tie: float = 0.02
    """Candidates within this of the best mean count as equal."""
    rollout: str = "heuristic"
    """Playout policy: ``heuristic`` (every seat plays the heuristic on what it would know) or
    ``rule`` (the perfect-information rule policy)."""
    infer: bool = True
    """Weight sampled deals by how plausible the plays seen are (``inference.py``)."""
    oversample: int = 5
    """With ``infer``: deals drawn per deal kept (kept by weight, without replacement)."""
    chain_thin: int = 0
    """With ``infer``: instead of keeping the likeliest of ``oversample`` draws for each deal,
    walk one Markov chain over the deals (Metropolis: swap a card between two other hands,
    allowed by their shown voids, accepted with the ratio of the likelihoods) and take a deal
    every ``chain_thin`` steps (0: off); the chain starts at the likeliest of ``oversample``
    draws and walks ``chain_burn`` steps first."""
    chain_burn: int = 40
    """With ``chain_thin``: steps before the first deal."""
    chains: int = 1
    """With ``chain_thin``: the deals come from this many chains, each from its own start and
    burn-in, ``samples // chains`` deals each (with ``batch`` a divisor of that), so that one
    chain stuck in one placement of the hidden cards does not make every deal."""
    miss: float = 0.2
    """With ``infer``: the weight factor of a play the behaviour model would not make."""
    partner_miss: float | None = None
    """With ``infer``: the factor for the partner's plays (``None``: ``miss``)."""
    points: bool = False
    """Play for the match, not only the round: a candidate's outcome in a sampled deal is worth
    the side's chance of winning the match from the score it leaves (``points.py``: a kot or a
    Hakem koti above a plain win, being swept below a plain loss, nothing extra when the round
    decides the match).  The best response then also asks whether the side can sweep (when the
    others have no trick yet) or escape a sweep (when the side has none).  Without ``bavney`` and
    ``double_sar`` (otherwise rounds only)."""
    match_aware: bool = True
    """With ``points``: value outcomes by the match chance at the present score (else by points
    alone)."""
    points_margin: float | None = 0.02
    """With ``points``: the round comes first.  The candidates whose round-win rate is within
    this of the best one are compared by their value (a sweep's or an escape's worth), and the
    candidates race on round wins.  Equal to ``tie``, the choice is the one without ``points``
    whenever no sweep is in sight.  ``None``: every candidate by its value alone (a sweep found
    in a sampled deal, where the side plans seeing every card, is more hopeful than at the table:
    measured, that costs about 0.03 of rounds; so does a margin of 0, which loses the tie to
    the heuristic's card)."""
    margin_weight: float = 0.0
    """Weight of the trick margin when the round's winner is certain, next to the 0/1 result."""
    lookahead: int = 0
    """With the best response, at most ``lookahead_cards`` and at least 3 cards in hand: score
    the candidates on this many root deals by ``lookahead.py`` (the seat's next card chosen per
    information set by this search on ``lookahead_samples`` fresh deals; 0: off)."""
    lookahead_cards: int = 6
    """The most cards in hand for ``lookahead``."""
    lookahead_samples: int = 16
    """Deals of each next-decision search of ``lookahead``."""
    lookahead_split: bool = False
    """``lookahead``'s next card valued on other deals than those that chose it."""
    lookahead_margin: float | None = None
    """``None``: ``lookahead`` scores every candidate.  Else the search scores them as without
    it first, and ``lookahead`` (on the first of its deals) decides among those whose round-win
    rate is within this of the best."""
    ismcts: int = 0
    """At most ``ismcts_cards`` and at least 2 cards in hand (not with ``double_sar``): decide
    by ``ismcts.py``'s search over the seat's information sets, this many iterations on
    ``ismcts_deals`` deals of the chain (0: off; no level uses it, issue 15 session 31)."""
    ismcts_cards: int = 6
    """The most cards in hand for ``ismcts``."""
    ismcts_deals: int = 256
    """Deals drawn from the chain (as PIMC draws them) for ``ismcts``, used in turn."""
    ismcts_leaf: str = "response"
    """``ismcts``'s leaf value: ``response`` (the seat's best response on the deal) or
    ``playout`` (a heuristic playout)."""
    ismcts_explore: float = 0.7
    """``ismcts``'s UCB1 exploration constant (values are round wins, 0 or 1)."""
    ismcts_prefer: bool = True
    """``ismcts`` plays the heuristic's card when its mean is within ``tie`` of the mean of the
    most visited card (as PIMC's ties go to it), else the most visited card."""
    ismcts_margin: float | None = None
    """``None``: ``ismcts`` decides among every candidate.  Else the search scores them as
    without it first, and ``ismcts`` decides among those whose round-win rate is within this
    of the best, the search's own card winning ties (issue 15, session 33)."""
    max_ms: float | None = None
    """Stop sampling after this many milliseconds (non-deterministic; off by default)."""
    signal: int = 0
    """A public signalling convention between partners who both play it (0: off; 1: count
    signals, 2: count signals following and discards from the longest side suit, 3: 2 and
    count signals leading low from the longest side suit; see ``heuristic.signal_card``).
    Playing: in a free situation (the heuristic would follow low or throw a card without
    trumping; with 3 also lead low from its longest side suit) the convention's card is played
    when it scores within ``signal_tie`` of the best.  Reading (with ``infer``): the partner's
    free plays are predicted by the convention on each sampled hand, a mismatch weighs
    ``signal_miss`` (with 3, a play of another suit than the convention's weighs
    ``partner_miss``)."""
    signal_tie: float | None = None
    """With ``signal``: how close to the best the convention's card must score (``None``:
    ``tie``)."""
    signal_miss: float = 0.15
    """With ``signal``: the weight factor of a partner's free play that is not the
    convention's card."""


class SearchPolicy:
    """PIMC with heuristic playouts, inference from the plays seen and an exact endgame."""

    def __init__(self, config: SearchConfig | None = None, name: str = "search") -> None:
        self.config = config or SearchConfig()
        self.name = name
        cfg = self.config
        self.small_budget = nseat.Budget.of(cfg.samples, cfg.small_work or cfg.work,
                                             cfg.min_samples)
        """The budget in the games of two and three players (``nseat.search_card``)."""
        self.next_search = None if cfg.lookahead <= 0 else SearchPolicy(replace(
            cfg, samples=cfg.lookahead_samples, batch=cfg.lookahead_samples, chains=1,
            min_samples=min(cfg.min_samples, cfg.lookahead_samples), lookahead=0, worlds=0))
        """The search that decides the seat's next card in ``lookahead``."""

    def choose(self, view: View, history: History, rng: random.Random) -> str:
        if nseat.is_small(view):  # two or three players: the N-seat search
            return nseat.search_choose(view, history, rng, self.small_budget)
        k = knowledge(view, history)
        if k.phase == "choosing_trump":
            return SUITS[self.choose_trump(k, rng)]
        legal = k.legal
        if legal & (legal - 1) == 0:
            return NAMES[(legal & -legal).bit_length() - 1]
        return self.choose_card(k, rng)

    # -- trump ---------------------------------------------------------------------------------

    def choose_trump(self, k: Knowledge, rng: random.Random) -> int:
        """The heuristic's suit, or (``trump_samples``) the suit that wins most playouts over
        deals of the 47 unseen cards, the same deals for every suit."""
        five = k.hand
        best, _ = heuristic.choose_trump(five, k.rules.satat)
        n = self.config.trump_samples
        if n <= 0:
            return best
        seat = k.seat
        unseen = [c for c in range(52) if not five >> c & 1]
        wins = [0, 0, 0, 0]
        hakem_team = seat % 2
        for _ in range(n):
            rng.shuffle(unseen)
            raw = [0, 0, 0, 0]
            raw[seat] = five
            pos = 0
            for off, size in ((0, 8), (1, 13), (2, 13), (3, 13)):
                s = (seat + off) % 4
                for c in unseen[pos:pos + size]:
                    raw[s] |= 1 << c
                pos += size
            for suit in range(4):
                ft = FAST_TABLES[(suit, k.rules.satat)]
                hands = [ft.mask_to_fast(h) for h in raw]
                st = FastState(hands, [], seat, [0, 0], 0, hakem_team, k.rules)
                if self.config.rollout == "heuristic":
                    won = heuristic_playout(st, [0, 0, 0, 0])
                else:
                    won = playout(st)
                if won == hakem_team:
                    wins[suit] += 1
        top = max(range(4), key=lambda s: (wins[s], s == best))
        if wins[top] - wins[best] > self.config.trump_margin * n:
            return top
        return best

    # -- cards ---------------------------------------------------------------------------------

    def choose_card(self, k: Knowledge, rng: random.Random) -> str:
        return self.card_and_rate(k, rng, rate_forced=False)[0]

    def card_and_rate(self, k: Knowledge, rng: random.Random, *, rate_forced: bool = True
                      ) -> tuple[str, float]:
        """The card :meth:`choose_card` plays and the rate the search gave it: its round-win
        rate with ``points``, else its mean score (at least 0).  A card forced up to equivalent
        cards is played without sampling; with ``rate_forced`` it is evaluated alone (twice,
        so the race never drops it) for its rate, else its rate is 0.  The generator is drawn
        from identically up to the choice, so the card is the same either way."""
        cfg = self.config
        f = fast_knowledge(k)
        assert k.trump is not None
        ft = FAST_TABLES[(k.trump, k.rules.satat)]
        candidates = candidate_cards(f)
        if len(candidates) == 1:
            card = NAMES[ft.to_engine[candidates[0]]]
            if not rate_forced:
                return card, 0.0
            forced, forced_wins = self._evaluate(f, candidates * 2, rng)
            return card, max(0.0, (forced_wins or forced)[0])
        h_name, _ = heuristic.decide(k)
        h_card = ft.to_fast[mask_of_names([h_name]).bit_length() - 1]
        h_rep = stands_for(candidates, h_card)
        tree = (cfg.ismcts > 0 and 2 <= f.hand.bit_count() <= cfg.ismcts_cards
                and not k.rules.double_sar)
        if tree and cfg.ismcts_margin is None:
            pick, rate = self._ismcts(f, candidates, h_rep if cfg.ismcts_prefer else -1, rng)
            return NAMES[ft.to_engine[pick]], rate
        scores, wins = self._evaluate(f, candidates, rng)
        rates = wins if wins is not None else scores
        if wins is not None:
            # the round first: only candidates about as likely to win it compete on value
            top = max(wins)
            assert cfg.points_margin is not None
            scores = [s if w >= top - cfg.points_margin else -9.0
                      for s, w in zip(scores, wins, strict=True)]
        best = max(scores)
        close = [c for c, s in zip(candidates, scores, strict=True) if s >= best - cfg.tie]
        pick = h_rep if h_rep in close else min(close, key=lambda c: (c & 15, c))
        sig = self._signal(f, candidates)
        if sig >= 0:
            margin = cfg.tie if cfg.signal_tie is None else cfg.signal_tie
            if scores[candidates.index(sig)] >= best - margin:
                pick = sig
        if tree and cfg.ismcts_margin is not None:
            top = max(rates)
            near = [c for c, r in zip(candidates, rates, strict=True)
                    if r >= top - cfg.ismcts_margin]
            if len(near) > 1:
                pick, rate = self._ismcts(f, near, pick if pick in near else -1, rng)
                return NAMES[ft.to_engine[pick]], rate
        return NAMES[ft.to_engine[pick]], max(0.0, rates[candidates.index(pick)])

    def _signal(self, f: FastKnowledge, candidates: list[int]) -> int:
        """With ``signal``: the candidate that stands for the convention's card when the play
        is free (``heuristic.signal_card``), else -1."""
        mode = self.config.signal
        if mode <= 0 or (not f.trick and mode < 3):
            return -1
        k = f.k
        trick = [c for _, c in f.trick]
        legal = f.legal or f.hand
        leader = f.trick[0][0] if f.trick else k.seat
        choice, reason = heuristic.play(f.hand, legal, f.unseen, f.voids, trick, leader, k.seat)
        card = heuristic.signal_card(mode, f.hand, legal, f.unseen, trick, choice, reason)
        if card < 0:
            return -1
        return stands_for(candidates, card)

    def _evaluate(self, f: FastKnowledge, candidates: list[int], rng: random.Random
                  ) -> tuple[list[float], list[float] | None]:
        """Mean score of every candidate still in the race over the sampled deals; dropped
        candidates score -1 (-9 with ``points``).  Second, with ``points`` and a
        ``points_margin``, each candidate's round-win rate (the race runs on it), else None."""
        cfg = self.config
        k = f.k
        respond = f.hand.bit_count() <= cfg.response_cards and not k.rules.double_sar
        exact = not respond and f.hand.bit_count() <= cfg.solver_cards
        look = (respond and self.next_search is not None
                and 3 <= f.hand.bit_count() <= cfg.lookahead_cards)
        first = look and cfg.lookahead_margin is not None  # the search first, then lookahead
        samples = cfg.lookahead if look and not first else cfg.samples
        root: list[list[int]] = []
        deadline = (time.perf_counter() + cfg.max_ms / 1000.0) if cfg.max_ms else None
        source = _Deals(f, cfg)
        team = k.team
        hakem_team = k.hakem % 2
        trick_cards = [c for _, c in f.trick]
        leader = f.trick[0][0] if f.trick else k.leader
        must_trump = k.rules.must_trump
        heuristic_rollout = cfg.rollout == "heuristic"
        stop = cfg.response_cards if cfg.playout_response and not k.rules.double_sar else 0
        util = None
        if cfg.points and not k.rules.bavney and not k.rules.double_sar:
            util = utilities((k.score[team], k.score[1 - team]), k.target, team == hakem_team,
                             cfg.match_aware)
        totals = [0.0] * len(candidates)
        won_tot = [0.0] * len(candidates)
        lexical = util is not None and cfg.points_margin is not None
        # the voids the others will have seen once the seat plays each candidate
        shown = [voids_after(f.voids, k.seat, trick_cards, c, must_trump) for c in candidates]
        alive = list(range(len(candidates)))
        done = 0
        work = 0
        while done < samples and len(alive) > 1:
            if done >= cfg.min_samples and (work >= cfg.work or (
                    deadline is not None and time.perf_counter() > deadline)):
                break
            worlds, cost = source.draw(min(cfg.batch, samples - done), rng)
            work += cost
            if first:
                root.extend(worlds[:cfg.lookahead - len(root)])
            elif look:
                root.extend(worlds)  # scored together below
                done += len(worlds)
                continue
            if (respond and cfg.worlds > 0) or (
                    not respond and not exact and cfg.worlds_playout > 0):
                work += self._worlds_batch(f, worlds, trick_cards, leader, candidates, alive,
                                           shown, util, totals, won_tot, respond)
                done += len(worlds)
                worlds = []
            for hands in worlds:
                base = FastState(hands, trick_cards[:], leader, list(k.tricks),
                                 k.tricks_played, hakem_team, k.rules, k.pile, k.run_team)
                scored = False
                if respond:
                    # a deal where the search stops at its node limit counts as lost: the
                    # first line searched (the heuristic's cards) lost, and no win was found
                    responder = Response(k.seat, must_trump, cfg.response_partner,
                                         cfg.response_nodes)
                    for i in alive:
                        c = candidates[i]
                        st = base.copy()
                        st.play(c)
                        responder.nodes = 0
                        try:
                            value = _side_value(responder, st, shown[i], util)
                            totals[i] += value
                            won_tot[i] += value >= 1.0
                        except SolverLimit:
                            pass
                        work += 2 * responder.nodes
                    scored = True
                if exact:
                    solver = Solver(team, must_trump, k.rules.double_sar, cfg.solver_nodes,
                                    cfg.solver_sure)
                    results = []
                    try:
                        for i in alive:
                            st = base.copy()
                            st.play(candidates[i])
                            results.append(solver.wins(st))
                        scored = True
                    except SolverLimit:
                        pass
                    work += 2 * solver.nodes
                    if scored:
                        for i, r in zip(alive, results, strict=True):
                            totals[i] += r
                            won_tot[i] += r
                if not scored:
                    for i in alive:
                        c = candidates[i]
                        st = base.copy()
                        st.play(c)
                        won = winner_decided(st)
                        if won is None:
                            before = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
                            if heuristic_rollout:
                                voids = shown[i][:]
                                won = heuristic_playout(st, voids, stop)
                            else:
                                won = playout(st)
                            after = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
                            work += (before ^ after).bit_count()
                            if won < 0:
                                # the seat's best response from here (the partner heuristic)
                                responder = Response(k.seat, must_trump, False)
                                value = _side_value(responder, st, voids, util)
                                work += 2 * responder.nodes
                                totals[i] += value
                                won_tot[i] += value >= 1.0
                                continue
                        score = outcome_value(team, won, st.tricks, util)
                        won_tot[i] += won == team
                        if cfg.margin_weight:
                            score += cfg.margin_weight * (st.tricks[team] - st.tricks[1 - team])
                        totals[i] += score
                done += 1
            if cfg.race <= 0:
                continue
            # race: drop the candidates that trail clearly
            race = won_tot if lexical else totals
            lead = max(race[i] for i in alive)
            gap = cfg.race * done ** 0.5
            alive = [i for i in alive if race[i] >= lead - gap]
        if look and root:
            close = list(range(len(candidates)))
            if first:  # the lookahead decides among the candidates the search left close
                assert cfg.lookahead_margin is not None
                race = won_tot if lexical else totals
                top = max(race)
                close = [i for i in close if race[i] >= top - cfg.lookahead_margin * done]
            if len(close) > 1:
                means, rates = self._lookahead(f, root, candidates, close, shown, util,
                                              rng)
                return means, (rates if lexical else None)
        alive_set = set(alive)
        dropped = -9.0 if util is not None else -1.0
        means = [totals[i] / done if i in alive_set else dropped for i in range(len(candidates))]
        if not lexical:
            return means, None
        return means, [won_tot[i] / done if i in alive_set else -1.0
                       for i in range(len(candidates))]

    def _ismcts(self, f: FastKnowledge, candidates: list[int], prefer: int,
                rng: random.Random) -> tuple[int, float]:
        """The card ``ismcts.py``'s search decides among ``candidates`` and its mean round-win
        value, on ``ismcts_deals`` deals of the chain; ``prefer`` (a candidate, or -1) wins
        when its mean is within ``tie`` of the decided card's."""
        cfg = self.config
        deals = self._chain_deals(f, cfg.ismcts_deals, rng)
        leaf = (ismcts.playout_leaf(f) if cfg.ismcts_leaf == "playout"
                else ismcts.response_leaf(f, len(deals)))
        root = ismcts.search(f, deals, candidates, cfg.ismcts, leaf, cfg.ismcts_explore)
        return ismcts.decide(root, prefer, cfg.tie)

    def _chain_deals(self, f: FastKnowledge, n: int, rng: random.Random) -> list[list[int]]:
        """``n`` deals of the hidden hands drawn as ``_evaluate`` draws them, in batches of
        ``batch``."""
        source = _Deals(f, self.config)
        deals: list[list[int]] = []
        while len(deals) < n:
            deals.extend(source.draw(min(self.config.batch, n - len(deals)), rng)[0])
        return deals

    def _lookahead(self, f: FastKnowledge, root: list[list[int]], candidates: list[int],
                   close: list[int], shown: list[list[int]],
                   util: tuple[float, float, float, float] | None, rng: random.Random
                   ) -> tuple[list[float], list[float]]:
        """The candidates ``close`` (indices) scored by ``lookahead.py`` on the deals ``root``:
        (mean value, round-win rate) per candidate, the others scored as dropped."""
        cfg = self.config
        assert self.next_search is not None
        k = f.k
        must_trump = k.rules.must_trump

        def finish(st: FastState, voids: list[int]) -> float:
            return _side_value(Response(k.seat, must_trump, cfg.response_partner), st, voids,
                               util)

        margin = cfg.points_margin if cfg.points_margin is not None else cfg.tie
        part, part_rates = lookahead(f, root, [candidates[i] for i in close],
                                     [shown[i] for i in close], util,
                                     self.next_search._evaluate, finish, margin, rng,
                                     cfg.lookahead_split)
        means = [-9.0 if util is not None else -1.0] * len(candidates)
        rates = [-1.0] * len(candidates)
        for j, i in enumerate(close):
            means[i], rates[i] = part[j], part_rates[j]
        return means, rates

    def _worlds_batch(self, f: FastKnowledge, worlds: list[list[int]], trick: list[int],
                      leader: int, candidates: list[int], alive: list[int],
                      shown: list[list[int]], util: tuple[float, float, float, float] | None,
                      totals: list[float], won_tot: list[float], respond: bool) -> int:
        """Score the candidates ``alive`` on a batch of deals together, fusion-free
        (``worlds.py``), each deal finished by its best response (``respond``) or by a
        heuristic playout: add to ``totals`` and ``won_tot``; return the work done.  ``trick``
        (not changed) and ``leader`` are the open trick's cards and its leader."""
        k = f.k
        me = k.seat
        team = k.team
        must_trump = k.rules.must_trump
        mine, theirs = k.tricks[team], k.tricks[1 - team]
        responders = [Response(me, must_trump, False) for _ in worlds]
        search = (Worlds(me, must_trump, responders, self.config.worlds) if respond else
                  Worlds(me, must_trump, responders, self.config.worlds_playout, k.rules))
        work = 0
        for i in alive:
            c = candidates[i]
            hands = [h[:] for h in worlds]
            for h in hands:
                h[me] ^= 1 << c
            after = trick + [c]
            if len(after) < 4:
                won = search.wins(hands, after, leader, mine, theirs, shown[i])
            else:
                winner = (leader + trick_winner_index(after)) & 3
                ours = (winner & 1) == team
                won = search.wins(hands, [], winner, mine + ours, theirs + (not ours), shown[i])
            extreme = search.extreme
            for w, h in enumerate(worlds):
                win = bool(won >> w & 1)
                won_tot[i] += win
                if util is None:
                    totals[i] += win
                    continue
                if not respond:
                    sweep = bool(extreme >> w & 1)
                    totals[i] += (util[1] if sweep else util[0]) if win else (
                        util[3] if sweep else util[2])
                    continue
                st = FastState(h[:], trick[:], leader, list(k.tricks), k.tricks_played,
                               k.hakem % 2, k.rules, k.pile, k.run_team)
                st.play(c)
                responder = responders[w]
                t_mine, t_theirs = st.tricks[team], st.tricks[1 - team]
                if win:
                    sweep = (t_theirs == 0 and util[1] > util[0]
                             and responder.sweeps(st, shown[i]))
                    totals[i] += util[1] if sweep else util[0]
                else:
                    swept = (t_mine == 0 and util[3] < util[2]
                             and not responder.escapes(st, shown[i]))
                    totals[i] += util[3] if swept else util[2]
        work += 2 * (search.nodes + sum(r.nodes for r in responders)) + search.cards
        return work


def candidate_cards(f: FastKnowledge) -> list[int]:
    """The seat's legal cards the search tells apart: one card (fast) per run of cards that
    are equivalent given every card still in play (the hand, the unseen, the open trick)."""
    in_play = f.unseen | f.hand
    for _, c in f.trick:
        in_play |= 1 << c
    return representatives(f.legal, in_play)


class _Deals:
    """The hidden hands' deals as the search draws them, a batch at a time, with what they
    cost in work units: from the Metropolis chain (``chain_thin`` steps between deals, a new
    chain of ``oversample`` starts and ``chain_burn`` steps at the first batch and, with
    ``chains``, every ``samples // chains`` deals), else the likeliest of ``oversample`` draws
    a deal by weighted sampling, else plain draws (without inference, or nothing to weigh).
    The generator is drawn from in the same order whoever asks, so the same deals follow."""

    def __init__(self, f: FastKnowledge, cfg: SearchConfig) -> None:
        self.cfg = cfg
        self.sampler = Sampler(f)
        self.model = (PlayModel(f, cfg.miss, cfg.partner_miss, cfg.signal, cfg.signal_miss)
                      if cfg.infer else None)
        self.weigh = (self.model is not None and cfg.oversample > 1
                      and (self.model.active or self.sampler.weigh_trump))
        self.voids = f.voids if self.sampler.ok else [0, 0, 0, 0]
        self.chain: list[int] = []
        self.chain_w = 0.0
        self.drawn = 0

    def draw(self, n: int, rng: random.Random) -> tuple[list[list[int]], int]:
        """The next ``n`` deals and their work units."""
        cfg, sampler, model = self.cfg, self.sampler, self.model
        work = 0
        if self.weigh and cfg.chain_thin > 0:
            assert model is not None
            per_chain = max(1, cfg.samples // cfg.chains)
            if cfg.chains > 1 and self.drawn and self.drawn % per_chain == 0:
                self.chain = []  # a new chain from its own start (see ``chains``)
            if not self.chain:
                for _ in range(cfg.oversample):
                    hands = sampler.sample(rng, tries=0)
                    w = sampler.trump_weight(hands) * model.weight(hands)
                    if w > self.chain_w or not self.chain:
                        self.chain, self.chain_w = hands, w
                self.chain, self.chain_w = _walk(self.chain, self.chain_w, cfg.chain_burn,
                                                 self.voids, sampler, model, rng)
                work += cfg.oversample * len(model.plays) + cfg.chain_burn * CHAIN_STEP_WORK
            worlds = []
            for _ in range(n):
                self.chain, self.chain_w = _walk(self.chain, self.chain_w, cfg.chain_thin,
                                                 self.voids, sampler, model, rng)
                worlds.append(self.chain)
            work += n * cfg.chain_thin * CHAIN_STEP_WORK
        elif self.weigh:
            assert model is not None
            pool = []
            for _ in range(n * cfg.oversample):
                hands = sampler.sample(rng, tries=0)
                w = sampler.trump_weight(hands) * model.weight(hands)
                pool.append((rng.random() ** (1.0 / w), hands))
            work += len(pool) * len(model.plays)
            pool.sort(key=lambda kh: kh[0], reverse=True)
            worlds = [h for _, h in pool[:n]]
        else:
            worlds = [sampler.sample(rng) for _ in range(n)]
        self.drawn += n
        return worlds, work


def _walk(hands: list[int], weight: float, steps: int, voids: list[int], sampler: Sampler,
          model: PlayModel, rng: random.Random) -> tuple[list[int], float]:
    """``steps`` Metropolis steps of the chain over deals (``sampler.py``'s ``walk``) between
    the hands of ``sampler.others``, under ``model`` and the sampler's trump likelihood."""
    return walk(hands, weight, steps, sampler.others, voids, sampler.hakem_seat,
                sampler.hakem_played_trumps, model, rng)


def _side_value(responder: Response, state: FastState, voids: list[int],
                util: tuple[float, float, float, float] | None) -> float:
    """The side's best response in one deal: 1 or 0 without ``util``, else its value
    (``_response_value``)."""
    if util is None:
        return float(responder.wins(state, voids))
    return _response_value(responder, state, voids, util)


def _response_value(responder: Response, state: FastState, voids: list[int],
                    util: tuple[float, float, float, float]) -> float:
    """The best outcome the side can reach against heuristic opponents in one sampled deal:
    ``util`` is (win, sweep, loss, swept); a sweep is asked for only while the others have no
    trick, escaping one only while the side has none."""
    team = responder.team
    mine, theirs = state.tricks[team], state.tricks[1 - team]
    if responder.wins(state, voids):
        if theirs == 0 and util[1] > util[0] and responder.sweeps(state, voids):
            return util[1]
        return util[0]
    if mine == 0 and util[3] < util[2] and not responder.escapes(state, voids):
        return util[3]
    return util[2]


__all__ = ["SearchConfig", "SearchPolicy", "candidate_cards"]
