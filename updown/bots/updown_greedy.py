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

from collections.abc import Sequence
from updown.bots.base import Bot
from updown.bots.pimc import PimcBot
from updown.core.cards import Suit
from updown.core.protocol import View
from updown.games.updown import (
    FLIP, NUM_CARDS, POSITIONS, ROLL, ROTATE, SIDES, SUIT, VALUE, card_id,
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



GAME_ID = "updown"


class UpDownNormal(PimcBot):
    """In UP&DOWN flat Monte Carlo with batched greedy playouts (``pimc``) beat the tree search at
    half its time per decision (docs/bots.md: 4 rounds, +4.2 points a game against +2.0)."""

    name = "normal"
    description = ("flat Monte Carlo from its own view: up to 200 drawn worlds or 90 ms per decision, each "
                   "legal action played on to the end of the round by a greedy rule")
    milliseconds = 90.0


class UpDownHard(PimcBot):
    """``pimc`` with three times ``normal``'s worlds: the same paired comparison with a third of the
    noise (4 rounds against greedy: 0.61 ± 0.09 of games won over 36, +4.5 points a game)."""

    name = "hard"
    description = ("flat Monte Carlo from its own view: up to 600 drawn worlds or 900 ms per decision, each "
                   "legal action played on to the end of the round by a greedy rule")
    worlds = 600
    milliseconds = 900.0


BOTS = {"greedy": UpDownGreedy, "normal": UpDownNormal, "hard": UpDownHard}
