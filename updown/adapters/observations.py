"""Fixed-size numeric observations of a seat's view, and legal-action masks, for every game.

An observation is a flat ``float32`` vector with every entry in ``[0, 1]``, built from
``state.view(seat)`` and nothing else, so it can hold nothing the seat may not see. Its layout is
a list of named fields (:class:`Field`), each a block of the vector; ``docs/observations.md``
lists them game by game (and a test keeps that page in step with the code).

Seats are *relative*: wherever a field has one entry per seat, entry ``k`` is the seat ``k``
places after the observer (``k = 0`` is the observer), so one policy can play from every seat.

The per-game part (which fields, how to read the view) is an :class:`Encoder` subclass in a module
of ``updown.adapters.encoders`` that defines ``GAME_ID`` and ``Encoder``; modules are found on
import, as the terminal's screens and the bots are, so this file has no game-specific branch.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import random
import struct
from abc import ABC, abstractmethod
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
import numpy.typing as npt

from updown.core.errors import UpdownError
from updown.core.options import GameOptions
from updown.core.protocol import Event, Game, Result, View

_FLOAT32_DTYPE, _INT8_DTYPE = np.dtype(np.float32), np.dtype(np.int8)
"""numpy dtypes made once: ``np.frombuffer(buf, np.float32)`` spends twice as long turning the
type into a dtype as making the array."""
Array = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
Buffer: TypeAlias = "array[float]"
"""An ``array("f")``: the flat float32 vector an encoder writes, entry by entry."""


@dataclass(frozen=True)
class Field:
    """One named block of an observation vector."""

    name: str
    size: int
    doc: str
    start: int = 0

    @property
    def stop(self) -> int:
        return self.start + self.size


class Layout:
    """The fields of an observation, in order; built once per (game, players, options)."""

    def __init__(self) -> None:
        self.fields: list[Field] = []
        self.size = 0

    def add(self, name: str, size: int, doc: str) -> None:
        if any(f.name == name for f in self.fields):
            raise ValueError(f"observation field {name!r} defined twice")
        self.fields.append(Field(name, size, doc, self.size))
        self.size += size

    def split(self, vector: Array) -> dict[str, Array]:
        """Named views into ``vector`` (writing to them writes the vector)."""
        return {f.name: vector[f.start:f.stop] for f in self.fields}


@functools.cache
def action_space_size(game: Game[Any]) -> int:
    """The number of action ids: every id below it has a notation (decisions and chance outcomes)."""
    n = 0
    while True:
        try:
            game.action_to_str(n)
        except UpdownError:
            return n
        n += 1


class Encoder(ABC):
    """Encodes views of one game at one player count and options; subclassed per game."""

    simultaneous: ClassVar[bool] = False
    """True if the game has nodes where several seats choose at once (OpenSpiel then registers it
    with simultaneous dynamics, and a one-seat-at-a-time twin for sequential algorithms)."""

    def __init__(self, game: Game[Any], players: int, options: GameOptions) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.num_actions = action_space_size(game)
        self.layout = Layout()
        self.build(self.layout)
        self.at = {f.name: f.start for f in self.layout.fields}
        """Each field's offset in the vector (``fill`` writes ``v[self.at[name] + i]``)."""
        self._zeros = array("f", bytes(4 * self.layout.size))
        self._tables = [self.tables(me) for me in range(players)]
        """``_tables[me]``: what :meth:`tables` built for observer seat ``me`` (``fill`` reads it)."""

    # -- what a game module defines ----------------------------------------------------------
    @abstractmethod
    def build(self, layout: Layout) -> None:
        """Add the fields, in order."""

    @abstractmethod
    def fill(self, view: View, v: Buffer | list[float]) -> None:
        """Write ``view`` into the zeroed flat vector ``v``: field ``name``'s entry ``i`` is
        ``v[self.at[name] + i]``. ``v`` is an ``array("f")`` (:meth:`encode`, numpy takes its
        buffer without a copy) or a list of floats (:meth:`encode_list`, what OpenSpiel hands
        out), so every number written must be float32-exact: 1.0, an entry of a
        :class:`Fractions` table, a :func:`fraction` or :func:`float32` result. Writing entry by
        entry, at offsets :meth:`tables` precomputed, costs a fraction of writing into numpy."""

    def tables(self, me: int) -> Any:
        """Anything ``fill`` wants precomputed for observer seat ``me`` (absolute offsets of each
        relative seat's and each card's entry, say), built once per encoder; ``fill`` finds it at
        ``self._tables[view["seat"]]``. It may depend on the layout, the player count and the
        options only, never on a view: the vector stays a function of the view alone."""
        return None

    @abstractmethod
    def deal_points(self, event: Event) -> list[float] | None:
        """If the public ``event`` closes a deal (or round), each seat's points from it, more
        being better; else None. PettingZoo rewards are these points."""

    @abstractmethod
    def max_game_length(self) -> int:
        """A bound on the number of steps (chance outcomes and actions) of one game."""

    @abstractmethod
    def decision_ids(self) -> list[int]:
        """Every action id that can be a seat's decision at this player count and options,
        ascending; ids that are only ever chance outcomes (or never used) are left out."""

    # -- shared --------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.layout.size

    @functools.cached_property
    def decisions(self) -> DecisionSpace:
        """The compact decision-only action space (chance outcomes left out): see :class:`DecisionSpace`."""
        return DecisionSpace(self.decision_ids(), self.num_actions)

    def encode(self, view: View) -> Array:
        """The observation vector of a seat's view (``view["seat"]`` must be a seat): a new
        ``float32`` array (over a buffer of its own)."""
        if view.get("seat") is None:
            raise ValueError("observations are encoded for a seat, not for a spectator's view")
        buf = self._zeros.__copy__()
        self.fill(view, buf)
        return np.frombuffer(buf, _FLOAT32_DTYPE)

    def encode_list(self, view: View) -> list[float]:
        """The observation vector as a list of Python floats (each the float32 entry, exactly):
        what OpenSpiel's ``observation_tensor`` hands out, without a numpy array in between."""
        if view.get("seat") is None:
            raise ValueError("observations are encoded for a seat, not for a spectator's view")
        v = [0.0] * len(self._zeros)
        self.fill(view, v)
        return v

    def encode_into(self, view: View, buf: Buffer) -> None:
        """Write the observation vector of a seat's view into ``buf``, an ``array("f")`` of
        :attr:`size` entries (for example one a numpy array was made over with ``np.frombuffer``,
        which then holds the vector): no allocation, no copy."""
        if view.get("seat") is None:
            raise ValueError("observations are encoded for a seat, not for a spectator's view")
        if len(buf) != len(self._zeros):
            raise ValueError(f"the buffer has {len(buf)} entries, the observation {len(self._zeros)}")
        buf[:] = self._zeros
        self.fill(view, buf)

    def new_buffer(self) -> Buffer:
        """A zeroed ``array("f")`` of :attr:`size` entries, for :meth:`encode_into`."""
        return self._zeros.__copy__()

    def mask(self, legal: Iterable[int]) -> Mask:
        """1 at every legal action id, 0 elsewhere (``int8``)."""
        buf = self._mask_zeros.__copy__()
        for a in legal:
            buf[a] = 1
        return np.frombuffer(buf, _INT8_DTYPE)

    @functools.cached_property
    def _mask_zeros(self) -> array:
        return array("b", bytes(self.num_actions))

    def rel(self, view: View, seat: int) -> int:
        """The position of ``seat`` relative to the observer (0 = the observer)."""
        return (seat - view["seat"]) % self.players

    def relative(self, me: int) -> list[int]:
        """``relative(me)[s]``: seat ``s``'s position relative to ``me`` (cached per seat)."""
        return self._relative[me]

    @functools.cached_property
    def _relative(self) -> list[list[int]]:
        n = self.players
        return [[(s - me) % n for s in range(n)] for me in range(n)]


def hot(v: Buffer, at: int, rel: list[int], seats: Iterable[int | None]) -> None:
    """``v[at + rel[s]] = 1`` for every seat ``s`` given (None is skipped)."""
    for s in seats:
        if s is not None:
            v[at + rel[s]] = 1.0


def per_seat(v: Buffer, at: int, rel: list[int], values: Sequence[float], scale: float) -> None:
    """``v[at + rel[s]] = values[s] / scale``, clipped to [0, 1]."""
    for s, x in enumerate(values):
        y = float(x) / scale
        v[at + rel[s]] = 0.0 if y < 0.0 else 1.0 if y > 1.0 else y


class DecisionSpace:
    """A compact action space of decisions only, and its mapping to the full id space.

    The full space (``Encoder.num_actions``, ``action_to_str``'s numbering) holds every decision
    and every chance outcome. The compact space numbers only the ids that can be a seat's decision
    at this player count and options, in ascending order: compact id ``k`` is full id
    ``full_ids[k]``. An agent never acts at a chance node, so it needs no more; chance stays
    inside the environment.

    >>> space = DecisionSpace([0, 1, 5], 8)
    >>> space.n, space.to_full(2), space.to_compact(5), space.to_compact(3)
    (3, 5, 2, -1)
    >>> space.compact_mask(np.array([0, 1, 0, 0, 0, 1, 0, 0], dtype=np.int8)).tolist()
    [0, 1, 1]
    """

    def __init__(self, full_ids: Sequence[int], num_actions: int) -> None:
        ids = sorted(set(int(a) for a in full_ids))
        if not ids or ids[0] < 0 or ids[-1] >= num_actions:
            raise ValueError(f"decision ids must lie in 0..{num_actions - 1}")
        self.n = len(ids)
        self.num_actions = num_actions
        self.full_ids = np.array(ids, dtype=np.int64)
        """``full_ids[k]``: the full id of compact id ``k``."""
        self.compact_ids = np.full(num_actions, -1, dtype=np.int64)
        """``compact_ids[a]``: the compact id of full id ``a``, or -1 if ``a`` is never a decision."""
        self.compact_ids[self.full_ids] = np.arange(self.n)
        self._full = ids
        self._compact = dict(zip(ids, range(self.n)))

    def to_full(self, compact: int) -> int:
        """The full id of a compact id; raises ValueError outside ``0..n-1``."""
        if not 0 <= compact < self.n:
            raise ValueError(f"{compact!r} is not a decision id (0 to {self.n - 1})")
        return self._full[compact]

    def to_compact(self, full: int) -> int:
        """The compact id of a full id, or -1 if it is never a decision."""
        return self._compact.get(full, -1)

    def compact_mask(self, mask: npt.NDArray[Any]) -> Mask:
        """A full-space mask (the last axis ``num_actions`` wide) as a compact one (``n`` wide)."""
        out: Mask = np.asarray(mask)[..., self.full_ids].astype(np.int8)
        return out

    def mask(self, legal: Iterable[int]) -> Mask:
        """1 at the compact id of every legal (full) action id."""
        m = np.zeros(self.n, dtype=np.int8)
        m[[self._compact[a] for a in legal]] = 1
        return m


def scaled(value: float, scale: float) -> float:
    return min(max(float(value) / scale, 0.0), 1.0)


_FLOAT32 = struct.Struct("<f")


def float32(x: float) -> float:
    """``x`` rounded to the nearest float32 (as storing it in the vector rounds it), as a Python float."""
    got: float = _FLOAT32.unpack(_FLOAT32.pack(x))[0]
    return got


class Fractions(dict[Any, float]):
    """``f[x]``: :func:`fraction` ``(x, scale)``, looked up for the counts ``0..upto`` (a dict
    lookup instead of a call in the encoders' inner loops) and computed for anything else (kept
    nowhere, so the table never changes)."""

    def __init__(self, scale: float, upto: int) -> None:
        super().__init__((k, fraction(k, scale)) for k in range(upto + 1))
        self.scale = scale

    def __missing__(self, value: Any) -> float:
        return fraction(value, self.scale)


def fraction(value: float, scale: float) -> float:
    """``value / scale`` clipped to [0, 1] and rounded to float32: :func:`scaled`'s result as the
    vector stores it, so that a list of these is the float32 vector's ``tolist()``."""
    y = float(value) / scale
    if y < 0.0:
        return 0.0
    if y > 1.0:
        return 1.0
    got: float = _FLOAT32.unpack(_FLOAT32.pack(y))[0]
    return got


_FRACTIONS: dict[float, Fractions] = {}


def fractions(scale: float) -> Fractions:
    """The :class:`Fractions` of counts ``0..scale``, made once per scale (for the constant scales
    of the encoders' modules and ``build``; a table of numbers only, never anything of a view)."""
    got = _FRACTIONS.get(scale)
    if got is None:
        got = Fractions(scale, max(0, min(int(scale), 1000)))
        if len(_FRACTIONS) < 256:  # a bound, whatever scales views bring
            _FRACTIONS[scale] = got
    return got


def one_hot(out: Array, index: int | None) -> None:
    if index is not None:
        out[index] = 1.0


def draw_chance(outcomes: Sequence[tuple[int, float]], rng: random.Random) -> int:
    """One outcome of a chance node, drawn with ``rng`` by inverting the cumulative probabilities.

    Outcomes are taken in order of action id, and both adapters draw chance this way, so one
    seed gives the same episode in each."""
    x = rng.random()
    total = 0.0
    for action, p in sorted(outcomes):
        total += p
        if x < total:
            return int(action)
    return int(outcomes[-1][0])


def placing_utility(result: Result) -> list[float]:
    """A zero-sum utility in [-1, 1] from the placings alone: (seats placed behind minus seats
    placed ahead) / (players - 1). Partners share a placing, so they share a utility."""
    n = len(result.placings)
    if n < 2:
        return [0.0] * n
    return [
        (sum(1 for q in result.placings if q > p) - sum(1 for q in result.placings if q < p)) / (n - 1)
        for p in result.placings
    ]


# -- discovery ------------------------------------------------------------------------------------

_ENCODERS: dict[str, type[Encoder]] = {}


def _load() -> None:
    if _ENCODERS:
        return
    from updown.adapters import encoders

    for info in sorted(pkgutil.iter_modules(encoders.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{encoders.__name__}.{info.name}")
        if hasattr(module, "GAME_ID") and hasattr(module, "Encoder"):
            _ENCODERS[module.GAME_ID] = module.Encoder


def encoder_ids() -> list[str]:
    """The ids of the games that have an encoder."""
    _load()
    return sorted(_ENCODERS)


def encoder_class(game_id: str) -> type[Encoder]:
    """The encoder class of a game by id; raises UpdownError for a game without one."""
    _load()
    try:
        return _ENCODERS[game_id]
    except KeyError:
        raise UpdownError(f"no observation encoder for {game_id} (encoders: {', '.join(sorted(_ENCODERS))})") from None


def encoder_for(game: Game[Any], players: int, options: GameOptions | dict[str, Any] | None = None) -> Encoder:
    """The encoder of ``game`` at ``players`` seats; raises UpdownError for a game without one."""
    cls = encoder_class(game.id)
    opts = options if isinstance(options, GameOptions) else game.options(options)
    game.new_state(players, opts)  # validates the player count and options with the game's own errors
    return cls(game, players, opts)


# -- documentation --------------------------------------------------------------------------------


def _size_formula(samples: list[tuple[int, int, int]]) -> str:
    """A size as ``a × n × H + b × H + c × n + d`` (n players, H highest card), fitted exactly to
    (n, H, size) samples; H is 0 for games without it."""
    vary_n = len({n for n, _, _ in samples}) > 1
    vary_h = len({h for _, h, _ in samples}) > 1
    names = [name for name, used in (("n × H", vary_n and vary_h), ("H", vary_h), ("n", vary_n), ("", True)) if used]
    columns = {"n × H": lambda n, h: n * h, "H": lambda n, h: h, "n": lambda n, h: n, "": lambda n, h: 1}
    basis = np.array([[columns[c](n, h) for c in names] for n, h, _ in samples], dtype=float)
    sizes = np.array([s for _, _, s in samples], dtype=float)
    coef, *_ = np.linalg.lstsq(basis, sizes, rcond=None)
    ints = [int(round(c)) for c in coef]
    if not np.allclose(basis @ np.array(ints, dtype=float), sizes):
        raise AssertionError(f"field size not of the form a*n*H + b*H + c*n + d: {samples}")
    terms = []
    for c, name in zip(ints, names):
        if c == 0:
            continue
        if not name:
            terms.append(str(c))
        else:
            terms.append(name if c == 1 else f"{c} × {name}")
    return " + ".join(terms) or "0"


def field_table(game: Game[Any]) -> str:
    """The markdown table of a game's observation fields (``docs/observations.md``), sizes as
    formulas in n (players) and H (Up or Down?'s highest card), offsets at the usual player count."""
    configs: list[tuple[int, GameOptions]] = []
    for n in range(game.min_players, game.max_players + 1):
        configs.append((n, game.Options()))
        for name, _kind, default, _help in game.Options.fields():
            if name == "length":  # H also depends on the game length where there is one
                configs.append((n, game.options({name: "full" if default == "short" else "short"})))
    encoders = [encoder_for(game, n, opts) for n, opts in configs]
    usual = encoder_for(game, game.bench_players, game.Options())
    lines = [f"{usual.size} numbers at {game.bench_players} players; {usual.num_actions} action ids in the mask.", "",
             "| field | size | meaning |", "| --- | --- | --- |"]
    for f in usual.layout.fields:
        samples = []
        for e in encoders:
            size = next(x.size for x in e.layout.fields if x.name == f.name)
            samples.append((e.players, int(getattr(e, "highest", 0)), size))
        lines.append(f"| `{f.name}` | {_size_formula(samples)} | {f.doc} |")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m updown.adapters.observations: the tables of docs/observations.md
    from updown.core.registry import all_games

    for g in all_games():
        print(f"## `{g.id}`\n\n{field_table(g)}\n")
