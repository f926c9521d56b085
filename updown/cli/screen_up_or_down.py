"""The Up or Down? screen: the display, the draw piles, everyone's columns, your hand.

Every card shows its colour as a symbol as well as a terminal colour (◆ ruby, ★ gold, ● pink,
■ blue, ▲ purple, ✚ green), so the game can be played without colour (``NO_COLOR``, a pipe, or
colour-blind eyes). The display is one line (the ring of cards, sorted), and each player at most
two (figures, then columns), so six players fit a terminal of 80 columns by 24 lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from updown.cli.moves import words_for
from updown.cli.screens import player_text, short_name
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


def _display(view: View, _: Translator) -> Text:
    """The display on one line: the ring of cards, sorted (the last one's neighbour is the first)."""
    special = {view.get("played"): "*"}
    line = Text(_("display (a ring):") + " ")
    for c in view["display"]:
        line.append_text(card_text(c, mark=special.get(c, "")))
        line.append(" ")
    return line


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


def _columns(columns: Sequence[dict[str, Any] | None], _: Translator) -> Text | None:
    """A player's columns on one line: ``1↓ 78◆ 37◆ 2★ =3  2· 26★ =1``; None without any."""
    if not any(columns):
        return None
    out = Text(" ")
    for k, col in enumerate(columns, start=1):
        if col is None:
            continue
        out.append(f" {k}", style="dim")
        out.append({"up": "↑", "down": "↓"}.get(col["direction"] or "", "·"), style="bold")
        for c in col["cards"]:
            out.append(" ")
            out.append_text(card_text(c))
        out.append(f" ={col['score']} ", style="dim")
    out.rstrip()
    return out


def screen(view: View, names: Sequence[str], _: Translator) -> RenderableType:
    """Two lines a player at most (their figures, then their columns), so that six players, the
    display and your hand fit a terminal of 80 by 24 with the legal moves and the prompt."""
    seat = view["seat"]
    parts: list[RenderableType] = [_display(view, _), _piles(view, _)]
    for s, name in enumerate(names):
        label = player_text(short_name(name), s == seat, _)
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
        columns = _columns(view["columns"][s], _)
        if columns is not None:
            parts.append(columns)
    mine = Text()
    if view.get("taken") is not None:
        mine.append(_("taken:") + " ")
        mine.append_text(card_text(view["taken"]))
        mine.append("   ")
    if seat is not None:
        mine.append(_("your hand:") + " ")
        for c in view["hand"]:
            mine.append_text(card_text(c))
            mine.append(" ")
    if mine:
        parts.append(mine)
    if seat is not None and view["turn"] == seat and len(names) <= 4:  # more players: the tip is in help
        tip = hint(view, _)
        if tip:
            parts.append(Text(tip, style="dim"))
    key = Text()
    for i, colour in enumerate(colour_names(_)):
        key.append(f"{SYMBOLS[i]} {colour}", style=STYLES[i])
        key.append(" ")
    key.append("· " + _("*played ↑rising ↓falling"), style="dim")
    parts.append(key)
    title = _("Up or Down? · cards 1-{highest} · {phase}").format(highest=view["highest"], phase=_phase(view, _))
    return Panel(Group(*parts), title=Text(title), title_align="left")


def _phase(view: View, _: Translator) -> str:
    return {"play": _("play"), "take": _("take"), "place": _("place"), "draw": _("draw"),
            "over": _("over")}.get(view["phase"], view["phase"])


def prompt(view: View, _: Translator) -> str:
    return {"play": _("Play a card"), "take": _("Take a card"), "place": _("Place the card"),
            "draw": _("Draw")}.get(view.get("phase", ""), _("Your move"))


def hint(view: View, _: Translator) -> str | None:
    w = words_for(_)
    phase = view.get("phase", "")
    if phase == "play":
        return _("play a hand card into the display (e.g. 14)")
    if phase == "take":
        return _("take one of the two neighbours of the card just played ({take}, or just N)").format(
            take=w.say("take {n}", n="N"))
    if phase == "place":
        return _("put the taken card on a column ({col}), start one ({new}), or give one up ({give})").format(
            col=w.say("col {n}", n="K"), new=w.say("new"), give=w.say("give up {n}", n="K"))
    if phase == "draw":
        down, up = w.say("draw down"), w.say("draw up")
        return _("draw a card: {down} or {up} (or just {down_word}, {up_word})").format(
            down=down, up=up, down_word=down.split()[-1], up_word=up.split()[-1])
    return None


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
            return _("you have three columns: give one up to start afresh ({give})").format(
                give=words_for(_).say("give up {n}", n="K"))
        k = int(words[-1])
        col = mine[k - 1]
        if col is None:
            return _("you have no column {k}: start one with {new}").format(k=k, new=words_for(_).say("new"))
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
