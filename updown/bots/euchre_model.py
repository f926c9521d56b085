"""Who sits at a Euchre table: the other players learnt from their bids and cards (issue 33).

Euchre's ``normal`` level draws uniform worlds and plays every seat out by the batched engine's
rule; against random or careless players both are wrong (a random bidder's "order up" says
nothing about its hand, and its later cards are not the rule's). This module lets ``hard`` learn
each other seat from its own view alone, as :mod:`updown.bots.updown_model` does for UP&DOWN:
every seat is one of a few *kinds* of player, each with a chance for every action it could have
taken, and the chance of each kind follows what the seat did (Bayes' rule over the match so far).

**Kinds** (:data:`KINDS`). Each takes the rule's action (what the ``greedy`` bot,
:class:`updown.bots.euchre_greedy.EuchreGreedy`, would take from its view) with chance ``alpha``
and otherwise a legal action at random: ``random`` (``alpha = 0``), ``careless`` (2/3: the
``easy`` level), ``rule`` (0.97, a slack for the bots' floating-point sums at a threshold) and
``searching`` (0.5: a player that thinks ahead agrees with the rule often, and the model cannot
say what it does otherwise). A decision with ``n`` legal actions costs kind ``k`` a factor
``alpha_k * R + (1 - alpha_k) / n``, ``R`` being 1 if the rule would have taken that action.

**The evidence** (:func:`seat_decisions`): each of the seat's bids (round 1: three actions; round
2: the seven or, for a stuck dealer, six) and each card it played with a choice (the cards of
its hand that follow suit). ``R`` needs the seat's hand: its dealt hand for the bids, the cards it
held at each trick for its cards. In a finished deal every active seat played all its cards, so
its hands are known but for the dealer's face-down discard and the hand of a seat sitting out
(or every hand, in a deal thrown in); those are drawn, uniformly among the cards the viewer has
not seen, and the chance of the deal's decisions under a kind is the mean over ``samples``
draws. The finished deals' evidence is kept in a cache the level holds between decisions. The
deal under way is read in each world (below), where every hand is known.

**What ``hard`` does with it** (:class:`ModelWorlds`). Before this deal each other seat ``j`` has
kind weights ``pi_jk`` (the prior :data:`PRIOR` times the finished deals' evidence). A world
drawn from the view (uniform, :class:`updown.games.euchre.EuchreWorlds`) tells every hand, so the
chance of ``j``'s decisions this deal under kind ``k``, ``L_jk``, is exact; the world is kept
with chance ``prod_j (sum_k pi_jk L_jk) / (sum_k pi_jk L*_jk)`` (``L*``: every decision the
rule's, the most a world can give; rejection, at most ``tries`` draws, then the heaviest), so a
random-kind seat's bids and cards weigh nothing and a rule-kind seat's weigh as the rule reads
them. Then each seat's kind in that world is drawn from ``pi_jk L_jk``. In the playouts
(:func:`kind_margins`) each seat plays by its kind: a random action, the rule with a random
action one time in three, or the rule (``searching`` too); the level itself plays the rule.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from updown.batched.euchre import BatchedEuchre
from updown.bots.euchre_greedy import _BID_OF_STR, EuchreGreedy
from updown.core.protocol import State, View, WorldSampler
from updown.games.euchre import CARD_STR, EFF, GAME, NAME, NAME_ALONE, NUM_CARDS, PASS, SUIT, card_id

KINDS = ("random", "careless", "rule", "searching")
RANDOM, CARELESS, RULE, SEARCHING = range(4)
ALPHA = (0.0, 2 / 3, 0.97, 0.5)
"""Each kind's chance to take the rule's action."""
PRIOR = (0.25, 0.25, 0.45, 0.05)
RANDOM_SHARE = (1.0, 1 / 3, 0.0, 0.0)
"""Each kind's chance to play a random legal action in a playout (the rule otherwise)."""

_SECOND = (PASS, *range(NAME, NAME + 4), *range(NAME_ALONE, NAME_ALONE + 4))
Decision = tuple[bool, int]
"""(the rule would have taken the action taken, the number of legal actions)."""


class DealRecord:
    """What a view shows of one deal: the dealer, the up-card and whether it was taken, trump and
    its maker, who sat out, the bids of rounds 1 and 2, the tricks (the one under way as a partial
    trick) and the viewer's own dealt hand and discard."""

    def __init__(self, events: Sequence[Any], viewer: int, table: Sequence[Any] = (), deal: int | None = None):
        self.dealer = -1
        self.upcard = -1
        self.up_taken = False
        self.trump: str | None = None
        self.maker = -1
        self.out: list[int] = []
        self.bids: list[tuple[int, int, int]] = []
        self.tricks: list[Any] = []
        self.own: list[int] = []
        self.own_discard = -1
        self.deal = deal
        self.finished = False
        for e in events:
            kind = e["type"]
            if kind == "upcard":
                self.dealer = e["dealer"]
                self.upcard = card_id(e["card"])
                self.deal = e["deal"]
            elif kind == "hand" and e["seat"] == viewer:
                self.own = [card_id(c) for c in e["cards"]]
            elif kind == "bid" and e["round"] in (1, 2):
                self.bids.append((e["seat"], e["round"], _BID_OF_STR[e["bid"]]))
            elif kind == "trump":
                self.trump = e["suit"]
                self.maker = e["maker"]
                self.out = [e["out"]] if e.get("out") is not None else []
            elif kind == "pickup":
                self.up_taken = True
            elif kind == "discard" and e["seat"] == viewer:
                self.own_discard = card_id(e["card"])
            elif kind == "trick":
                self.tricks.append(e)
            elif kind == "score":
                self.finished = True
        self.table = [(s, c) for s, c in table]
        """The trick under way: (seat, card text) in the order played."""
        self.stuck = False

    def plays(self) -> list[tuple[list[int], list[str], int]]:
        """Every trick, the one under way last: (seats, cards, number of tricks before it)."""
        out = [(list(e["seats"]), list(e["cards"]), i) for i, e in enumerate(self.tricks)]
        if self.table:
            out.append(([s for s, _ in self.table], [c for _, c in self.table], len(self.tricks)))
        return out

    def played_by(self, seat: int) -> list[int]:
        """The cards ``seat`` played in this deal, in order."""
        return [card_id(c) for seats, cards, _ in self.plays() for s, c in zip(seats, cards) if s == seat]

    def seen(self) -> set[int]:
        """Every card the viewer has seen in this deal."""
        out = set(self.own)
        for seats, cards, _ in self.plays():
            out.update(card_id(c) for c in cards)
        if self.upcard >= 0:
            out.add(self.upcard)
        if self.own_discard >= 0:
            out.add(self.own_discard)
        return out


_RULES: dict[int, EuchreGreedy] = {}


def _rule(seat: int) -> EuchreGreedy:
    bot = _RULES.get(seat)
    if bot is None:
        bot = _RULES[seat] = EuchreGreedy(GAME, seat, random.Random(0))  # the rule draws nothing
    return bot


def seat_decisions(deal: DealRecord, seat: int, dealt: Sequence[int] | None, later: Sequence[int]
                   ) -> list[Decision]:
    """``seat``'s decisions in ``deal`` with a choice: its bids (if its dealt hand ``dealt`` is
    given) and its cards, each as (the ``greedy`` rule's choice, the number of legal actions).
    ``later``: the cards it holds after the last trick in ``deal`` (none in a finished deal)."""
    rule = _rule(seat)
    out: list[Decision] = []
    turned = SUIT[deal.upcard] if deal.upcard >= 0 else -1
    if dealt is not None and turned >= 0:
        view1 = {"upcard": CARD_STR[deal.upcard], "dealer": deal.dealer}
        hand = list(dealt)
        for s, rnd, action in deal.bids:
            if s != seat:
                continue
            if rnd == 1:
                said = rule._bid1(view1, hand, ())
                out.append((said == action, 3))
            else:
                stuck = deal.stuck and s == deal.dealer
                said = rule._bid2(view1, hand, _SECOND[1:] if stuck else _SECOND)
                out.append((said == action, 6 if stuck else 7))
    if deal.trump is None:
        return out
    trump = "CDHS".index(deal.trump)
    eff = EFF[trump]
    plays = deal.plays()
    mine = [(i, seats.index(seat)) for i, (seats, _, _) in enumerate(plays) if seat in seats]
    held = [card_id(plays[i][1][p]) for i, p in mine] + list(later)
    stub: dict[str, Any] = {"trump": deal.trump, "maker": deal.maker, "deal": deal.deal,
                            "upcard": CARD_STR[deal.upcard] if deal.upcard >= 0 else None,
                            "up_taken": deal.up_taken, "out": deal.out}
    for n, (i, p) in enumerate(mine):
        seats, cards, before = plays[i]
        hand = held[n:]
        chosen = hand[0]
        legal = hand
        if p > 0:
            led = eff[card_id(cards[0])]
            legal = [c for c in hand if eff[c] == led] or hand
        if len(legal) < 2:
            continue
        stub["log"] = deal.tricks[:before]
        stub["table"] = list(zip(seats[:p], cards[:p]))
        out.append((rule._play(stub, sorted(hand), sorted(legal)) == chosen, len(legal)))
    return out


def likelihoods(decisions: Sequence[Decision]) -> list[float]:
    """The chance of these decisions under each kind."""
    out = []
    for alpha in ALPHA:
        p = 1.0
        for r, n in decisions:
            p *= alpha * r + (1 - alpha) / n
        out.append(p)
    return out


def best_likelihoods(decisions: Sequence[Decision]) -> list[float]:
    """The most :func:`likelihoods` can give these decisions' counts (every one the rule's)."""
    return likelihoods([(True, n) for _, n in decisions])


def _segments(view: View) -> tuple[list[list[Any]], list[Any]]:
    """The events of each finished deal, and those of the deal under way."""
    done: list[list[Any]] = []
    current: list[Any] = []
    for e in view["log"]:
        current.append(e)
        if e["type"] == "score":
            done.append(current)
            current = []
    return done, current


def finished_deal_evidence(deal: DealRecord, viewer: int, rng: random.Random, samples: int
                           ) -> list[list[float]]:
    """For each seat, the log-chance of its decisions in a finished deal under each kind (the
    viewer's own: zeros): the mean over ``samples`` draws of what the viewer did not see."""
    out = [[0.0] * len(KINDS) for _ in range(4)]
    unseen = sorted(set(range(NUM_CARDS)) - deal.seen())
    for j in range(4):
        if j == viewer:
            continue
        played = deal.played_by(j)
        missing = 5 - len(played)
        if j == deal.dealer and deal.up_taken and deal.upcard in played:
            played = [c for c in played if c != deal.upcard]
            missing = 1  # its discard
        if missing <= 0 or not any(s == j for s, _, _ in deal.bids):
            decisions = seat_decisions(deal, j, played if missing <= 0 else None, ())
            out[j] = [math.log(max(x, 1e-300)) for x in likelihoods(decisions)]
            continue
        sums = [0.0] * len(KINDS)
        cards = seat_decisions(deal, j, None, ())
        for _ in range(samples):
            dealt = played + rng.sample(unseen, min(missing, len(unseen)))
            bids = seat_decisions(_bids_only(deal), j, dealt, ())
            for k, x in enumerate(likelihoods(bids + cards)):
                sums[k] += x
        out[j] = [math.log(max(x / samples, 1e-300)) for x in sums]
    return out


def _bids_only(deal: DealRecord) -> DealRecord:
    """The deal without its play (its bids read alone)."""
    copy = DealRecord((), -1)
    copy.__dict__.update(deal.__dict__)
    copy.trump = None
    return copy


class TableModel:
    """Each other seat's kind weights before the deal under way (:attr:`prior`, from the finished
    deals) and the reading of this deal's decisions in a world (:meth:`world_likelihoods`).

    ``cache`` (kept by the level between decisions) holds the finished deals' evidence, keyed by
    the deal's number and events; it changes nothing but the time taken."""

    def __init__(self, view: View, rng: random.Random, cache: dict[Any, Any] | None = None, samples: int = 32,
                 prior: Sequence[float] = PRIOR, cards: bool = True):
        me = view["seat"]
        self.seat = me
        stuck = bool(view["options"].get("stick_the_dealer"))
        done, current = _segments(view)
        logs = [[math.log(p) for p in prior] for _ in range(4)]
        for events in done:
            key = (me, repr(events))
            evidence = cache.get(key) if cache is not None else None
            if evidence is None:
                deal = DealRecord(events, me)
                deal.stuck = stuck
                evidence = finished_deal_evidence(deal, me, rng, samples)
                if cache is not None:
                    cache[key] = evidence
            for j in range(4):
                for k in range(len(KINDS)):
                    logs[j][k] += evidence[j][k]
        self.prior: list[list[float]] = []
        """Per seat, its kind weights before this deal (the viewer's own: the prior)."""
        for j in range(4):
            top = max(logs[j])
            raw = [math.exp(x - top) for x in logs[j]]
            total = sum(raw)
            self.prior.append([x / total for x in raw])
        self.deal = DealRecord(current, me, view.get("table") or (), deal=view.get("deal"))
        self.deal.stuck = stuck
        self._memo: dict[Any, tuple[list[float], list[float]]] = {}
        self._played = [self.deal.played_by(j) for j in range(4)]
        self._read = self.deal if cards else _bids_only(self.deal)
        """The deal as this deal's decisions are read in a world: with ``cards`` off, its bids only."""

    def world_likelihoods(self, world: State, seat: int) -> tuple[list[float], list[float]]:
        """The chance of ``seat``'s decisions this deal under each kind in ``world`` (where its hand
        is known), and the most they could have (every one the rule's)."""
        hand = tuple(world.hands[seat])  # type: ignore[attr-defined]
        deal = self.deal
        swapped = seat == deal.dealer and deal.up_taken
        key = (seat, hand, world.discarded if swapped else -1)  # type: ignore[attr-defined]
        found = self._memo.get(key)
        if found is None:
            dealt = self._played[seat] + list(hand)
            if swapped:
                dealt = [c for c in dealt if c != deal.upcard]
                if key[2] >= 0:
                    dealt.append(key[2])
            decisions = seat_decisions(self._read, seat, sorted(dealt), hand)
            found = self._memo[key] = (likelihoods(decisions), best_likelihoods(decisions))
        return found

    def weights(self, sampler: WorldSampler, rng: random.Random, samples: int = 32) -> list[list[float]]:
        """Per seat, its kind weights after this deal's decisions so far: the prior times the mean
        over ``samples`` worlds of their chance (the viewer's own: the prior)."""
        out = []
        worlds = [sampler.draw(rng) for _ in range(samples)]
        for j in range(4):
            if j == self.seat:
                out.append(list(self.prior[j]))
                continue
            sums = [0.0] * len(KINDS)
            for w in worlds:
                for k, x in enumerate(self.world_likelihoods(w, j)[0]):
                    sums[k] += x
            raw = [p * s for p, s in zip(self.prior[j], sums)]
            total = sum(raw)
            out.append([x / total for x in raw] if total > 0 else list(self.prior[j]))
        return out


class ModelWorlds(WorldSampler):
    """Worlds kept by how well each seat's kind weights explain its decisions this deal, each with
    a kind drawn for every seat (:meth:`draw_with_kinds`): see the module docstring. ``draw`` alone
    gives the world."""

    def __init__(self, view: View, base: WorldSampler, rng: random.Random, cache: dict[Any, Any] | None = None,
                 samples: int = 32, tries: int = 30, cards: bool = True):
        self.base = base
        self.tries = tries
        self.seat = view["seat"]
        self.model = TableModel(view, rng, cache=cache, samples=samples, cards=cards)

    def told(self, kind: str) -> None:
        """Take every other seat to be of ``kind`` (for measuring the model with the kinds known)."""
        if kind not in KINDS:
            raise ValueError(f"the kinds are {', '.join(KINDS)}, not {kind!r}")
        for j in range(4):
            if j != self.seat:
                self.model.prior[j] = [1.0 if k == KINDS.index(kind) else 0.0 for k in range(len(KINDS))]

    def weigh(self, world: State) -> tuple[float, list[list[float]]]:
        """The world's chance of being kept, and each seat's kind weights in it."""
        w = 1.0
        kinds = []
        for j in range(4):
            prior = self.model.prior[j]
            if j == self.seat:
                kinds.append(prior)
                continue
            like, best = self.model.world_likelihoods(world, j)
            joint = [p * x for p, x in zip(prior, like)]
            m = sum(joint)
            top = sum(p * x for p, x in zip(prior, best))
            w *= m / top if top > 0 else 1.0
            kinds.append([x / m for x in joint] if m > 0 else list(prior))
        return w, kinds

    def draw_with_kinds(self, rng: random.Random) -> tuple[State, list[int]]:
        best: tuple[State, list[list[float]]] | None = None
        best_weight = -1.0
        for _ in range(self.tries):
            world = self.base.draw(rng)
            w, weights = self.weigh(world)
            if w >= 1.0 or rng.random() < w:
                best = (world, weights)
                break
            if w > best_weight:
                best, best_weight = (world, weights), w
        assert best is not None
        world, weights = best
        return world, self._kinds(weights, rng)

    def draw_weighted(self, rng: random.Random) -> tuple[State, list[int], float]:
        """A uniform world, a kind for every seat drawn from its weights in that world, and the
        world's weight (its chance of being kept by :meth:`draw_with_kinds`): for importance
        weighting, which costs one draw a world where rejection costs one a try."""
        world = self.base.draw(rng)
        w, weights = self.weigh(world)
        return world, self._kinds(weights, rng), w

    def _kinds(self, weights: Sequence[Sequence[float]], rng: random.Random) -> list[int]:
        kinds = []
        for j in range(4):
            if j == self.seat:
                kinds.append(RULE)
                continue
            r = rng.random()
            k = 0
            for k, x in enumerate(weights[j]):
                r -= x
                if r < 0:
                    break
            kinds.append(k)
        return kinds

    def draw(self, rng: random.Random) -> State:
        return self.draw_with_kinds(rng)[0]


def weighted_summary(margins: npt.NDArray[np.float64], weights: npt.ArrayLike
                     ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each action's mean margin over the worlds (the rows) weighted by the worlds' ``weights``,
    and its standard error (the delta method's, ``sqrt(sum w^2 (m - mean)^2) / sum w``); equal
    weights where they sum to 0."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(margins),) or (w < 0).any():
        raise ValueError("one weight, 0 or more, per world")
    if w.sum() <= 0:
        w = np.ones(len(margins))
    total = w.sum()
    means: npt.NDArray[np.float64] = (w[:, None] * margins).sum(axis=0) / total
    if len(margins) < 2:
        return means, np.full(margins.shape[1], np.inf)
    dev = margins - means
    errors: npt.NDArray[np.float64] = np.sqrt(((w[:, None] * dev) ** 2).sum(axis=0)) / total
    return means, errors


def kind_margins(worlds: Sequence[State], kinds: Sequence[Sequence[int]], seat: int, actions: Sequence[int], *,
                 rng: np.random.Generator, view: View | None = None) -> npt.NDArray[np.float64]:
    """``(len(worlds), len(actions))``: ``seat``'s margin over the deal in each world after each
    action (as :func:`updown.bots.euchre_endgame.endgame_margins` with no endgame), every other
    seat ``j`` of world ``i`` playing by its kind ``kinds[i][j]`` (:data:`RANDOM_SHARE`), ``seat``
    by the rule."""
    from updown.bots.euchre_endgame import endgame_margins

    if not any(RANDOM_SHARE[k] > 0 for row in kinds for j, k in enumerate(row) if j != seat):
        return endgame_margins(worlds, seat, actions, 0, rng=rng, view=view)
    for world in worlds:
        if world.is_chance() or world.is_terminal() or seat not in world.actors():
            raise ValueError(f"the worlds are not all at a decision of seat {seat}")
    k = len(actions)
    if view is None:
        batch = BatchedEuchre.from_states([w for w in worlds for _ in range(k)], rng=rng)
    else:
        batch = BatchedEuchre.from_states(worlds, rng=rng, view=view, repeats=k)
    share = np.array([[0.0 if j == seat else RANDOM_SHARE[row[j]] for j in range(4)] for row in kinds])
    share = np.repeat(share, k, axis=0)
    deal = batch.deals()
    start = batch.scores()
    batch.step(np.tile(np.asarray(actions, dtype=np.int64), len(worlds)))
    batch.mixed_to_deal_end(share, deal)
    gain = (batch.scores() - start).astype(np.float64)
    own = gain[:, seat]
    other = gain[:, (seat + 1) & 3]
    out: npt.NDArray[np.float64] = (own - (own + 2 * other) / 3).reshape(len(worlds), k)
    return out
