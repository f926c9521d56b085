"""The UP&DOWN screen: the rules of the next trick, the players' suits and tricks, your hand."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.screens import card_text, player_text, suit_text
from updown.core.cards import Card
from updown.core.protocol import View

GAME_ID = "updown"


def screen(view: View, names: Sequence[str]) -> RenderableType:
    seat = view["seat"]
    suits = view["suits"] or []
    rules = Text()
    if view["up"] is not None:
        rules.append(" UP ▲ " if view["up"] else " DOWN ▼ ", style="bold white on blue" if view["up"] else "bold white on green")
    if seat is not None and suits:
        rules.append("   your suit ")
        rules.append_text(suit_text(suits[seat]))
    if view["trump"] is not None:
        dice = view["dice"] or []
        rules.append(f"   trump value {view['trump']}", style="bold yellow")
        rules.append(f" (dice {dice[0]}+{dice[1]})" if dice else "")
    rules.append(f"   pot {view['pot']}", style="magenta" if view["pot"] else "")
    title = (f"UP&DOWN · round {view['round']}/{view['rounds']} · "
             f"trick {view['trick']}/{view['tricks_per_round']}")

    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    table.add_column("player")
    table.add_column("suit")
    table.add_column("tricks", justify="right")
    table.add_column("total", justify="right")
    table.add_column("")
    for s, name in enumerate(names):
        marks = []
        if view["leader"] == s:
            marks.append("leads")
        if s in view["submitted"]:
            marks.append("has chosen")
        table.add_row(
            player_text(name, s == seat),
            suit_text(suits[s]) if suits else Text("-"),
            str(view["tricks"][s]), str(view["totals"][s]), ", ".join(marks),
        )
    parts: list[RenderableType] = [rules, table]
    if seat is not None:
        hand = Text("your hand: ")
        own = suits[seat] if suits else None
        for card in view["hand"]:
            c = Card.parse(card)
            useful = c.suit.letter == own or c.rank == view["trump"]
            hand.append_text(card_text(card, bold=useful))
            if useful:
                hand.append("*", style="yellow")
            hand.append(" ")
        if view.get("choice"):
            hand.append("  chosen: ")
            hand.append_text(card_text(view["choice"], bold=True))
        parts.append(hand)
        parts.append(Text("* can win: your suit or the trump value", style="dim"))
    return Panel(Group(*parts), title=title, title_align="left")
