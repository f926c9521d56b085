"""The Euchre screen: score and trump, the table with the trick in progress, your hand."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.moves import words_for
from updown.cli.screens import OneLineOr, card_text, hand_text, player_text, suit_text
from updown.core.cards import Card, Suit
from updown.core.protocol import View
from updown.i18n import Translator
from updown.i18n.events import pretty, suit_name

GAME_ID = "euchre"

_SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}


def screen(view: View, names: Sequence[str], _: Translator) -> RenderableType:
    seat = view["seat"]
    totals = view["totals"]
    teams = []
    for team in (0, 1):
        line = Text(f"{names[team]} & {names[team + 2]}")
        line.append(": " + _.n("{n} point", "{n} points", totals[team]).format(n=totals[team]), style="bold")
        teams.append(line)
    target = Text("   " + _("(to {n})").format(n=view["target"]), style="dim")
    # One line where it fits: "A & C: 3 points   vs   B & D: 5 points   (to 10)"; else a team a line.
    head = OneLineOr(Text.assemble(teams[0], "   " + _("vs") + "   ", teams[1], target),
                     Text.assemble(teams[0], target), Text.assemble(_("vs") + " ", teams[1]))
    info = Text()
    if view["upcard"]:
        info.append(_("up-card") + " ")
        info.append_text(card_text(view["upcard"], _, bold=True))
        if view["trump"] is None and view["phase"] == "bid2":
            info.append(" " + _("(turned down)"), style="dim")
        info.append("   ")
    if view["trump"]:
        info.append(_("trump") + " ")
        info.append_text(suit_text(view["trump"]))
        maker = view["maker"]
        by = _("by {name} alone") if view["alone"] else _("by {name}")
        info.append(" " + by.format(name=names[maker]), style="yellow")
        tt = view["team_tricks"]
        info.append("   " + _("tricks {a}-{b}").format(a=tt[0], b=tt[1]))

    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    table.add_column(_("player"), max_width=30)
    table.add_column(_("cards"), justify="right")
    table.add_column(_("tricks"), justify="right")
    table.add_column(_("on the table"))
    table.add_column("")
    played = {s: c for s, c in view["table"]}
    for s, name in enumerate(names):
        marks = []
        if view["dealer"] == s:
            marks.append(_("dealer"))
        if s in view["out"]:
            marks.append(_("sits out"))
        if s in view["to_act"]:
            marks.append(_("to act"))
        table.add_row(
            player_text(name, s == seat, _),
            str(view["hand_sizes"][s]), str(view["tricks"][s]),
            card_text(played[s], _, bold=True) if s in played else Text(""),
            ", ".join(marks),
        )
    parts: list[RenderableType] = [head, info, table]
    if seat is not None:
        hand = hand_text(_("your hand:"), view["hand"], _)
        if view.get("discard"):
            hand.append("  " + _("discarded:") + " ")
            hand.append_text(card_text(view["discard"], _))
        parts.append(hand)
    if view["trump"]:
        title = _("Euchre · deal {deal} · trick {trick}/5").format(deal=view["deal"], trick=view["trick"])
    else:
        title = _("Euchre · deal {deal}").format(deal=view["deal"])
    return Panel(Group(*parts), title=Text(title), title_align="left")


def prompt(view: View, _: Translator) -> str:
    phase = view.get("phase")
    if phase in ("bid1", "bid2", "defend"):
        return _("Your bid")
    if phase == "discard":
        return _("Discard a card")
    return _("Play a card")


def hint(view: View, _: Translator) -> str | None:
    phase = view.get("phase")
    w = words_for(_)
    if phase == "bid1":
        return _("First round: {pass_}, or make the up-card's suit trump ({order_up}; the dealer says {pick_up}); "
                 "add {alone} to play without your partner.").format(
            pass_=w.say("pass"), order_up=w.say("order up"), pick_up=w.say("pick up"),
            alone=w.say("pick up alone").split()[-1])
    if phase == "bid2":
        return _("Second round: {pass_}, or name a suit other than the turned-down one ({name}, {name_alone}).").format(
            pass_=w.say("pass"), name=w.say("name {suit}", suit="H"), name_alone=w.say("name {suit} alone", suit="H"))
    if phase == "play":
        return _("Follow the suit led if you can; the left bower counts as a trump.")
    return None


def _effective(card: str, trump: str | None) -> str:
    c = Card.parse(card)
    if trump and c.rank == 11 and c.suit.letter == _SAME_COLOUR[trump]:
        return trump
    return c.suit.letter


def why(view: View, move: str, _: Translator) -> str | None:
    """Why a well-formed move is not legal now, from what the seat sees."""
    seat = view["seat"]
    phase = view["phase"]
    words = move.split()
    upcard = view["upcard"]
    is_bid = words[0] in ("pass", "order", "pick", "name", "defend")
    if seat not in view["to_act"]:
        return _("it is not your turn")
    if is_bid and phase not in ("bid1", "bid2", "defend"):
        return _("the bidding is over")
    if phase == "bid1":
        if words[0] == "name":
            return _("in the first round you order up the up-card or pass; naming a suit comes in the second round")
        if words[0] == "order" and view["dealer"] == seat:
            return _("you are the dealer: say {pick_up}").format(pick_up=words_for(_).say("pick up"))
        if words[0] == "pick":
            return _("only the dealer picks up; say {order_up}").format(order_up=words_for(_).say("order up"))
    if phase == "bid2":
        if words[0] in ("order", "pick"):
            return _("the up-card was turned down; name another suit")
        if words[0] == "name" and upcard and Suit.parse(words[1]).letter == Card.parse(upcard).suit.letter:
            suit = Suit.parse(words[1])
            return _("{suit} was turned down").format(suit=f"{suit.symbol} ({suit_name(suit.letter, _)})")
        if words[0] == "pass" and view["dealer"] == seat:
            return _("the other three passed, so the dealer must name a suit (stick the dealer)")
    if words[0] == "discard":
        if phase != "discard":
            return _("only the dealer discards, after picking up")
        if upcard and words[1] == upcard:
            return _("you keep the card you picked up; discard one of your own five")
    if len(words) == 1 and phase != "play":
        return _("first the bidding")
    if len(words) == 1 and phase == "play":
        hand = view["hand"]
        if move not in hand:
            return _("{card} is not in your hand").format(card=pretty(move, _))
        if view["table"]:
            trump = view["trump"]
            led = _effective(view["table"][0][1], trump)
            if _effective(move, trump) != led and any(_effective(c, trump) == led for c in hand):
                follow = [pretty(c, _) for c in hand if _effective(c, trump) == led]
                return _("you must follow {suit} ({cards})").format(
                    suit=suit_name(led, _), cards=" ".join(follow))
    return None
