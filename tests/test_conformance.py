"""Every registered game, at every player count, against the :mod:`updown.core.protocol` contract.

The generic tests are parametrised over :func:`updown.core.registry.all_games` and each game's
player counts, so a new game is checked as soon as it is registered. They drive seeded random
play-outs (hypothesis picks the seeds) and check, at every step: chance outcomes, legal actions,
notation, JSON views, rejected actions leaving the state as it was, clones, determinism and
replay, and that :meth:`State.resample` builds a world the seat cannot tell from the real one.

The UP&DOWN tests at the end check what only that game can say: the 44 cards are all somewhere
at every step, the tricks of a round add up, and no view shows a card it should not.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from updown.core.errors import IllegalAction
from updown.core.protocol import Game, State
from updown.core.records import Record, replay
from updown.core.registry import all_games, get_game
from updown.games.updown import CARD_STR, DECK, HAND_SIZE, Phase, UpDownState

from conftest import random_playout, snapshot  # noqa: I001  (tests/ is on sys.path)

CASES = [
    pytest.param(game, players, id=f"{game.id}-{players}p")
    for game in all_games()
    for players in range(game.min_players, game.max_players + 1)
]
UPDOWN = get_game("updown")
UPDOWN_CASES = [pytest.param(n, id=f"{n}p") for n in range(UPDOWN.min_players, UPDOWN.max_players + 1)]

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def short_options(game: Game[Any]) -> Any:
    """A short setting of the game (what ``updown bench`` plays), for the per-step checks."""
    return game.options(game.bench_options)


# -- driving a state ----------------------------------------------------------------------------

def random_step(state: State, rng: random.Random) -> tuple[int | None, int]:
    """Apply one random chance outcome or one random actor's random legal action."""
    if state.is_chance():
        action = state.sample_chance(rng)
        state.apply(action)
        return None, action
    seat = rng.choice(state.actors())
    action = rng.choice(state.legal_actions(seat))
    state.apply(action, seat)
    return seat, action


def walk(state: State, rng: random.Random, visit: Callable[[State], None] | None = None,
         limit: int = 100_000) -> State:
    """Play ``state`` to its end with random moves, calling ``visit`` before every step and at the end."""
    for _ in range(limit):
        if visit is not None:
            visit(state)
        if state.is_terminal():
            return state
        random_step(state, rng)
    raise AssertionError(f"no end after {limit} steps")


def internals(state: State) -> str:
    """Every field of a state: its class's ``__slots__`` (UP&DOWN declares them), a compiled class's
    attributes (mypyc keeps them in ``__mypyc_attrs__``; its ``__slots__`` is empty), else its
    ``__dict__``."""
    cls = type(state)
    names = [n for c in cls.__mro__ for n in getattr(c, "__slots__", ())] or \
        [n for n in getattr(cls, "__mypyc_attrs__", ()) if n != "__dict__"] or sorted(vars(state))
    return repr([(name, getattr(state, name, None)) for name in names if name != "game"])


def unchanged(state: State) -> Callable[[], None]:
    """Take a snapshot now; calling the result asserts the state still matches it."""
    before, before_internals = snapshot(state), internals(state)

    def check() -> None:
        assert snapshot(state) == before
        assert internals(state) == before_internals

    return check


def json_roundtrip(value: Any) -> Any:
    return json.loads(json.dumps(value))


def walk_steps(state: State, rng: random.Random) -> list[tuple[int | None, int]]:
    """Play ``state`` to its end at random; the steps taken."""
    steps = []
    while not state.is_terminal():
        steps.append(random_step(state, rng))
    return steps


@functools.cache
def typical_length(game: Game[Any], players: int) -> int:
    """Steps in a random play-out of the short setting (the longest of three)."""
    return max(len(walk_steps(game.new_state(players, short_options(game)), random.Random(seed)))
               for seed in range(3))


# -- the per-step contract ------------------------------------------------------------------------

_NOTATION_OK: set[tuple[str, int]] = set()


def check_notation(game: Game[Any], actions: list[int]) -> None:
    """Notation works both ways; an id means the same everywhere, so each is checked once."""
    for a in actions:
        if (game.id, a) not in _NOTATION_OK:
            text = game.action_to_str(a)
            assert isinstance(text, str) and text
            assert game.parse_action(text) == a, f"{text!r} parses to {game.parse_action(text)}, not {a}"
            _NOTATION_OK.add((game.id, a))


def check_views(state: State) -> None:
    """Every view (each seat's and a spectator's) is plain JSON: it survives a round trip."""
    for seat in [None, *range(state.players)]:
        view = state.view(seat)
        assert json_roundtrip(view) == view, f"view({seat}) is not plain JSON"


def check_node(state: State) -> None:
    """What must hold at every node, whatever kind it is (cheap: no views)."""
    game, n = state.game, state.players
    kinds = [state.is_terminal(), state.is_chance(), bool(state.actors())]
    assert kinds.count(True) == 1, f"a node is exactly one of terminal/chance/decision: {kinds}"
    if state.is_terminal():
        result = state.result()
        assert len(result.scores) == len(result.placings) == n
        assert min(result.placings) == 1
        assert json_roundtrip(result.to_dict()) == result.to_dict()
        assert all(state.legal_actions(s) == [] for s in range(n))
        return
    if state.is_chance():
        assert state.actors() == ()
        assert isinstance(state.chance_label(), str) and state.chance_label()
        outcomes = state.chance_outcomes()
        assert outcomes
        ids = [a for a, _ in outcomes]
        assert len(set(ids)) == len(ids), "an outcome is listed twice"
        assert all(p > 0 for _, p in outcomes)
        assert math.isclose(sum(p for _, p in outcomes), 1.0, rel_tol=1e-9)
        check_notation(game, ids)
        assert all(state.legal_actions(s) == [] for s in range(n))
        return
    actors = state.actors()
    assert len(set(actors)) == len(actors) and all(0 <= s < n for s in actors)
    for seat in range(n):
        legal = state.legal_actions(seat)
        if seat in actors:
            assert legal, f"seat {seat} must act but has no legal action"
            assert len(set(legal)) == len(legal)
            check_notation(game, legal)
            leave = state.leave_action(seat)
            assert leave is None or leave not in legal, "leaving is never a legal action"
        else:
            assert legal == [], f"seat {seat} need not act but has legal actions"


def check_sample_chance(state: State, rng: random.Random, thorough: bool) -> None:
    """``sample_chance`` draws one of the listed outcomes (and, drawing, changes nothing)."""
    ids = {a for a, _ in state.chance_outcomes()}
    check = unchanged(state) if thorough else None
    for _ in range(3 if thorough else 1):
        assert state.sample_chance(rng) in ids
    if check is not None:
        check()


def check_rejections(state: State, rng: random.Random) -> None:
    """Actions that are not legal raise IllegalAction and change nothing."""
    check = unchanged(state)
    if state.is_chance():
        ids = [a for a, _ in state.chance_outcomes()]
        wrong = [a for a in range(-1, max(ids) + 10) if a not in ids]
        for a in rng.sample(wrong, min(4, len(wrong))):
            with pytest.raises(IllegalAction):
                state.apply(a)
            check()
        for seat in range(state.players):  # a chance outcome is nobody's action
            with pytest.raises(IllegalAction):
                state.apply(ids[0], seat)
            check()
        return
    actors = state.actors()
    for seat in actors:
        legal = state.legal_actions(seat)
        leave = state.leave_action(seat)  # allowed, though never listed among the legal actions
        wrong = [a for a in range(-1, max(legal) + 10) if a not in legal and a != leave]
        for a in rng.sample(wrong, min(4, len(wrong))):
            with pytest.raises(IllegalAction):
                state.apply(a, seat)
            check()
    some = state.legal_actions(actors[0])[0]
    for seat in range(state.players):
        if seat not in actors:
            with pytest.raises(IllegalAction):
                state.apply(some, seat)
            check()
    if len(actors) > 1:
        with pytest.raises(IllegalAction):
            state.apply(some)  # which seat?
        check()


def check_clone(state: State, rng: random.Random) -> None:
    """A clone looks the same, and playing either one on leaves the other alone."""
    check = unchanged(state)
    twin = state.clone()
    assert snapshot(twin) == snapshot(state)
    assert internals(twin) == internals(state)
    walk(twin, random.Random(rng.random()))  # mutate the clone: the original stays
    check()
    source = state.clone()
    twin = source.clone()
    twin_check = unchanged(twin)
    walk(source, random.Random(rng.random()))  # mutate the original: the clone stays
    twin_check()


@pytest.mark.parametrize(("game", "players"), CASES)
@settings(max_examples=4)
@given(seed=SEEDS)
def test_protocol_holds_at_every_step(game: Game[Any], players: int, seed: int) -> None:
    """Cheap checks at every step; views, rejections and clones at some random steps of each game
    (about the same number whatever the game's length, so that long games stay affordable)."""
    rng = random.Random(seed)
    length = typical_length(game, players)
    p_views, p_reject, p_clone = min(1.0, 30 / length), min(1.0, 8 / length), 1.5 / length
    state = game.new_state(players, short_options(game))

    def visit(s: State) -> None:
        check_node(s)
        thorough = s.is_terminal() or rng.random() < p_views
        if thorough:
            check_views(s)
        if s.is_chance():
            check_sample_chance(s, rng, thorough)
        if not s.is_terminal() and rng.random() < p_reject:
            check_rejections(s, rng)
        if rng.random() < p_clone:
            check_clone(s, rng)

    walk(state, random.Random(seed + 1), visit)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_rejected_action_changes_nothing_in_a_full_match(game: Game[Any], players: int) -> None:
    """Over a whole match with the default options (round after round), at some random steps."""
    rng = random.Random(players)
    probe = game.new_state(players)
    length = len(walk_steps(probe, random.Random(7)))
    picks = set(rng.sample(range(length), min(length, 15)))
    state = game.new_state(players)
    step_rng = random.Random(7)
    for k in range(length):
        if k in picks:
            check_rejections(state, rng)
        random_step(state, step_rng)
    assert state.is_terminal()
    check = unchanged(state)
    for seat in [None, *range(players)]:
        with pytest.raises(IllegalAction):
            state.apply(0, seat)
        check()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_clone_is_independent(game: Game[Any], players: int) -> None:
    rng = random.Random(players)
    state = game.new_state(players, short_options(game))
    every = max(1, typical_length(game, players) // 6)
    steps = 0
    while not state.is_terminal():
        if steps % every == 0:
            check_clone(state, rng)
        random_step(state, rng)
        steps += 1
    check_clone(state, rng)


# -- determinism and records --------------------------------------------------------------------

@pytest.mark.parametrize(("game", "players"), CASES)
@settings(max_examples=5)
@given(seed=SEEDS)
def test_same_seed_same_game_and_replay_reproduces_it(game: Game[Any], players: int, seed: int) -> None:
    first, record = random_playout(game, players, seed)
    second, again = random_playout(game, players, seed)
    assert record.to_dict() == again.to_dict()
    assert first.log == second.log
    assert first.result() == second.result()
    # A record survives JSON and replays to the same game.
    loaded = Record.from_json(record.to_json())
    assert loaded.to_dict() == record.to_dict()
    replayed = replay(loaded)
    assert replayed.is_terminal()
    assert replayed.result() == first.result()
    assert replayed.log == first.log
    for seat in [None, *range(players)]:
        assert replayed.view(seat) == first.view(seat)
    # Every event can be told to people.
    names = [f"P{s}" for s in range(players)]
    for event in first.log:
        text = game.describe(event, names)
        assert isinstance(text, str) and text.strip()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_different_seeds_give_different_games(game: Game[Any], players: int) -> None:
    records = {json.dumps(random_playout(game, players, seed)[1].steps) for seed in range(5)}
    assert len(records) == 5


# -- resampling and hidden information ------------------------------------------------------------

def check_resample(state: State, seat: int, rng: random.Random, play_on: bool) -> bool:
    """``state.resample(seat)`` is a world ``seat`` cannot tell apart; returns True if it differs
    from the real one for some other seat (so the test would notice a resample that copies)."""
    check = unchanged(state)
    world = state.resample(seat, rng)
    check()  # resampling leaves the real state alone
    assert world.view(seat) == state.view(seat)
    assert world.legal_actions(seat) == state.legal_actions(seat)
    assert world.actors() == state.actors()
    assert world.is_chance() == state.is_chance()
    assert world.is_terminal() == state.is_terminal()
    if state.is_chance():
        assert world.chance_label() == state.chance_label()
    check_node(world)
    check_views(world)
    if isinstance(world, UpDownState):
        check_updown_cards(world)
    differs = any(world.view(o) != state.view(o) for o in range(state.players) if o != seat)
    if play_on:
        walk(world, random.Random(rng.random()), check_updown_cards if isinstance(world, UpDownState) else None)
        check()
    return differs


@pytest.mark.parametrize(("game", "players"), CASES)
@settings(max_examples=3)
@given(seed=SEEDS)
def test_resample_is_indistinguishable_for_the_seat(game: Game[Any], players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = game.new_state(players, short_options(game))
    tally = Counter[str]()
    p_point = min(1.0, 6 / typical_length(game, players))

    first_decision = [True]

    def visit(s: State) -> None:
        # Always the first decision (hidden cards are dealt by then), so the tally below never
        # rests on the end of the game alone, where nothing is hidden any more.
        forced = first_decision[0] and bool(s.actors())
        if forced:
            first_decision[0] = False
        if forced or rng.random() < p_point or s.is_terminal():
            player = rng.randrange(players)  # one seat's world is played on to the end
            for seat in range(players):
                differs = check_resample(s, seat, rng, play_on=seat == player)
                tally["differs" if differs else "same"] += 1

    walk(state, random.Random(seed ^ 0x5EED), visit)
    # Somewhere in the game the other seats hold something this seat cannot see, so some of the
    # resampled worlds must differ from the real one.
    assert tally["differs"] > 0, tally


@pytest.mark.parametrize(("game", "players"), CASES)
def test_resampled_worlds_vary(game: Game[Any], players: int) -> None:
    """In the middle of a match, several resamples for one seat are not all the same world."""
    length = 0
    probe = game.new_state(players, short_options(game))
    rng = random.Random(players)
    while not probe.is_terminal():
        random_step(probe, rng)
        length += 1
    state = game.new_state(players, short_options(game))
    rng = random.Random(players)
    for _ in range(length // 2):  # the same game, stopped half-way
        random_step(state, rng)
    while state.is_chance():  # at a decision, so that cards are dealt (half-way may be a new deal)
        random_step(state, rng)
    assert not state.is_terminal()
    for seat in range(players):
        others = {json.dumps([state.resample(seat, rng).view(o) for o in range(players) if o != seat])
                  for _ in range(4)}
        assert len(others) > 1


# -- UP&DOWN: cards, tricks and secrets -----------------------------------------------------------

FULL_DECK = sorted(range(len(DECK)))


def check_updown_cards(state: State) -> None:
    """Hands + pending choices + played cards + undealt deck + set-aside cards = the 44 cards."""
    assert isinstance(state, UpDownState)
    pending = [c for c in state.pending if c is not None]
    everywhere = [c for h in state.hands for c in h] + pending + [c for p in state.played for c in p]
    everywhere += state.deck + state.aside
    assert sorted(everywhere) == FULL_DECK, Counter(everywhere) - Counter(FULL_DECK)
    n = state.players
    if state.phase in (Phase.LEAD, Phase.CHOOSE, Phase.DICE) and state.orient is not None:
        # In play, everyone has played one card per finished trick.
        for s in range(n):
            held = len(state.hands[s]) + (state.pending[s] is not None)
            assert held + len(state.played[s]) == state.hand_size
            assert len(state.played[s]) == state.trick
        assert len(state.aside) == len(DECK) - n * HAND_SIZE[n]
    # The deal events of this round show what each seat was dealt.
    for e in state.log[state.round_log_start:]:
        if e["type"] == "hand":
            s = e["seat"]
            choice = state.pending[s]
            dealt = state.hands[s] + state.played[s] + ([choice] if choice is not None else [])
            assert e["cards"] == [CARD_STR[c] for c in sorted(dealt)]
            assert e["to"] == [s]


def check_updown_tricks(state: State) -> None:
    """Per round: tricks won + discarded == hand size, and the trick events add up to it."""
    assert isinstance(state, UpDownState)
    size = state.hand_size
    in_round: list[dict[str, Any]] = []
    rounds = 0
    for e in state.log:
        if e["type"] == "trick":
            in_round.append(e)
            assert e["pot"] == 0 or e["winner"] is None
            assert (e["taken"] > 0) == (e["winner"] is not None)
        elif e["type"] == "round":
            rounds += 1
            assert len(in_round) == size
            assert sum(e["tricks"]) + e["discarded"] == size
            assert sum(t["taken"] for t in in_round) + sum(t["discarded"] for t in in_round) == size
            assert sum(t["discarded"] for t in in_round) == e["discarded"] == in_round[-1]["discarded"]
            won = [0] * state.players
            for t in in_round:
                if t["winner"] is not None:
                    won[t["winner"]] += t["taken"]
            assert won == e["tricks"]
            in_round = []
    assert rounds == len(state.history)


def check_updown_secrets(state: State) -> None:
    """No view shows another seat's hand, nor a card chosen but not yet revealed."""
    assert isinstance(state, UpDownState)
    n = state.players
    hands = [[CARD_STR[c] for c in sorted(h)] for h in state.hands]
    current = state.round_log_start
    for seat in range(n):
        view = state.view(seat)
        assert view["hand"] == hands[seat]
        mine = state.pending[seat]
        assert view["choice"] == (CARD_STR[mine] if mine is not None else None)
        for e in view["log"]:
            if e["type"] == "hand":
                assert e["seat"] == seat, f"seat {seat} sees seat {e['seat']}'s deal"
    spectator = state.view(None)
    assert "hand" not in spectator and "choice" not in spectator
    assert all(e["type"] != "hand" for e in spectator["log"])
    for chooser, card in enumerate(state.pending):
        if card is None:
            continue
        quoted = json.dumps(CARD_STR[card])
        for other in [None, *range(n)]:
            if other == chooser:
                continue
            view = state.view(other)
            if other is not None:
                assert CARD_STR[card] not in view["hand"]
                assert view["choice"] != CARD_STR[card]
            rest = {k: v for k, v in view.items() if k != "log"}
            assert quoted not in json.dumps(rest), f"{other}'s view shows {chooser}'s choice"
            # This round's events: the card was dealt to the chooser and is not played yet.
            visible_now = [e for i, e in enumerate(state.log) if i >= current
                           and ("to" not in e or (other is not None and other in e["to"]))]
            for e in visible_now:
                assert quoted not in json.dumps(e), f"{other} sees {chooser}'s choice in {e}"


@pytest.mark.parametrize("players", UPDOWN_CASES)
@settings(max_examples=10)
@given(seed=SEEDS)
def test_updown_cards_tricks_and_secrets_at_every_step(players: int, seed: int) -> None:
    """A round with the seats choosing in random order: after every step, every card is in one
    place and no view gives away a hand or a pending choice."""
    def visit(s: State) -> None:
        check_updown_cards(s)
        check_updown_secrets(s)

    state = walk(UPDOWN.new_state(players, UPDOWN.options({"rounds": 1})), random.Random(seed), visit)
    check_updown_tricks(state)


@pytest.mark.parametrize("players", UPDOWN_CASES)
def test_updown_full_matches_conserve_cards_and_tricks(players: int) -> None:
    for seed in range(15):
        state, _ = random_playout(UPDOWN, players, seed, {"tiebreak_rounds": 2},
                                  observer=lambda s, *_: check_updown_cards(s))
        check_updown_tricks(state)
        assert isinstance(state, UpDownState)
        assert sum(state.totals) + sum(h["discarded"] for h in state.history) == state.rounds * state.hand_size


@pytest.mark.parametrize("players", UPDOWN_CASES)
def test_updown_a_pending_choice_is_hidden_until_the_trick_is_revealed(players: int) -> None:
    """Choices made one by one: after each, no other seat can find the card; then all are revealed."""
    rng = random.Random(players)
    state = UPDOWN.new_state(players, UPDOWN.options({"rounds": 1}))
    revealed = 0
    while not state.is_terminal():
        if isinstance(state, UpDownState) and state.phase == Phase.CHOOSE and not any(
                c is not None for c in state.pending):
            order = list(range(players))
            rng.shuffle(order)
            chosen: dict[int, str] = {}
            for seat in order:
                others_before = {o: state.view(o) for o in [None, *range(players)] if o != seat}
                card = rng.choice(state.legal_actions(seat))
                state.apply(card, seat)
                chosen[seat] = CARD_STR[card]
                if len(chosen) < players:
                    check_updown_secrets(state)
                    for o, before in others_before.items():
                        after = state.view(o)
                        # the others learn only that this seat has chosen
                        assert after["submitted"] == sorted([*before["submitted"], seat])
                        assert after["log"][: len(before["log"])] == before["log"]
                        for e in after["log"][len(before["log"]):]:  # e.g. "seat 2 has chosen"
                            assert json.dumps(chosen[seat]) not in json.dumps(e)
                        assert {k: v for k, v in after.items() if k not in ("log", "submitted", "to_act",
                                                                             "hand_sizes")} == \
                            {k: v for k, v in before.items() if k not in ("log", "submitted", "to_act",
                                                                          "hand_sizes")}
            trick = next(e for e in reversed(state.log) if e["type"] == "trick")
            assert trick["cards"] == [chosen[s] for s in range(players)]
            revealed += 1
            continue
        random_step(state, rng)
    assert revealed == HAND_SIZE[players]
