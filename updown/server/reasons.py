"""Why each of a seat's cards cannot be played now, in the seat's language, for the browser.

A frame carries the seat's ``legal`` actions; the page greys every hand card that has none. This
module gives each greyed card its reason in the same words the terminal uses: the game's screen
hook ``why(view, move, _)`` (``updown/cli/screen_<game>.py``), which reads the seat's own view and
nothing else, with the shared message catalogue (:mod:`updown.i18n`) in the seat's language.

The input is exactly what the seat is sent (its view and its legal actions), so a reason can name
only cards the seat may see: its own hand, the cards on the table, the up-card.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from updown.cli.screens import hooks_for
from updown.core.protocol import Game
from updown.i18n import Translator, translator

_WHY: dict[str, Callable[[Any, str, Translator], str | None]] = {}
"""Each game's ``why`` hook, looked up once: the screen modules are found once per process, and
building the hooks at every frame was half of this module's time on a busy server."""


@lru_cache(maxsize=32)
def cached_translator(lang: str) -> Translator:
    """:func:`updown.i18n.translator` kept for the few languages a server meets (a client's
    ``lang`` is its own to choose; the bound keeps odd ones from piling up). A translator only
    reads its catalogue, so one serves every frame in that language."""
    return translator(lang)


def _why_hook(game: Game[Any]) -> Callable[[Any, str, Translator], str | None]:
    why = _WHY.get(game.id)
    if why is None:
        why = _WHY[game.id] = hooks_for(game).why
    return why


def why_not(game: Game[Any], view: Mapping[str, Any], legal: object, lang: str = "en") -> dict[str, str]:
    """``{card: reason}`` for each card in the view's hand that no legal action plays (or discards).

    Empty for a spectator (no hand), at the end of the game, and for a card the game's screen has
    no words for (the page then says only that it cannot be played now). ``legal`` is the frame's
    list of ``{"id", "notation"}``."""
    hand = view.get("hand")
    if not isinstance(hand, list) or not hand or view.get("phase") == "over":
        return {}
    notations = {str(a.get("notation")) for a in legal if isinstance(a, Mapping)} if isinstance(legal, list) else set()
    discarding = any(n.startswith("discard ") for n in notations)  # the move a greyed card stands for
    why = _why_hook(game)
    _ = cached_translator(lang)
    out: dict[str, str] = {}
    seen = dict(view)  # one copy for all the cards: the hooks only read their view
    for item in hand:
        card = str(item)
        if card in notations or f"discard {card}" in notations:
            continue
        try:
            reason = why(seen, f"discard {card}" if discarding else card, _)
        except Exception:  # a reason is a courtesy: it must never stop a frame
            reason = None
        if reason:
            out[card] = reason
    return out
