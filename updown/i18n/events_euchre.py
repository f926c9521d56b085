"""Euchre event lines, translatable (English as ``updown.games.euchre.describe_event``).

One change from the engine's English: the dealer's pick-up no longer says "and discards a card
face down" before the dealer has chosen; the discard has its own line, which only the dealer sees
(the event is private to the dealer).
"""

from __future__ import annotations

from collections.abc import Sequence

from updown.core.cards import Card, suit_symbol
from updown.core.protocol import Event
from updown.i18n import Translator
from updown.i18n.events import pretty

GAME_ID = "euchre"

_SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}


def bid_text(bid: str, _: Translator) -> str:
    """A bid as said at the table, in the reader's language (``name H alone`` keeps its suit)."""
    fixed = {"pass": _("pass"), "order up": _("order up"), "order up alone": _("order up alone"),
             "pick up": _("pick up"), "pick up alone": _("pick up alone"), "defend alone": _("defend alone")}
    if bid in fixed:
        return fixed[bid]
    words = bid.split()
    if words[:1] == ["name"] and len(words) >= 2:
        suit = suit_symbol(words[1])
        return _("name {suit} alone").format(suit=suit) if words[2:] == ["alone"] else \
            _("name {suit}").format(suit=suit)
    return bid


def _how(e: Event, win: str, _: Translator) -> str:
    trump = e["trump"]
    c = Card.parse(win)
    if c.rank == 11 and c.suit.letter == trump:
        return _("the right bower")
    if c.rank == 11 and c.suit.letter == _SAME_COLOUR[trump]:
        return _("the left bower")

    def is_trump(text: str) -> bool:
        k = Card.parse(text)
        return k.suit.letter == trump or (k.rank == 11 and k.suit.letter == _SAME_COLOUR[trump])

    if is_trump(win):
        others = [c for c in e["cards"] if c != win and is_trump(c)]
        return _("the highest trump") if others else _("the only trump")
    return _("the highest card of the suit led")


def describe(event: Event, names: Sequence[str], _: Translator) -> str:
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event else ""
    if kind == "dealer":
        return _("{name} deals first.").format(name=who)
    if kind == "hand":
        return _("{name} is dealt {cards}.").format(name=who, cards=" ".join(pretty(c, _) for c in event["cards"]))
    if kind == "upcard":
        return _("Deal {deal}, dealer {name}: the up-card is {card}.").format(
            deal=event["deal"], name=names[event["dealer"]], card=pretty(event["card"], _))
    if kind == "bid":
        return f"{who}: {bid_text(event['bid'], _)}."
    if kind == "turn-down":
        return _("Everyone passed: {card} is turned down; name another suit.").format(card=pretty(event["card"], _))
    if kind == "thrown-in":
        return _("Everyone passed again: the hand is thrown in and the deal passes on.")
    if kind == "trump":
        if event["alone"]:
            return _("Trump is {suit}, made by {name}, going alone ({partner} sits out).").format(
                suit=suit_symbol(event["suit"]), name=names[event["maker"]], partner=names[event["out"]])
        return _("Trump is {suit}, made by {name}.").format(suit=suit_symbol(event["suit"]), name=names[event["maker"]])
    if kind == "pickup":
        return _("{name} picks up {card}.").format(name=who, card=pretty(event["card"], _))
    if kind == "discard":
        return _("{name} discards {card}.").format(name=who, card=pretty(event["card"], _))
    if kind == "trick":
        cards = event["cards"]
        played = ", ".join(f"{names[s]} {pretty(c, _)}" for s, c in zip(event["seats"], cards))
        win = cards[event["seats"].index(event["winner"])]
        return _("Trick {trick}: {played}. {name} wins with {card}, {how}.").format(
            trick=event["trick"], played=played, name=names[event["winner"]], card=pretty(win, _),
            how=_how(event, win, _))
    if kind == "score":
        return _score(event, names, _)
    if kind == "end":
        t = event["totals"]
        if t[0] == t[1]:
            return _("Final: {a} to {b}, a tie.").format(a=t[0], b=t[1])
        w = 0 if t[0] > t[1] else 1
        return _("Final: {name} and {partner} win {a} to {b}.").format(
            name=names[w], partner=names[w + 2], a=t[w], b=t[1 - w])
    return str(event)


def _score(e: Event, names: Sequence[str], _: Translator) -> str:
    t0, t1 = e["totals"]
    if e["maker"] is None:
        return _("Deal {deal} thrown in, no score. Score {a}-{b}.").format(deal=e["deal"], a=t0, b=t1)
    mt = e["maker"] & 1
    made = e["tricks"][mt]
    pts = e["points"]
    team = listing2(names[mt], names[mt + 2], _)
    if e["outcome"].startswith("euchred"):
        d = 1 - mt
        return _.n("Deal {deal}: {team} are euchred with {n} trick: {others} score {points}. Score {a}-{b}.",
                   "Deal {deal}: {team} are euchred with {n} tricks: {others} score {points}. Score {a}-{b}.",
                   made).format(deal=e["deal"], team=team, n=made, others=listing2(names[d], names[d + 2], _),
                                points=pts[d], a=t0, b=t1)
    outcome = {"made": _("made"), "march": _("march"), "alone march": _("alone march")}.get(e["outcome"], e["outcome"])
    points = _.n("{n} point", "{n} points", pts[mt]).format(n=pts[mt])
    return _.n("Deal {deal}: {team} take {n} trick ({outcome}): {points}. Score {a}-{b}.",
               "Deal {deal}: {team} take {n} tricks ({outcome}): {points}. Score {a}-{b}.", made).format(
        deal=e["deal"], team=team, n=made, outcome=outcome, points=points, a=t0, b=t1)


def listing2(a: str, b: str, _: Translator) -> str:
    return _("{first} and {last}").format(first=a, last=b)
