"""UP&DOWN levels that learn the table (``updown.bots.updown_model``) and the panel that measures them.

The model gives each other seat a weight per kind of player (random, careless, the rule,
searching) from the cards it played; the weights must move towards the kind that really sits
there. The levels built on it must stay reproducible with a fixed seed, see only their view, and
touch the worlds they draw only through the protocol.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")

from updown.bots import make_bot  # noqa: E402
from updown.bots.updown_greedy import UpDownGreedy, _KEEP_WEIGHT  # noqa: E402
from updown.bots.updown_model import (  # noqa: E402
    CARELESS, KINDS, PRIOR, RANDOM, RULE, ModelWorlds, TableModel, _rule_scores, _segments,
    finished_round_evidence,
)
from updown.core.driver import play_game  # noqa: E402
from updown.core.registry import get_game  # noqa: E402
from updown.games.updown import UpDownWorlds, card_id  # noqa: E402
from updown.simulate import seeded  # noqa: E402

GAME = get_game("updown")
ROOT = Path(__file__).resolve().parent.parent


def _table_views(names: list[str], seed: int, rounds: int = 2, watcher: int = 0) -> list[Any]:
    """(state copy, view) of ``watcher`` at each of its card choices, along a game of these bots."""
    state = GAME.new_state(len(names), GAME.options({"rounds": rounds}))
    rng = random.Random(seed)
    bots = [make_bot(name, GAME, s, random.Random(f"{seed}:{s}")) for s, name in enumerate(names)]
    out = []
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        k = state.actors()[0]
        view = state.view(k)
        legal = state.legal_actions(k)
        if k == watcher and view["phase"] == "choose" and len(legal) > 1:
            out.append((state.clone(), view))
        state.apply(bots[k].act(view, legal), k)
    out.append((state, state.view(watcher)))
    return out


def _model(view: Any, seed: int = 0) -> TableModel:
    base = UpDownWorlds(view)
    counts = {s: 0 for s in range(view["players"])}
    for (s, _), size in zip(base.bins, base.sizes):
        counts[s] += size
    return TableModel(view, base.pool, counts, random.Random(seed))


def test_rule_scores_are_greedys_own_to_the_last_bit() -> None:
    rng = random.Random(3)
    for _ in range(500):
        n = rng.choice([2, 3, 4])
        seat = rng.randrange(n)
        cards = rng.sample(range(44), rng.randint(1, 15))
        unseen = sorted(rng.sample([c for c in range(44) if c not in cards], rng.randint(0, 44 - len(cards))))
        suits = rng.sample(range(4), n)
        up, trump, stake = rng.random() < 0.5, rng.randint(2, 12), rng.randint(1, 4)
        rule = UpDownGreedy(GAME, seat, random.Random(0))
        chances = rule._win_chances({"players": n}, cards, unseen, suits, up, trump)
        scores, zero = _rule_scores(n, seat, cards, unseen, suits, up, trump, stake)
        assert scores == {c: chances[c] * stake - _KEEP_WEIGHT * rule._keep_value(c) for c in cards}
        assert zero == {c for c in cards if chances[c] == 0.0}


@pytest.mark.parametrize("players", [2, 4])
def test_in_finished_rounds_the_rule_is_read_exactly(players: int) -> None:
    # Greedy seats played the rule's card at every trick with a choice; a random seat rarely did.
    names = ["greedy"] * players
    names[1] = "random"
    state, view = _table_views(names, seed=players, rounds=2)[-1]
    done, _ = _segments(view["log"])
    assert len(done) == 2
    for tricks in done:
        evidence = finished_round_evidence(tricks, players)
        for seat in range(players):
            hits = [r for r, _ in evidence[seat]]
            assert len(hits) == len(tricks) - 1  # the last card is forced
            if seat == 1:
                assert statistics.fmean(hits) < 0.6
            else:
                assert all(hits)


def test_weights_move_towards_the_kind_that_sits_there() -> None:
    # Seat 1 random, seat 2 greedy, seat 3 easy, watched from seat 0: at the start every seat has
    # the prior; after a round and a few tricks the random seat's heaviest kind is random and the
    # greedy seat's is the rule, in every game.
    heaviest: dict[int, list[int]] = {1: [], 2: [], 3: []}
    for seed in range(4):
        views = _table_views(["greedy", "random", "greedy", "easy"], seed=seed)
        first = _model(views[0][1])
        assert all(first.weights[j] == pytest.approx(list(PRIOR)) for j in (1, 2, 3))
        later = next(v for _, v in views[:-1] if v["round"] == 2 and v["trick"] >= 3)
        model = _model(later)
        for j in (1, 2, 3):
            heaviest[j].append(max(range(len(KINDS)), key=model.weights[j].__getitem__))
            assert sum(model.weights[j]) == pytest.approx(1.0)
        assert model.weights[1][RANDOM] > 0.6
        assert model.weights[2][RULE] > 0.8
        assert model.weights[1][RULE] < 0.01 and model.weights[2][RANDOM] < 0.01
    # The careless seat looks careless more often than anything else.
    assert heaviest[3].count(CARELESS) >= 2


def test_weights_move_within_the_first_round_too() -> None:
    # A few tricks of the first round (no finished round to read exactly) already tell random
    # from the rule.
    gaps = []
    for seed in range(4):
        views = _table_views(["greedy", "random", "greedy", "greedy"], seed=seed, rounds=1)
        view = next(v for _, v in views[:-1] if v["trick"] >= 5)
        w = _model(view).weights
        gaps.append((w[1][RANDOM] - PRIOR[RANDOM], w[2][RULE] - PRIOR[RULE]))
    assert all(r > 0.1 and g > 0.1 for r, g in gaps), gaps


def test_model_worlds_agree_with_the_view_and_keep_the_rules_cards_out() -> None:
    views = _table_views(["greedy"] * 4, seed=7, rounds=1)
    checked = 0
    for state, view in views[4:-1:2]:
        worlds = ModelWorlds(view, random.Random(1))
        rng = random.Random(2)
        for _ in range(10):
            world, kinds = worlds.draw_with_kinds(rng)
            assert kinds[0] == RULE and len(kinds) == 4
            mine = world.view(0)
            assert mine["hand"] == view["hand"] and mine["log"][-3:] == view["log"][-3:]
            assert world.actors() == state.actors() and world.legal_actions(0) == state.legal_actions(0)
            checked += 1
        # A greedy seat read as the rule: its hidden cards avoid what the rule ruled out.
        masks = worlds.model.ruled_out([RULE] * 4, random.Random(3))
        deal = worlds._deal(masks)
        if deal is not None:
            world = worlds.base.build(deal.draw(rng))
            for j in (1, 2, 3):
                hidden = {card_id(c) for c in world.view(j)["hand"]}
                assert not any(masks[j] >> c & 1 for c in hidden)
    assert checked >= 30


def _small_level(model: bool = True) -> Any:
    cls = type(make_bot("normal", GAME, 0, random.Random(0)))
    return type("Small", (cls,), {"milliseconds": None, "worlds": 12, "model": model})


def test_the_level_is_reproducible_and_sees_only_its_view() -> None:
    level = _small_level()
    views = _table_views(["greedy", "random", "easy", "greedy"], seed=3)
    picked = [(s, v) for s, v in views[:-1] if v["round"] == 2][:3] + views[1:3]
    for state, view in picked:
        legal = state.legal_actions(0)
        a = level(GAME, 0, random.Random(5)).estimates(view, legal)
        b = level(GAME, 0, random.Random(5)).estimates(json.loads(json.dumps(view)), legal)
        assert a == b and len(a[0]) == len(legal)

    def run() -> Any:
        agents = [level(GAME, 0, random.Random(1)), make_bot("random", GAME, 1, random.Random(2)),
                  make_bot("easy", GAME, 2, random.Random(3)), level(GAME, 3, random.Random(4))]
        return play_game(GAME, 4, agents, seeded(9), options=GAME.options({"rounds": 1}), seed=9)[1].steps

    assert run() == run()


class _Spy:
    """A world that records which of its attributes are used."""

    ALLOWED = {"is_terminal", "is_chance", "sample_chance", "actors", "legal_actions", "apply", "result", "view",
               "progress", "clone", "game", "players", "options"}
    """The protocol's methods, and what the batched engine reads of a state (its game, player
    count and options) besides the views."""

    def __init__(self, world: Any, seen: set[str]):
        object.__setattr__(self, "_world", world)
        object.__setattr__(self, "_seen", seen)

    def __getattr__(self, name: str) -> Any:
        self._seen.add(name)
        return getattr(self._world, name)


def test_the_level_uses_only_the_protocol_of_its_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: set[str] = set()
    real = ModelWorlds.draw_with_kinds

    def spying(self: ModelWorlds, rng: random.Random) -> Any:
        world, kinds = real(self, rng)
        return _Spy(world, seen), kinds

    monkeypatch.setattr(ModelWorlds, "draw_with_kinds", spying)
    level = _small_level()
    views = _table_views(["greedy", "random", "easy", "greedy"], seed=5, rounds=1)
    for state, view in views[2:6]:
        level(GAME, 0, random.Random(1)).act(view, state.legal_actions(0))
    assert seen and seen <= _Spy.ALLOWED, seen - _Spy.ALLOWED
    assert "view" in seen


def test_the_panel_runs_a_tiny_field_and_a_ladder(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "bots_panel.py"
    common = [sys.executable, str(script), "-o", "rounds=1", "--deals", "3", "--min-deals", "2",
              "--out", str(tmp_path), "--quiet"]
    out = subprocess.run([*common, "--fields", "random,mixed", "--tests", "random;greedy"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "field random (3 seats)" in out and "field mixed (3 seats)" in out
    assert "greedy - random (paired)" in out and "aim greedy >= random" in out
    # Greedy beats random at a table of random players: the stop may come at 2 deals, with "met".
    line = next(x for x in out.splitlines() if x.startswith("field random"))
    assert "stopped: met" in line or "games ran out" in line
    rows = [json.loads(x) for x in (tmp_path / "deals.jsonl").read_text().splitlines()]
    assert {r["test"] for r in rows} == {"random", "greedy"}
    assert all(-11 <= r["diff"] <= 11 and 0 <= r["win"] <= 1 for r in rows)
    # Running it again plays nothing new: every deal is on file.
    again = subprocess.run([*common, "--fields", "random,mixed", "--tests", "random;greedy"],
                           capture_output=True, text=True, timeout=300, check=True).stdout
    assert again == out
    assert len((tmp_path / "deals.jsonl").read_text().splitlines()) == len(rows)
    ladder = subprocess.run([*common, "--tests", "random;greedy", "--ladder"],
                            capture_output=True, text=True, timeout=300, check=True).stdout
    assert "ladder greedy vs random at 2" in ladder and "ladder greedy vs random at 4" in ladder


def test_keep_holds_to_the_rules_card_unless_another_is_clearly_better() -> None:
    # With a bar no estimate can clear, the level plays greedy's own card; with none, it plays
    # its best mean, which at some of these decisions is not greedy's.
    views = _table_views(["greedy", "random", "random", "random"], seed=4, rounds=1)
    rule = UpDownGreedy(GAME, 0, random.Random(0))
    held = type("Held", (_small_level(),), {"keep": 1e9})
    free = type("Free", (_small_level(),), {"keep": -1e9})
    differs = 0
    for state, view in views[:-1]:
        legal = state.legal_actions(0)
        want = rule.act(view, legal)
        assert held(GAME, 0, random.Random(1)).act(view, legal) == want
        differs += free(GAME, 0, random.Random(1)).act(view, legal) != want
    assert differs > 0


def test_shrunk_choice_keeps_the_rule_within_the_noise_and_leaves_it_for_a_clear_gain() -> None:
    from updown.bots.updown_greedy import shrunk_choice

    # Gains no larger than their noise: nothing is left once shrunk, the rule's action stays.
    assert shrunk_choice([0.0, 0.3, -0.2, 0.1], [0.0, 0.4, 0.4, 0.4], own=0) == 0
    # Actions that truly differ: the largest gain, shrunk by its own noise, wins.
    assert shrunk_choice([0.0, 2.0, -3.0, 1.0], [0.0, 0.2, 0.2, 0.2], own=0) == 1
    # A large but noisy gain can lose to a smaller, surer one.
    assert shrunk_choice([0.0, 2.2, -3.0, 2.0], [0.0, 3.0, 0.2, 0.1], own=0) == 3
    assert shrunk_choice([1.0], [0.0], own=0) == 0
