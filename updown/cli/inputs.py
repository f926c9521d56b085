"""From a typed line to actions: notation, hand positions and short forms, for every game, in the
player's language and in English.

Nothing here knows a game: a line is matched against the ways of writing the actions that are
legal now (``game.action_to_str`` in English, and the same said in the player's language by
:mod:`updown.cli.moves`: ``ablegen DH`` for ``discard QH`` in German), so the short forms work
wherever the notation allows them:

* the full notation, as the game parses it (``QH``, ``q♥``, ``rotate spades``, ``take 7``), or as
  the player's language says it (``drehen Herz``, ``nehmen 7``, ``DH`` for the German queen);
* a position in the hand (``3``: the third card shown), when a hand is a list of cards;
* a word cut short (``f`` for ``flip``, ``r S`` for ``rotate S``, ``o a`` for ``order up alone``,
  ``abl`` for ``ablegen``);
* the first word left out when the rest says it (``9`` for ``take 9``, ``2d`` for ``discard 2D``,
  ``H`` for ``name H``);
* several legal actions on one line (``discard 2D 3H`` or ``2d 3h done``), taken one after another
  for as long as each is still legal.

A line matches only if exactly one action fits; otherwise :class:`InputProblem` says why. The
player's language goes first: where its words fit, English ones are not looked at (Portuguese
``p`` is ``passar``, not ``play``); a whole word always counts before a word cut short.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from updown.cli.moves import Words, words_for
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


def _same(typed: str, word: str, words: Words, *, prefix: bool) -> bool:
    """Whether a typed token stands for one token of a notation."""
    card = words.card(word)
    if card is not None:
        return words.card(typed) == card
    if len(word) == 1 and word.isalpha() and word.isupper():  # a suit letter
        return words.suit(typed) == word
    return words.same_word(typed, word, prefix=prefix)


def _fits(tokens: list[str], form: list[str], words: Words) -> int:
    """0: no; 1: exactly; 2: a word cut short, or the first word left out; 3: trailing words left out."""
    if len(tokens) == len(form):
        if all(_same(t, w, words, prefix=False) for t, w in zip(tokens, form)):
            return 1
        if all(_same(t, w, words, prefix=True) for t, w in zip(tokens, form)):
            return 2
    if len(form) == len(tokens) + 1 and form[0].isalpha():
        if all(_same(t, w, words, prefix=False) for t, w in zip(tokens, form[1:])):
            return 2
    if len(tokens) < len(form) and all(_same(t, w, words, prefix=True) for t, w in zip(tokens, form)):
        return 3
    return 0


def _parse(game: Game[Any], text: str, words: Words | None = None) -> int | None:
    """The action a line is in full notation, English or (with ``words``) the player's language."""
    for candidate in (words.english(text) if words is not None else [text]):
        try:
            return game.parse_action(candidate)
        except Exception:  # noqa: BLE001 - the engine's parser is pure; any failure means: not notation
            continue
    return None


def resolve_one(game: Game[Any], text: str, view: View, choices: Sequence[int], _: Translator) -> int:
    """The one action among ``choices`` that ``text`` names; raises :class:`InputProblem` or :class:`NotNow`."""
    words = words_for(_)
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
    parsed = _parse(game, text, words)
    if parsed is not None and parsed in choices:
        return parsed
    notations = {a: game.action_name(a) for a in choices}
    forms = {a: words.forms(note) for a, note in notations.items()}
    # grades[a] = (grade in the player's language, grade in English); 0: no fit.
    grades = {a: (_fits(tokens, f[0], words), _fits(tokens, f[-1], words) if len(f) > 1 else 0)
              for a, f in forms.items()}
    if len(tokens) == 1 and not any(1 in g for g in grades.values()) and tokens[0].isalpha():
        # One word cut short must name one kind of move: "r" is roll or rotate, so neither.
        for side in (0, -1):
            verbs = sorted({f[side][0] for f in forms.values()
                            if f[side][0].isalpha() and words.same_word(tokens[0], f[side][0], prefix=True)})
            if len(verbs) > 1:
                raise InputProblem(_("'{text}' could mean {options}: say which.").format(
                    text=shown(text), options=", ".join(verbs)))
            if verbs:
                break
    found: list[int] = []
    for grade, which in ((1, (0, 1)), (2, (0,)), (2, (1,)), (3, (0,)), (3, (1,))):
        found = [a for a, g in grades.items() if any(g[w] == grade for w in which)]
        if found and grade == 3:
            def length(a: int) -> int:
                return min(len(forms[a][w]) for w in which if grades[a][w] == 3)
            shortest = min(length(a) for a in found)
            found = [a for a in found if length(a) == shortest]
        if found:
            break
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        options = ", ".join(words.show(notations[a]) for a in sorted(found))
        raise InputProblem(_("'{text}' could mean {options}: say which.").format(text=shown(text), options=options))
    if parsed is not None:
        raise NotNow(parsed)
    raise InputProblem(_("'{text}' is not a move here. Type {help} to see what you can do.").format(
        text=shown(text), help=words.name("help")))


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
        words = words_for(_)
        if tokens[0].isalpha() and _parse(game, tokens[0], words) is None and \
                any(words.same_word(tokens[0], form[0], prefix=True)
                    for a in choices for form in words.forms(game.action_name(a))):
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
