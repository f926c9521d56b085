"""A vectorised Euchre environment for reinforcement learning, over the batched engine.

:class:`EuchreVectorEnv` follows the shape of Gymnasium's vector API (``reset`` and ``step`` on
numpy arrays, ``num_envs`` games at once, automatic reset in the same step) without depending on
Gymnasium::

    env = EuchreVectorEnv(1024, seed=0)                 # the agent holds seats 0 and 2
    obs, info = env.reset()
    while training:
        actions = agent(obs, info["action_mask"])       # one legal action id per game
        obs, reward, terminated, truncated, info = env.step(actions)

The agent plays team 0 (seats 0 and 2) by default; the other team is played inside ``step`` by a
batched policy (``opponent="random"`` or ``"greedy"``), so every observation is an agent's
decision. With ``opponent=None`` the agent plays all four seats (self-play): ``info["to_act"]``
says which, and the reward stays team 0's. An episode is one match under ``options`` (default: a
single deal, ``{"deals": 1}``, as OpenSpiel plays).

**Reward**: per step, the points team 0 scored minus the points team 1 scored (at the ends of
deals), so an episode's rewards add up to the final margin. **Observation**: ``float32``
``(num_envs, OBS_SIZE)``, what the seat to act may see and nothing more (its hand, never another's;
the dealer's own discard only to the dealer), with seats relative to it (0 = itself, 1 = its left,
2 = its partner, 3 = its right):

=========  =====  ============================================================
offset     size   what
=========  =====  ============================================================
0          24     own hand (card ids as in ``updown.games.euchre``)
24         24     the up-card
48         1      the up-card was taken by the dealer
49         4      the dealer (relative)
53         5      phase: bid round 1, dealer's discard, bid round 2, defend alone?, play
58         4      trump (C D H S), if made
62         4      the maker (relative), if any
66         1      the maker goes alone
67         4      the lone defender (relative), if any
71         96     the trick on the table: 4 relative seats x 24 cards
167        96     the cards each relative seat has played in this deal
263        4      tricks won in this deal by each relative seat, / 5
267        2      match points of own team and the other team, / target
269        24     own discard (the dealer, once it has discarded)
=========  =====  ============================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from updown.batched.bits import IntArray, expand
from updown.batched.euchre import BID1, BID2, DEFEND, DISCARD, NUM_ACTIONS, NUM_CARDS, OVER, PLAY, BatchedEuchre
from updown.games.euchre import EuchreOptions

OBS_SIZE = 293
_PHASES = np.full(9, -1, dtype=np.int64)
_PHASES[[BID1, DISCARD, BID2, DEFEND, PLAY]] = np.arange(5)
_CARDS = np.arange(NUM_CARDS, dtype=np.int64)


class EuchreVectorEnv:
    """``num_envs`` Euchre games as one environment; see the module docstring."""

    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE

    def __init__(
        self,
        num_envs: int,
        seed: int | None = None,
        options: EuchreOptions | dict[str, Any] | None = None,
        opponent: str | None = "random",
    ) -> None:
        self.num_envs = num_envs
        self._options = options if options is not None else {"deals": 1}
        if opponent not in (None, "random", "greedy"):
            raise ValueError(f"opponent must be 'random', 'greedy' or None (self-play), not {opponent!r}")
        self.opponent = opponent
        self._seed = seed
        self.engine = BatchedEuchre(num_envs, seed, self._options)
        self._choose_opponent = self.engine.policy(opponent) if opponent is not None else None

    # -- the API ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Start ``num_envs`` new matches (reseeded if ``seed`` is given); returns ``(obs, info)``."""
        if seed is not None:
            self.engine.rng = np.random.default_rng(seed)
        self.engine.restart(np.arange(self.num_envs))
        self._advance()
        return self.observe(), self._info()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_],
               dict[str, Any]]:
        """Apply one legal action per game; returns ``(obs, reward, terminated, truncated, info)``.

        A game that ends here is restarted at once: ``obs`` is already the new match's first
        decision, and ``info["final_scores"]`` holds the finished matches' ``(team 0, team 1)``
        points (zeros for games that did not end)."""
        e = self.engine
        before = e.totals.reshape(-1, 2).copy()
        e.step(actions)
        self._advance()
        after = e.totals.reshape(-1, 2)
        gained = after - before
        reward = (gained[:, 0] - gained[:, 1]).astype(np.float32)
        terminated = e.done.copy()
        final = np.where(terminated[:, None], after, 0)
        ended = np.flatnonzero(terminated)
        if len(ended):
            e.restart(ended)
            self._advance()
        info = self._info()
        info["final_scores"] = final
        return self.observe(), reward, terminated, np.zeros(self.num_envs, dtype=bool), info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """``(num_envs, num_actions)``: the legal actions of each game's seat to act."""
        return self.engine.legal_mask()

    def close(self) -> None:
        """Nothing to release (for symmetry with Gymnasium)."""

    # -- inside ----------------------------------------------------------------------------------
    def _agent_turn(self) -> npt.NDArray[np.bool_]:
        e = self.engine
        if self.opponent is None:
            ours: npt.NDArray[np.bool_] = ~e.done
            return ours
        turn: npt.NDArray[np.bool_] = (e.turn & 1) == 0
        return turn | e.done

    def _advance(self) -> None:
        """Let the opponents move until every game waits for the agent or is over."""
        if self._choose_opponent is None:
            return
        e = self.engine
        while True:
            theirs = ~self._agent_turn()
            if not theirs.any():
                return
            e.step(np.where(theirs, self._choose_opponent(), -1))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "to_act": self.engine.to_act.copy()}

    def observe(self) -> npt.NDArray[np.float32]:
        """``(num_envs, OBS_SIZE)``: each game from the view of its seat to act (see the module)."""
        return observe(self.engine)


def observe(e: BatchedEuchre) -> npt.NDArray[np.float32]:
    """``(n, OBS_SIZE)``: each game of a batch from the view of its seat to act (see the module)."""
    n = e.n
    rows = np.arange(n)
    seat = np.where(e.phase == OVER, 0, e.turn)
    rel = (seat[:, None] + np.arange(4)) & 3  # rel[g, r]: the absolute seat at relative place r

    def onehot_rel(x: IntArray) -> npt.NDArray[np.float32]:
        out = np.zeros((n, 4), dtype=np.float32)
        has = x >= 0
        out[rows[has], ((x - seat) & 3)[has]] = 1
        return out

    def onehot(x: IntArray, width: int) -> npt.NDArray[np.float32]:
        out = np.zeros((n, width), dtype=np.float32)
        has = x >= 0
        out[rows[has], x[has]] = 1
        return out

    hands = e.hands.reshape(n, 4)
    table = e.table.reshape(n, 4)[rows[:, None], rel]
    played = e.played().reshape(n, 4)[rows[:, None], rel]
    won = e.won.reshape(n, 4)[rows[:, None], rel]
    totals = e.totals.reshape(n, 2)
    team = seat & 1
    own_discard = np.where((seat == e.dealer) & (e.discarded >= 0), e.discarded, -1)
    parts = [
        expand(hands[rows, seat], NUM_CARDS),
        onehot(e.upcard, NUM_CARDS),
        e.up_taken[:, None],
        onehot_rel(e.dealer),
        onehot(_PHASES[e.phase], 5),
        onehot(e.trump, 4),
        onehot_rel(e.maker),
        e.alone[:, None],
        onehot_rel(e.defender),
        (table[:, :, None] == _CARDS).reshape(n, -1),
        expand(played.reshape(-1), NUM_CARDS).reshape(n, -1),
        won / 5.0,
        np.stack([totals[rows, team], totals[rows, 1 - team]], axis=1) / float(e.options.target),
        onehot(own_discard, NUM_CARDS),
    ]
    obs = np.concatenate([np.asarray(p, dtype=np.float32) for p in parts], axis=1)
    assert obs.shape[1] == OBS_SIZE
    return obs


