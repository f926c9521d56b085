"""Up or Down? event lines, translatable (English as ``updown.games.up_or_down.describe_event``)."""

from __future__ import annotations

from collections.abc import Sequence

from updown.core.protocol import Event
from updown.i18n import Translator

GAME_ID = "up-or-down"


def colour_names(_: Translator) -> tuple[str, ...]:
    """The six colours' names, in the order of ``updown.games.up_or_down.COLOURS``."""
    return (_("ruby"), _("gold"), _("pink"), _("blue"), _("purple"), _("green"))


def card(n: int, _: Translator) -> str:
    return f"{n} ({colour_names(_)[(n - 1) % 6]})"


def describe(event: Event, names: Sequence[str], _: Translator) -> str:
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event else ""
    if kind == "hand":
        return _("{name} is dealt {cards}.").format(name=who, cards=", ".join(card(c, _) for c in event["cards"]))
    if kind == "display":
        return _("The display: {cards}. Draw piles: {down} cards face down, {up} face up.").format(
            cards=" ".join(map(str, event["cards"])), down=event["down"], up=event["up"])
    if kind == "reveal":
        return _.n("The face-up pile shows {card} ({n} card in it).", "The face-up pile shows {card} ({n} cards in it).",
                   event["up"]).format(card=card(event["card"], _), n=event["up"])
    if kind == "play":
        a, b = event["between"]
        if a > b:
            if event["card"] < b:
                where = _("between {a} and {b} (the wrap-around: lowest card)").format(a=a, b=b)
            else:
                where = _("between {a} and {b} (the wrap-around: highest card)").format(a=a, b=b)
        else:
            where = _("between {a} and {b}").format(a=a, b=b)
        return _("{name} plays {card} into the display {where}.").format(name=who, card=card(event["card"], _),
                                                                         where=where)
    if kind == "take":
        return _("{name} takes {card}.").format(name=who, card=card(event["card"], _))
    if kind == "new":
        return _("{name} starts column {column} with {card}.").format(
            name=who, column=event["column"], card=card(event["card"], _))
    if kind == "place":
        n, direction = event["length"], event["direction"]
        if direction == "up":
            shape = _.n("{n} card, rising", "{n} cards, rising", n)
        elif direction == "down":
            shape = _.n("{n} card, falling", "{n} cards, falling", n)
        else:
            shape = _.n("{n} card", "{n} cards", n)
        points = _.n("{n} point", "{n} points", event["score"]).format(n=event["score"])
        return _("{name} puts {card} on column {column} ({shape}, {points}).").format(
            name=who, card=card(event["card"], _), column=event["column"], shape=shape.format(n=n), points=points)
    if kind == "give_up":
        gone = len(event["cards"])
        moved = _.n("{n} card to the discard pile", "{n} cards to the discard pile", gone).format(n=gone)
        return _("{name} gives up column {column} ({moved}, {total} there now) and starts it afresh with {card}.").format(
            name=who, column=event["column"], moved=moved, total=event["discards"], card=card(event["card"], _))
    if kind == "draw":
        if event["pile"] == "up":
            return _("{name} draws {card} from the face-up pile.").format(name=who, card=card(event["card"], _))
        return _("{name} draws from the face-down pile.").format(name=who)
    if kind == "drew":
        return _("{name} draws {card}.").format(name=who, card=card(event["card"], _))
    if kind == "end":
        scores, placings = event["scores"], event["placings"]
        ranking = sorted(range(len(scores)), key=lambda s: (placings[s], s))
        return _("Final: {standings}.").format(
            standings=", ".join(f"{placings[s]}. {names[s]} {scores[s]}" for s in ranking))
    return str(event)
