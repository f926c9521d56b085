"""UP&DOWN event lines, translatable (the English matches ``updown.games.updown.describe_event``)."""

from __future__ import annotations

from collections.abc import Sequence

from updown.core.cards import Card, suit_symbol
from updown.core.protocol import Event
from updown.i18n import Translator
from updown.i18n.events import cards_text, listing, pretty

GAME_ID = "updown"


def up_word(up: bool, _: Translator) -> str:
    return _("UP") if up else _("DOWN")


def value_name(v: int, _: Translator) -> str:
    return {11: _("11 (jacks)"), 12: _("12 (queens)")}.get(v, str(v))


def _plural(v: int, _: Translator) -> str:
    return {11: _("the jacks"), 12: _("the queens")}.get(v, _("the {value}s").format(value=v))


def _suits(letters: Sequence[str], names: Sequence[str]) -> str:
    return ", ".join(f"{names[s]} {suit_symbol(x)}" for s, x in enumerate(letters))


def describe(event: Event, names: Sequence[str], _: Translator) -> str:
    kind = event["type"]
    if kind == "hand":
        return _("{name} is dealt {cards}.").format(name=names[event["seat"]], cards=cards_text(event["cards"], _))
    if kind == "dice":
        a, b = event["dice"]
        return _("Dice {a}+{b}: the trump value is {value}.").format(a=a, b=b, value=value_name(event["trump"], _))
    if kind == "toss":
        return _("The U&D card lands {side}.").format(side=up_word(event["up"], _))
    if kind == "orient":
        return _("Suits: {suits}. {name} leads first.").format(
            suits=_suits(event["suits"], names), name=names[event["leader"]])
    if kind == "flip":
        return _("{name} flips the card: {side}.").format(name=names[event["seat"]], side=up_word(event["up"], _))
    if kind == "rotate":
        return _("{name} rotates the card to {suit}: {suits}.").format(
            name=names[event["seat"]], suit=suit_symbol(event["suit"]), suits=_suits(event["suits"], names))
    if kind == "roll":
        return _("{name} rolls the dice.").format(name=names[event["seat"]])
    if kind == "trick":
        return _trick(event, names, _)
    if kind == "round":
        scores = ", ".join(f"{names[s]} {t}" for s, t in enumerate(event["tricks"]))
        if event["discarded"]:
            return _.n("Round {round} over. Tricks: {scores}; {n} discarded.",
                       "Round {round} over. Tricks: {scores}; {n} discarded.", event["discarded"]).format(
                round=event["round"], scores=scores, n=event["discarded"])
        return _("Round {round} over. Tricks: {scores}.").format(round=event["round"], scores=scores)
    if kind == "tiebreak":
        tied = listing([names[s] for s in event["tied"]], _)
        return _("{names} are tied for the lead: tie-break round {round}.").format(names=tied, round=event["round"])
    if kind == "end":
        ranking = sorted(range(len(event["totals"])), key=lambda s: (event["placings"][s], s))
        return _("Final: {standings}.").format(standings=", ".join(
            f"{event['placings'][s]}. {names[s]} {event['totals'][s]}" for s in ranking))
    return str(event)


def _trick(e: Event, names: Sequence[str], _: Translator) -> str:
    cards = e["cards"]
    played = ", ".join(f"{names[s]} {pretty(c, _)}" for s, c in enumerate(cards))
    head = _("Trick {trick} ({side}, trump {trump}): {played}.").format(
        trick=e["trick"], side=up_word(e["up"], _), trump=e["trump"], played=played)
    why: list[str] = []
    if e["cancelled"]:
        why.append(_("{values} cancel").format(values=listing([_plural(v, _) for v in e["cancelled"]], _)))
    for s in e["ineligible"]:
        why.append(_("{card} is not {name}'s suit ({suit})").format(
            card=pretty(cards[s], _), name=names[s], suit=suit_symbol(e["suits"][s])))
    winner = e["winner"]
    if winner is not None:
        card = cards[winner]
        contenders = [s for s, c in enumerate(cards)
                      if s not in e["ineligible"] and Card.parse(c).rank not in e["cancelled"]]
        if Card.parse(card).rank == e["trump"]:
            how = _("the trump")
        elif len(contenders) == 1:
            how = _("the only card that can win")
        else:
            how = _("the highest eligible card") if e["up"] else _("the lowest eligible card")
        won = _("{name} wins with {card}, {how}").format(name=names[winner], card=pretty(card, _), how=how)
        if e["taken"] > 1:
            won = _("{won}, and takes the pot: {n} tricks").format(won=won, n=e["taken"])
    elif e["discarded"]:
        won = _.n("No card can win; the last trick and the pot ({n} trick in all) are discarded",
                  "No card can win; the last trick and the pot ({n} tricks in all) are discarded",
                  e["discarded"]).format(n=e["discarded"])
    else:
        won = _.n("No card can win: the trick goes into the pot ({n} in it)",
                  "No card can win: the trick goes into the pot ({n} in it)", e["pot"]).format(n=e["pot"])
    reasons = "; ".join(why)
    if reasons:
        reasons = reasons[:1].upper() + reasons[1:] + ". "
    return f"{head} {reasons}{won}."
