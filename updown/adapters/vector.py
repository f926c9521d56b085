"""Vector environments: ``num_envs`` games of one kind stepped together, for every game and player
count, with exactly the PettingZoo environments' observations, masks and rewards.

The shape is :class:`updown.batched.env.EuchreVectorEnv`'s (Gymnasium's vector API, same-step
automatic reset), for self-play: every game is always at one seat's decision, and each row of an
observation is what that seat sees::

    from updown.adapters.vector import vector_env
    venv = vector_env("updown", 3, num_envs=256, options={"rounds": 1}, seed=0)
    obs, info = venv.reset()
    while training:
        actions = policy(obs, info["action_mask"], info["to_act"])  # one legal action id per game
        obs, rewards, terminated, truncated, info = venv.step(actions)

* ``obs``: ``float32 (num_envs, observation_size)``, row ``i`` the observation vector
  (:mod:`updown.adapters.observations`) of game ``i``'s seat to act, ``info["to_act"][i]``;
  the same vector the AEC environment's ``observe(agent)`` gives that seat.
* ``info["action_mask"]``: ``int8 (num_envs, num_actions)``, the AEC mask (1 at every legal id).
* ``rewards``: ``float32 (num_envs, players)``, each seat's points scored in this step (a deal or
  round scored), as the AEC environment's ``rewards`` after the same step, by seat.
* ``terminated``: the game ended in this step; it was restarted at once, so ``obs`` is already the
  new game's first decision; ``info["final_scores"]`` ``(num_envs, players)`` has the finished
  games' ``Result.scores`` (zeros for the others). ``truncated`` is always false.
* ``action_ids="decisions"``: actions and masks in the compact decision-only space
  (:class:`~updown.adapters.observations.DecisionSpace`, ``venv.decision_space``), as the
  PettingZoo environments' ``action_ids="decisions"``; chance outcomes never need an id.
* ``step`` checks every action before applying any and raises ``ValueError`` naming the game, the
  action and the seat for an illegal one (nothing is applied).

Backends:

* ``"scalar"`` (every game): ``num_envs`` copies of the PettingZoo environment's core, the rules'
  own engine. ``reset(seed=s)`` seeds game ``i`` as the AEC environment's ``reset(seed=s + i)``,
  and a game that ends continues with its generator as ``reset()`` does there, so game ``i`` is the
  AEC environment's episode for episode, seed for seed.
* ``"batched"`` (UP&DOWN, 2 to 4 players): the numpy engine of :mod:`updown.batched.updown`, the
  observations computed for the whole batch at once from its arrays. Chance is drawn from one
  ``numpy`` generator seeded by ``reset(seed=...)``: the same seed repeats the same games, but not
  the scalar backend's games. ``record=True`` keeps each game's chance outcomes as scalar action
  ids (``chance_log``), so a scalar state (or the AEC environment) fed them and the same actions
  replays a game; that is how the tests compare the two, step by step.
* ``"auto"`` (default): ``batched`` where there is one, else ``scalar``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from updown.adapters.observations import DecisionSpace, Encoder, encoder_for
from updown.core.errors import IllegalAction
from updown.core.protocol import Game, State
from updown.core.registry import get_game

Obs = npt.NDArray[np.float32]
BACKENDS = ("auto", "scalar", "batched")


class VectorEnv:
    """``num_envs`` games of one game and player count; see the module docstring."""

    def __init__(self, game: str | Game[Any], players: int | None = None, num_envs: int = 8,
                 options: dict[str, Any] | None = None, seed: int | None = None, backend: str = "auto",
                 record: bool = False, action_ids: str = "full") -> None:
        g = get_game(game) if isinstance(game, str) else game
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        self.game = g
        self.players = players or g.bench_players
        self.encoder: Encoder = encoder_for(g, self.players, options)
        self.options = self.encoder.options
        self.num_envs = num_envs
        if action_ids not in ("full", "decisions"):
            raise ValueError(f"action_ids must be 'full' or 'decisions', not {action_ids!r}")
        self.decision_space: DecisionSpace = self.encoder.decisions
        """The mapping between full action ids and compact decision-only ids."""
        self._compact = action_ids == "decisions"
        self.num_actions = self.decision_space.n if self._compact else self.encoder.num_actions
        self.observation_size = self.encoder.size
        research = self.options.research_in_use() if hasattr(self.options, "research_in_use") else []
        # The batched engine deals the full deck: a research variant plays on the scalar backend.
        batched = g.id == "updown" and self.players in (2, 3, 4) and not research
        if backend == "batched" and not batched:
            why = f"research options {', '.join(research)}" if research else f"{g.id} at {self.players} players"
            raise ValueError(f"no batched engine for {why} (backend='scalar' works)")
        self.backend = "batched" if backend == "batched" or (backend == "auto" and batched) else "scalar"
        if record and self.backend != "batched":
            raise ValueError("record=True is for the batched backend (the scalar one keeps each game's history)")
        self._seed = seed
        self._impl: _Scalar | _BatchedUpDown
        if self.backend == "batched":
            self._impl = _BatchedUpDown(self.encoder, num_envs, record)
        else:
            self._impl = _Scalar(g, self.players, self.encoder, num_envs)
        self._started = False

    # -- the API ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Obs, dict[str, Any]]:
        """Start ``num_envs`` new games; ``seed`` (or the constructor's, the first time) reseeds."""
        if seed is None and not self._started:
            seed = self._seed
        self._started = True
        self._impl.reset(seed)
        return self._impl.observe(), self._info()

    def step(self, actions: npt.ArrayLike) -> tuple[Obs, npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                                    npt.NDArray[np.bool_], dict[str, Any]]:
        """One action id per game, for its seat to act; ``(obs, rewards, terminated, truncated, info)``."""
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() (or reset(seed=...)) first")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"step takes one integer action per game: shape ({self.num_envs},), "
                             f"not {a.shape} {a.dtype}")
        a = a.astype(np.int64, copy=False)
        if self._compact:
            space = self.decision_space
            bad = (a < 0) | (a >= space.n)
            if bad.any():
                g = int(np.argmax(bad))
                raise ValueError(f"game {g}: {a[g]} is not a decision id (0 to {space.n - 1})")
            a = space.full_ids[a]
        rewards, terminated, final = self._impl.step(a)
        info = self._info()
        info["final_scores"] = final
        return self._impl.observe(), rewards, terminated, np.zeros(self.num_envs, dtype=bool), info

    def action_masks(self) -> npt.NDArray[np.int8]:
        """``(num_envs, num_actions)``: 1 at each game's legal actions for its seat to act."""
        masks = self._impl.masks()
        return self.decision_space.compact_mask(masks) if self._compact else masks

    def to_act(self) -> npt.NDArray[np.int64]:
        """The seat each game waits for."""
        return self._impl.to_act()

    def states(self) -> list[State]:
        """The games as engine states (scalar backend only; for tests and tools, not agents)."""
        if not isinstance(self._impl, _Scalar):
            raise ValueError("states() is for the scalar backend")
        return [c.state for c in self._impl.cores]

    @property
    def chance_log(self) -> list[list[int]]:
        """With ``record=True`` (batched backend): each game's chance outcomes so far in this
        episode, as scalar action ids in the order a scalar state asks for them."""
        if not isinstance(self._impl, _BatchedUpDown) or self._impl.batch.chance_log is None:
            raise ValueError("chance_log needs backend='batched' and record=True")
        return self._impl.batch.chance_log

    @property
    def single_observation_space(self) -> Any:
        import gymnasium

        return gymnasium.spaces.Box(0.0, 1.0, (self.observation_size,), np.float32)

    @property
    def single_action_space(self) -> Any:
        import gymnasium

        return gymnasium.spaces.Discrete(self.num_actions)

    @property
    def observation_space(self) -> Any:
        import gymnasium

        return gymnasium.spaces.Box(0.0, 1.0, (self.num_envs, self.observation_size), np.float32)

    @property
    def action_space(self) -> Any:
        import gymnasium

        return gymnasium.spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions))

    def close(self) -> None:
        """Nothing to release (for symmetry with Gymnasium)."""

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "to_act": self._impl.to_act()}


def vector_env(game: str | Game[Any] = "updown", players: int | None = None, num_envs: int = 8,
               **kwargs: Any) -> VectorEnv:
    """A :class:`VectorEnv` (keyword arguments: ``options``, ``seed``, ``backend``, ``record``,
    ``action_ids``)."""
    return VectorEnv(game, players, num_envs, **kwargs)


# -- the scalar backend -----------------------------------------------------------------------------


class _Scalar:
    """``n`` copies of the PettingZoo environment's core (the rules' own engine)."""

    def __init__(self, game: Game[Any], players: int, encoder: Encoder, n: int) -> None:
        from updown.adapters.pettingzoo import _Core

        self.encoder = encoder
        self.n = n
        self.cores = [_Core(game, players, encoder.options, None, "raise", 0) for _ in range(n)]
        for c in self.cores:
            c.encoder = encoder  # one encoder for all (it holds no per-game state)
        self.players = players

    def reset(self, seed: int | None) -> None:
        for i, core in enumerate(self.cores):
            core.new_episode(None if seed is None else seed + i)
            core.resolve_chance()
            core.scored()

    def to_act(self) -> npt.NDArray[np.int64]:
        return np.array([c.state.actors()[0] for c in self.cores], dtype=np.int64)

    def observe(self) -> Obs:
        enc = self.encoder
        out = np.empty((self.n, enc.size), dtype=np.float32)
        buf = enc.new_buffer()
        row = np.frombuffer(buf, dtype=np.float32)  # each game's vector is encoded into buf, then copied
        for i, c in enumerate(self.cores):
            enc.encode_into(c.state.view(c.state.actors()[0]), buf)
            out[i] = row
        return out

    def masks(self) -> npt.NDArray[np.int8]:
        out = np.zeros((self.n, self.encoder.num_actions), dtype=np.int8)
        for i, c in enumerate(self.cores):
            st = c.state
            out[i, st.legal_actions(st.actors()[0])] = 1
        return out

    def step(self, a: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                                       npt.NDArray[np.float64]]:
        seats = []
        for i, core in enumerate(self.cores):  # check every action before applying any
            seat = core.state.actors()[0]
            got, why = core.check_action(seat, int(a[i]))
            if got is None:
                raise ValueError(f"game {i}: {why}")
            seats.append(seat)
        rewards = np.zeros((self.n, self.players), dtype=np.float32)
        terminated = np.zeros(self.n, dtype=bool)
        final = np.zeros((self.n, self.players), dtype=np.float64)
        for i, core in enumerate(self.cores):
            core.apply(seats[i], int(a[i]))
            core.resolve_chance()
            rewards[i] = core.scored()
            if core.state.is_terminal():
                terminated[i] = True
                final[i] = core.state.result().scores
                core.new_episode(None)  # as the AEC environment's reset(): the same generator goes on
                core.resolve_chance()
                core.scored()
        return rewards, terminated, final


# -- UP&DOWN on the batched engine ----------------------------------------------------------------


class _BatchedUpDown:
    """UP&DOWN's vector environment on :class:`updown.batched.updown.BatchedUpDown`: the engine,
    plus what the observation needs that the engine does not keep (each seat's cards revealed this
    round, the last trick and its winner, a finished round's tricks for the rewards)."""

    def __init__(self, encoder: Encoder, n: int, record: bool) -> None:
        from updown.batched.updown_env import TrackedUpDown

        self.encoder = encoder
        self.n = n
        self.players = encoder.players
        self.record = record
        self.batch = TrackedUpDown(n, players=encoder.players, options=encoder.options, record=record)
        self._layout = {f.name: (f.start, f.stop) for f in encoder.layout.fields}

    def reset(self, seed: int | None) -> None:
        b = self.batch
        b.rng = np.random.default_rng(seed)
        b.restart(np.arange(self.n))
        b.take_points()

    def to_act(self) -> npt.NDArray[np.int64]:
        return self.batch.turn.copy()

    def masks(self) -> npt.NDArray[np.int8]:
        return self.batch.legal_mask().astype(np.int8)

    def step(self, a: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                                       npt.NDArray[np.float64]]:
        b = self.batch
        bad = (a < 0) | (a >= 64)
        if bad.any():
            g = int(np.argmax(bad))
            raise ValueError(f"game {g}: {a[g]!r} is not an action id of a decision")
        try:
            b.step(a)
        except IllegalAction as e:
            raise ValueError(str(e)) from None
        rewards = b.take_points().astype(np.float32)
        terminated = b.done.copy()
        final = np.zeros((self.n, self.players), dtype=np.float64)
        ended = np.flatnonzero(terminated)
        if len(ended):
            final[ended] = b.scores()[ended]
            b.restart(ended)
            b.take_points()
        return rewards, terminated, final

    def observe(self) -> Obs:
        from updown.batched.updown_env import observe_updown

        return observe_updown(self.batch, self._layout, self.encoder.size)


def replay_chance(state: State, outcomes: list[int], start: int) -> int:
    """Apply ``outcomes[start:]`` to ``state`` while it is at chance; returns the next index
    (for comparing a batched game with a scalar one fed its chance log)."""
    i = start
    while state.is_chance():
        state.apply(outcomes[i])
        i += 1
    return i

