"""Worlds drawn from a seat's view (``Game.sample_world``): they agree with the view, carry no
other seat's real private events, and are drawn uniformly from the consistent ones."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from math import comb
from typing import Any

import pytest

from updown.core.errors import IllegalAction
from updown.core.frozen import thaw
from updown.core.protocol import Game, State
from updown.core.records import Record, replay
from updown.core.registry import all_games, get_game
from updown.games.euchre import EuchreState
from updown.games.euchre import card_id as euchre_card
from updown.games.updown_sueca import UpDownSuecaState

from conftest import random_playout  # noqa: I001

# Whole matches: several deals or rounds each.
MATCHES = [
    pytest.param("updown", 3, {"rounds": 2}, id="updown-3p"),
    pytest.param("updown", 4, {"rounds": 2}, id="updown-4p"),
    pytest.param("euchre", 4, {"target": 6}, id="euchre"),
    pytest.param("euchre", 4, {"target": 5, "lone_defender": True, "stick_the_dealer": False}, id="euchre-opts"),
    pytest.param("updown-sueca", 4, {}, id="updown-sueca"),
    pytest.param("updown-sueca", 4, {"exchange_limit": 2, "regional": True}, id="updown-sueca-opts"),
    pytest.param("up-or-down", 3, {}, id="up-or-down-3p"),
    pytest.param("up-or-down", 6, {}, id="up-or-down-6p"),
]


def private_events(state: State, seat: int) -> list[tuple[int, dict[str, Any]]]:
    """Events of ``state.log`` that ``seat`` may not see, with their index."""
    return [(i, e) for i, e in enumerate(state.log) if "to" in e and seat not in e["to"]]


def current_deal_start(state: State) -> int:
    for name in ("deal_log_start", "round_log_start"):
        if hasattr(state, name):
            return int(getattr(state, name))
    return 0  # Up or Down? is one deal


@pytest.mark.parametrize(("game_id", "players", "options"), MATCHES)
def test_worlds_agree_with_the_view_over_a_whole_match(game_id: str, players: int, options: dict[str, Any]) -> None:
    game = get_game(game_id)
    rng = random.Random(11)
    checked = Counter[str]()

    def visit(state: State, _seat: int | None, _action: int) -> None:
        if rng.random() > 0.25:
            return
        for seat in range(players):
            view = state.view(seat)
            world = game.sample_world(view, rng)
            assert world.view(seat) == view
            assert world.view(None) == state.view(None)
            assert world.actors() == state.actors() and world.is_chance() == state.is_chance()
            assert world.legal_actions(seat) == state.legal_actions(seat)
            # No other seat's private event survives unless it was retold: every one is of the
            # current deal, and earlier deals keep none.
            start = current_deal_start(world)
            for i, _ in private_events(world, seat):
                assert i >= start
            if start:
                assert world.log[:start] == [e for e in state.log[:current_deal_start(state)]
                                             if "to" not in e or seat in e["to"]]
            checked["worlds"] += 1
            checked["differs"] += any(world.view(o) != state.view(o) for o in range(players) if o != seat)
        if not state.is_terminal() and rng.random() < 0.1:
            # A world plays on to the end like any state.
            world = state.resample(rng.randrange(players), rng)
            while not world.is_terminal():
                if world.is_chance():
                    world.apply(world.sample_chance(rng))
                else:
                    s = world.actors()[0]
                    world.apply(rng.choice(world.legal_actions(s)), s)
            checked["played on"] += 1

    final, record = random_playout(game, players, 5, options, observer=visit)
    deals = sum(1 for e in final.log if e["type"] in ("score", "round"))
    assert deals >= 2 or game_id == "up-or-down", deals
    assert checked["worlds"] > 40 and checked["differs"] > checked["worlds"] // 4, checked


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_a_world_needs_only_the_view(game: Game[Any]) -> None:
    """The view is enough: a JSON copy of it (nothing shared with the state) gives worlds too, and
    the world does not change when the caller edits its copy afterwards."""
    state, _ = random_playout(game, game.min_players, 3)
    # Half-way through the same game.
    half = len(state.log) // 2
    probe = game.new_state(game.min_players)
    r = random.Random(3)
    while len(probe.log) < half and not probe.is_terminal():
        if probe.is_chance():
            probe.apply(probe.sample_chance(r))
        else:
            s = probe.actors()[0]
            probe.apply(r.choice(probe.legal_actions(s)), s)
    seat = 1
    copy = json.loads(json.dumps(probe.view(seat)))
    world = game.sample_world(copy, random.Random(1))
    before = json.dumps(world.view(seat), sort_keys=True)
    assert world.view(seat) == probe.view(seat)
    copy["log"].clear()
    copy["hand"] = []
    assert json.dumps(world.view(seat), sort_keys=True) == before


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_a_world_from_the_first_state(game: Game[Any]) -> None:
    """Before the first chance step (for Euchre, before the first dealer is drawn) a world is the
    same game from the start, and plays on like it."""
    state = game.new_state(game.min_players)
    for seat in range(game.min_players):
        world = game.sample_world(state.view(seat), random.Random(seat))
        assert world.view(seat) == state.view(seat)
        assert world.chance_label() == state.chance_label()
        assert sorted(world.chance_outcomes()) == sorted(state.chance_outcomes())


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_spectator_and_foreign_views_are_refused(game: Game[Any]) -> None:
    state, _ = random_playout(game, game.min_players, 1)
    with pytest.raises(IllegalAction, match="spectator"):
        game.sample_world(state.view(None), random.Random(0))
    other = next(g for g in all_games() if g.id != game.id)
    with pytest.raises(IllegalAction):
        other.sample_world(state.view(0), random.Random(0))


# -- no card where the view proves it cannot be, and no card more often than it should be ---------

def test_euchre_dealer_discard_is_not_carried_into_later_deals() -> None:
    """The review's case: after deal 1, worlds used to carry the dealer's real face-down discard."""
    game = get_game("euchre")
    found: list[EuchreState] = []

    def spot(state: State, _seat: int | None, _action: int) -> None:
        assert isinstance(state, EuchreState)
        if not found and state.deal_no == 2 and state.phase >= 3 and any(
                e["type"] == "discard" for e in state.log[: state.deal_log_start]):
            found.append(state.clone())

    for seed in range(40):
        random_playout(game, 4, seed, {"target": 10}, observer=spot)
        if found:
            break
    state = found[0]
    discard = next(e for e in state.log[: state.deal_log_start] if e["type"] == "discard")
    dealer = discard["seat"]
    seat = (dealer + 1) % 4
    rng = random.Random(2)
    for _ in range(50):
        world = state.resample(seat, rng)
        assert not any(e["type"] == "discard" and e["seat"] == dealer for e in world.log[: world.deal_log_start])
        assert discard not in world.view(dealer)["log"]


def test_euchre_hidden_discard_follows_the_exact_count_and_voids_are_respected() -> None:
    """Seat 0 sees the dealer (3) pick up the up-card; the dealer's face-down discard is one of
    the 17 cards seat 0 cannot see. Seat 1 showed it holds no trump (clubs and the left bower JS),
    so a world that puts JS in the discard leaves more room for seat 1's hand: JS is the discard
    in C(16,4) placements, every other card in C(15,4). The worlds must follow that exact count."""
    steps = ["dealer: 3", "deal 0: 9C 10C JC QC KC", "deal 1: 9D 10D JD QD KD", "deal 2: 9H 10H JH QH KH",
             "deal 3: 9S 10S JS QS KS", "up-card: AC", "0: order up", "3: discard 9S",
             "0: 9C", "1: 9D"]
    state = replay(Record("euchre", 4, {}, ["a", "b", "c", "d"], steps))
    assert isinstance(state, EuchreState)
    rng = random.Random(5)
    counts = Counter[int]()
    n = 6000
    trumps = {c for c in range(24) if c // 6 == 0} | {euchre_card("JS")}
    for _ in range(n):
        world = state.resample(0, rng)
        assert isinstance(world, EuchreState)
        assert not trumps & set(world.hands[1])
        assert euchre_card("AC") in world.hands[3]  # the up-card the dealer picked up
        counts[world.discarded] += 1
    hidden = set(range(24)) - set(state.hands[0]) - {euchre_card(c) for c in ("AC", "9C", "9D")}
    assert len(hidden) == 17 and set(counts) <= hidden
    # Exact: given the discard d, seat 1 takes 4 of the non-trumps left, the rest fill seats 2, 3
    # and the kitty in the same number of ways whatever d is.
    weight = {c: comb(16 if c == euchre_card("JS") else 15, 4) for c in hidden}
    total = sum(weight.values())
    chi2 = sum((counts[c] - n * w / total) ** 2 / (n * w / total) for c, w in weight.items())
    assert chi2 < 16 + 6 * (2 * 16) ** 0.5, (chi2, counts)
    # And the exact count does make JS the likelier discard.
    js = counts[euchre_card("JS")]
    assert js > n / 17


def test_updown_worlds_match_the_exact_count_of_consistent_worlds() -> None:
    """A small UP&DOWN position (2 players, late in the round): every way to place the hidden
    cards is a consistent world, so each of seat 1's possible hands is equally likely."""
    game = get_game("updown")
    state = game.new_state(2, game.options({"rounds": 1}))
    r = random.Random(4)
    while not (state.actors() and len(state.hands[0]) == 2 and len(state.hands[1]) == 2 and state.phase == 5):
        if state.is_chance():
            state.apply(state.sample_chance(r))
        else:
            s = state.actors()[0]
            state.apply(r.choice(state.legal_actions(s)), s)
    # Hidden from seat 0: seat 1's 2 cards and the 14 set aside: C(16, 2) = 120 possible hands.
    rng = random.Random(9)
    n = 12000
    counts = Counter(tuple(sorted(game.sample_world(state.view(0), rng).hands[1])) for _ in range(n))  # type: ignore[attr-defined]
    assert len(counts) <= 120
    expected = n / 120
    chi2 = sum((counts.get(h, 0) - expected) ** 2 / expected
               for h in itertools.combinations(sorted(set(range(44)) - seen_by(state, 0)), 2))
    assert chi2 < 119 + 6 * (2 * 119) ** 0.5, chi2


def seen_by(state: Any, seat: int) -> set[int]:
    return set(state.hands[seat]) | {c for p in state.played for c in p}


def test_sueca_turned_card_is_placed_as_often_as_the_consistent_histories_say() -> None:
    """Seat 1 turned AS and exchanged 2 cards; seat 2 cannot see whether AS was discarded. Counted
    over every consistent history (placement and private events), AS stays in hand in 3 of 5
    (see SuecaWorlds: a kept turned card cannot be one of the 2 drawn)."""
    from test_updown_sueca_rules import deal, run  # the same helpers the rules tests use

    steps = deal("2H 3H 4H 2C 3C", "KD 5D 6D AS 2D", "AD 7D QD 4S 6C", "QS JS 2S KH 6H", turn=True)
    steps += ["1: discard 5D", "1: discard 6D", "1: done", "draw 1: 3D 4D"]
    state = run(steps)
    assert isinstance(state, UpDownSuecaState)
    rng = random.Random(3)
    n = 4000
    turned = state.turned
    kept = sum(turned in state.resample(2, rng).hands[1] for _ in range(n))  # type: ignore[attr-defined]
    # Exact: hands of seat 1 hold 5 of the hidden cards; a world is a placement plus a story.
    # Turned kept: the 4 other held cards include the 2 drawn, C(4,2) = 6 stories for each of the
    # placements that keep it; discarded: C(5,2) = 10 for each placement that discards it.
    hidden = 40 - 5 - 1  # all but seat 2's hand and the turned card
    keep = comb_placements(hidden, hand=4, disc=2) * 6
    drop = comb_placements(hidden, hand=5, disc=1) * 10
    p = keep / (keep + drop)
    sd = (n * p * (1 - p)) ** 0.5
    assert abs(kept - n * p) < 5 * sd, (kept, n * p)


def comb_placements(hidden: int, hand: int, disc: int) -> int:
    """Placements of seat 1's other hand cards and discards (the rest of the hidden cards in the
    other hands and the stock are the same number of ways either way)."""
    from math import comb

    return comb(hidden, hand) * comb(hidden - hand, disc)


def test_up_or_down_histories_never_play_a_card_before_it_is_held() -> None:
    game = get_game("up-or-down")
    rng = random.Random(8)
    count = 0

    def visit(state: State, _s: int | None, _a: int) -> None:
        nonlocal count
        if rng.random() > 0.1 or state.is_chance():  # (mid-deal, a hand is not yet an event)
            return
        for seat in range(state.players):
            world = game.sample_world(state.view(seat), rng)
            held: dict[int, set[int]] = {s: set() for s in range(state.players)}
            for e in world.log:
                s = e.get("seat")
                if e["type"] == "hand":
                    held[s].update(e["cards"])
                elif e["type"] in ("drew",) or (e["type"] == "draw" and e["pile"] == "up"):
                    held[s].add(e["card"])
                elif e["type"] == "play":
                    assert e["card"] in held[s]
                    held[s].discard(e["card"])
            for s in range(state.players):
                assert held[s] == set(world.hands[s])  # type: ignore[attr-defined]
            count += 1

    random_playout(game, 3, 2, observer=visit)
    assert count > 20


def test_worlds_are_reproducible_from_the_rng() -> None:
    for game in all_games():
        state, _ = random_playout(game, game.min_players, 6)
        view = state.view(0)
        a = game.sample_world(view, random.Random(4))
        b = game.sample_world(view, random.Random(4))
        assert json.dumps([thaw(a.view(s)) for s in range(state.players)]) == \
            json.dumps([thaw(b.view(s)) for s in range(state.players)])


def test_a_world_before_the_first_chance_step() -> None:
    """Before the dealer is drawn there is no dealing order yet (hypothesis found this crash)."""
    import random as _random

    from updown.core.registry import all_games

    for game in all_games():
        state = game.new_state(game.bench_players)
        world = state.resample(0, _random.Random(1))
        assert world.view(0) == state.view(0)
        assert world.is_chance() == state.is_chance()


@pytest.mark.parametrize("allowed", [
    # Bins 2 and 3 take any card (they merge into one), card 0 may not go to bin 0, card 1 only to
    # bins 1 and 3; three cards go anywhere (the last class is free).
    {0: [1, 2, 3], 1: [1, 3], 2: [0, 1, 2, 3], 3: [0, 1, 2, 3], 4: [0, 1, 2, 3]},
    # No card goes anywhere: the last class fills the room the others leave in its own bins only.
    {0: [1, 2, 3], 1: [1, 3], 2: [0, 2, 3], 3: [0, 2, 3], 4: [0, 1, 2]},
], ids=["a-free-class", "no-free-class"])
def test_constrained_deal_merges_alike_bins_and_stays_exact_and_uniform(allowed: dict[int, list[int]]) -> None:
    # Five cards, four bins of sizes 1, 1, 2, 1.
    from updown.core.worlds import ConstrainedDeal

    sizes = (1, 1, 2, 1)
    placements = set()
    for order in itertools.permutations(range(5)):
        bins = (frozenset(order[0:1]), frozenset(order[1:2]), frozenset(order[2:4]), frozenset(order[4:5]))
        if all(b in allowed[c] for b, cards in enumerate(bins) for c in cards):
            placements.add(bins)
    deal = ConstrainedDeal(allowed, sizes)
    if allowed[4] == [0, 1, 2, 3]:
        assert len(deal.merged) == 3  # bins 2 and 3 counted as one
    assert deal.total == len(placements)
    rng = random.Random(4)
    seen = Counter()
    draws = 400 * len(placements)
    for _ in range(draws):
        got = deal.draw(rng)
        assert [len(b) for b in got] == list(sizes)
        key = tuple(frozenset(b) for b in got)
        assert key in placements
        seen[key] += 1
    assert set(seen) == placements
    expected = draws / len(placements)
    chi2 = sum((n - expected) ** 2 / expected for n in seen.values())
    assert chi2 < 3 * len(placements)  # far beyond any plausible deviation of a uniform draw


# -- the Sueca exchange model (SuecaWorlds(view, keeps=...)) ------------------------------------


def _sueca_keeps(card: int, trump: int) -> bool:
    from updown.games.updown_sueca import strength, suit_of

    return suit_of(card) == trump or strength(card) == 9  # trumps and aces, as greedy keeps


def _accepted(cards: Any, trump: int) -> int:
    return sum(1 for c in cards if _sueca_keeps(c, trump))


def test_sueca_exchange_model_weighs_a_hand_by_the_ways_it_kept_its_cards() -> None:
    """Seat 1 (the chooser, spades trump) threw 3 cards and drew 3, so by the model it kept 2 trumps
    or aces. Seen from seat 2, its hidden hand H is weighed by C(accepted(H), 2), the ways to say
    which 2 it kept: the exact chance that it holds AS follows from counting hands by how many
    accepted cards they hold (13 in the pool of 35: 10 spades and 3 aces)."""
    from test_updown_sueca_rules import deal, run

    from updown.games.updown_sueca import GAME as SUECA
    from updown.games.updown_sueca import card_id as sueca_card

    steps = deal("QH JH KH 2C 3C", "AS 7S 2D 3D 4C", "4H 5H 6H 5C 6C", "KD JD 7D QC JC", trump="S")
    steps += ["1: discard 2D", "1: discard 3D", "1: discard 4C", "1: done", "draw 1: 5D 6D QD"]
    state = run(steps)
    view = state.view(2)
    assert view["phase"] == "decide"
    sampler = SUECA.world_sampler(view)
    modelled = type(sampler)(view, keeps=_sueca_keeps)
    assert modelled.modelled and not sampler.modelled
    a, r, kept = 13, 22, 2
    weight = sum(comb(a, n) * comb(r, 5 - n) * comb(n, kept) for n in range(6))
    with_as = sum(comb(a - 1, n - 1) * comb(r, 5 - n) * comb(n, kept) for n in range(1, 6))
    p = with_as / weight  # about 0.28, twice the uniform 5/35
    ace = sueca_card("AS")
    rng = random.Random(11)
    draws = 3000
    held = 0
    for _ in range(draws):
        world = modelled.draw(rng)
        assert world.view(2) == view
        assert _accepted(world.hands[1], world.trump) >= kept
        held += ace in world.hands[1]
    sd = (draws * p * (1 - p)) ** 0.5
    assert abs(held - draws * p) < 5 * sd, (held, draws * p)
    uniform = sum(ace in sampler.draw(rng).hands[1] for _ in range(draws))
    assert abs(uniform - draws * 5 / 35) < 5 * (draws * 5 / 35 * 30 / 35) ** 0.5


def test_sueca_exchange_model_falls_back_to_uniform_worlds_when_it_cannot_explain_the_view() -> None:
    """Seat 1 exchanged nothing (so by the model all five of its cards are trumps or aces), then
    plays the 2 of diamonds: no world of the model fits, and the worlds are the uniform ones."""
    from test_updown_sueca_rules import deal, run

    steps = deal("QH JH KH 2C 3C", "AS 7S 2D 3D 4C", "4H 5H 6H 5C 6C", "KD JD 7D QC JC", trump="S")
    steps += ["1: done", "2: play", "2: done", "3: sit out", "0: sit out",
              "1: AS", "2: 4H", "1: 2D"]
    state = run(steps)
    view = state.view(2)
    from updown.games.updown_sueca import SuecaWorlds

    before = run(steps[:-1]).view(2)
    assert SuecaWorlds(before, keeps=_sueca_keeps).modelled  # AS alone fits the model
    worlds = SuecaWorlds(view, keeps=_sueca_keeps)
    assert not worlds.modelled
    rng = random.Random(5)
    for _ in range(50):
        assert worlds.draw(rng).view(2) == view


def test_sueca_exchange_model_worlds_agree_with_greedy_views_over_whole_matches() -> None:
    """Along greedy matches (greedy exchanges by this very rule), every view after an exchange is
    explained by the model, and every world agrees with the view and keeps the model: each other
    seat that exchanged k cards holds, with the cards it has played, at least 5 - k accepted."""
    from updown.bots import make_bot
    from updown.games.updown_sueca import SuecaWorlds

    game = get_game("updown-sueca")
    rng = random.Random(8)
    checked = 0
    for seed in range(3):
        state = game.new_state(4)
        bots = [make_bot("greedy", game, s, random.Random(f"{seed}:{s}")) for s in range(4)]
        chance = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(chance))
                continue
            seat = state.actors()[0]
            view = state.view(seat)
            exchanged = [s for s in range(4) if s != seat and view["exchanged"][s] is not None]
            if exchanged and view["phase"] in ("decide", "exchange", "trick"):
                worlds = SuecaWorlds(view, keeps=_sueca_keeps)
                assert worlds.modelled, view
                for _ in range(2):
                    world = worlds.draw(rng)
                    assert world.view(seat) == view
                    for s in exchanged:
                        k = view["discarded"][s]
                        assert _accepted(list(world.hands[s]) + list(world.played[s]), world.trump) >= 5 - k
                checked += 1
            state.apply(bots[seat].act(view, state.legal_actions(seat)), seat)
    assert checked > 100
