"""``greedy``: a rule-based Up&Down (Sueca) player that reads only its own view.

* Trump: the suit where its cards are strongest (count and rank); clubs only when clearly strongest,
  since clubs double the penalty as well as the tricks.
* Play or sit out: each card gets a chance of taking a trick (high trumps most, then off-suit aces
  and sevens); it plays when the expected tricks outweigh the penalty of taking none
  (``E[tricks] > penalty x P(no trick)``), a little more boldly when its score is low, since every
  trick then brings it close to 0, and when few others have chosen to play.
* Exchange: throws its off-suit cards other than aces (they rarely win) and keeps trumps and aces.
* Tricks: on lead, a card that is the best left of its suit (a trump first), else its lowest
  off-suit card; following, the cheapest card that wins (the higher ones are kept for later
  tricks: the players after it may have nothing higher, since half the deck is in the stock, and
  must overtrump a trump if they can); when nothing wins, its least useful card.

Against three copies of the rule before these last two changes (it threw only cards below the
seven, and played its strongest winner unless last to play), this rule won 0.350 ± 0.010 of 2,000
matches (``benchmarks/sueca_rules.py``, ``docs/bots.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from updown.bots.base import Bot
from updown.bots.pimc import PimcBot
from updown.core.protocol import View, WorldSampler
from updown.games.updown_sueca import (
    DISCARD, DONE, NUM_CARDS, PLAY, SIT_OUT, TRUMP, SuecaWorlds, card_id, playable, strength, suit_of,
)

_TRUMP_CHANCE = (0.35, 0.35, 0.38, 0.4, 0.42, 0.5, 0.6, 0.72, 0.85, 1.0)  # by strength 2..A
_SIDE_CHANCE = (0, 0, 0, 0, 0, 0.02, 0.04, 0.12, 0.3, 0.6)
_ACE = 9  # strength of the ace, the highest card of a suit
_RACE = (3.718, 3.314, 2.932, 2.599, 2.316, 2.081, 1.874, 1.682, 1.504, 1.339, 1.180, 1.032, 0.891, 0.751, 0.618, 0.479, 0.351, 0.230, 0.114, 0.000, -0.122, -0.240, -0.358, -0.478, -0.610, -0.748, -0.878, -0.992, -1.085, -1.164, -1.233, -1.299, -1.364, -1.435, -1.515, -1.609, -1.711, -1.818, -1.927, -2.037)
"""The race model's ``g`` for the scores 1..40 (a score outside counts as the nearest end), fitted by
``benchmarks/sueca_race_model.py`` to 10,000 matches of this rule and tested on 10,000 more:
log-loss 1.092 against 1.386 for a uniform guess and 1.317 for the hand-made rule it replaced."""


class UpDownSuecaGreedy(Bot):
    name = "greedy"
    description = "rule-based: plays on a strong hand, swaps weak side cards, wins tricks cheaply"

    def act(self, view: View, legal: Sequence[int]) -> int:
        phase = view["phase"]
        hand = [card_id(c) for c in view["hand"]]
        if phase == "trump":
            return self._trump(hand, legal)
        trump = "CDHS".index(view["trump"])
        if phase == "decide":
            return self._decide(view, hand, trump)
        if phase == "exchange":
            return self._exchange(legal, trump)
        return self._play(view, hand, legal, trump)

    def evaluate(self, view: View) -> float:
        """This seat's chance to win the match as :meth:`chances` reads the scores; a finished
        match: 1 for the winner."""
        if "result" in view:
            return 1.0 if view["result"]["placings"][self.seat] == 1 else 0.0
        return self.chances(view["scores"])[self.seat]

    @staticmethod
    def chances(scores: Sequence[float]) -> list[float]:
        """Each seat's chance to win the match from the scores alone, by a race model fitted to
        matches of this rule: seat ``i`` wins with a chance in proportion to ``exp(g(s_i))``,
        one number per score (``_RACE``; ``benchmarks/sueca_race_model.py`` fits it)."""
        weights = [math.exp(_RACE[min(max(int(s), 1), len(_RACE)) - 1]) for s in scores]
        total = sum(weights)
        return [w / total for w in weights]

    swap_below = _ACE
    """Side cards below this strength are swapped in the exchange (and counted as swaps when
    deciding to play): every side card but aces."""

    slip = 0.1
    """The weight :meth:`likelihood` gives a choice this rule would not have made, for each one: a
    player who is not this bot, or who plays it less strictly, is not ruled out."""

    def likelihood(self, view: View) -> float:
        """How likely this rule makes the choices the seat's view shows it made in the current deal:
        the trump it chose from its first packet, playing or sitting out, and each card it played
        in the tricks. Each choice the rule would have made alike counts 1, each other one :attr:`slip`. ``pimc`` (with ``infer``)
        draws worlds by this, read from each other seat's view of the world, so that the others'
        hands fit their choices. The cards thrown in the exchange are not weighed: drawn worlds
        almost never match them exactly (about 1 in 1,000 at the tricks), too few to draw from."""
        seat = self.seat
        deal = view["deal"]
        packets: dict[int, list[int]] = {}
        current = False
        suit_chosen = turned = None
        for event in view["log"]:
            kind = event["type"]
            if kind == "deal":
                current = event["deal"] == deal
                packets = {}
            elif not current:
                continue
            elif kind == "dealt" and event["seat"] == seat:
                packets[event["packet"]] = [card_id(c) for c in event["cards"]]
            elif kind == "trump" and event["seat"] == seat:
                suit_chosen, turned = event["suit"], event["turned"]
        weight = 1.0
        if suit_chosen is not None and turned is None and 1 in packets:
            if self._trump(packets[1], range(TRUMP, TRUMP + 4)) != TRUMP + "CDHS".index(suit_chosen):
                weight *= self.slip
        if view["trump"] is not None:
            weight *= self.slip ** self._trick_slips(view, "CDHS".index(view["trump"]))
        decision = view["decisions"][seat]
        if decision is None or view["forced"][seat] or len(packets) < 2 or view["trump"] is None:
            return weight  # a forced seat did not choose to play
        order = [(view["chooser"] + i) % len(view["decisions"]) for i in range(len(view["decisions"]))]
        before = order[:order.index(seat)]
        then = {"scores": view["scores"],
                "decisions": [d if s in before else None for s, d in enumerate(view["decisions"])]}
        if self._decide(then, packets[1] + packets[2], "CDHS".index(view["trump"])) != (
                PLAY if decision == "play" else SIT_OUT):
            weight *= self.slip
        return weight

    def _trick_slips(self, view: View, trump: int) -> int:
        """How many of the seat's cards in this deal's tricks the rule would not have played. Its
        hand at each trick is its hand now and the cards it played since; what was legal then is
        worked out by the rules of play (follow suit; else overtrump a trump on the table if it
        can; the leader holding the ace of trumps leads it)."""
        seat = self.seat
        deal = view["deal"]
        events = [e for e in view["log"] if e["type"] == "trick" and e["deal"] == deal]
        rounds = [[(s, card_id(c)) for s, c in e["cards"]] for e in events]
        if view["table"]:
            rounds.append([(s, card_id(c)) for s, c in view["table"]])
        held = {card_id(c) for c in view["hand"]}
        slips = 0
        for t in range(len(rounds) - 1, -1, -1):
            cards = rounds[t]
            pos = next((i for i, (s, _) in enumerate(cards) if s == seat), -1)
            if pos < 0:
                continue
            played = cards[pos][1]
            held.add(played)
            hand = sorted(held)
            before = cards[:pos]
            seen = set(hand)
            for earlier in rounds[:t]:
                seen.update(c for _, c in earlier)
            seen.update(c for _, c in before)
            if self._card(playable(hand, before, trump), before, seen, trump) != played:
                slips += 1
        return slips

    # -- before the tricks ----------------------------------------------------------------------
    @staticmethod
    def _trump(hand: list[int], legal: Sequence[int]) -> int:
        def value(suit: int) -> float:
            v = sum(1.0 + strength(c) / 3 for c in hand if suit_of(c) == suit)
            return v - (1.0 if suit == 0 else 0.0)

        options = [a for a in legal if TRUMP <= a < TRUMP + 4]
        return max(options, key=lambda a: (value(a - TRUMP), -a))

    @staticmethod
    def _chances(hand: list[int], trump: int) -> list[float]:
        return [(_TRUMP_CHANCE if suit_of(c) == trump else _SIDE_CHANCE)[strength(c)] for c in hand]

    def _decide(self, view: View, hand: list[int], trump: int) -> int:
        chances = self._chances(hand, trump)
        expected = sum(chances)
        none = 1.0
        for p in chances:
            none *= 1.0 - p
        # A few weak side cards will be swapped: a small bonus for the exchange.
        weak = sum(1 for c in hand if not self.keeps(c, trump))
        expected += 0.15 * weak
        none *= 0.9 ** weak
        boldness = 1.0
        if view["scores"][self.seat] <= 10:
            boldness = 1.3
        playing = sum(1 for d in view["decisions"] if d == "play")
        sitting = sum(1 for d in view["decisions"] if d == "sit out")
        if sitting >= 2 and playing <= 1:
            boldness *= 1.2
        return PLAY if boldness * expected > 5.0 * none else SIT_OUT

    def keeps(self, card: int, trump: int) -> bool:
        """Whether the exchange keeps this card: trumps, and side cards from :attr:`swap_below` up."""
        return suit_of(card) == trump or strength(card) >= self.swap_below

    def _exchange(self, legal: Sequence[int], trump: int) -> int:
        for a in legal:
            if DISCARD <= a < DISCARD + NUM_CARDS and not self.keeps(a - DISCARD, trump):
                return a
        return DONE

    # -- the tricks -----------------------------------------------------------------------------
    def _play(self, view: View, hand: list[int], legal: Sequence[int], trump: int) -> int:
        seen: set[int] = set(hand)
        for event in view["log"]:
            if event["type"] == "trick" and event["deal"] == view["deal"]:
                seen.update(card_id(c) for _, c in event["cards"])
        table = [(s, card_id(c)) for s, c in view["table"]]
        seen.update(c for _, c in table)
        return self._card(legal, table, seen, trump)

    def _card(self, legal: Sequence[int], table: list[tuple[int, int]], seen: set[int], trump: int) -> int:
        """The card to play from ``legal``, with ``table`` on the table and ``seen`` known."""
        if not table:
            return self._lead(list(legal), seen, trump)
        led = suit_of(table[0][1])

        def key(card: int) -> int:
            s = suit_of(card)
            return 100 + card if s == trump else (card if s == led else -1)

        best = max(key(c) for _, c in table)
        winners = [c for c in legal if key(c) > best]
        if winners:
            return min(winners, key=key)
        # Nothing wins: keep trumps and high cards, throw the weakest.
        return min(legal, key=lambda c: (suit_of(c) == trump, strength(c), c))

    @staticmethod
    def _lead(legal: list[int], seen: set[int], trump: int) -> int:
        if len(legal) == 1:
            return legal[0]

        def boss(card: int) -> bool:
            s = suit_of(card)
            return all(other in seen for other in range(card + 1, s * 10 + 10))

        trumps = [c for c in legal if suit_of(c) == trump]
        boss_trumps = [c for c in trumps if boss(c)]
        if boss_trumps:
            return max(boss_trumps)
        side_bosses = [c for c in legal if suit_of(c) != trump and boss(c)]
        if side_bosses:
            return max(side_bosses, key=strength)
        side = [c for c in legal if suit_of(c) != trump]
        if side:
            return min(side, key=strength)
        return min(legal)


class UpDownSuecaNormal(PimcBot):
    """``pimc`` with the greedy bot playing every seat to the end of the deal, in worlds where the
    other seats exchanged as the rule does (a seat that threw ``k`` cards kept ``5 - k`` trumps and
    aces). Play or sit out and the tricks take the best mean; the trump choice and the exchange
    keep the rule's own choice unless another action beats it by two paired standard errors
    (the search lost points there). Figures in docs/bots.md (seventh pass). Scoring the playouts
    by the chance to win the match (``race``) instead of the deal's points did not help (ninth)."""

    name = "normal"
    description = ("flat Monte Carlo from its own view: up to 200 drawn worlds or 90 ms per decision, in which "
                   "the others kept trumps and aces in the exchange; each legal action played on to the end "
                   "of the deal by the greedy rule in every seat; trump and exchange stay with the rule "
                   "unless another action is clearly better")
    worlds = 200
    milliseconds = 90.0
    min_worlds = 8
    anchor = 2.0

    free = ("decide", "trick")
    """Phases searched without the anchor: with worlds drawn by the exchange model, the search
    gains most in these (docs/bots.md, seventh pass), and the anchor held some of it back."""

    def anchor_for(self, view: View) -> float | None:
        return None if view["phase"] in self.free else self.anchor

    def sampler(self, view: View) -> WorldSampler:
        """Worlds in which the others exchanged as the greedy rule does: a seat that threw ``k``
        cards kept ``5 - k`` trumps and aces (:class:`~updown.games.updown_sueca.SuecaWorlds`)."""
        rule = self._scalar_policies(view["players"])[self.seat]
        return SuecaWorlds(view, keeps=rule.keeps)  # type: ignore[attr-defined]


class UpDownSuecaHard(UpDownSuecaNormal):
    name = "hard"
    description = ("flat Monte Carlo from its own view: up to 1000 drawn worlds or 900 ms per decision, in "
                   "which the others kept trumps and aces in the exchange; each legal action played on to the "
                   "end of the deal by the greedy rule in every seat; trump and exchange stay with the rule "
                   "unless another action is clearly better")
    worlds = 1000
    milliseconds = 900.0
    min_worlds = 16


GAME_ID = "updown-sueca"
BOTS = {"greedy": UpDownSuecaGreedy, "normal": UpDownSuecaNormal, "hard": UpDownSuecaHard}
