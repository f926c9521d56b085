"""The Up or Down? screen: the display as a ring around the draw piles, everyone's columns, your hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.screens import player_text
from updown.core.protocol import View
from updown.games.up_or_down import COLOUR, COLOURS

GAME_ID = "up-or-down"

STYLES: tuple[str, ...] = ("bold red", "bold yellow", "bold hot_pink", "bold dodger_blue1", "bold medium_purple1",
                           "bold green")
"""Terminal styles of ruby, gold, pink, blue, purple, green."""

_HINTS = {
    "play": "play a hand card into the display (e.g. 14)",
    "take": "take one of the two neighbours of the card just played (take N)",
    "place": "put the taken card on a column (col K), start one (new), or give one up (give up K)",
    "draw": "draw a card: draw down or draw up",
}


def card_text(card: int, *, mark: str = "") -> Text:
    return Text(f"{mark}{card}{mark}", style=STYLES[COLOUR[card]])


def _ring(view: View) -> Table:
    """The display, clockwise from the top left, around the two draw piles."""
    ring: list[int] = view["display"]
    special = {view.get("played"): "*"}
    n = len(ring)
    top_count = (n - 1) // 2  # 6 cards: 2 on top, 1 right, 2 below, 1 left; 7 cards: 3, 1, 2, 1
    top, right = ring[:top_count], ring[top_count: top_count + 1]
    bottom = list(reversed(ring[top_count + 1: n - 1]))
    left = ring[n - 1:] if n > top_count + 1 else []
    width = max(len(top), len(bottom), 1)
    grid = Table.grid(padding=(0, 2))
    for _ in range(width + 2):
        grid.add_column(justify="center", min_width=4)

    def row(cards: list[int]) -> list[Any]:
        cells: list[Any] = [Text("")]
        cells += [card_text(c, mark=special.get(c, "")) for c in cards]
        cells += [Text("")] * (width - len(cards))
        return cells + [Text("")]

    grid.add_row(*row(top))
    piles = Text()
    piles.append(f"▼{view['down']}", style="dim")
    piles.append("  ")
    if view["up_top"] is not None:
        piles.append("▲")
        piles.append_text(card_text(view["up_top"]))
        piles.append(f"/{view['up']}", style="dim")
    else:
        piles.append("▲ empty", style="dim")
    middle: list[Any] = [card_text(left[0], mark=special.get(left[0], "")) if left else Text("")]
    middle += [Text("")] * width
    middle.append(card_text(right[0], mark=special.get(right[0], "")) if right else Text(""))
    grid.add_row(*middle)
    grid.add_row(*row(bottom))
    outer = Table.grid(padding=(0, 4))
    outer.add_column()
    outer.add_column(vertical="middle")
    outer.add_row(grid, piles)
    return outer


def _column(col: dict[str, Any] | None) -> Text:
    if col is None:
        return Text("-", style="dim")
    out = Text()
    arrow = {"up": "↑ ", "down": "↓ "}.get(col["direction"] or "", "· ")
    out.append(arrow, style="bold")
    for c in col["cards"]:
        out.append_text(card_text(c))
        out.append(" ")
    out.append(f"= {col['score']}", style="dim")
    return out


def screen(view: View, names: Sequence[str]) -> RenderableType:
    seat = view["seat"]
    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    table.add_column("player")
    for k in range(1, 4):
        table.add_column(f"column {k}")
    table.add_column("discards", justify="right")
    table.add_column("score", justify="right")
    table.add_column("hand", justify="right")
    for s, name in enumerate(names):
        label = player_text(name, s == seat)
        if s == view["turn"] and view["phase"] != "over":
            label.append(" ◀", style="yellow")
        known = view["known"][s]
        hand = Text(str(view["hand_sizes"][s]))
        if known and s != seat:
            hand.append(" incl. ")
            for c in known:
                hand.append_text(card_text(c))
                hand.append(" ")
        table.add_row(label, *(_column(c) for c in view["columns"][s]),
                      str(view["discards"][s]), str(view["scores"][s]), hand)
    parts: list[RenderableType] = [_ring(view), table]
    if view.get("taken") is not None:
        line = Text("taken: ")
        line.append_text(card_text(view["taken"]))
        parts.append(line)
    if seat is not None:
        hand_line = Text("your hand: ")
        for c in view["hand"]:
            hand_line.append_text(card_text(c))
            hand_line.append(" ")
        parts.append(hand_line)
        if view["turn"] == seat and view["phase"] in _HINTS:
            parts.append(Text(_HINTS[view["phase"]], style="dim"))
    key = Text("colours: ", style="dim")
    for i, colour in enumerate(COLOURS):
        key.append(colour, style=STYLES[i])
        key.append(" ")
    key.append(" * the card just played; ▼ face-down pile, ▲ face-up top / cards", style="dim")
    parts.append(key)
    title = f"Up or Down? · {view['length']} game, cards 1-{view['highest']} · {view['phase']}"
    return Panel(Group(*parts), title=title, title_align="left")
