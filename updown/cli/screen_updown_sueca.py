"""The Up&Down (Sueca) screen: trump, scores, who plays, the cards on the table, your hand."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.screens import card_text, player_text, suit_text
from updown.core.protocol import View

GAME_ID = "updown-sueca"


def screen(view: View, names: Sequence[str]) -> RenderableType:
    seat = view["seat"]
    head = Text()
    if view["trump"]:
        head.append("trump ")
        head.append_text(suit_text(view["trump"]))
        if view["turned"]:
            head.append(" (turned ")
            head.append_text(card_text(view["turned"]))
            head.append(f", in {names[view['chooser']]}'s hand)")
        if view["trick_value"] == 2:
            head.append("   tricks count double", style="bold yellow")
    else:
        head.append(f"{names[view['chooser']]} chooses the trump", style="dim")
    title = f"Up&Down (Sueca) · deal {view['deal']} · dealer {names[view['dealer']]}"
    if view["phase"] == "trick":
        title += f" · trick {view['trick']}/5"

    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    for col in ("player", "score", "plays", "swapped", "tricks", "table", ""):
        table.add_column(col, justify="right" if col in ("score", "swapped", "tricks") else "left")
    on_table = {s: c for s, c in view["table"]}
    for s, name in enumerate(names):
        decision = view["decisions"][s]
        plays = "-" if decision is None else ("yes" if decision == "play" else "sits out")
        if view["forced"][s]:
            plays += "*"
        swapped = view["exchanged"][s]
        marks = []
        if s == view["dealer"]:
            marks.append("deals")
        if s in view["to_act"]:
            marks.append("to act")
        if s in view["left"]:
            marks.append("left (bot)")
        table.add_row(
            player_text(name, s == seat),
            str(view["scores"][s]), plays, "-" if swapped is None else str(swapped),
            str(view["tricks"][s]) if decision == "play" else "",
            card_text(on_table[s], bold=True) if s in on_table else Text(""), ", ".join(marks),
        )
    parts: list[RenderableType] = [head, table]
    if seat is not None:
        hand = Text("your hand: ")
        for card in view["hand"]:
            hand.append_text(card_text(card, bold=bool(view["trump"]) and card[-1] == view["trump"]))
            hand.append(" ")
        parts.append(hand)
        if view.get("my_discards"):
            parts.append(Text("discarded: " + " ".join(view["my_discards"]), style="dim"))
        parts.append(Text("* forced to play · type leave to leave the match (100 RISCOS)", style="dim"))
    if "result" in view:
        riscos = view["result"]["riscos"]
        parts.append(Text("RISCOS: " + ", ".join(f"{names[s]} {r:+d}" for s, r in enumerate(riscos)),
                          style="bold green"))
    return Panel(Group(*parts), title=title, title_align="left")
