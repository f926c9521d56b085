"""Sets of small integers (cards, actions) as ``uint64`` bit masks, one per game, and the few
vector operations the engines need on them: count, pick the k-th member, expand to a boolean mask.

>>> import numpy as np
>>> m = np.array([0b1011, 0b100000], dtype=np.uint64)
>>> popcount(m).tolist()
[3, 1]
>>> select_bit(m, np.array([2, 0])).tolist()
[3, 5]
>>> expand(m, 6).astype(int).tolist()
[[1, 1, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1]]
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

U64 = np.uint64
IntArray = npt.NDArray[np.int64]
BitArray = npt.NDArray[np.uint64]

BIT: BitArray = np.array([1 << i for i in range(64)], dtype=U64)
"""``BIT[i]`` is the mask of ``{i}``; index it with an int array to get the masks of many."""
_SHIFTS = np.arange(64, dtype=U64)
_LEVELS = tuple((w, U64((1 << w) - 1), U64(w)) for w in (32, 16, 8, 4, 2, 1))


def mask_of(members: Iterable[int]) -> int:
    """The mask (a Python int) of a set of small integers."""
    m = 0
    for i in members:
        m |= 1 << i
    return m


def members(mask: int) -> list[int]:
    """The members of a mask, ascending."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def popcount(bits: BitArray) -> IntArray:
    """How many members each mask has."""
    return np.bitwise_count(bits).astype(np.int64)


def _select_table() -> npt.NDArray[np.int64]:
    t = np.zeros((4096, 12), dtype=np.int64)
    for m in range(4096):
        for k, i in enumerate(members(m)):
            t[m, k] = i
    return t.reshape(-1)


_SELECT12 = _select_table()
"""``_SELECT12[m * 12 + k]``: the k-th member of a 12-bit mask ``m``."""
_MASK24 = U64((1 << 24) - 1)
_MASK12 = U64((1 << 12) - 1)


def select_bit(bits: BitArray, k: IntArray) -> IntArray:
    """The ``k``-th smallest member (0-based) of each mask.

    ``k`` must be below the mask's count; the answer for an empty mask is meaningless. Masks
    that fit in 24 bits (every Euchre decision, once shifted to its band) take two table steps;
    wider ones first narrow down to a 24-bit window."""
    m = bits
    pos: IntArray | int = 0
    top = int(bits.max()) if len(bits) else 0
    while top >> 24:
        low = m & _MASK24
        c = np.bitwise_count(low).astype(np.int64)
        high = k >= c
        k = k - c * high
        m = np.where(high, m >> U64(24), low)
        pos = pos + 24 * high
        top >>= 24
    low = m & _MASK12
    c = np.bitwise_count(low).astype(np.int64)
    high = k >= c
    m = np.where(high, m >> U64(12), low).astype(np.int64)
    out: IntArray = _SELECT12[m * 12 + (k - c * high)] + 12 * high + pos
    return out


def random_member(bits: BitArray, rng: np.random.Generator) -> IntArray:
    """A uniformly random member of each mask (-1 for an empty mask)."""
    count = popcount(bits)
    k = (rng.random(len(bits)) * count).astype(np.int64)
    return np.where(count > 0, select_bit(bits, np.minimum(k, np.maximum(count - 1, 0))), -1)


def highest_member(bits: BitArray) -> IntArray:
    """The largest member of each mask (-1 for an empty mask)."""
    count = popcount(bits)
    return np.where(count > 0, select_bit(bits, np.maximum(count - 1, 0)), -1)


def expand(bits: BitArray, width: int) -> npt.NDArray[np.bool_]:
    """``(len(bits), width)`` booleans: entry ``[g, i]`` says whether ``i`` is in mask ``g``."""
    inside = ((bits[:, None] >> _SHIFTS[:width]) & U64(1)).astype(bool)
    if width <= 64:
        return inside
    return np.concatenate([inside, np.zeros((len(bits), width - 64), dtype=bool)], axis=1)


def from_bool(mask: npt.NDArray[np.bool_]) -> BitArray:
    """The inverse of :func:`expand`: one mask per row of a boolean array (at most 64 columns)."""
    width = mask.shape[1]
    out: BitArray = np.bitwise_or.reduce(np.where(mask, BIT[:width], U64(0)), axis=1).astype(U64)
    return out
