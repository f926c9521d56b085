"""Loading scalar Euchre states into a batch: the one-pass loader (lists per field, each array set
once; with ``view=``, the public part read once for worlds of one information set) gives exactly
the batch the old per-world loader gave, and playouts from it are the same."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from updown.batched.euchre import OVER, PLAY, BatchedEuchre, _card  # noqa: E402
from updown.batched.playout import deal_values, summarise  # noqa: E402
from updown.bots import make_bot  # noqa: E402
from updown.bots.euchre_endgame import endgame_margins  # noqa: E402
from updown.games import euchre as E  # noqa: E402
from updown.games.euchre import GAME  # noqa: E402

OPTIONS = [{}, {"lone_defender": True}, {"stick_the_dealer": False, "lone_defender": True, "target": 3}]


def _old_load(b: BatchedEuchre, g: int, st: Any) -> None:
    """The loader before the one-pass one (2026-11-26), kept as the reference: per world one
    spectator view and four seat views, per element numpy assignments. One change: a game with no
    discard keeps ``discarded`` at -1, as a dealt game does (it was left at 0, which made
    ``played()`` drop card 0 from the dealer's played cards)."""
    b.discarded[g] = -1
    v = st.view(None)
    phase = int(E.Phase[v["phase"].upper()])
    b.phase[g] = phase
    b.deal_no[g] = v["deal"]
    b.totals[2 * g: 2 * g + 2] = v["totals"]
    b.won[4 * g: 4 * g + 4] = v["tricks"]
    if phase == OVER:
        b.turn[g] = -1
        return
    dealer = v["dealer"]
    b.dealer[g] = dealer
    b.turn[g] = v["to_act"][0]
    b.upcard[g] = _card(v["upcard"])
    b.up_taken[g] = v["up_taken"]
    trump = "CDHS".index(v["trump"]) if v["trump"] else -1
    b.trump[g] = trump
    b.maker[g] = v["maker"] if v["maker"] is not None else -1
    b.alone[g] = v["alone"]
    b.defender[g] = v["defender"] if v["defender"] is not None else -1
    b.out[g] = (v["maker"] + 2) & 3 if v["alone"] else -1
    b.leader[g] = v["leader"] if v["leader"] is not None else -1
    b.tricks[g] = sum(v["tricks"])
    played = [0, 0, 0, 0]
    for e in v["log"]:
        if e["type"] == "trick" and e["deal"] == v["deal"]:
            for s, c in zip(e["seats"], e["cards"]):
                played[s] |= 1 << _card(c)
    for s, c in v["table"]:
        played[s] |= 1 << _card(c)
    for s in range(4):
        sv = st.view(s)
        hand = sum(1 << _card(c) for c in sv["hand"])
        b.hands[4 * g + s] = hand
        b.dealt[4 * g + s] = hand | played[s]
        if sv.get("discard"):
            b.discarded[g] = _card(sv["discard"])
            b.dealt[4 * g + s] |= 1 << int(b.discarded[g])
    b.table[4 * g: 4 * g + 4] = -1
    if phase == PLAY:
        skip = sum(1 << s for s in v["out"])
        b.skip4[g] = skip * 4
        b.nactive[g] = 4 - bin(skip).count("1")
        b.left[g] = b.nactive[g] - len(v["table"])
        b.trow[g] = trump * 96
        b.led24[g] = -1
        best = 0
        for s, c in v["table"]:
            card = _card(c)
            b.table[4 * g + s] = card
            if b.led24[g] < 0:
                b.led24[g] = E.EFF[trump][card] * 24
            best = max(best, E.POWER[trump][int(b.led24[g]) // 24][card] * 4 + s)
        b.best[g] = best


def _old_batch(states: list[Any], seed: int) -> BatchedEuchre:
    b = BatchedEuchre(len(states), options=states[0].options, rng=np.random.default_rng(seed), _deal=False)
    for g, st in enumerate(states):
        _old_load(b, g, st)
    return b


def _positions(options: dict[str, Any], games: int, seed: int) -> list[Any]:
    """Every decision (and the end) of ``games`` matches played by greedy and random seats."""
    rng = random.Random(seed)
    opts = GAME.options({"deals": 3, **options})
    out = []
    for _ in range(games):
        st = GAME.new_state(4, opts)
        bots = [make_bot(rng.choice(["greedy", "random"]), GAME, s, random.Random(rng.getrandbits(32)))
                for s in range(4)]
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            out.append(st.clone())
            s = st.actors()[0]
            st.apply(bots[s].act(st.view(s), st.legal_actions(s)), s)
        out.append(st.clone())
    return out


def _assert_same(a: BatchedEuchre, b: BatchedEuchre) -> None:
    assert a.n == b.n
    for name in a._layout():
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert np.array_equal(x, y), (name, np.flatnonzero(x != y)[:5])


@pytest.mark.parametrize("options", OPTIONS)
def test_loading_states_gives_the_old_loaders_batch(options: dict[str, Any]) -> None:
    states = _positions(options, 12, seed=len(options))
    phases = {int(E.Phase[st.view(None)["phase"].upper()]) for st in states}
    assert {PLAY, OVER, int(E.Phase.BID1), int(E.Phase.BID2), int(E.Phase.DISCARD)} <= phases
    if options.get("lone_defender"):
        assert int(E.Phase.DEFEND) in phases
    _assert_same(BatchedEuchre.from_states(states, seed=1), _old_batch(states, seed=1))
    # the played cards (which read the discard) too
    assert np.array_equal(BatchedEuchre.from_states(states, seed=1).played(), _old_batch(states, seed=1).played())


@pytest.mark.parametrize("options", OPTIONS)
def test_worlds_loaded_from_their_view_give_the_old_loaders_batch_and_playouts(options: dict[str, Any]) -> None:
    rng = random.Random(7)
    checked = 0
    for st in _positions(options, 4, seed=10 + len(options)):
        if st.is_terminal():
            continue
        seat = st.actors()[0]
        view = st.view(seat)
        sampler = GAME.world_sampler(view)
        worlds = [sampler.draw(rng) for _ in range(5)]
        new = BatchedEuchre.from_states(worlds, rng=np.random.default_rng(3), view=view)
        old = _old_batch(worlds, seed=3)
        _assert_same(new, old)
        # the same generator from here on: the same playouts, array for array
        for batch in (new, old):
            batch.play("greedy")
        _assert_same(new, old)
        assert np.array_equal(new.scores(), old.scores())
        checked += 1
    assert checked > 40


def test_playouts_from_the_view_are_the_old_playouts() -> None:
    """``deal_values`` through ``from_states`` and through the one-pass loader with the view give the
    same means for the same generator (the levels' playouts)."""
    rng = random.Random(2)
    checked = 0
    for st in _positions({}, 3, seed=4):
        if st.is_terminal():
            continue
        seat = st.actors()[0]
        legal = st.legal_actions(seat)
        if len(legal) < 2:
            continue
        view = st.view(seat)
        sampler = GAME.world_sampler(view)
        worlds = [sampler.draw(rng) for _ in range(6)]
        g0, g1 = np.random.default_rng(9), np.random.default_rng(9)
        m0, e0 = deal_values(worlds, seat, legal, "greedy", rng=g0)
        m1, e1 = summarise(endgame_margins(worlds, seat, legal, 0, rng=g1, view=view))
        assert np.array_equal(m0, m1) and np.array_equal(e0, e1)
        assert g0.integers(1 << 62) == g1.integers(1 << 62)  # the generator left as it was: the next batch too
        checked += 1
    assert checked > 10


def test_a_world_from_another_view_is_refused() -> None:
    states = [st for st in _positions({}, 2, seed=5) if not st.is_terminal()]
    a, b = states[3], states[9]
    view = a.view(a.actors()[0])
    world = GAME.world_sampler(b.view(b.actors()[0])).draw(random.Random(1))
    with pytest.raises(ValueError, match="public state is not the view's"):
        BatchedEuchre.from_states([world], seed=1, view=view)
    with pytest.raises(ValueError, match="not a spectator's"):
        BatchedEuchre.from_states([a], seed=1, view=a.view(None))


def test_the_level_decides_as_with_the_old_loading() -> None:
    """``normal`` (fixed worlds, no clock) chooses exactly what it chose when its worlds went through
    ``deal_values`` and the old loading; and its playouts load the worlds with the decision's view."""
    from updown.bots.euchre_greedy import EuchreNormal
    from updown.bots.pimc import PimcBot

    class Old(EuchreNormal):
        def batch_values(self, sampler: Any, n: int, legal: Any) -> tuple[Any, Any]:
            return PimcBot.batch_values(self, sampler, n, legal)

    loaded_with_view = []
    real = BatchedEuchre.from_states.__func__  # type: ignore[attr-defined]

    def spy(cls: Any, states: Any, *args: Any, **kwargs: Any) -> Any:
        loaded_with_view.append(kwargs.get("view") is not None)
        return real(cls, states, *args, **kwargs)

    decisions = 0
    for st in _positions({}, 2, seed=8):
        if st.is_terminal():
            continue
        seat = st.actors()[0]
        legal = st.legal_actions(seat)
        if len(legal) < 2:
            continue
        picks = []
        for cls in (EuchreNormal, Old):
            bot = cls(GAME, seat, random.Random(decisions))
            bot.milliseconds = None  # type: ignore[assignment]  # no clock: fixed worlds
            bot.worlds = 30
            picks.append((bot.act(st.view(seat), legal), bot.used))
        assert picks[0] == picks[1]
        decisions += 1
    assert decisions > 10
    mp = pytest.MonkeyPatch()
    mp.setattr(BatchedEuchre, "from_states", classmethod(spy))
    try:
        st = next(s for s in _positions({}, 1, seed=8)
                  if not s.is_terminal() and len(s.legal_actions(s.actors()[0])) > 1)
        seat = st.actors()[0]
        EuchreNormal(GAME, seat, random.Random(1)).act(st.view(seat), st.legal_actions(seat))
    finally:
        mp.undo()
    assert loaded_with_view and all(loaded_with_view)


def test_the_level_stretches_its_budget_by_its_measured_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """``normal`` plans with its budget times a factor that grows while decisions end before
    ``pace`` of the budget and shrinks while they end after it, never past its ceiling; decisions
    that its worlds ended (not the time) leave the factor alone."""
    import updown.bots.euchre_greedy as level
    from updown.bots.pimc import PimcBot

    clock = [0.0]
    planned: list[float] = []
    took = [0.0]
    worlds_used = [0]

    class FakeTime:
        @staticmethod
        def perf_counter() -> float:
            return clock[0]

    def fake_estimates(self: Any, view: Any, legal: Any, against: Any = None) -> tuple[list[float], list[float]]:
        planned.append(self.milliseconds)
        clock[0] += took[0] / 1000
        self.used = worlds_used[0]
        return [0.0] * len(legal), [0.0] * len(legal)

    monkeypatch.setattr(level, "time", FakeTime)
    monkeypatch.setattr(PimcBot, "estimates", fake_estimates)
    monkeypatch.setattr(level, "_STRETCH", {})
    monkeypatch.setattr(level, "_PACE", {})
    bot = level.EuchreNormal(GAME, 0, random.Random(1))
    bot.milliseconds = 40.0
    took[0], worlds_used[0] = 30.0, 50  # early (0.75 of the budget): the time ended it
    for _ in range(5):
        bot.estimates({}, [1, 2])
    assert planned == pytest.approx([40.0 * 1.03 ** k for k in range(5)])
    assert bot.milliseconds == 40.0  # the budget given is kept
    took[0] = 39.0  # late (0.975 > 0.95): back down
    bot.estimates({}, [1, 2])
    bot.estimates({}, [1, 2])
    assert planned[-1] == pytest.approx(40.0 * 1.03 ** 5 * 0.97)
    worlds_used[0] = bot.worlds  # ended by its worlds: no measure of the pace
    before = dict(level._STRETCH)
    bot.estimates({}, [1, 2])
    assert level._STRETCH == before
    took[0], worlds_used[0] = 10.0, 50
    bot.milliseconds = 90.0
    for _ in range(30):
        bot.estimates({}, [1, 2])
    assert max(planned) == 100.0 and planned[-1] == 100.0  # the ceiling
    assert level._STRETCH[level.EuchreNormal] == pytest.approx(1.5)
    bot.pace = None
    bot.estimates({}, [1, 2])
    assert planned[-1] == 90.0


@pytest.mark.parametrize("options", OPTIONS)
def test_the_greedy_rule_in_play_only_batches_is_the_general_rule(options: dict[str, Any]) -> None:
    """A batch where every game is in play takes a shorter path through ``greedy_actions``: it
    chooses what the general path chooses for the same games in a batch with other phases."""
    states = _positions(options, 10, seed=20 + len(options))
    play = [st for st in states if st.view(None)["phase"] == "play"]
    other = next(st for st in states if st.view(None)["phase"] == "bid1")
    assert len(play) > 100
    fast = BatchedEuchre.from_states(play, seed=1).greedy_actions()
    general = BatchedEuchre.from_states([*play, other], seed=1).greedy_actions()[:-1]
    assert np.array_equal(fast, general)


def test_the_pace_model_learns_a_batchs_cost_and_sizes_the_first_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    from updown.bots import euchre_greedy as level

    model = level.PaceModel()
    rng = random.Random(3)
    for _ in range(model.least - 1):
        steps, actions, worlds = rng.randint(1, 26), rng.randint(2, 6), rng.randint(10, 200)
        model.add(steps, worlds * actions, worlds, steps * (1e-4 + 2e-6 * worlds * actions) + 3e-5 * worlds)
    assert model.worlds_for(0.02, 10, 3) is None  # not enough batches yet
    model.add(5, 50, 25, 5 * (1e-4 + 2e-6 * 50) + 3e-5 * 25)
    a, b, c = model.coefficients() or (0.0, 0.0, 0.0)
    assert (a, b, c) == pytest.approx((1e-4, 2e-6, 3e-5), rel=1e-6)
    # 20 ms for 10 steps and 3 actions: 10 * 1e-4 + n * (10 * 2e-6 * 3 + 3e-5) <= 0.02
    assert model.worlds_for(0.02, 10, 3) == int((0.02 - 1e-3) / (6e-5 + 3e-5))
    assert model.worlds_for(0.0005, 10, 3) == 0

    view = {"phase": "play", "out": [2], "tricks": [1, 0, 0, 1], "table": [[0, "9C"]]}
    assert level.playout_steps(view) == 3 * 3 - 1
    assert level.playout_steps({"phase": "bid1", "out": [], "tricks": [0, 0, 0, 0], "table": []}) == 26

    # a level with a learned model plays its first batch at the size the model gives
    seen: list[int] = []
    monkeypatch.setattr(level, "_PACE", {level.EuchreNormal: model})
    monkeypatch.setattr(level, "_STRETCH", {})

    def batch_values(self: Any, sampler: Any, n: int, legal: Any) -> tuple[Any, Any]:
        seen.append(n)
        return np.zeros(len(legal)), np.zeros(len(legal))

    monkeypatch.setattr(level.EuchreNormal, "batch_values", batch_values)
    st = next(s for s in _positions({}, 1, seed=8)
              if not s.is_terminal() and len(s.legal_actions(s.actors()[0])) > 2)
    seat = st.actors()[0]
    view = st.view(seat)
    legal = st.legal_actions(seat)
    bot = level.EuchreNormal(GAME, seat, random.Random(1))
    bot.milliseconds = 20.0
    bot.act(view, legal)
    want = model.worlds_for(0.9 * 0.020, level.playout_steps(view), len(legal))
    assert want is not None and seen[0] == min(max(want, bot.min_worlds), bot.worlds)
    assert bot.chunk == 25  # restored
    bot.first = None
    seen.clear()
    bot.act(view, legal)
    assert seen[0] == 25


def test_clear_best_needs_every_other_action_beaten_world_by_world() -> None:
    from updown.bots.euchre_greedy import clear_best

    rng = np.random.default_rng(4)
    noise = rng.normal(size=(60, 3))
    clear = noise.copy()
    clear[:, 1] += 2.0  # column 1 ahead of both others by far more than the noise
    assert clear_best(clear, 2.5)
    close = noise.copy()
    close[:, 1] += 0.05  # ahead by the mean, not by 2.5 standard errors
    assert not clear_best(close, 2.5)
    # an action equal to the best one in every world does not keep the decision open ...
    twin = np.column_stack([clear[:, 1], clear[:, 1], clear[:, 0]])
    assert clear_best(twin, 2.5)
    # ... but one that differs in a few worlds and is as good on average does
    near = twin.copy()
    near[:3, 1] += np.array([1.0, -1.0, 0.5])
    assert not clear_best(near, 2.5)
    assert not clear_best(clear[:1], 2.5)  # one world: no error to judge by


def test_settle_ends_a_clear_decision_after_its_first_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``settle`` a decision whose best action is clear ends after its first batch, a close one
    plays on until its time; without it both play on; a settled decision counts for the stretch."""
    import updown.bots.euchre_greedy as level
    import updown.bots.pimc as pimc

    clock = [0.0]

    class FakeTime:
        @staticmethod
        def perf_counter() -> float:
            return clock[0]

    gap = [2.0]
    batches: list[int] = []

    def margins(drawn: Any, seat: int, legal: Any, tricks: int, *, rng: Any, view: Any = None,
                rule: str = "greedy", make: float = 7.5) -> Any:
        clock[0] += 0.004  # each batch takes 4 ms
        batches.append(len(drawn))
        m = rng.normal(size=(len(drawn), len(legal)))
        m[:, -1] += gap[0]
        return m

    monkeypatch.setattr(level, "time", FakeTime)
    monkeypatch.setattr(pimc, "time", FakeTime)
    monkeypatch.setattr(level, "endgame_margins", margins)
    monkeypatch.setattr(level, "_STRETCH", {})
    monkeypatch.setattr(level, "_PACE", {})
    st = next(s for s in _positions({}, 1, seed=8)
              if not s.is_terminal() and len(s.legal_actions(s.actors()[0])) > 1)
    seat = st.actors()[0]
    view, legal = st.view(seat), st.legal_actions(seat)

    class Settling(level.EuchreNormal):
        settle = 2.5
        chunk = 40
        worlds = 400

    bot = Settling(GAME, seat, random.Random(1))
    bot.milliseconds = 40.0
    assert bot.act(view, legal) == legal[-1]
    assert batches == [40] and bot.used == 40 and bot.settled and bot.worlds == 400
    assert level._STRETCH[Settling] == pytest.approx(1.03)  # 4 ms < 0.95 x 40 ms: early
    gap[0], batches[:] = 0.0, []
    bot.act(view, legal)
    assert len(batches) > 1 and not bot.settled and bot.used > 40
    gap[0], batches[:] = 2.0, []
    bot.settle = None
    bot.act(view, legal)
    assert len(batches) > 1 and not bot.settled
    # a decision its worlds ended counts for the stretch with settle (every decision does), not without
    bot.worlds = 40
    before = level._STRETCH[Settling]
    bot.act(view, legal)
    assert bot.used == 40 and level._STRETCH[Settling] == before
    bot.settle = 2.5
    gap[0] = 0.0
    bot.act(view, legal)
    assert bot.used == 40 and not bot.settled and level._STRETCH[Settling] == pytest.approx(before * 1.03)
