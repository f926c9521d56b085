"""The Up&Down (Sueca) screen: trump, scores, who plays, the cards on the table, your hand."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.cli.moves import words_for
from updown.cli.screens import card_text, hand_text, player_text, short_name, suit_text
from updown.core.cards import Card
from updown.core.protocol import View
from updown.i18n import Translator
from updown.i18n.events import pretty, suit_name

GAME_ID = "updown-sueca"

STRENGTH = (2, 3, 4, 5, 6, 12, 11, 13, 7, 14)
"""Sueca ranks from weakest to strongest: 2 3 4 5 6 Q J K 7 A."""


def _turned_played(view: View) -> bool:
    """Whether the turned card has been played in this deal (then it is in no hand)."""
    turned = view["turned"]
    if any(c == turned for _, c in view["table"]):
        return True
    for event in reversed(view["log"]):
        if event["type"] == "deal":
            return False
        if event["type"] == "trick" and any(c == turned for _, c in event["cards"]):
            return True
    return False


def screen(view: View, names: Sequence[str], _: Translator) -> RenderableType:
    seat = view["seat"]
    head = Text()
    if view["trump"]:
        head.append(_("trump") + " ")
        head.append_text(suit_text(view["trump"]))
        if view["turned"]:
            head.append(" (")
            head.append(_("turned") + " ")
            head.append_text(card_text(view["turned"], _))
            if _turned_played(view):
                head.append(", " + _("played"))
            else:
                head.append(", " + _("kept by {name}").format(name=names[view["chooser"]]))
            head.append(")")
        if view["trick_value"] == 2:
            head.append("   " + _("tricks count double"), style="bold yellow")
    else:
        head.append(_("{name} chooses the trump").format(name=names[view["chooser"]]), style="dim")
    title = _("Up&Down (Sueca) · deal {deal} · dealer {name}").format(deal=view["deal"], name=names[view["dealer"]])
    if view["phase"] == "trick":
        title += " · " + _("trick {trick}/5").format(trick=view["trick"])

    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
    for col, right in ((_("player"), False), (_("score"), True), (_("plays"), False), (_("swapped"), True),
                       (_("tricks"), True), (_("table"), False), ("", False)):
        table.add_column(col, justify="right" if right else "left", max_width=30 if col == _("player") else None)
    on_table = {s: c for s, c in view["table"]}
    for s, name in enumerate(names):
        decision = view["decisions"][s]
        plays = "-" if decision is None else (_("yes") if decision == "play" else _("sits out"))
        if view["forced"][s]:
            plays += "*"
        swapped = view["exchanged"][s]
        marks = []
        if s == view["dealer"]:
            marks.append(_("deals"))
        if s in view["to_act"]:
            marks.append(_("to act"))
        if s in view["left"]:
            marks.append(_("left (bot)"))
        table.add_row(
            player_text(short_name(name), s == seat, _),
            str(view["scores"][s]), plays, "-" if swapped is None else str(swapped),
            str(view["tricks"][s]) if decision == "play" else "",
            card_text(on_table[s], _, bold=True) if s in on_table else Text(""), ", ".join(marks),
        )
    parts: list[RenderableType] = [head, table]
    if seat is not None:
        trump = view["trump"]
        parts.append(hand_text(_("your hand:"), view["hand"], _, bold=lambda c: bool(trump) and c[-1] == trump))
        if view.get("my_discards"):
            line = Text(_("discarded:") + " ", style="dim")
            for card in view["my_discards"]:
                line.append_text(card_text(card, _))
                line.append(" ")
            parts.append(line)
        parts.append(Text(_("* forced to play · type {leave} to leave the match (100 RISCOS)").format(
            leave=words_for(_).say("leave")), style="dim"))
    if "result" in view:
        riscos = view["result"]["riscos"]
        parts.append(Text("RISCOS: " + ", ".join(f"{names[s]} {r:+d}" for s, r in enumerate(riscos)),
                          style="bold green"))
    return Panel(Group(*parts), title=Text(title), title_align="left")


def prompt(view: View, _: Translator) -> str:
    return {"trump": _("Choose the trump"), "decide": _("Play or sit out"),
            "exchange": _("Discard, or {done}").format(done=words_for(_).say("done"))}.get(
        view.get("phase", ""), _("Play a card"))


def hint(view: View, _: Translator) -> str | None:
    w = words_for(_)
    discard = w.say("discard {card}", card="3H")
    return {"trump": _("Name a suit ({trump}) or turn the next card ({turn}).").format(
                trump=w.say("trump {suit}", suit="S"), turn=w.say("turn")),
            "decide": _("{play}, or {sit_out} (nothing changes for you this deal).").format(
                play=w.say("play"), sit_out=w.say("sit out")),
            "exchange": _("Discard cards to swap them with the stock ({discard}, or several: {several}), "
                          "then {done}.").format(discard=discard, several="3h 5s", done=w.say("done")),
            }.get(view.get("phase", ""))


def leave_warning(_: Translator) -> str:
    return _("Leaving costs 100 RISCOS; a bot plays your seat to the end.")


def quit_note(_: Translator) -> str:
    """Stopping the terminal is not the paid leave: nothing is paid and nobody takes the seat."""
    return _("This is not leaving the match: no RISCOS are paid and no bot takes your seat; "
             "the game waits in the file until you go on.")


def _strength(card: str) -> int:
    return STRENGTH.index(Card.parse(card).rank)


def why(view: View, move: str, _: Translator) -> str | None:
    """Why a well-formed move is not legal now, from what the seat sees."""
    seat = view["seat"]
    phase = view["phase"]
    words = move.split()
    if seat not in view["to_act"]:
        return _("it is not your turn")
    wanted = {"trump": ("trump", "turn"), "decide": ("play", "sit"), "exchange": ("discard", "done")}
    kinds = wanted.get(phase)
    if kinds is not None and words[0] not in kinds:
        w = words_for(_)
        return {"trump": _("first the trump is chosen"),
                "decide": _("say {play} or {sit_out} first").format(play=w.say("play"), sit_out=w.say("sit out")),
                "exchange": _("discard cards or say {done} first").format(done=w.say("done"))}[phase]
    if phase == "exchange" and words[0] == "discard":
        if words[1] not in view["hand"]:
            return _("{card} is not in your hand").format(card=pretty(words[1], _))
        return _("you have discarded as many cards as the rules allow")
    if phase != "trick" or len(words) != 1:
        return None
    hand = view["hand"]
    if move not in hand:
        return _("{card} is not in your hand").format(card=pretty(move, _))
    trump = view["trump"]
    table = [c for _s, c in view["table"]]
    if not table:
        ace = f"A{trump}"
        if ace in hand:
            return _("you lead holding the ace of trumps ({card}), so you must lead it").format(
                card=pretty(ace, _))
        return None
    led = table[0][-1]
    if any(c[-1] == led for c in hand):
        return _("you must follow {suit}").format(suit=suit_name(led, _))
    trumps = [c for c in hand if c[-1] == trump]
    on_table = [c for c in table if c[-1] == trump]
    if not on_table:
        return _("you cannot follow {suit}, so you must play a trump").format(suit=suit_name(led, _))
    top = max(on_table, key=_strength)
    if any(_strength(c) > _strength(top) for c in trumps):
        return _("you cannot follow {suit}, so you must play a trump higher than {card}").format(
            suit=suit_name(led, _), card=pretty(top, _))
    return None
