"""PettingZoo environments for every game (extra ``pettingzoo``).

* :func:`env` / :class:`UpdownAECEnv`: the AEC (agent-by-agent) environment of any game at any
  player count. A simultaneous choice (UP&DOWN's secret card) is asked one seat at a time, as the
  engine takes it; a seat's observation never shows the cards chosen before its turn.
* :func:`parallel_env` / :class:`UpdownParallelEnv`: every seat acts at every step. Seats that must
  choose (all of them for UP&DOWN's secret card) choose from the same position, before any
  choice is applied: the choice is truly simultaneous. A seat with nothing to decide (everyone
  but the leader when the leader flips, rotates or rolls) sees a mask with only ``NOOP`` (the last
  action id) and its action is ignored.

Agents are ``player_0`` .. ``player_{n-1}`` (seat numbers). Observations are dicts with
``observation`` (the encoding of the seat's view, :mod:`updown.adapters.observations`) and
``action_mask``. Rewards come when a deal (UP&DOWN: a round) is scored: each seat's points from it,
as :meth:`Encoder.deal_points` says per game (``docs/adapters.md``). Chance steps are drawn from the
environment's own generator, seeded by ``reset(seed=...)``. ``render()`` is text.

An illegal action for a seat that must act ends the episode with reward -1 for that seat (0 for
the others) and ``infos[agent]["illegal_action"]``, as PettingZoo's classic games do; with
``illegal_action="raise"`` it raises ``ValueError`` instead.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv

from updown.adapters.observations import DecisionSpace, Encoder, draw_chance, encoder_for
from updown.core.protocol import Event, Game, State
from updown.core.registry import get_game

ILLEGAL_PENALTY = -1.0
_ILLEGAL_POLICIES = ("terminate", "raise")
ACTION_IDS = ("full", "decisions")
"""``full``: every action id (decisions and chance outcomes, ``docs/observations.md``);
``decisions``: the compact decision-only ids of :class:`DecisionSpace`."""


class ResetNeeded(RuntimeError):
    """A call that needs an episode (``step``, ``observe``, ``last``) came before the first ``reset()``."""


def _before_reset(env: Any, call: str) -> ResetNeeded:
    return ResetNeeded(f"{call} called before reset(): {env.metadata['name']} has no episode yet; "
                       "call reset() (or reset(seed=...)) first")


class _Core:
    """What both environments share: the state, chance, rewards from scored deals, rendering."""

    def __init__(self, game: str | Game[Any], players: int, options: dict[str, Any] | None,
                 render_mode: str | None, illegal_action: str, extra_actions: int,
                 action_ids: str = "full") -> None:
        self.game: Game[Any] = get_game(game) if isinstance(game, str) else game
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if illegal_action not in _ILLEGAL_POLICIES:
            raise ValueError(f"illegal_action must be one of {', '.join(_ILLEGAL_POLICIES)}, not {illegal_action!r}")
        if action_ids not in ACTION_IDS:
            raise ValueError(f"action_ids must be one of {', '.join(ACTION_IDS)}, not {action_ids!r}")
        self.encoder: Encoder = encoder_for(self.game, players, options)
        self.space: DecisionSpace | None = self.encoder.decisions if action_ids == "decisions" else None
        """The compact decision-only space when ``action_ids="decisions"`` (agents' ids are its ids)."""
        self.players = players
        self.options = self.encoder.options
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.agent_names = [f"player_{s}" for s in range(players)]
        self.seat_of = {a: s for s, a in enumerate(self.agent_names)}
        self.num_actions = self.space.n if self.space is not None else self.encoder.num_actions
        n_actions = self.num_actions + extra_actions
        self.obs_spaces = {
            a: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (n_actions,), np.int8),
            })
            for a in self.agent_names
        }
        self.act_spaces = {a: gymnasium.spaces.Discrete(n_actions) for a in self.agent_names}
        self.rng = random.Random()
        self.state: State = self.game.new_state(players, self.options)
        self.history: list[tuple[int | None, int]] = []
        """Every step of the episode: (seat, action), seat None for a chance outcome."""
        self._seen = 0

    def new_episode(self, seed: int | None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)
        self.state = self.game.new_state(self.players, self.options)
        self.history = []
        self._seen = 0

    def resolve_chance(self) -> None:
        state = self.state
        while state.is_chance():
            outcome = draw_chance(state.chance_outcomes(), self.rng)
            state.apply(outcome)
            self.history.append((None, outcome))

    def apply(self, seat: int, action: int) -> None:
        self.state.apply(action, seat)
        self.history.append((seat, action))

    def scored(self) -> list[float]:
        """Points from deals scored since the last call (public events only)."""
        points = [0.0] * self.players
        log = self.state.log
        for i in range(self._seen, len(log)):
            event: Event = log[i]
            if "to" in event:
                continue
            got = self.encoder.deal_points(event)
            if got is not None:
                points = [p + g for p, g in zip(points, got)]
        self._seen = len(log)
        return points

    def observe(self, seat: int, mask: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": self.encoder.encode(self.state.view(seat)), "action_mask": mask}

    def mask(self, legal: list[int], extra: int = 0) -> np.ndarray:
        """The agents' mask of ``legal`` (full ids), in the agents' space, ``extra`` ids wider."""
        if self.space is None and not extra:
            return self.encoder.mask(legal)
        m = np.zeros(self.num_actions + extra, dtype=np.int8)
        if legal:
            m[legal if self.space is None else self.space.compact_ids[legal]] = 1
        return m

    def check_action(self, seat: int, action: Any) -> tuple[int | None, str | None]:
        """The action as a full id if legal for ``seat``; else None and why."""
        try:
            a = int(action)
        except (TypeError, ValueError):
            return None, f"{action!r} is not an action id"
        if a != action:
            return None, f"{action!r} is not an integer action id"
        if self.space is not None:
            if not 0 <= a < self.space.n:
                return None, f"{a} is not a decision id (0 to {self.space.n - 1})"
            a = self.space.to_full(a)
        if a not in self.state.legal_actions(seat):
            return None, f"{self.game.action_name(a)} ({a}) is not legal for seat {seat} now"
        return a, None

    def render_text(self) -> str:
        view = self.state.view(None)  # the spectator's view: nothing hidden is drawn
        lines = [f"{self.game.name}, {self.players} players"]
        for key, value in view.items():
            if key not in ("log", "game", "players", "seat"):
                lines.append(f"  {key}: {value}")
        names = self.agent_names
        recent = view["log"][-4:]
        lines.extend("  > " + self.game.describe(e, names) for e in recent)
        return "\n".join(lines)

    def info_at_end(self) -> dict[str, Any]:
        return {"result": self.state.result().to_dict()} if self.state.is_terminal() else {}


class UpdownAECEnv(AECEnv):  # type: ignore[misc]
    """One game at one player count, agent by agent."""

    metadata = {"render_modes": ["ansi", "human"], "name": "updown_aec_v0", "is_parallelizable": False}

    def __init__(self, game: str | Game[Any] = "updown", players: int | None = None,
                 options: dict[str, Any] | None = None, render_mode: str | None = None,
                 illegal_action: str = "terminate", action_ids: str = "full") -> None:
        super().__init__()
        g = get_game(game) if isinstance(game, str) else game
        self._core = _Core(g, players or g.bench_players, options, render_mode, illegal_action, 0, action_ids)
        self.render_mode = render_mode
        self.possible_agents = list(self._core.agent_names)
        self.metadata = {**self.metadata, "name": f"{g.id.replace('-', '_')}_{self._core.players}p_aec_v0"}
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]
        self._started = False

    @property
    def state_(self) -> State:
        """The engine state (for tests and tools: agents must use ``observe``)."""
        return self._core.state

    @property
    def history(self) -> list[tuple[int | None, int]]:
        """Every step of the episode as ``(seat or None, full action id)``."""
        return self._core.history

    @property
    def decision_space(self) -> DecisionSpace:
        """The mapping between full action ids and compact decision-only ids (whichever the
        agents use: see ``action_ids``)."""
        return self._core.encoder.decisions

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._core.obs_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._core.act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        core = self._core
        core.new_episode(seed)
        self._started = True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        core.resolve_chance()
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._started:
            raise _before_reset(self, "observe()")
        core = self._core
        seat = core.seat_of[agent]
        return core.observe(seat, core.mask(core.state.legal_actions(seat)))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise _before_reset(self, "last()")
        return super().last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        if not self._started:
            raise _before_reset(self, "step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        core = self._core
        seat = core.seat_of[agent]
        self._cumulative_rewards[agent] = 0.0
        a, why = core.check_action(seat, action)
        if a is None:
            if core.illegal_action == "raise":
                raise ValueError(why)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = ILLEGAL_PENALTY
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {x: {} for x in self.agents}
            self.infos[agent] = {"illegal_action": why}
            self._accumulate_rewards()
            return
        core.apply(seat, a)
        core.resolve_chance()
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        core = self._core
        points = core.scored()
        self.rewards = {a: points[core.seat_of[a]] for a in self.agents}
        if core.state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            end = core.info_at_end()
            self.infos = {a: dict(end) for a in self.agents}
        else:
            self.agent_selection = core.agent_names[core.state.actors()[0]]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self._core.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class UpdownParallelEnv(ParallelEnv):  # type: ignore[misc]
    """One game at one player count, every seat at every step; ``NOOP`` for seats with no choice."""

    metadata = {"render_modes": ["ansi", "human"], "name": "updown_parallel_v0"}

    def __init__(self, game: str | Game[Any] = "updown", players: int | None = None,
                 options: dict[str, Any] | None = None, render_mode: str | None = None,
                 illegal_action: str = "terminate", action_ids: str = "full") -> None:
        g = get_game(game) if isinstance(game, str) else game
        self._core = _Core(g, players or g.bench_players, options, render_mode, illegal_action, 1, action_ids)
        self.NOOP = self._core.num_actions
        self.render_mode = render_mode
        self.possible_agents = list(self._core.agent_names)
        self.metadata = {**self.metadata, "name": f"{g.id.replace('-', '_')}_{self._core.players}p_parallel_v0"}
        self.agents: list[str] = []
        self._started = False

    @property
    def state_(self) -> State:
        return self._core.state

    @property
    def history(self) -> list[tuple[int | None, int]]:
        """Every step of the episode as ``(seat or None, full action id)``."""
        return self._core.history

    @property
    def decision_space(self) -> DecisionSpace:
        """The mapping between full action ids and compact decision-only ids (whichever the
        agents use: see ``action_ids``)."""
        return self._core.encoder.decisions

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._core.obs_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._core.act_spaces[agent]

    def _observe_all(self) -> dict[str, dict[str, np.ndarray]]:
        core = self._core
        out = {}
        for agent in self.agents:
            seat = core.seat_of[agent]
            legal = core.state.legal_actions(seat)
            mask = core.mask(legal, 1)
            if not legal:
                mask[self.NOOP] = 1
            out[agent] = core.observe(seat, mask)
        return out

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        core = self._core
        core.new_episode(seed)
        self._started = True
        self.agents = list(self.possible_agents)
        core.resolve_chance()
        core.scored()
        return self._observe_all(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]:
        core = self._core
        if not self._started:
            raise _before_reset(self, "step()")
        if not self.agents:
            raise ValueError("the episode is over: call reset()")
        chosen: list[tuple[int, int]] = []
        for seat in core.state.actors():  # all choose from the same position, then all are applied
            agent = core.agent_names[seat]
            if agent not in actions:
                raise ValueError(f"{agent} must act now (legal: {core.state.legal_actions(seat)})")
            a, why = core.check_action(seat, actions[agent])
            if a is None:
                if core.illegal_action == "raise":
                    raise ValueError(why)
                return self._end_illegal(agent, why or "")
            chosen.append((seat, a))
        for seat, a in chosen:
            core.apply(seat, a)
        core.resolve_chance()
        points = core.scored()
        agents = list(self.agents)
        rewards = {a: points[core.seat_of[a]] for a in agents}
        done = core.state.is_terminal()
        observations = self._observe_all()
        terminations = dict.fromkeys(agents, done)
        truncations = dict.fromkeys(agents, False)
        end = core.info_at_end()
        infos = {a: dict(end) for a in agents}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _end_illegal(self, agent: str, why: str) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]:
        agents = list(self.agents)
        observations = self._observe_all()
        rewards = dict.fromkeys(agents, 0.0)
        rewards[agent] = ILLEGAL_PENALTY
        infos: dict[str, dict[str, Any]] = {a: {} for a in agents}
        infos[agent] = {"illegal_action": why}
        self.agents = []
        return observations, rewards, dict.fromkeys(agents, True), dict.fromkeys(agents, False), infos

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self._core.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(game: str | Game[Any] = "updown", players: int | None = None, **kwargs: Any) -> UpdownAECEnv:
    return UpdownAECEnv(game, players, **kwargs)


def env(game: str | Game[Any] = "updown", players: int | None = None, **kwargs: Any) -> UpdownAECEnv:
    """The AEC environment of ``game`` (an id) at ``players`` seats (default: the game's usual count).

    Keyword arguments: ``options`` (the game's options as a dict, e.g. ``{"rounds": 1}``),
    ``render_mode`` (``"ansi"`` or ``"human"``), ``illegal_action`` (``"terminate"`` or ``"raise"``),
    ``action_ids`` (``"full"``: every action id; ``"decisions"``: the compact decision-only ids,
    which ``env.decision_space`` maps to and from full ids).
    """
    return UpdownAECEnv(game, players, **kwargs)


def parallel_env(game: str | Game[Any] = "updown", players: int | None = None, **kwargs: Any) -> UpdownParallelEnv:
    """The Parallel environment (UP&DOWN by default: its secret card choice is simultaneous)."""
    return UpdownParallelEnv(game, players, **kwargs)


@functools.cache
def env_ids() -> list[tuple[str, int]]:
    """Every (game id, player count) pair there is an environment for."""
    from updown.adapters.observations import encoder_ids
    from updown.core.registry import all_games

    ids = set(encoder_ids())
    return [(g.id, n) for g in all_games() if g.id in ids for n in range(g.min_players, g.max_players + 1)]
