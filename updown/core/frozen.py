"""Read-only JSON values, so that a view can be handed out without handing out the game.

A view's events are shared by every later view of the same state (copying the whole log at every
view would cost more than the view itself), so they are frozen: :class:`FrozenDict` and
:class:`FrozenList` are ``dict`` and ``list`` subclasses (JSON-serialisable, equal to plain dicts
and lists) whose every mutating method raises :class:`TypeError`. ``copy.copy`` and
``copy.deepcopy`` give plain, editable copies; :func:`thaw` does the same for a whole value.

Code in the same process can always get round this (``dict.__setitem__(event, ...)``, or reading
the caller's frame); a bot that must not be trusted runs in its own process
(``docs/bot-protocol.md``) and receives JSON text.
"""

from __future__ import annotations

from typing import Any, NoReturn, SupportsIndex


def _refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise TypeError("this is part of a game view and cannot be changed (copy it first: copy.deepcopy or thaw)")


class FrozenList(list[Any]):
    """A list that refuses every change."""

    __slots__ = ()

    def __setitem__(self, *_args: Any) -> NoReturn:
        _refuse()

    def __delitem__(self, _index: SupportsIndex | slice) -> NoReturn:
        _refuse()

    def __iadd__(self, _other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def __imul__(self, _other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def append(self, _item: Any) -> NoReturn:
        _refuse()

    def extend(self, _items: Any) -> NoReturn:
        _refuse()

    def insert(self, _index: SupportsIndex, _item: Any) -> NoReturn:
        _refuse()

    def pop(self, _index: SupportsIndex = -1) -> NoReturn:
        _refuse()

    def remove(self, _item: Any) -> NoReturn:
        _refuse()

    def clear(self) -> NoReturn:
        _refuse()

    def sort(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        _refuse()

    def reverse(self) -> NoReturn:
        _refuse()

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, _memo: dict[int, Any]) -> list[Any]:
        return [thaw(v) for v in self]


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change."""

    __slots__ = ()

    def __setitem__(self, _key: str, _value: Any) -> NoReturn:
        _refuse()

    def __delitem__(self, _key: str) -> NoReturn:
        _refuse()

    def __ior__(self, _other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def clear(self) -> NoReturn:
        _refuse()

    def pop(self, *_args: Any) -> NoReturn:
        _refuse()

    def popitem(self) -> NoReturn:
        _refuse()

    def setdefault(self, *_args: Any) -> NoReturn:
        _refuse()

    def update(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        _refuse()

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, _memo: dict[int, Any]) -> dict[str, Any]:
        return {k: thaw(v) for k, v in self.items()}


_ATOMS = frozenset({str, int, bool, float, type(None)})
_KEPT = _ATOMS | {FrozenDict, FrozenList}
"""Types :func:`freeze` returns as they are."""
_DICT_SET = dict.__setitem__
_LIST_SET = list.__setitem__


def freeze(value: Any) -> Any:
    """``value`` with every dict and list in it made read-only (already frozen values are kept)."""
    kind = type(value)
    # A plain dict or list (every logged event, the first time a view shows it) is copied whole in
    # C and only its few values that are not atoms are replaced, by the frozen copy of each: about
    # two thirds of the time of a comprehension over every value.
    if kind is dict:
        out = FrozenDict(value)
        for k, v in value.items():
            if type(v) not in _KEPT:
                _DICT_SET(out, k, freeze(v))
        return out
    if kind is list:
        items = FrozenList(value)
        i = 0
        for v in value:
            if type(v) not in _KEPT:
                _LIST_SET(items, i, freeze(v))
            i += 1
        return items
    if kind in _KEPT:
        return value
    atoms = _ATOMS
    if isinstance(value, dict):
        return FrozenDict({k: v if type(v) in atoms else freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList([v if type(v) in atoms else freeze(v) for v in value])
    if isinstance(value, tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A plain, editable deep copy of a JSON-like value (dicts, lists, tuples and scalars)."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    if isinstance(value, tuple):
        return tuple(thaw(v) for v in value)
    return value
