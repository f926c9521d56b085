"""The Euchre screen: score and trump, the table with the trick in progress, your hand."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.screens import card_text, player_text, suit_text
from updown.core.protocol import View

GAME_ID = "euchre"


def screen(view: View, names: Sequence[str]) -> RenderableType:
    seat = view["seat"]
    totals = view["totals"]
    head = Text()
    head.append(f"{names[0]} & {names[2]} {totals[0]}", style="bold")
    head.append("  vs  ")
    head.append(f"{names[1]} & {names[3]} {totals[1]}", style="bold")
    head.append(f"   (to {view['target']})", style="dim")
    info = Text()
    if view["upcard"]:
        info.append("up-card ")
        info.append_text(card_text(view["upcard"], bold=True))
        if view["trump"] is None and view["phase"] == "bid2":
            info.append(" (turned down)", style="dim")
        info.append("   ")
    if view["trump"]:
        info.append("trump ")
        info.append_text(suit_text(view["trump"]))
        maker = view["maker"]
        info.append(f" by {names[maker]}" + (" alone" if view["alone"] else ""), style="yellow")
        tt = view["team_tricks"]
        info.append(f"   tricks {tt[0]}-{tt[1]}")

    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    table.add_column("player")
    table.add_column("cards", justify="right")
    table.add_column("tricks", justify="right")
    table.add_column("on the table")
    table.add_column("")
    played = {s: c for s, c in view["table"]}
    for s, name in enumerate(names):
        marks = []
        if view["dealer"] == s:
            marks.append("dealer")
        if s in view["out"]:
            marks.append("sits out")
        if s in view["to_act"]:
            marks.append("to act")
        table.add_row(
            player_text(name, s == seat),
            str(view["hand_sizes"][s]), str(view["tricks"][s]),
            card_text(played[s], bold=True) if s in played else Text(""),
            ", ".join(marks),
        )
    parts: list[RenderableType] = [head, info, table]
    if seat is not None:
        hand = Text("your hand: ")
        for card in view["hand"]:
            hand.append_text(card_text(card))
            hand.append(" ")
        if view.get("discard"):
            hand.append("  discarded: ")
            hand.append_text(card_text(view["discard"]))
        parts.append(hand)
    title = f"Euchre · deal {view['deal']} · trick {view['trick']}/5" if view["trump"] else f"Euchre · deal {view['deal']}"
    return Panel(Group(*parts), title=title, title_align="left")
