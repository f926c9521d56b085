"""The Up or Down? screen: the display as a ring around the draw piles, everyone's columns, your hand.

Every card shows its colour as a symbol as well as a terminal colour (◆ ruby, ★ gold, ● pink,
■ blue, ▲ purple, ✚ green), so the game can be played without colour (``NO_COLOR``, a pipe, or
colour-blind eyes). Players are drawn one block each, which fits 80 columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.screens import player_text
from updown.core.protocol import View
from updown.i18n import Translator
from updown.i18n.events_up_or_down import colour_names

GAME_ID = "up-or-down"

STYLES: tuple[str, ...] = ("bold red", "bold yellow", "bold hot_pink", "bold dodger_blue1", "bold medium_purple1",
                           "bold green")
"""Terminal styles of ruby, gold, pink, blue, purple, green."""

SYMBOLS: tuple[str, ...] = ("◆", "★", "●", "■", "▲", "✚")
"""The colours as symbols, in the same order: readable without colour."""


def colour_of(card: int) -> int:
    return (card - 1) % 6


def card_text(card: int, *, mark: str = "") -> Text:
    c = colour_of(card)
    return Text(f"{mark}{card}{SYMBOLS[c]}{mark}", style=STYLES[c])


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
    grid = Table.grid(padding=(0, 1))
    for _i in range(width + 2):
        grid.add_column(justify="center", min_width=5)

    def row(cards: list[int]) -> list[Any]:
        cells: list[Any] = [Text("")]
        cells += [card_text(c, mark=special.get(c, "")) for c in cards]
        cells += [Text("")] * (width - len(cards))
        return cells + [Text("")]

    grid.add_row(*row(top))
    middle: list[Any] = [card_text(left[0], mark=special.get(left[0], "")) if left else Text("")]
    middle += [Text("")] * width
    middle.append(card_text(right[0], mark=special.get(right[0], "")) if right else Text(""))
    grid.add_row(*middle)
    grid.add_row(*row(bottom))
    return grid


def _piles(view: View, _: Translator) -> Text:
    piles = Text()
    piles.append("▼ " + _("face down: {n}").format(n=view["down"]), style="dim")
    piles.append("   ▲ ")
    if view["up_top"] is not None:
        piles.append(_("face up:") + " ")
        piles.append_text(card_text(view["up_top"]))
        piles.append(" " + _("({n} in the pile)").format(n=view["up"]), style="dim")
    else:
        piles.append(_("face up: empty"), style="dim")
    return piles


def _column(k: int, col: dict[str, Any] | None, _: Translator) -> Text:
    out = Text(f"  {k}: ", style="dim")
    if col is None:
        out.append("-", style="dim")
        return out
    arrow = {"up": "↑ ", "down": "↓ "}.get(col["direction"] or "", "· ")
    out.append(arrow, style="bold")
    for c in col["cards"]:
        out.append_text(card_text(c))
        out.append(" ")
    out.append("= " + _.n("{n} point", "{n} points", col["score"]).format(n=col["score"]), style="dim")
    return out


def screen(view: View, names: Sequence[str], _: Translator) -> RenderableType:
    seat = view["seat"]
    parts: list[RenderableType] = [_ring(view), _piles(view, _)]
    for s, name in enumerate(names):
        label = player_text(name, s == seat, _)
        if s == view["turn"] and view["phase"] != "over":
            label.append(" ◀", style="yellow")
        label.append("   " + _("score {n}").format(n=view["scores"][s]), style="bold")
        label.append("   " + _("discards {n}").format(n=view["discards"][s]))
        label.append("   " + _("hand {n}").format(n=view["hand_sizes"][s]))
        known = view["known"][s]
        if known and s != seat:
            label.append(" " + _("incl.") + " ")
            for c in known:
                label.append_text(card_text(c))
                label.append(" ")
        parts.append(label)
        for k, col in enumerate(view["columns"][s], start=1):
            if col is not None:
                parts.append(_column(k, col, _))
    if view.get("taken") is not None:
        line = Text(_("taken:") + " ")
        line.append_text(card_text(view["taken"]))
        parts.append(line)
    if seat is not None:
        hand_line = Text(_("your hand:") + " ")
        for c in view["hand"]:
            hand_line.append_text(card_text(c))
            hand_line.append(" ")
        parts.append(hand_line)
        if view["turn"] == seat:
            tip = hint(view, _)
            if tip:
                parts.append(Text(tip, style="dim"))
    key = Text(_("colours:") + " ", style="dim")
    for i, colour in enumerate(colour_names(_)):
        key.append(f"{SYMBOLS[i]} {colour}", style=STYLES[i])
        key.append(" ")
    parts.append(key)
    parts.append(Text(_("* the card just played; ↑ rising, ↓ falling column"), style="dim"))
    title = _("Up or Down? · cards 1-{highest} · {phase}").format(highest=view["highest"], phase=_phase(view, _))
    return Panel(Group(*parts), title=Text(title), title_align="left")


def _phase(view: View, _: Translator) -> str:
    return {"play": _("play"), "take": _("take"), "place": _("place"), "draw": _("draw"),
            "over": _("over")}.get(view["phase"], view["phase"])


def prompt(view: View, _: Translator) -> str:
    return {"play": _("Play a card"), "take": _("Take a card"), "place": _("Place the card"),
            "draw": _("Draw")}.get(view.get("phase", ""), _("Your move"))


def hint(view: View, _: Translator) -> str | None:
    return {
        "play": _("play a hand card into the display (e.g. 14)"),
        "take": _("take one of the two neighbours of the card just played (take N, or just N)"),
        "place": _("put the taken card on a column (col K), start one (new), or give one up (give up K)"),
        "draw": _("draw a card: draw down or draw up (or just down, up)"),
    }.get(view.get("phase", ""))


def _neighbours(view: View) -> tuple[int, int] | None:
    ring, played = view["display"], view.get("played")
    if played not in ring:
        return None
    i = ring.index(played)
    return ring[i - 1], ring[(i + 1) % len(ring)]


def explain(view: View, text: str, _: Translator) -> str | None:
    """A number outside this game's cards gets the game's real range."""
    match = re.fullmatch(r"(?:(?:play|take|card)\s+)?(\d{1,12})", text.strip().lower())
    if match and not 1 <= int(match.group(1)) <= view["highest"]:
        return _("The cards in this game are 1 to {highest}.").format(highest=view["highest"])
    return None


def why(view: View, move: str, _: Translator) -> str | None:
    """Why a well-formed move is not legal now, from what the seat sees."""
    seat = view["seat"]
    phase = view["phase"]
    words = move.split()
    if seat not in view["to_act"]:
        return _("it is not your turn")
    if words[0].isdigit() or words[0] == "take":
        number = int(words[-1])
        if number > view["highest"]:
            return _("the cards in this game are 1 to {highest}").format(highest=view["highest"])
        if words[0].isdigit():
            if phase != "play":
                return _("you have played a card this turn already")
            return _("{card} is not in your hand").format(card=number)
        near = _neighbours(view)
        if phase != "take" or near is None:
            return _("first play a card from your hand")
        return _("take one of the neighbours of {card}: {a} or {b}").format(card=view["played"], a=near[0], b=near[1])
    mine = view["columns"][seat]
    if words[0] in ("col", "new", "give"):
        if phase != "place":
            return _("first play and take a card")
        if words[0] == "new":
            return _("you have three columns: give one up to start afresh (give up K)")
        k = int(words[-1])
        col = mine[k - 1]
        if col is None:
            return _("you have no column {k}: start one with new").format(k=k)
        if words[0] == "col":
            last, taken = col["cards"][-1], view["taken"]
            if col["direction"] == "up":
                return _("column {k} rises and ends at {last}; {card} is lower").format(k=k, last=last, card=taken)
            if col["direction"] == "down":
                return _("column {k} falls and ends at {last}; {card} is higher").format(k=k, last=last, card=taken)
    if words[0] == "draw":
        if phase != "draw":
            return _("you draw at the end of your turn")
        if words[1] == "up":
            return _("the face-up pile is empty")
        return _("the face-down pile is empty")
    return None
