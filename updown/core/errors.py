"""The one family of errors that rules, notation and records raise.

Every error subclasses :class:`ValueError` and says what was wrong in words a player understands
("QH is not in your hand"), so the CLI and a future server can show it as it is.
"""

from __future__ import annotations


class UpdownError(ValueError):
    """Base class: bad input to a game, its notation or its records."""


class NotationError(UpdownError):
    """Text that does not parse as a card, an action or an outcome."""


class IllegalAction(UpdownError):
    """A well-formed action that the rules do not allow now."""


class OptionsError(UpdownError):
    """Rule options that are unknown or out of range."""


class RecordError(UpdownError):
    """A game record that is malformed or does not replay."""


def not_an_action(action: object) -> IllegalAction:
    """The error for an action that is not an id at all (``2.0``, ``None``, ``"QH"``)."""
    return IllegalAction(f"an action is a whole-number id; {action!r} is not (parse notation first)")
