"""Drive a batched engine and scalar states through the same chance and actions, comparing
every step (used by the batched engines' tests)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from updown.batched.bits import members
from updown.batched.euchre import BID1, BID2
from updown.core.protocol import State
from updown.games.euchre import PASS


class Tally:
    """What the scalar log says so far about one game: tricks this deal/round, totals, pot."""

    def __init__(self, players: int) -> None:
        self.tricks = [0] * players
        self.totals = [0] * players
        self.pot = 0
        self.discarded = 0
        self.seen = 0

    def read(self, state: State) -> None:
        log = state.log
        for e in log[self.seen:]:
            kind = e["type"]
            if kind == "trick":
                w = e["winner"]
                if "taken" in e:  # UP&DOWN
                    if w is not None:
                        self.tricks[w] += e["taken"]
                        self.totals[w] += e["taken"]
                    self.pot = e["pot"]
                    self.discarded += e["discarded"]
                else:
                    self.tricks[w] += 1
            elif kind == "score":  # Euchre: end of a deal
                self.totals = list(e["totals"])
            elif kind == "round":  # UP&DOWN: end of a round
                assert self.totals == list(e["totals"])
            elif kind == "hand":  # a new deal or round: the batched engine clears its tricks then
                self.tricks = [0] * len(self.tricks)
                self.discarded = 0
        self.seen = len(log)


def drive(batch: Any, states: list[State], policy: str, check_masks: bool = True) -> tuple[int, Counter[str]]:
    """Step ``batch`` to the end with ``policy``, feeding ``states`` the same chance and actions.
    Returns the number of game decisions compared and how often each way a deal, trick or match
    ended occurred (from the scalar logs)."""
    n = batch.n
    players = states[0].players
    fed = [0] * n
    tallies = [Tally(players) for _ in range(n)]
    choose = _passive(batch) if policy == "passive" else batch.policy(policy)
    compared = 0
    is_updown = batch.game_id == "updown"

    def feed() -> None:
        for g, st in enumerate(states):
            log = batch.chance_log[g]
            i = fed[g]
            while st.is_chance():
                st.apply(log[i])
                i += 1
            assert i == len(log), f"game {g}: the scalar game used {i} chance outcomes of {len(log)}"
            fed[g] = i

    def compare() -> None:
        to_act = batch.to_act.tolist()
        legal = batch.legal_bits().tolist() if check_masks else None
        won = (batch.tricks if is_updown else batch.won).tolist()
        totals = batch.totals.tolist()
        pot = batch.pot.tolist() if is_updown else None
        discarded = batch.discarded.tolist() if is_updown else None
        for g, st in enumerate(states):
            t = tallies[g]
            t.read(st)
            assert won[g * players:(g + 1) * players] == t.tricks, f"game {g}: tricks"
            if is_updown:
                assert totals[g * players:(g + 1) * players] == t.totals, f"game {g}: totals"
                assert pot[g] == t.pot and discarded[g] == t.discarded, f"game {g}: pot"
            else:
                assert totals[2 * g:2 * g + 2] == t.totals[:2], f"game {g}: totals"
            if st.is_terminal():
                assert to_act[g] == -1, f"game {g} is over in the scalar engine only"
                continue
            seat = st.actors()[0]
            assert to_act[g] == seat, f"game {g}: seat {to_act[g]} to act, the scalar engine says {seat}"
            if legal is not None:
                ours = members(legal[g])
                theirs = sorted(st.legal_actions(seat))
                assert ours == theirs, f"game {g}: legal {ours} != {theirs}"

    feed()
    compare()
    while not batch.all_done():
        actions = choose()
        batch.step(actions)
        for g, a in enumerate(actions.tolist()):
            if a >= 0:
                states[g].apply(a, states[g].actors()[0])
                compared += 1
        feed()
        compare()
    scores = batch.scores().tolist()
    seen: Counter[str] = Counter()
    for g, st in enumerate(states):
        assert st.is_terminal(), f"game {g} is over in the batched engine only"
        assert list(st.result().scores) == scores[g], f"game {g}: scores"
        for e in st.log:
            if e["type"] == "score":
                seen[e["outcome"]] += 1
            elif e["type"] == "trick" and e.get("winner", 0) is None:
                seen["discarded" if e["discarded"] else "pot"] += 1
            elif e["type"] in ("tiebreak", "flip", "rotate", "roll"):
                seen[e["type"]] += 1
    return compared, seen


def _passive(batch: Any) -> Any:
    """Random play, except that Euchre bidders pass nine times in ten (so that hands are thrown in)."""

    def choose() -> Any:
        actions = batch.random_actions()
        bidding = (batch.phase == BID1) | (batch.phase == BID2)
        can_pass = (batch.legal_bits() & np.uint64(1 << PASS)) != 0
        shy = bidding & can_pass & (batch.rng.random(batch.n) < 0.9)
        return np.where(shy, PASS, actions)

    return choose


