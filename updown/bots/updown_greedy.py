"""``greedy``: a rule-based UP&DOWN player that reads only its own view.

It estimates, for each card in hand, the chance that the card wins the trick now, treating every
opponent as if they played a random unseen card: a card can only win if it is of its own suit or
the trump value; it loses if another player shows the same value (cancelled) or a better eligible
card (a trump, or a higher card of that player's suit on UP, a lower one on DOWN).

* Choosing a card: the expected tricks taken (the trick plus the pot) minus what the card is worth
  later. Extreme values (2s and queens) are worth keeping, since they win on DOWN or UP whenever
  they are in the player's suit; middle values are the cheap throw-aways.
* Leading: each of flip, every rotation and the re-roll (averaged over the new trump values) is
  scored by the best card the hand then holds, and the best option is taken.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from updown.bots.base import Bot
from updown.bots.pimc import PimcBot
from updown.bots.updown_model import ModelWorlds, mixed_deal_values
from updown.core.cards import Suit
from updown.core.errors import IllegalAction
from updown.core.protocol import Game, View, WorldSampler
from updown.core.worlds import ConstrainedDeal
from updown.games.updown import (
    FLIP, GAME, NUM_CARDS, POSITIONS, ROLL, ROTATE, SIDES, SUIT, VALUE, UpDownState, UpDownWorlds, card_id,
)

_ALL = frozenset(range(NUM_CARDS))
_SUM_WAYS = {t: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == t) for t in range(2, 13)}
_KEEP_WEIGHT = 0.1  # measured: larger weights lose tricks against random play


class UpDownGreedy(Bot):
    name = "greedy"
    description = "rule-based: plays its own suit and trumps to win, cheap middle cards when it cannot"

    def act(self, view: View, legal: Sequence[int]) -> int:
        if view["phase"] == "lead":
            return self._lead(view, legal)
        return self._choose(view, legal)

    # -- what is still unseen ----------------------------------------------------------------------
    def _unseen(self, view: View, hand: list[int]) -> list[int]:
        seen = set(hand)
        for event in view["log"]:
            if event["type"] == "trick" and event["round"] == view["round"]:
                seen.update(card_id(c) for c in event["cards"])
        return sorted(_ALL - seen)

    def _win_chances(
        self, view: View, hand: list[int], unseen: list[int], suits: list[int], up: bool, trump: int
    ) -> dict[int, float]:
        """For each card in hand, the chance it wins against opponents playing random unseen cards."""
        n = view["players"]
        me = self.seat
        total = max(len(unseen), 1)
        by_value = [0] * 13
        for c in unseen:
            by_value[VALUE[c]] += 1
        chances: dict[int, float] = {}
        for c in hand:
            v = VALUE[c]
            if v != trump and SUIT[c] != suits[me]:
                chances[c] = 0.0
                continue
            p = 1.0
            for j in range(n):
                if j == me:
                    continue
                lose = by_value[v]  # same value: cancelled
                if v != trump:
                    lose += by_value[trump]
                    lose += sum(
                        1 for d in unseen
                        if SUIT[d] == suits[j] and VALUE[d] != trump and VALUE[d] != v
                        and (VALUE[d] > v if up else VALUE[d] < v)
                    )
                p *= max(0.0, 1.0 - lose / total)
            chances[c] = p
        return chances

    @staticmethod
    def _keep_value(card: int) -> float:
        """How useful a card is likely to be later: extremes win whenever they are in suit."""
        return abs(VALUE[card] - 7) / 5.0

    # -- decisions -------------------------------------------------------------------------------
    def _choose(self, view: View, legal: Sequence[int]) -> int:
        hand = list(legal)
        unseen = self._unseen(view, hand)
        suits = [int(Suit.parse(s)) for s in view["suits"]]
        chances = self._win_chances(view, hand, unseen, suits, bool(view["up"]), view["trump"])
        stake = 1 + view["pot"]
        tricks_left = view["tricks_per_round"] - view["trick"]
        keep = _KEEP_WEIGHT if tricks_left > 0 else 0.0

        def score(c: int) -> tuple[float, int]:
            return (chances[c] * stake - keep * self._keep_value(c), -c)

        return max(hand, key=score)

    def _lead(self, view: View, legal: Sequence[int]) -> int:
        hand = [card_id(c) for c in view["hand"]]
        unseen = self._unseen(view, hand)
        n = view["players"]
        suits = [int(Suit.parse(s)) for s in view["suits"]]
        up, trump, stake = bool(view["up"]), int(view["trump"]), 1 + view["pot"]

        def best(suits_: list[int], up_: bool, trump_: int) -> float:
            chances = self._win_chances(view, hand, unseen, suits_, up_, trump_)
            ranked = sorted(chances.values(), reverse=True)
            return float(ranked[0] * stake + 0.1 * sum(ranked[1:4]))

        options: list[tuple[float, int]] = []
        for action in legal:
            if action == FLIP:
                value = best(suits, not up, trump)
            elif action == ROLL:
                ways = {t: w for t, w in _SUM_WAYS.items() if t != trump}
                total = sum(ways.values())
                value = sum(w / total * best(suits, up, t) for t, w in ways.items())
            else:
                target = action - ROTATE
                r = (SIDES.index(Suit(target)) - POSITIONS[n][self.seat]) % 4
                rotated = [int(SIDES[(POSITIONS[n][j] + r) % 4]) for j in range(n)]
                value = best(rotated, up, trump)
            options.append((value, -action))
        return -max(options)[1]



class ReadWorlds(WorldSampler):
    """Worlds in which the other seats played this round's cards as ``greedy`` would have.

    Drawn as the game's own worlds (:class:`~updown.games.updown.UpDownWorlds`: the hidden cards
    dealt uniformly into the other hands, their secret choices and the cards set aside), except
    that a hidden card is kept out of a seat's hand (and its choice) when the rule would have
    played it at one of this round's tricks rather than the card the seat did play there: at that
    trick the seat held its hand now, so it held that card too, and greedy takes its best-scoring
    card. A card's score is the rule's own (its chance to win times the stake, less what keeping
    it is worth), worked out with the seat's unknown cards counted as unseen, which is all the
    bot can know of them; so a card is kept out only when it beats the card played by more than
    ``margin`` (exactly, between two cards that could not win). Every world left is equally
    likely (:class:`~updown.core.worlds.ConstrainedDeal`). Where no world fits (a seat that does
    not play by the rule), the worlds are the game's own, uniform.
    """

    def __init__(self, view: View, margin: float = 0.05):
        self.base = base = UpDownWorlds(view)
        me = view["seat"]
        self.excluded = excluded = _ruled_out(view, set(base.pool), margin)
        self.deal: ConstrainedDeal | None = None
        if any(excluded[s] for s in range(view["players"]) if s != me):
            rest = len(base.bins)
            allowed = {card: [b for b, (s, _) in enumerate(base.bins) if card not in excluded[s]] + [rest]
                       for card in base.pool}
            try:
                self.deal = ConstrainedDeal(allowed, base.sizes)
            except IllegalAction:
                self.deal = None

    def draw(self, rng: random.Random) -> UpDownState:
        if self.deal is None:
            return self.base.draw(rng)
        return self.base.build(self.deal.draw(rng))


def _ruled_out(view: View, hidden: set[int], margin: float) -> list[set[int]]:
    """For each seat, the hidden cards it cannot hold if it chose this round's cards by the rule."""
    n, me = view["players"], view["seat"]
    out: list[set[int]] = [set() for _ in range(n)]
    log = view["log"]
    start = len(log)
    while start > 0 and log[start - 1]["type"] not in ("round", "tiebreak"):
        start -= 1
    tricks = [e for e in log[start:] if e["type"] == "trick"]
    if not tricks or not hidden:
        return out
    plays = [[card_id(c) for c in e["cards"]] for e in tricks]
    size = view["tricks_per_round"]
    rules = [UpDownGreedy(GAME, s, random.Random(0)) for s in range(n)]
    played_before: set[int] = set()
    pot = 0
    for t, e in enumerate(tricks):
        suits = [int(Suit.parse(x)) for x in e["suits"]]
        stake = 1 + pot
        keep = _KEEP_WEIGHT if t + 1 < size else 0.0
        for j in range(n):
            if j == me:
                continue
            chosen = plays[t][j]
            held = {plays[u][j] for u in range(t, len(plays))}  # known to be in j's hand at trick t
            candidates = [c for c in hidden if c not in out[j]]
            if not candidates:
                continue
            unseen = [c for c in range(NUM_CARDS) if c not in played_before and c not in held]
            rule = rules[j]
            chances = rule._win_chances(view, [chosen, *candidates], unseen, suits, bool(e["up"]), e["trump"])
            mine = chances[chosen] * stake - keep * UpDownGreedy._keep_value(chosen)
            for c in candidates:
                theirs = chances[c] * stake - keep * UpDownGreedy._keep_value(c)
                if chances[c] == 0.0 and chances[chosen] == 0.0:
                    if theirs > mine or (theirs == mine and c < chosen):
                        out[j].add(c)
                elif theirs > mine + margin:
                    out[j].add(c)
        played_before.update(plays[t])
        pot = e["pot"]
    return out


GAME_ID = "updown"


def shrunk_choice(means: Sequence[float], errors: Sequence[float], own: int) -> int:
    """The action to play: the largest gain over action ``own`` after shrinking (empirical Bayes).

    ``errors[i]`` is the standard error of ``means[i] - means[own]`` (paired, the same worlds).
    The true gains ``g_i`` of the other actions are taken as spread around 0 with a variance
    ``tau2``, read from this decision's own measured gains (their mean square less the mean
    noise variance, at least 0); each measured gain ``d_i`` is then worth ``d_i * tau2 / (tau2
    + errors[i] ** 2)`` (its posterior mean). Where the actions truly differ widely (a table the
    search can read), the gains are taken almost as measured; where they differ by less than the
    noise, the rule's own action stays unless one gain stands out. ``own`` where no shrunk gain
    is above 0."""
    others = [i for i in range(len(means)) if i != own]
    if not others:
        return own
    gains = [means[i] - means[own] for i in others]
    noise = [errors[i] ** 2 for i in others]
    tau2 = max(0.0, sum(g * g for g in gains) / len(gains) - sum(noise) / len(noise))
    if tau2 <= 0.0:
        return own
    best, value = own, 0.0
    for i, g, v in zip(others, gains, noise):
        shrunk = g * tau2 / (tau2 + v)
        if shrunk > value:
            best, value = i, shrunk
    return best


class _Reads(PimcBot):
    read: bool = False
    """Draw the worlds by :class:`ReadWorlds` (the others played this round's cards by the rule),
    not uniformly."""
    model: bool = False
    """Learn the other seats from the cards they played (:mod:`updown.bots.updown_model`): each
    world is drawn with a kind of player for every seat, read from its cards as that kind plays
    them, and played on with each seat playing as its kind (``read`` and the playout ``policy``
    are then the model's)."""
    paired: bool = False
    """With the model: the copies of a world (one per action) share the others' random draws in
    the playouts (common random numbers, :func:`~updown.bots.updown_model.mixed_deal_values`).
    It did not change the choices' quality (docs/bots.md, the panel's second pass): the noise
    between actions is the worlds', not the playouts'."""
    samples: int = 32
    """Draws of a seat's hidden cards that weigh this round's cards under each kind."""
    keep: float | None = None
    """With the model: play the rule's own card (or lead) unless another action's mean beats it
    by more than this many standard errors of the difference, world by world (the same worlds
    for both). Picking the best of noisy means favours the luckiest action; the rule is sound
    against most tables."""

    shrink: bool = False
    """With the model: each action's gain over the rule's own card (or lead), measured world by
    world, is shrunk towards 0 by how far the noise can explain it (:func:`shrunk_choice`), and
    the action with the largest shrunk gain is played, the rule's own where none is above 0."""

    def __init__(self, game: Game[Any], seat: int, rng: random.Random):
        super().__init__(game, seat, rng)
        self._evidence: dict[Any, Any] = {}  # finished rounds' evidence by their cards: a cache only
        self._model_rng = random.Random(rng.getrandbits(64))
        self._rule = UpDownGreedy(game, seat, random.Random(0))

    def act(self, view: View, legal: Sequence[int]) -> int:
        if (self.keep is None and not self.shrink) or not self.model or len(legal) == 1:
            return super().act(view, legal)
        own = list(legal).index(self._rule.act(view, legal))
        self._pinned = legal[own]
        try:
            means, errors = self.estimates(view, legal)
        finally:
            self._pinned = None
        if self.shrink:
            best = shrunk_choice(means, errors, own)
        else:
            best = max(range(len(legal)), key=means.__getitem__)
        keep = self.keep or 0.0
        return legal[best] if means[best] - means[own] > keep * errors[best] else legal[own]

    def sampler(self, view: View) -> WorldSampler:
        if self.model:
            return ModelWorlds(view, self._model_rng, cache=self._evidence, samples=self.samples)
        return ReadWorlds(view) if self.read else super().sampler(view)

    def batch_values(self, sampler: WorldSampler, n: int, legal: Sequence[int]) -> tuple[Any, Any]:
        if not isinstance(sampler, ModelWorlds):
            return super().batch_values(sampler, n, legal)
        pinned = self._pinned
        against = list(legal).index(pinned) if pinned is not None and pinned in legal else None
        drawn = [sampler.draw_with_kinds(self.rng) for _ in range(n)]
        return mixed_deal_values([w for w, _ in drawn], [k for _, k in drawn], self.seat, legal,
                                 rng=self._np_rng, rechoose=self.rechoose,
                                 against=against,
                                 paired=self.paired)


class UpDownNormal(_Reads):
    """``pimc`` as ``hard`` (the greedy bot's own rule in the playouts, read worlds, the others'
    secret cards chosen again), held to 90 ms: batches start at 20 worlds and hold at most 300
    games, since a batch of the rule costs a few milliseconds a step whatever its size. The first
    batch is the only one always played: two of 10 cost one fixed part more, and at a round's
    first trick could end past 100 ms; one of 10 alone played 0.05 fewer wins (docs/bots.md,
    twelfth pass). It gained +0.51 ± 0.11 points a round over the simple playout rule in the
    same time (docs/bots.md, eleventh pass). With ``model`` (issue 33) the others are learnt from
    their cards instead of assumed to be the rule: against three random players +12.8 points a
    game instead of +6.1, no loss against easy, mixed or greedy tables (docs/bots.md, the panel).
    It picks its action by ``shrink`` and ``keep = 1``: with its 20 to 50 worlds the best of
    ten noisy means was mostly luck where the actions truly differ little (against random
    players it then gave away 0.09 points a decision to the rule's own card), so a gain over the
    rule's card counts only as far as the noise cannot explain it (docs/bots.md, second pass)."""

    name = "normal"
    description = ("flat Monte Carlo from its own view: up to 200 drawn worlds or 90 ms per decision; each other "
                   "seat is learnt from its cards as a random, careless, rule-following or searching player, and "
                   "the worlds and the playouts to the end of the round follow what it is")
    milliseconds = 90.0
    model = True
    shrink = True
    keep = 1.0
    policy = "bot"
    rechoose = True
    read = True
    chunk = 20
    batch_games = 300


class UpDownHard(_Reads):
    """``pimc`` whose playouts are the greedy bot itself (the batched engine's ``bot`` rule, choice for
    choice), in worlds read from the cards the others played this round (``read``), with the
    others' secret cards of this trick chosen again by the rule in each world (``rechoose``).
    Figures in docs/bots.md (eleventh pass). 800 ms, not 900: the rule's playouts cost more per
    batch, and the last batch could end a decision past 1 s on a busy machine. It chooses as
    ``normal`` does (``shrink``, ``keep = 1``); with its more worlds the noise it allows for is
    smaller, so it leaves the rule's card more often."""

    name = "hard"
    description = ("flat Monte Carlo from its own view: up to 600 drawn worlds or 800 ms per decision; each other "
                   "seat is learnt from its cards as a random, careless, rule-following or searching player, and "
                   "the worlds and the playouts to the end of the round follow what it is")
    worlds = 600
    model = True
    shrink = True
    keep = 1.0
    milliseconds = 800.0
    policy = "bot"
    rechoose = True
    read = True
    batch_games = 800


BOTS = {"greedy": UpDownGreedy, "normal": UpDownNormal, "hard": UpDownHard}
