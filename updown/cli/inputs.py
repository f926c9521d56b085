"""From a typed line to actions: notation, hand positions and short forms, for every game.

Nothing here knows a game: a line is matched against the notation of the actions that are legal
now (``game.action_to_str``), so the short forms work wherever the notation allows them:

* the full notation, as the game parses it (``QH``, ``q♥``, ``rotate spades``, ``take 7``);
* a position in the hand (``3``: the third card shown), when a hand is a list of cards;
* a word cut short (``f`` for ``flip``, ``r S`` for ``rotate S``, ``o a`` for ``order up alone``);
* the first word left out when the rest says it (``9`` for ``take 9``, ``2d`` for ``discard 2D``,
  ``H`` for ``name H``);
* several legal actions on one line (``discard 2D 3H`` or ``2d 3h done``), taken one after another
  for as long as each is still legal.

A line matches only if exactly one action fits; otherwise :class:`InputProblem` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from updown.core.cards import Card, Suit
from updown.core.protocol import Game, View
from updown.i18n import Translator

MAX_LINE = 200
"""Longer input lines are refused before any parsing."""


class InputProblem(Exception):
    """A line that names no action now; ``str(err)`` says why, in the player's language."""


def shown(text: str, limit: int = 30) -> str:
    """User text quoted back safely: control characters made visible, cut to ``limit``."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def _card(token: str) -> str | None:
    try:
        return str(Card.parse(token))
    except Exception:  # noqa: BLE001 - any failure means: not a card
        return None


def _suit(token: str) -> str | None:
    try:
        return Suit.parse(token).letter
    except Exception:  # noqa: BLE001
        return None


def _same(typed: str, word: str, *, prefix: bool) -> bool:
    """Whether a typed token stands for one token of a notation."""
    if typed.lower() == word.lower():
        return True
    card = _card(word)
    if card is not None:
        return _card(typed) == card
    if len(word) == 1 and word.isalpha() and word.isupper():  # a suit letter
        return _suit(typed) == word
    return prefix and word.isalpha() and len(word) > 1 and word.lower().startswith(typed.lower())


def _fits(tokens: list[str], words: list[str]) -> int:
    """0: no; 1: exactly; 2: a word cut short, or the first word left out; 3: trailing words left out."""
    if len(tokens) == len(words):
        if all(_same(t, w, prefix=False) for t, w in zip(tokens, words)):
            return 1
        if all(_same(t, w, prefix=True) for t, w in zip(tokens, words)):
            return 2
    if len(words) == len(tokens) + 1 and words[0].isalpha():
        if all(_same(t, w, prefix=False) for t, w in zip(tokens, words[1:])):
            return 2
    if len(tokens) < len(words) and all(_same(t, w, prefix=True) for t, w in zip(tokens, words)):
        return 3
    return 0


def _parse(game: Game[Any], text: str) -> int | None:
    try:
        return game.parse_action(text)
    except Exception:  # noqa: BLE001 - the engine's parser is pure; any failure means: not notation
        return None


def resolve_one(game: Game[Any], text: str, view: View, choices: Sequence[int], _: Translator) -> int:
    """The one action among ``choices`` that ``text`` names; raises :class:`InputProblem` or :class:`NotNow`."""
    hand = view.get("hand")
    tokens = text.split()
    if isinstance(hand, list) and hand and all(isinstance(c, str) for c in hand):
        # Positions in the hand: "3" is the third card shown (cards are never plain numbers here).
        for i, token in enumerate(tokens):
            if token.isascii() and token.isdigit():
                k = int(token) if len(token) <= 3 else 0
                if not 1 <= k <= len(hand):
                    raise InputProblem(_("There is no card {k} in your hand: the positions are 1 to {n}.").format(
                        k=shown(token, 6), n=len(hand)))
                tokens[i] = hand[k - 1]
        text = " ".join(tokens)
    parsed = _parse(game, text)
    if parsed is not None and parsed in choices:
        return parsed
    notations = {a: game.action_name(a) for a in choices}
    graded: dict[int, list[int]] = {1: [], 2: [], 3: []}
    for action, note in notations.items():
        grade = _fits(tokens, note.split())
        if grade:
            graded[grade].append(action)
    if len(tokens) == 1 and not graded[1]:
        # One word cut short must name one kind of move: "r" is roll or rotate, so neither.
        verbs = sorted({n.split()[0] for n in notations.values()
                        if n.split()[0].isalpha() and n.split()[0].lower().startswith(tokens[0].lower())})
        if len(verbs) > 1 and tokens[0].isalpha():
            raise InputProblem(_("'{text}' could mean {options}: say which.").format(
                text=shown(text), options=", ".join(verbs)))
    found = graded[1] or graded[2]
    if not found and graded[3]:
        shortest = min(len(notations[a].split()) for a in graded[3])
        found = [a for a in graded[3] if len(notations[a].split()) == shortest]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        options = ", ".join(notations[a] for a in sorted(found))
        raise InputProblem(_("'{text}' could mean {options}: say which.").format(text=shown(text), options=options))
    if parsed is not None:
        raise NotNow(parsed)
    raise InputProblem(_("'{text}' is not a move here. Type help to see what you can do.").format(text=shown(text)))


class NotNow(Exception):
    """Well-formed notation of an action that is not legal now (the caller explains why)."""

    def __init__(self, action: int):
        super().__init__(action)
        self.action = action


def resolve(game: Game[Any], line: str, view: View, choices: Sequence[int], _: Translator) -> list[int]:
    """The actions a line names, in order (usually one). Raises InputProblem or NotNow."""
    text = " ".join(line.split())
    if len(text) > MAX_LINE:
        raise InputProblem(_("That line is too long ({n} characters).").format(n=len(text)))
    try:
        return [resolve_one(game, text, view, choices, _)]
    except (InputProblem, NotNow) as single:
        tokens = text.split()
        if len(tokens) < 2:
            raise
        # Several actions on one line: "discard 2D 3H" (one verb for all) or "2d 3h done".
        groups = [[t] for t in tokens]
        if tokens[0].isalpha() and _parse(game, tokens[0]) is None and \
                any(game.action_name(a).split()[0].lower().startswith(tokens[0].lower()) for a in choices):
            groups = [[tokens[0], t] for t in tokens[1:]]
        actions: list[int] = []
        for group in groups:
            try:
                action = resolve_one(game, " ".join(group), view, choices, _)
            except (InputProblem, NotNow):
                raise single from None
            if action in actions:
                raise single from None
            actions.append(action)
        return actions
