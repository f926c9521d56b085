"""``greedy``: a rule-based Euchre player that reads only its own view.

* Bidding: each suit's strength is the sum of its trumps (right bower 3, left bower 2.5, ace 2,
  king 1.6, queen 1.4, 10 1.2, 9 1), off-suit aces (1) and off-suit voids (0.6 each when holding
  two trumps or more). In the first round the up-card counts for the dealer's team (fully for the
  dealer, who picks it up and drops a loser; half for the dealer's partner) and against the other
  team (half). The bot makes trump at 7.5 or more, and goes alone only with a near-certain march
  (both bowers and three more trumps or an ace: 13 or more, with no losing off-suit card). The stuck
  dealer names its strongest suit.
* Discarding: a losing off-suit card, preferring to make a void; never a trump unless all are.
* Leading: the makers draw trump with their highest trump while it is the highest left, then
  cash off-suit aces; defenders lead off-suit aces, then their lowest off-suit card.
* Following: it trusts its partner's winning card (plays its lowest), otherwise wins as cheaply as
  it can, and throws off its lowest loser (a non-trump) when it cannot win.
"""

from __future__ import annotations

from collections.abc import Sequence

from updown.bots.base import Bot
from updown.bots.pimc import PimcBot
from updown.core.protocol import View
from updown.games.euchre import (
    DISCARD, EFF, JACK, NAME, NAME_ALONE, NUM_CARDS, ORDER_UP, ORDER_UP_ALONE, PASS,
    PICK_UP, PICK_UP_ALONE, POWER, SUIT, card_id,
)

GAME_ID = "euchre"

_TRUMP_VALUE = {0: 1.0, 1: 1.2, 3: 1.4, 4: 1.6, 5: 2.0}  # 9 10 Q K A (jacks are bowers)
MAKE = 7.5
ALONE = 13.0


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
        if s >= ALONE and losers(mine, trump) == 0 and me != (dealer + 2) % 4:
            return PICK_UP_ALONE if me == dealer else ORDER_UP_ALONE
        if s >= MAKE:
            return PICK_UP if me == dealer else ORDER_UP
        return PASS

    def _bid2(self, view: View, hand: list[int], legal: Sequence[int]) -> int:
        turned = SUIT[card_id(view["upcard"])]
        best = max((t for t in range(4) if t != turned), key=lambda t: strength(hand, t))
        s = strength(hand, best)
        if s >= ALONE and losers(hand, best) == 0 and NAME_ALONE + best in legal:
            return NAME_ALONE + best
        if s >= MAKE - 0.5 or PASS not in legal:
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


class EuchreNormal(PimcBot):
    """In Euchre ``pimc`` won 0.745 of matches against greedy (the tree search: 0.60) and, with 80
    worlds at OpenSpiel ISMCTS's pace, beat ISMCTS by 0.2 points a deal (docs/bots.md)."""

    name = "normal"
    description = ("flat Monte Carlo from its own view: up to 200 drawn worlds or 90 ms per decision, each "
                   "legal action played on to the end of the deal by a greedy rule")
    milliseconds = 90.0


class EuchreHard(EuchreNormal):
    """Three times ``normal``'s worlds: the same comparison with less noise (against greedy no
    clear gain over 200 worlds; docs/bots.md)."""

    name = "hard"
    description = ("flat Monte Carlo from its own view: up to 600 drawn worlds or 900 ms per decision, each "
                   "legal action played on to the end of the deal by a greedy rule")
    worlds = 600
    milliseconds = 900.0


BOTS = {"greedy": EuchreGreedy, "normal": EuchreNormal, "hard": EuchreHard}
