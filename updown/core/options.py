"""Rule options: a frozen dataclass per game, with defaults, validation and text parsing.

A game declares ``class Options(GameOptions)`` with typed fields and a ``check(players)``
method; records store options as a plain dict and the CLI passes them as ``key=value``.

**Research options.** A field whose metadata has ``"research": True`` (:data:`RESEARCH`) changes
the game into a research variant (a reduced deck, say, small enough to solve): it is never offered
for play. :meth:`GameOptions.fields` leaves it out (the lists the CLI and the lobby show), and
:meth:`GameOptions.to_dict` leaves it out while it has its default value, so that the records and
views of the game itself are unchanged by its existence. :meth:`GameOptions.research_in_use` names
the research options a set of options uses, and :meth:`GameOptions.check_rated` refuses them for a
rated game.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Self

from updown.core.errors import OptionsError

RESEARCH = "research"
"""The metadata key that marks a research option (``metadata={"help": ..., "research": True}``)."""


@dataclasses.dataclass(frozen=True)
class GameOptions:
    """Base class of every game's options."""

    def check(self, players: int) -> None:
        """Raise :class:`OptionsError` if these options do not fit ``players`` seats."""

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, except a research option at its default value (see the module
        docstring): ``from_dict`` of it gives these options back."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if not (f.metadata.get(RESEARCH) and getattr(self, f.name) == f.default)}

    def research_in_use(self) -> list[str]:
        """The research options set to something other than their default, by name."""
        return [f.name for f in dataclasses.fields(self)
                if f.metadata.get(RESEARCH) and getattr(self, f.name) != f.default]

    def check_rated(self) -> None:
        """Raise :class:`OptionsError` if these options make a research variant: a rated game
        (and any game offered for play) is the game itself."""
        used = self.research_in_use()
        if used:
            shown = ", ".join(f"{name}={getattr(self, name)}" for name in used)
            raise OptionsError(f"{shown}: research {'option' if len(used) == 1 else 'options'}, "
                               "not for rated games")

    def view(self) -> dict[str, Any]:
        """The options as a read-only dict, for views (made once per options object)."""
        got = _VIEWS.get(self)
        if got is None:
            from updown.core.frozen import freeze

            got = _VIEWS[self] = freeze(self.to_dict())
            if len(_VIEWS) > 1000:
                _VIEWS.clear()
                _VIEWS[self] = got
        return got

    @classmethod
    def fields(cls, research: bool = False) -> list[tuple[str, type, Any, str]]:
        """(name, type, default, help) of each option offered for play, for ``updown games``,
        ``--help`` and the lobby; with ``research``, the research options too (see the module
        docstring)."""
        hints = typing.get_type_hints(cls)
        out = []
        for f in dataclasses.fields(cls):
            if research or not f.metadata.get(RESEARCH):
                out.append((f.name, hints[f.name], f.default, str(f.metadata.get("help", ""))))
        return out

    @classmethod
    def research_fields(cls) -> list[str]:
        """The names of the research options."""
        return [f.name for f in dataclasses.fields(cls) if f.metadata.get(RESEARCH)]

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Self:
        """Build options from a dict; unknown names and wrong types are errors."""
        hints = _hints(cls)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise OptionsError(
                f"unknown option {', '.join(unknown)} (known: {', '.join(sorted(known)) or 'none'})"
            )
        kwargs = {name: _coerce(name, value, hints[name]) for name, value in values.items()}
        return cls(**kwargs)

    @classmethod
    def parse(cls, pairs: list[str]) -> Self:
        """Build options from ``key=value`` strings, as typed on the command line."""
        values: dict[str, Any] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep:
                raise OptionsError(f"option {pair!r} must be written key=value")
            values[key.strip().replace("-", "_")] = value.strip()
        return cls.from_dict(values)


_HINTS: dict[type, dict[str, Any]] = {}
_VIEWS: dict[GameOptions, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, worked out once per class (it is slow)."""
    got = _HINTS.get(cls)
    if got is None:
        got = _HINTS[cls] = typing.get_type_hints(cls)
    return got


def _coerce(name: str, value: Any, hint: Any) -> Any:
    """Turn ``value`` (maybe a string from the command line) into the field's type."""
    union = isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union  # Optional[int] too
    allowed = typing.get_args(hint) if union else (hint,)
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        if type(None) in allowed:
            return None
        raise OptionsError(f"option {name} needs a value")
    for kind in allowed:
        if kind is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
                return value.lower() in ("true", "yes", "on", "1")
        elif kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, str):
                try:
                    return int(value)
                except ValueError:
                    pass
        elif kind is str and isinstance(value, str):
            return value
    words = {bool: "true or false", int: "a whole number", str: "a word", type(None): "none"}
    names = " or ".join(words.get(k, getattr(k, "__name__", str(k))) for k in allowed)
    raise OptionsError(f"option {name}={value!r} must be {names}")


def research_deck_spec(spec: str, ranks: str, ranks_said: str, max_hand: int, example: str) -> tuple[str, str, int]:
    """A research deck's ``RANKS:SUITS:HAND`` (Euchre's and the Sueca game's option ``deck``), checked:
    the ranks distinct letters of ``ranks`` in its order (``ranks_said`` names them in errors), the
    suits distinct letters of CDHS in that order, 1 to ``max_hand`` cards a seat. Returns the ranks
    and suits upper-cased and the hand; raises OptionsError naming what is wrong (``example`` is a
    deck that would do)."""
    parts = spec.split(":")
    if len(parts) != 3 or not (parts[2].isascii() and parts[2].isdigit()):
        raise OptionsError(f"deck must be full or RANKS:SUITS:HAND (a research deck, like {example}), not {spec!r}")
    chosen, suits, hand = parts[0].upper(), parts[1].upper(), int(parts[2])
    if not _ordered_letters(chosen, ranks):
        raise OptionsError(f"a research deck's ranks are distinct letters of {ranks_said} in that order, "
                           f"not {parts[0]!r}")
    if not _ordered_letters(suits, "CDHS"):
        raise OptionsError(f"a research deck's suits are distinct letters of CDHS in that order, not {parts[1]!r}")
    if not 1 <= hand <= max_hand:
        raise OptionsError(f"a research deck deals 1 to {max_hand} cards to each seat, not {hand}")
    return chosen, suits, hand


def _ordered_letters(text: str, alphabet: str) -> bool:
    """``text`` is distinct letters of ``alphabet`` in its order (and not empty)."""
    return bool(text) and set(text) <= set(alphabet) and text == "".join(sorted(set(text), key=alphabet.index))
