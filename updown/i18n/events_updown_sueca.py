"""Up&Down (Sueca) event lines, translatable (English as ``updown.games.updown_sueca.describe_event``)."""

from __future__ import annotations

from collections.abc import Sequence

from updown.core.cards import Card, suit_symbol
from updown.core.protocol import Event
from updown.i18n import Translator
from updown.i18n.events import cards_text, pretty, suit_name

GAME_ID = "updown-sueca"


def forced_reason(reason: str, _: Translator) -> str:
    """The engine's reason for a forced player, in the reader's language."""
    known = {"chose the trump": _("chose the trump"), "has 5 points or less": _("has 5 points or less"),
             "sat out the two previous deals": _("sat out the two previous deals")}
    if reason in known:
        return known[reason]
    head, sep, tail = reason.partition(" are trump")
    letters = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
    if sep and not tail and head.lower() in letters:
        text = _("{suit} are trump").format(suit=suit_name(letters[head.lower()], _))
        return text[:1].upper() + text[1:]
    return reason


def describe(event: Event, names: Sequence[str], _: Translator) -> str:
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event else ""
    if kind == "hidden":
        return _("({name}: a private event, not known in this world)").format(name=who)
    if kind == "deal":
        return _("Deal {deal}: {dealer} deals; {chooser} chooses the trump.").format(
            deal=event["deal"], dealer=names[event["dealer"]], chooser=names[event["chooser"]])
    if kind == "dealt":
        return _("{name} is dealt {cards}.").format(name=who, cards=cards_text(event["cards"], _))
    if kind == "trump":
        suit = f"{suit_name(event['suit'], _)} ({suit_symbol(event['suit'])})"
        if event["turned"]:
            return _("{name} turns the next card, {card}, and keeps it: {suit} are trump.").format(
                name=who, card=pretty(event["turned"], _), suit=suit)
        return _("{name} chooses {suit} as trump.").format(name=who, suit=suit)
    if kind == "plays":
        if event["forced"]:
            return _("{name} plays ({reason}).").format(name=who, reason=forced_reason(event["forced"], _))
        return _("{name} plays.").format(name=who)
    if kind == "sits out":
        return _("{name} sits out.").format(name=who)
    if kind == "discard":
        return _("{name} discards {card}.").format(name=who, card=pretty(event["card"], _))
    if kind == "exchange":
        n = event["count"]
        if not n:
            return _("{name} keeps their cards.").format(name=who)
        return _.n("{name} exchanges {n} card.", "{name} exchanges {n} cards.", n).format(name=who, n=n)
    if kind == "draw":
        return _("{name} draws {card}.").format(name=who, card=pretty(event["card"], _))
    if kind == "lone":
        n = event.get("tricks", 5)
        if n == 5:
            return _("{name} is the only one playing and takes all five tricks.").format(name=who)
        # A research deck's shorter hands (docs/research-variants.md).
        if n == 1:
            return _("{name} is the only one playing and takes the one trick.").format(name=who)
        return _("{name} is the only one playing and takes all {n} tricks.").format(name=who, n=n)
    if kind == "trick":
        played = ", ".join(f"{names[s]} {pretty(c, _)}" for s, c in event["cards"])
        winner = event["winner"]
        card = next(c for s, c in event["cards"] if s == winner)
        trump = Card.parse(card).suit.letter == event["trump"]
        how = _("the highest trump") if trump else _("the highest of the suit led")
        return _("Trick {trick}: {played}. {name} wins with {card}, {how}.").format(
            trick=event["trick"], played=played, name=names[winner], card=pretty(card, _), how=how)
    if kind == "score":
        parts = []
        for s, change in enumerate(event["changes"]):
            if not event["playing"][s]:
                parts.append(_("{name} sat out ({score})").format(name=names[s], score=event["scores"][s]))
            else:
                n = event["tricks"][s]
                parts.append(_.n("{name} {n} trick {change} -> {score}", "{name} {n} tricks {change} -> {score}",
                                 n).format(name=names[s], n=n, change=f"{change:+d}", score=event["scores"][s]))
        if event["factor"] == 2:
            return _("Deal {deal} scored ({suit}: tricks count double): {parts}.").format(
                deal=event["deal"], suit=suit_name(event["trump"], _), parts="; ".join(parts))
        return _("Deal {deal} scored: {parts}.").format(deal=event["deal"], parts="; ".join(parts))
    if kind == "leave":
        return _("{name} leaves the match and pays {riscos} RISCOS; a bot takes the seat.").format(
            name=who, riscos=-event["riscos"])
    if kind == "end":
        riscos = ", ".join(f"{names[s]} {r:+d}" for s, r in enumerate(event["riscos"]))
        if event["house"]:
            riscos += ", " + _("house {riscos}").format(riscos=f"{event['house']:+d}")
        return _("{name} finishes first with {score} points. RISCOS: {riscos}.").format(
            name=names[event["winner"]], score=event["scores"][event["winner"]], riscos=riscos)
    return str(event)
