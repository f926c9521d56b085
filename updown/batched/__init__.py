"""Batched engines: many games of Euchre or UP&DOWN stepped together as numpy arrays.

What this package owns:

* ``euchre.py``, ``updown.py``: :class:`BatchedEuchre` and :class:`BatchedUpDown`, a second
  implementation of the rules of ``updown.games.euchre`` and ``updown.games.updown`` over arrays of
  ``n`` games: legal actions as bit masks (and boolean masks), chance drawn from a seeded
  ``numpy.random.Generator``, random and greedy playout policies, the scalar engine's action ids.
  ``tests/test_batched_differential.py`` plays both engines through the same deals and actions.
* ``playout.py``: :func:`playout`, which continues a list of scalar states (say, worlds sampled at
  a decision) in one batch and returns each one's final scores; for search bots.
* ``env.py``: :class:`EuchreVectorEnv`, a vectorised reset/step environment over numpy arrays, for RL.
* ``bench.py``: the figures of ``benchmarks/batched.py`` and ``updown bench-batched``.
* ``bits.py``: sets of small integers as ``uint64`` masks.

numpy is a dependency of playing since the ``pimc`` bot (UP&DOWN's ``normal`` level) runs its
playouts here; outside this package only ``updown.bots.pimc`` and the adapters import it. See
``docs/batched.md``.
"""

from __future__ import annotations

try:
    import numpy  # noqa: F401
except ImportError as e:  # pragma: no cover - only without the extra
    raise ImportError("updown.batched needs numpy: pip install numpy==2.4.6") from e

from updown.batched.euchre import BatchedEuchre
from updown.batched.updown import BatchedUpDown

__all__ = ["BatchedEuchre", "BatchedUpDown"]
