"""``greedy``: a rule-based Euchre player that reads only its own view.

* Bidding: each suit's strength is the sum of its trumps (right bower 3, left bower 2.5, ace 2,
  king 1.6, queen 1.4, 10 1.2, 9 1), off-suit aces (1) and off-suit voids (0.6 each when holding
  two trumps or more). In the first round the up-card counts for the dealer's team (fully for the
  dealer, who picks it up and drops a loser; half for the dealer's partner) and against the other
  team (half). The bot makes trump at 7.5 or more (in the second round 7 or more), and goes alone
  at 7 or more with no losing off-suit card (every card a trump or an off-suit ace: the right
  bower, two small trumps and two aces is 7.8), except the dealer's partner in the first round
  (docs/bots.md, issue 33, eleventh pass; the threshold was 13, which no hand that may go alone
  reaches: the most is 12.3, so it never went alone). The stuck dealer names its strongest suit.
* Discarding: a losing off-suit card, preferring to make a void; never a trump unless all are.
* Leading: the makers draw trump with their highest trump while it is the highest left, then
  cash off-suit aces; defenders lead off-suit aces, then their lowest off-suit card.
* Following: it trusts its partner's winning card (plays its lowest), otherwise wins as cheaply as
  it can, and throws off its lowest loser (a non-trump) when it cannot win.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Sequence

from typing import Any

import numpy as np

from updown.batched.playout import summarise
from updown.bots.base import Bot
from updown.bots.euchre_endgame import endgame_margins
from updown.bots.pimc import PimcBot
from updown.core.protocol import State, View, WorldSampler
from updown.games.euchre import (
    DISCARD, EFF, GAME, JACK, NAME, NAME_ALONE, NUM_CARDS, ORDER_UP, ORDER_UP_ALONE, PASS,
    PICK_UP, PICK_UP_ALONE, POWER, SUIT, card_id,
)

GAME_ID = "euchre"

_TRUMP_VALUE = {0: 1.0, 1: 1.2, 3: 1.4, 4: 1.6, 5: 2.0}  # 9 10 Q K A (jacks are bowers)
MAKE = 7.5
ALONE = 7.0


def strength(hand: Sequence[int], trump: int) -> float:
    """How well ``hand`` plays with ``trump``: trumps, off-suit aces, and voids that let it ruff."""
    eff = EFF[trump]
    total = 0.0
    trumps = 0
    suits = set()
    for c in hand:
        if eff[c] == trump:
            trumps += 1
            if c % 6 == JACK:
                total += 3.0 if SUIT[c] == trump else 2.5
            else:
                total += _TRUMP_VALUE[c % 6]
        else:
            suits.add(eff[c])
            if c % 6 == 5:
                total += 1.0
    if trumps >= 2:
        total += 0.6 * (3 - len(suits))
    return total


def losers(hand: Sequence[int], trump: int) -> int:
    """Off-suit cards that are not aces."""
    return sum(1 for c in hand if EFF[trump][c] != trump and c % 6 != 5)


def discard_choice(hand: Sequence[int], trump: int, keep: int) -> int:
    """The card to drop from ``hand`` (never ``keep``, the up-card)."""
    eff = EFF[trump]
    options = [c for c in hand if c != keep]
    off = [c for c in options if eff[c] != trump]
    if not off:
        return min(options, key=lambda c: POWER[trump][trump][c])
    count = {s: sum(1 for c in hand if eff[c] == s) for s in range(4)}
    # Prefer a non-ace singleton (makes a void), then the lowest off-suit card.
    return min(off, key=lambda c: (c % 6 == 5, count[eff[c]] != 1, c % 6))


class EuchreGreedy(Bot):
    name = "greedy"
    description = "bids on trump strength and position, draws trump as maker, wins cheaply, trusts its partner"
    make: float = MAKE
    """Makes trump at this strength or more (in the second round at half a point less)."""
    alone: float = ALONE
    """Goes alone at this strength or more, with no losing off-suit card."""

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        hand = [card_id(c) for c in view["hand"]]
        phase = view["phase"]
        if phase == "bid1":
            return self._bid1(view, hand, legal)
        if phase == "bid2":
            return self._bid2(view, hand, legal)
        if phase == "discard":
            up = card_id(view["upcard"])
            trump = "CDHS".index(view["trump"])
            return DISCARD + discard_choice(hand, trump, up)
        if phase == "defend":
            return PASS if PASS in legal else legal[0]
        return self._play(view, hand, legal)

    # -- bidding ----------------------------------------------------------------------------------
    def _bid1(self, view: View, hand: list[int], legal: Sequence[int]) -> int:
        up = card_id(view["upcard"])
        trump = SUIT[up]
        dealer = view["dealer"]
        me = self.seat
        if me == dealer:
            drop = discard_choice([*hand, up], trump, up)
            s = strength([c for c in [*hand, up] if c != drop], trump)
            mine = [c for c in [*hand, up] if c != drop]
        else:
            s = strength(hand, trump)
            mine = hand
            worth = strength([up], trump)
            s += 0.5 * worth if (dealer - me) % 2 == 0 else -0.5 * worth
        if s >= self.alone and losers(mine, trump) == 0 and me != (dealer + 2) % 4:
            return PICK_UP_ALONE if me == dealer else ORDER_UP_ALONE
        if s >= self.make:
            return PICK_UP if me == dealer else ORDER_UP
        return PASS

    def _bid2(self, view: View, hand: list[int], legal: Sequence[int]) -> int:
        turned = SUIT[card_id(view["upcard"])]
        best = max((t for t in range(4) if t != turned), key=lambda t: strength(hand, t))
        s = strength(hand, best)
        if s >= self.alone and losers(hand, best) == 0 and NAME_ALONE + best in legal:
            return NAME_ALONE + best
        if s >= self.make - 0.5 or PASS not in legal:
            return NAME + best
        return PASS

    # -- play -------------------------------------------------------------------------------------
    def _play(self, view: View, hand: list[int], legal: Sequence[int]) -> int:
        trump = "CDHS".index(view["trump"])
        eff = EFF[trump]
        me = self.seat
        partner = (me + 2) % 4
        makers = view["maker"] % 2 == me % 2
        seen = set(hand)
        for e in view["log"]:
            if e["type"] == "trick" and e.get("deal") == view["deal"]:
                seen.update(card_id(c) for c in e["cards"])
        table = [(s, card_id(c)) for s, c in view["table"]]
        seen.update(c for _, c in table)
        unseen = [c for c in range(NUM_CARDS) if c not in seen]
        if view["upcard"] and not view["up_taken"]:  # turned down or left out: out of play
            unseen = [c for c in unseen if c != card_id(view["upcard"])]
        if not table:
            return self._lead(hand, legal, trump, makers, unseen)
        led = eff[table[0][1]]
        power = POWER[trump][led]
        win_seat, win_card = max(table, key=lambda sc: power[sc[1]])
        best = power[win_card]
        active = 4 - len(view["out"])
        last = len(table) == active - 1
        if win_seat == partner:
            # Trust the partner's card if nobody after me can beat it.
            if last or all(power[c] <= best for c in unseen):
                return self._throw(legal, trump, led)
        winners = [c for c in legal if power[c] > best]
        if winners:
            if last:
                return min(winners, key=lambda c: power[c])
            # Not last: win with a card that the unseen cards cannot beat, if any; else the cheapest.
            safe = [c for c in winners if all(power[u] < power[c] for u in unseen)]
            if safe:
                return min(safe, key=lambda c: power[c])
            return min(winners, key=lambda c: power[c])
        return self._throw(legal, trump, led)

    def _throw(self, legal: Sequence[int], trump: int, led: int) -> int:
        """The card that costs least: the lowest non-trump, else the lowest trump."""
        eff = EFF[trump]
        return min(legal, key=lambda c: (eff[c] == trump, POWER[trump][trump][c] if eff[c] == trump else c % 6))

    def _lead(self, hand: list[int], legal: Sequence[int], trump: int, makers: bool, unseen: list[int]) -> int:
        eff = EFF[trump]
        tpower = POWER[trump][trump]
        trumps = [c for c in legal if eff[c] == trump]
        off = [c for c in legal if eff[c] != trump]
        if makers and trumps:
            top = max(trumps, key=lambda c: tpower[c])
            opp_trumps = [u for u in unseen if eff[u] == trump]
            if opp_trumps and all(tpower[u] < tpower[top] for u in opp_trumps):
                return top
            if opp_trumps and len(trumps) >= 2:
                return top
        aces = [c for c in off if c % 6 == 5]
        if aces:
            return aces[0]
        if off:
            # The highest off-suit card that no unseen card of its suit beats, else the lowest.
            for c in sorted(off, key=lambda c: -(c % 6)):
                if all(not (eff[u] == eff[c] and u % 6 > c % 6) for u in unseen):
                    return c
            return min(off, key=lambda c: c % 6)
        return max(trumps, key=lambda c: tpower[c]) if makers else min(trumps, key=lambda c: tpower[c])


_BID_OF_STR = {GAME.action_to_str(a): a for a in range(PASS, NAME_ALONE + 4)}
"""A bid event's ``bid`` text back to its action."""


def _bid_kind(action: int, turned: int) -> int:
    """What a bid says about the hand: -1 a pass, else the suit it makes trump (alone or not)."""
    if action == PASS:
        return -1
    if action < NAME:
        return turned  # order up or pick up (alone or not): the up-card's suit
    return (action - NAME) % 4


class BidReadWorlds(WorldSampler):
    """The game's worlds, each kept by how well the rule's bidding explains the others' bids.

    In a drawn world every other seat's dealt hand is known (the world's hand events), so what
    ``greedy`` would have bid with it at each of that seat's bids in this deal is exact. A bid the
    rule would have made alike (a pass, or trump made in the same suit) weighs 1, any other
    ``miss``; a world is kept with the product of its bids' weights (rejection), and after ``tries``
    draws the heaviest of them is taken. A seat that passed with a hand the rule would have made
    trump with is then rare, and one that ordered up rarely holds a hand the rule would pass with;
    ``miss`` above 0 keeps every world possible, so bidders that do not bid as the rule (a searching
    level, a person) cost only sharper worlds, not wrong ones."""

    def __init__(self, view: View, base: WorldSampler, miss: float, tries: int):
        self.base = base
        self.miss = miss
        self.tries = tries
        seat = view["seat"]
        log = view["log"]
        start = len(log)
        while start > 0 and log[start - 1]["type"] != "score":
            start -= 1
        self.start = start
        up = card_id(view["upcard"])
        turned = SUIT[up]
        dealer = view["dealer"]
        stuck = bool(view["options"].get("stick_the_dealer"))
        stub = {"upcard": view["upcard"]}
        self.bids: list[tuple[int, int, int]] = []
        """(seat, round, what its bid said: :func:`_bid_kind`) of the other seats' bids this deal."""
        for e in log[start:]:
            if e["type"] == "bid" and e["seat"] != seat and e["round"] in (1, 2):
                self.bids.append((e["seat"], e["round"], _bid_kind(_BID_OF_STR[e["bid"]], turned)))
        self.turned = turned
        rules = {s: EuchreGreedy(GAME, s, random.Random(0)) for s, _, _ in self.bids}
        view1 = {"upcard": stub["upcard"], "dealer": dealer}
        second = [PASS, *range(NAME, NAME + 4), *range(NAME_ALONE, NAME_ALONE + 4)]

        def rule(s: int, rnd: int, hand: list[int]) -> int:
            bot = rules[s]
            if rnd == 1:
                return _bid_kind(bot._bid1(view1, hand, ()), turned)
            legal = second[1:] if stuck and s == dealer else second
            return _bid_kind(bot._bid2(view1, hand, legal), turned)

        self.rule = rule

    def weight(self, world: State) -> float:
        hands: dict[int, list[int]] = {}
        for e in world.log[self.start:]:
            if e["type"] == "hand":
                hands[e["seat"]] = [card_id(c) for c in e["cards"]]
        w = 1.0
        for s, rnd, said in self.bids:
            if self.rule(s, rnd, hands[s]) != said:
                w *= self.miss
        return w

    def draw(self, rng: random.Random) -> State:
        best, best_weight = None, -1.0
        for _ in range(self.tries):
            world = self.base.draw(rng)
            w = self.weight(world)
            if w >= 1.0 or rng.random() < w:
                return world
            if w > best_weight:
                best, best_weight = world, w
        assert best is not None
        return best


class PaceModel:
    """What a batch of playouts costs on this machine, learned from the batches played: seconds
    ≈ ``steps * (a + b * games) + c * worlds``, where ``steps`` is about how many decisions the
    playouts have left in the deal (:func:`playout_steps`; each is numpy's work over the batch,
    a fixed part and a part per game), ``games`` the worlds times the actions tried, and ``c`` the
    drawing and loading of a world. Least squares over the last :attr:`keep` batches."""

    keep = 300
    least = 20
    """Batches seen before it predicts anything."""

    def __init__(self) -> None:
        self.rows: deque[tuple[float, float, float, float]] = deque(maxlen=self.keep)
        self._fit: tuple[float, float, float] | None = None
        self._lock = threading.Lock()  # a server without workers runs bots in threads

    def add(self, steps: int, games: int, worlds: int, seconds: float) -> None:
        with self._lock:
            self.rows.append((float(steps), float(steps * games), float(worlds), seconds))
            self._fit = None

    def coefficients(self) -> tuple[float, float, float] | None:
        with self._lock:
            if len(self.rows) < self.least:
                return None
            if self._fit is None:
                data = np.array(self.rows)
                coef = np.linalg.lstsq(data[:, :3], data[:, 3], rcond=None)[0]
                a, b, c = (max(float(x), 0.0) for x in coef)
                self._fit = (a, b, c)
            return self._fit

    def worlds_for(self, seconds: float, steps: int, actions: int) -> int | None:
        """How many worlds a batch trying ``actions`` actions can take in ``seconds`` (None: not
        known yet)."""
        fit = self.coefficients()
        if fit is None:
            return None
        a, b, c = fit
        each = steps * b * actions + c
        if each <= 0:
            return None
        return max(int((seconds - steps * a) / each), 0)


def playout_steps(view: View) -> int:
    """About how many decisions are left in the deal at ``view``'s decision (the playouts' steps):
    the cards still to be played, and in the bidding a few bids more."""
    phase = view["phase"]
    active = 4 - len(view["out"]) if phase == "play" else 4
    plays = active * (5 - sum(view["tricks"])) - len(view["table"])
    return max(plays + {"bid1": 6, "bid2": 3, "discard": 1, "defend": 1}.get(phase, 0), 1)


def clear_best(margins: Any, z: float) -> bool:
    """Whether the best action by its mean margin (a column of ``margins``, worlds by actions) beats
    every other by more than ``z`` standard errors of their difference world by world; an action
    whose margins equal the best one's in every world counts as beaten (the choice between them
    does not matter in these worlds)."""
    m = np.asarray(margins, dtype=np.float64)
    if m.ndim != 2 or len(m) < 2:
        return False
    best = int(np.argmax(m.mean(axis=0)))
    d = m[:, [best]] - m
    gap = d.mean(axis=0)
    error = d.std(axis=0, ddof=1) / np.sqrt(len(m))
    return bool(np.all((error == 0) | (gap > z * error)))


_PACE: dict[type, PaceModel] = {}
"""Per level class, its :class:`PaceModel` (the batches of every bot of the level in this process)."""

_STRETCH: dict[type, float] = {}
"""Per level class, the factor its budget is stretched by (:attr:`EuchreNormal.pace`): how early
the batch rule ends on this machine, learned from the decisions of every bot of the level in this
process (a server's bots, a benchmark's)."""


class EuchreNormal(PimcBot):
    """In Euchre ``pimc`` won 0.745 of matches against greedy (the tree search: 0.60) and, with 80
    worlds at OpenSpiel ISMCTS's pace, beat ISMCTS (1,000 simulations) by 0.215 ± 0.029 points a
    deal over 1,000 deals; held to ISMCTS's running median time with the compiled engines it used
    about 60 worlds and beat it by 0.131 ± 0.021 over 1,973 deals (docs/bots.md, sixth pass). With
    cheaper batches, its budget stretched to its measured pace and its first batch sized by a
    learned cost model, about 140 worlds at 0.97 of ISMCTS's median time: +0.212 ± 0.012 over 5,690
    deals (seventh pass); with 5,457 deals more, +0.207 ± 0.009 over 11,147 (eighth pass). With
    batches about a third cheaper (ninth pass) up to 400 worlds (at ISMCTS's time 200 worlds were a
    cap most decisions reached): about 260 worlds median there, +0.228 ± 0.013 over 5,103 new deals
    at 0.97 to 0.99 of ISMCTS's median time."""

    name = "normal"
    description = ("flat Monte Carlo from its own view: up to 400 drawn worlds or 90 ms per decision, each "
                   "legal action played on to the end of the deal by a greedy rule")
    worlds = 400
    milliseconds = 90.0
    read_bids: bool = False
    """Worlds read from the others' bids as the rule bids (:class:`BidReadWorlds`)."""
    miss: float = 0.2
    """With ``read_bids``: the weight of a bid the rule would not have made with a world's hand."""
    playout: str = "greedy"
    """The playouts' rule (``BatchedEuchre.rule``): ``greedy``, the batched engine's simple rule, or
    ``smart``, the ``greedy`` bot's own choices in numpy (``BatchedEuchre.smart_actions``; issue 33,
    tenth pass)."""
    make: float = 7.5
    """With ``playout="smart"``: the playouts' bid threshold (``BatchedEuchre.make``; the ``greedy``
    bot's ``MAKE``, 7.5)."""
    model: bool = False
    """Learn who sits at the table (:mod:`updown.bots.euchre_model`, issue 33, fourteenth pass):
    each other seat's kind (random, careless, the rule, searching) weighed by its bids and cards in
    this match; worlds kept by how well those kinds explain this deal's bids and cards, and played
    on with each seat by its kind."""
    model_samples: int = 32
    """With :attr:`model`: draws of the cards a finished deal did not show (the dealer's discard, a
    seat that sat out), per deal."""
    model_cards: bool = True
    """With :attr:`model`: this deal's worlds weighed by the others' cards as well as their bids
    (their kinds are learnt from both either way)."""
    model_draws: float = 1.0
    """With :attr:`model`: above 1, this many uniform worlds per world played on are drawn and
    weighed, and the worlds played on are drawn from them by their weights (systematic
    resampling); at 1, every world drawn is played on and its margins count by its weight."""
    model_known: str = ""
    """With :attr:`model`, for measuring only (it is told the table, not its view): every other
    seat is taken to be of this kind (``random``, ``careless``, ``rule`` or ``searching``), so the
    worlds and playouts are the model's with the kinds known, not learnt."""
    _model_cache: dict[Any, Any] | None = None
    """With :attr:`model`: the finished deals' evidence, kept between decisions."""
    endgame: int = 0
    """Solve the deal's last this many tricks exactly in each world (double dummy,
    :mod:`updown.bots.euchre_endgame`) instead of playing them on by the greedy rule; 0: off."""

    _view: View | None = None
    """The view of the decision under way: its worlds are loaded into the batch with it (the public
    state read once, each world giving only the other seats' hands)."""

    pace: float | None = 0.95
    """Under a time budget: the share of :attr:`milliseconds` a decision should take, as a median.
    The batch rule (:meth:`PimcBot.estimates`) starts no batch it expects to end past the budget,
    so it ends early by a share that depends on the machine (0.75 to 0.9 of a short budget); the
    level therefore plans with the budget stretched by a factor learned from its decisions' measured
    times: after each that the time ended (not :attr:`worlds`), down by 3% if it took more than
    ``pace`` of the budget, else up by 3% (so half such decisions end below ``pace`` of the budget,
    half above), within 0.7 and :attr:`stretch_max` and never past :attr:`ceiling`. None: the budget
    as given."""
    ceiling: float = 100.0
    """Milliseconds a decision may plan for, whatever the stretch (the level's promise)."""
    stretch_max: float = 1.5
    """The largest stretch (with :attr:`settle` the close decisions may plan for more)."""
    first: float | None = 0.9
    """Under a time budget: the share of the (stretched) budget the first batch of worlds is sized
    to take, by the :class:`PaceModel` learned from the level's batches so far, so that most
    decisions play one batch (each batch pays numpy's fixed work per step, about 2.5 ms of CPU
    time: a decision in two batches gets about a third fewer worlds than in one). Until the model
    has seen enough batches, and with None, the first batch is :attr:`chunk` worlds, which measures
    the pace for the next."""

    settle: float | None = None
    """Under a time budget, an option (off: it did not help, docs/bots.md, eighth pass of issue 33):
    the decision ends after a batch once the best action so far beats every other by more than this
    many standard errors of the difference, counted world by world over the decision's worlds so
    far (an action whose margins equal the best one's in every world counts as beaten), with at
    least :attr:`settle_worlds` worlds. The first batch is then sized to take :attr:`probe` of the
    budget as given (not stretched), so a clear decision ends after it, and the stretch counts every
    decision, not only those the time ended, so the time the clear ones leave goes to the close ones
    while the median decision still takes ``pace`` of the budget (raise :attr:`stretch_max` and
    :attr:`worlds` with it)."""
    settle_worlds: int = 30
    probe: float = 0.4
    """With :attr:`settle`: the share of the budget as given (not stretched) the first batch is sized
    to take."""

    _margins: list[Any] | None = None
    """The decision's per-world margins so far, batch by batch (with :attr:`settle`)."""
    settled: bool = False
    """Whether the last decision was ended by :attr:`settle`."""

    def estimates(self, view: View, legal: Sequence[int], against: int | None = None,
                  ) -> tuple[list[float], list[float]]:
        self._view = view
        budget = self.milliseconds
        if budget is None or self.pace is None:
            try:
                return super().estimates(view, legal, against)
            finally:
                self._view = None
        stretch = _STRETCH.get(type(self), 1.0)
        plan = min(budget * stretch, self.ceiling)
        self.milliseconds = plan
        chunk = self.chunk
        worlds = self.worlds
        model = _PACE.get(type(self))
        # With settle, the first batch is a share of the budget as given (not stretched): the clear
        # decisions end there, the others go on to the stretched plan.
        first = None if self.first is None else self.first * plan if self.settle is None else self.probe * budget
        if first is not None and model is not None and model.coefficients() is not None:
            fits = model.worlds_for(first / 1000, playout_steps(view), len(legal))
            if fits is not None:
                self.chunk = min(max(fits, self.min_worlds), self.worlds)
        self._margins = [] if self.settle is not None else None
        self.settled = False
        began = time.perf_counter()
        try:
            return super().estimates(view, legal, against)
        finally:
            self._view = None
            self._margins = None
            self.milliseconds = budget
            self.chunk = chunk
            self.worlds = worlds
            # With settle, every decision is a measure of the pace (the clear ones end early on
            # purpose); without, only those the time ended, not the worlds.
            if self.settle is not None or self.used < self.worlds:
                late = 1000 * (time.perf_counter() - began) > self.pace * budget
                _STRETCH[type(self)] = min(max(stretch * (0.97 if late else 1.03), 0.7), self.stretch_max)

    def batch_values(self, sampler: WorldSampler, n: int, legal: Sequence[int]) -> tuple[Any, Any]:
        if self.policy != "greedy" or self.rechoose:
            return super().batch_values(sampler, n, legal)
        began = time.perf_counter()
        draw_weighted = getattr(sampler, "draw_weighted", None)
        if callable(draw_weighted) and not self.endgame and self.playout == "greedy":
            from updown.bots.euchre_model import kind_margins, weighted_summary

            # Uniform worlds, each weighed by how well the table's kinds explain this deal (importance
            # weights: a try of rejection costs as much as a world played on).
            drawn = [draw_weighted(self.rng) for _ in range(max(n, round(n * self.model_draws)))]
            if len(drawn) > n:
                w = np.array([x for _, _, x in drawn])
                w = w / w.sum() if w.sum() > 0 else np.full(len(w), 1 / len(w))
                spots = (self._np_rng.random() + np.arange(n)) / n
                drawn = [drawn[i] for i in np.minimum(np.searchsorted(np.cumsum(w), spots), len(w) - 1)]
                drawn = [(world, kinds, 1.0) for world, kinds, _ in drawn]
            margins = kind_margins([w for w, _, _ in drawn], [k for _, k, _ in drawn], self.seat, legal,
                                   rng=self._np_rng, view=self._view)
            values = weighted_summary(margins, [x for _, _, x in drawn])
        else:
            drawn = [sampler.draw(self.rng) for _ in range(n)]
            # endgame 0: the greedy playouts of deal_values, the same figures for the same generator
            margins = endgame_margins(drawn, self.seat, legal, self.endgame, rng=self._np_rng, view=self._view,
                                      rule=self.playout, make=self.make)
            values = summarise(margins)
        if self.first is not None and self._view is not None and self.milliseconds is not None:
            _PACE.setdefault(type(self), PaceModel()).add(playout_steps(self._view), n * len(legal), n,
                                                          time.perf_counter() - began)
        if self._margins is not None and self.settle is not None:
            self._margins.append(margins)
            so_far = np.concatenate(self._margins) if len(self._margins) > 1 else margins
            if len(so_far) >= self.settle_worlds and clear_best(so_far, self.settle):
                self.settled = True
                self.worlds = self.used + n  # the batch loop ends after this batch
        return values

    def sampler(self, view: View) -> WorldSampler:
        base = super().sampler(view)
        if self.model and view.get("upcard") is not None and view.get("dealer") is not None:
            from updown.bots.euchre_model import ModelWorlds

            if self._model_cache is None:
                self._model_cache = {}
            worlds = ModelWorlds(view, base, self.rng, cache=self._model_cache, samples=self.model_samples,
                                 tries=self.tries, cards=self.model_cards)
            if self.model_known:
                worlds.told(self.model_known)
            return worlds
        if not self.read_bids or view.get("upcard") is None or view.get("dealer") is None:
            return base
        read = BidReadWorlds(view, base, self.miss, self.tries)
        return read if read.bids else base


class EuchreHard(EuchreNormal):
    """More worlds than ``normal`` (600 against 400; three times its 200 before the ninth pass): the
    same comparison with less noise (against greedy no clear gain over 200 worlds; docs/bots.md)."""

    name = "hard"
    description = ("flat Monte Carlo from its own view: up to 600 drawn worlds or 900 ms per decision, each "
                   "legal action played on to the end of the deal by a greedy rule")
    worlds = 600
    milliseconds = 900.0
    ceiling = 1000.0


BOTS = {"greedy": EuchreGreedy, "normal": EuchreNormal, "hard": EuchreHard}
