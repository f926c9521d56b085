"""The UP&DOWN screen: the rules of the next trick, the players' suits and tricks, your hand."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.moves import words_for
from updown.cli.screens import hand_text, player_text, suit_text
from updown.core.cards import Card, Suit
from updown.core.protocol import View
from updown.i18n import Translator
from updown.i18n.events import pretty, suit_name

GAME_ID = "updown"


def screen(view: View, names: Sequence[str], _: Translator) -> RenderableType:
    seat = view["seat"]
    suits = view["suits"] or []
    rules = Text()
    if view["up"] is not None:
        if view["up"]:
            rules.append(" " + _("UP") + " ▲ ", style="bold white on blue")
        else:
            rules.append(" " + _("DOWN") + " ▼ ", style="bold white on green")
    if seat is not None and suits:
        rules.append("   " + _("your suit") + " ")
        rules.append_text(suit_text(suits[seat]))
    if view["trump"] is not None:
        dice = view["dice"] or []
        rules.append("   " + _("trump value {value}").format(value=view["trump"]), style="bold yellow")
        if dice:
            rules.append(" (" + _("dice {a}+{b}").format(a=dice[0], b=dice[1]) + ")")
    rules.append("   " + _("pot {n}").format(n=view["pot"]), style="magenta" if view["pot"] else "")
    title = _("UP&DOWN · round {round}/{rounds} · trick {trick}/{tricks}").format(
        round=view["round"], rounds=view["rounds"], trick=view["trick"], tricks=view["tricks_per_round"])

    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    table.add_column(_("player"), max_width=30)
    table.add_column(_("suit"))
    table.add_column(_("tricks"), justify="right")
    table.add_column(_("total"), justify="right")
    table.add_column("")
    for s, name in enumerate(names):
        marks = []
        if view["leader"] == s:
            marks.append(_("leads"))
        if s in view["submitted"]:
            marks.append(_("has chosen"))
        table.add_row(
            player_text(name, s == seat, _),
            suit_text(suits[s]) if suits else Text("-"),
            str(view["tricks"][s]), str(view["totals"][s]), ", ".join(marks),
        )
    parts: list[RenderableType] = [rules, table]
    if seat is not None:
        own = suits[seat] if suits else None

        def useful(card: str) -> bool:
            c = Card.parse(card)
            return c.suit.letter == own or c.rank == view["trump"]

        hand = hand_text(_("your hand:"), view["hand"], _, bold=useful, mark=lambda c: "*" if useful(c) else "")
        if view.get("choice"):
            hand.append("  " + _("chosen:") + " ")
            hand.append(pretty(view["choice"], _), style="bold")
        parts.append(hand)
        parts.append(Text(_("* can win: your suit or the trump value"), style="dim"))
    return Panel(Group(*parts), title=Text(title), title_align="left")


def prompt(view: View, _: Translator) -> str:
    return _("Change the rules") if view.get("phase") == "lead" else _("Choose a card")


def hint(view: View, _: Translator) -> str | None:
    if view.get("phase") == "lead":
        w = words_for(_)
        return _("As trick leader you change one rule: {flip} (UP/DOWN), {rotate} (a new suit faces you), "
                 "or {roll} (a new trump value).").format(
            flip=w.say("flip"), rotate=w.say("rotate {suit}", suit="S"), roll=w.say("roll"))
    return _("Choose a card in secret; it can win only in your suit or with the trump value.")


def why(view: View, move: str, _: Translator) -> str | None:
    """Why a well-formed move is not legal now, from what the seat sees."""
    seat = view["seat"]
    words = move.split()
    verb = words[0]
    if verb in ("flip", "rotate", "roll"):
        if view["phase"] != "lead":
            return _("the rules are set for this trick; choose a card")
        if view["leader"] != seat:
            return _("only the trick leader changes the rules")
        if verb == "rotate" and view["suits"] and view["suits"][seat] == words[1]:
            suit = Suit.parse(words[1])
            return _("{suit} is already your suit").format(suit=f"{suit.symbol} ({suit_name(suit.letter, _)})")
        return None
    if view["phase"] == "lead":
        if view["leader"] == seat:
            w = words_for(_)
            return _("you lead this trick: first change the rules ({flip}, {rotate} or {roll})").format(
                flip=w.say("flip"), rotate=w.say("rotate {suit}", suit="S"), roll=w.say("roll"))
        return _("first the trick leader changes the rules")
    if view.get("choice"):
        return _("you have chosen your card for this trick")
    if seat is not None and move not in view["hand"]:
        return _("{card} is not in your hand").format(card=pretty(move, _))
    return None
