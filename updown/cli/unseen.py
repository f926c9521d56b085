"""The cards one seat has not seen, drawn afresh: how a saved game and an undo stay honest.

A record names every card dealt, the bots' hands included, so a record of an unfinished game (a
saved game) would show the person who saved it what the bots hold, and a game resumed from it, or
a position restored by undo, would deal the bots the very cards they held before. :func:`redraw`
gives, for a record and the person's seat, another record of the same game that the seat cannot
tell apart from it (its view at the end is the same, event for event) in which every card the seat
has not seen is drawn afresh:

* **the deal in progress**: a world is drawn from the seat's view with
  :meth:`Game.sample_world` (the game's own worlds: uniform over the placements the view allows,
  voids and all). A world has no record, but it retells the other seats' private events of the
  deal (their hands or packets, discards, draws) to fit its cards; each such event of the real
  game is lined up with the world's, and the moves behind it (the dealt cards, the discard, the
  draw) take the world's cards, in random order. A move the seat saw keeps its card (the Sueca
  turned card stays turned; whether the chooser then discarded it is the world's). A bot's
  pending choice (UP&DOWN) takes the world's. So the bots' hidden cards, and their hidden history
  in the deal, are the world's.
* **finished deals**: the cards in them the seat never saw (an unplayed hand, a face-down
  discard, the hands of a deal thrown in) are swapped for cards drawn uniformly from the ones the
  seat did not see in that deal. Which of a bot's played cards it was dealt or drew, and where a
  seen card went unseen (a turned card discarded in a deal nobody played), stay as they were:
  they name no card the seat has not seen.

The new record is then replayed through the rules, and the seat's view checked to be the same as
before, event for event: a draw that the rules refuse, or that the seat could tell apart, is drawn
again. The seat's own steps and every public one (cards played, the up-card, the turned card,
dice, tosses, every decision) are kept as they were. Chance steps at the very end that showed
nobody anything yet (a deal cut short) are left out; a resumed game draws them again.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from updown.core.errors import UpdownError
from updown.core.protocol import Game, State
from updown.core.records import Record, new_state_for
from updown.core.records import replay as replay_record
from updown.core.registry import get_game


@dataclass(frozen=True)
class CardSpec:
    """Where a game's ids and texts name cards.

    A chance outcome names card ``a`` if ``a`` is in ``cards``. A decision ``a`` names card
    ``a - off`` for the first ``off`` in ``offsets`` that gives a card (a card played, a card
    discarded). In events and views a card is a string of ``names`` (``"QH"``), or, in a game
    whose cards are numbers, an int under one of ``int_keys``.
    """

    cards: range
    offsets: tuple[int, ...]
    names: dict[str, int] | None = None
    int_keys: frozenset[str] = frozenset()

    def of_decision(self, action: int) -> int | None:
        for off in self.offsets:
            if action - off in self.cards:
                return action - off
        return None

    def decision_with(self, action: int, card: int) -> int:
        for off in self.offsets:
            if action - off in self.cards:
                return card + off
        raise AssertionError("not a card decision")

    def leaf(self, key: str | None, value: object) -> int | None:
        """The card a leaf of an event or view names, if it names one."""
        if self.names is not None:
            return self.names.get(value) if isinstance(value, str) else None
        if type(value) is int and key in self.int_keys and value in self.cards:
            return value
        return None


_SPECS: dict[str, CardSpec] = {}


def _spec_for(game: Game[Any]) -> CardSpec:
    spec = _SPECS.get(game.id)
    if spec is None:
        spec = _SPECS[game.id] = _make_spec(game)
    return spec


def _make_spec(game: Game[Any]) -> CardSpec:
    if game.id == "updown":
        from updown.games import updown as m
        return CardSpec(range(m.NUM_CARDS), (0,), {s: i for i, s in enumerate(m.CARD_STR)})
    if game.id == "euchre":
        from updown.games import euchre as e
        return CardSpec(range(e.NUM_CARDS), (0, e.DISCARD), {s: i for i, s in enumerate(e.CARD_STR)})
    if game.id == "updown-sueca":
        from updown.games import updown_sueca as s
        return CardSpec(range(s.NUM_CARDS), (0, s.DISCARD), {t: i for i, t in enumerate(s.CARD_STR)})
    if game.id == "up-or-down":
        from updown.games import up_or_down as u
        return CardSpec(range(1, u.MAX_CARD + 1), (0, u.TAKE), None,
                        frozenset({"card", "cards", "between", "display", "played", "taken", "known", "hand",
                                   "up_top"}))
    raise UpdownError(f"{game.name} cannot draw the cards a seat has not seen afresh")


def can_redraw(game: Game[Any]) -> bool:
    """Whether :func:`redraw` knows where this game's ids and texts name cards."""
    try:
        _spec_for(game)
    except UpdownError:
        return False
    return True


def card_chance(state: State) -> bool:
    """Whether the chance step ``state`` is at deals, shows or draws a card (not dice or a toss).
    True for a game :func:`redraw` does not know: then any chance step may be a card."""
    try:
        spec = _spec_for(state.game)
    except UpdownError:
        return True
    return any(a in spec.cards for a, _p in state.chance_outcomes())


def _deals(state: State) -> int:
    progress = state.progress()
    return progress.deals if progress is not None else 0


def _private_cards(view: dict[str, Any], key: str, spec: CardSpec) -> list[int]:
    value = view.get(key)
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[int] = []
    for item in items:
        card = spec.leaf("hand", item)
        if card is None:
            raise UpdownError(f"cannot read the card {item!r} in a view's {key!r}")
        out.append(card)
    return out


@dataclass
class _Move:
    step: int
    token: int  # the outcome's place in a chance step; 0 for a decision
    seat: int | None
    action: int
    deal: int
    first_event: int  # the index in the log of the first event this move (or a later one) adds


@dataclass
class _Played:
    """A record re-played with what :func:`redraw` needs to know about every move and event."""

    state: State
    moves: list[_Move]
    event_deal: list[int]  # the deal in which each event of ``state.log`` happened
    event_cards: list[Counter[int]]  # the cards each event names
    universe: dict[int, list[int]]  # each deal's cards: the outcomes of its first dealt card


def _play(record: Record, game: Game[Any], spec: CardSpec) -> _Played:
    state = new_state_for(record)
    moves: list[_Move] = []
    event_deal: list[int] = [0] * len(state.log)  # events of the setup (Sueca's first deal)
    universe: dict[int, list[int]] = {}
    for i, step in enumerate(record.steps):
        head, _sep, body = step.partition(":")
        head, body = head.strip(), body.strip()
        decision = head.isascii() and head.isdigit()
        seat = int(head) if decision else None
        tokens = [body] if decision else body.split()
        for j, token in enumerate(tokens):
            deal = _deals(state)
            action = game.parse_action(token)
            if seat is None and deal not in universe and action in spec.cards:
                universe[deal] = [a for a, _p in state.chance_outcomes() if a in spec.cards]
            before = len(state.log)
            state.apply(action, seat)
            moves.append(_Move(i, j, seat, action, deal, before))
            event_deal.extend([deal] * (len(state.log) - before))
    return _Played(state, moves, event_deal, [_event_cards(e, spec) for e in state.log], universe)


def _event_cards(event: Any, spec: CardSpec) -> Counter[int]:
    out: list[int] = []
    _card_list(event, spec, out)
    return Counter(out)


def _card_list(value: Any, spec: CardSpec, out: list[int], key: str | None = None) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _card_list(v, spec, out, k)
    elif isinstance(value, list):
        for v in value:
            _card_list(v, spec, out, key)
    else:
        card = spec.leaf(key, value)
        if card is not None:
            out.append(card)


def _card_of(move: _Move, spec: CardSpec) -> int | None:
    if move.seat is None:
        return move.action if move.action in spec.cards else None
    return spec.of_decision(move.action)


def _with_card(move: _Move, card: int, spec: CardSpec) -> int:
    return card if move.seat is None else spec.decision_with(move.action, card)


def _sees(event: Any, seat: int) -> bool:
    return "to" not in event or seat in event["to"]


def _seen_in_deal(played: _Played, seat: int, deal: int) -> set[int]:
    """The cards ``seat`` saw in the events of one deal."""
    seen: set[int] = set()
    for event, d, cards in zip(played.state.log, played.event_deal, played.event_cards):
        if d == deal and _sees(event, seat):
            seen.update(cards)
    return seen


def _finished_deal(played: _Played, seat: int, deal: int, spec: CardSpec, rng: random.Random) -> dict[int, int]:
    """For a finished deal: each card of its moves that ``seat`` never saw becomes a card drawn
    uniformly (without repeats) from all the cards it did not see in that deal. Returns the new
    action of each move that changes, by the move's index."""
    seen = _seen_in_deal(played, seat, deal)
    moves = [(k, m, _card_of(m, spec)) for k, m in enumerate(played.moves) if m.deal == deal]
    hidden = sorted({c for _k, _m, c in moves if c is not None and c not in seen})
    if not hidden:
        return {}
    pool = [c for c in played.universe.get(deal, []) if c not in seen]
    if len(pool) < len(hidden):
        raise UpdownError("not enough unseen cards to draw from")
    swap = dict(zip(hidden, rng.sample(pool, len(hidden))))
    return {k: _with_card(m, swap[c], spec) for k, m, c in moves if c is not None and c in swap}


def _current_deal(played: _Played, game: Game[Any], seat: int, spec: CardSpec,
                  rng: random.Random) -> dict[int, int]:
    """For the deal in progress: the other seats' private events of the deal are told as a world
    drawn from ``seat``'s view tells them (its hands, discards and draws), and the moves behind
    them changed to match; a pending choice (UP&DOWN) becomes the world's. Returns the new action
    of each move that changes, by the move's index."""
    state = played.state
    mine = state.view(seat)
    world = game.sample_world(mine, rng)
    deal = _deals(state)
    log, wlog = state.log, world.log
    first = next(i for i, d in enumerate(played.event_deal) if d == deal) if deal in played.event_deal \
        else len(log)
    count = len(log) - first
    if len(wlog) < count:
        raise UpdownError("the world's story of this deal is shorter than the game's")
    # The world's events of this deal, lined up with the game's: the same kinds, for the same seats.
    shift = len(wlog) - len(log)
    for i in range(first, len(log)):
        real, retold = log[i], wlog[i + shift]
        if _sees(real, seat):
            if dict(real) != dict(retold):
                raise UpdownError(f"the world tells event {i} otherwise ({real.get('type')})")
        elif real.get("type") != retold.get("type") or real.get("to") != retold.get("to") or \
                real.get("seat") != retold.get("seat"):
            raise UpdownError(f"the world's event {i} is not the game's ({real.get('type')})")
    seen_now = set(_event_cards({k: v for k, v in mine.items() if k != "log"}, spec))
    pending = {s: _private_cards(state.view(s), "choice", spec) for s in range(state.players) if s != seat}
    linked: dict[int, list[tuple[int, int]]] = {}  # event index: the moves (and cards) it first names
    changes: dict[int, int] = {}
    for k, m in enumerate(played.moves):
        card = _card_of(m, spec) if m.deal == deal else None
        if card is None:
            continue
        at = next((i for i in range(max(m.first_event, first), len(log)) if card in played.event_cards[i]), None)
        if at is not None:
            if not _sees(log[at], seat):
                linked.setdefault(at, []).append((k, card))
            continue  # else the seat saw it: it stays
        if card in seen_now:
            continue  # on the table, say
        if m.seat is not None and pending.get(m.seat) == [card]:
            changes[k] = _with_card(m, _private_cards(world.view(m.seat), "choice", spec)[0], spec)
            continue
        raise UpdownError(f"{game.action_name(card)} is hidden from seat {seat}, but no event tells of it")
    for at, behind in linked.items():
        # The cards the event names that no move behind it dealt (a turned card) stay; the world's
        # other cards in its telling of the event go to the moves, in random order.
        fixed = played.event_cards[at] - Counter(card for _k, card in behind)
        told = _event_cards(wlog[at + shift], spec)
        if fixed - told or sum((told - fixed).values()) != len(behind):
            raise UpdownError(f"the world's event {at} names other cards than the moves behind it")
        cards = list((told - fixed).elements())
        rng.shuffle(cards)
        for (k, _old), card in zip(behind, cards):
            changes[k] = _with_card(played.moves[k], card, spec)
    return changes


def _told_steps(record: Record, played: _Played) -> int:
    """How many steps to keep: chance steps at the end that told nobody anything yet (a deal cut
    short by Ctrl-C, say) are left out; a resumed game draws them again."""
    events_from: dict[int, int] = {}
    for m in played.moves:
        events_from.setdefault(m.step, m.first_event)
    keep = len(record.steps)
    end = len(played.state.log)
    while keep > 0:
        i = keep - 1
        start = events_from.get(i, end)
        chance = not record.steps[i].partition(":")[0].strip().isdigit()
        if not chance or start != end:
            break
        keep, end = i, start
    return keep


def _relabel(record: Record, game: Game[Any], played: _Played, changes: dict[int, int]) -> list[str]:
    steps = list(record.steps)
    tokens: dict[int, list[str]] = {}
    for k, new in changes.items():
        m = played.moves[k]
        if new == m.action:
            continue
        if m.seat is not None:
            steps[m.step] = f"{m.seat}: {game.action_to_str(new)}"
            continue
        if m.step not in tokens:
            tokens[m.step] = steps[m.step].partition(":")[2].split()
        tokens[m.step][m.token] = game.action_to_str(new)
    for i, outcomes in tokens.items():
        label = steps[i].partition(":")[0].strip()
        steps[i] = f"{label}: {' '.join(outcomes)}"
    return steps


def redraw(record: Record, seat: int, rng: random.Random, *, tries: int = 30) -> tuple[Record, State]:
    """A record of the same game as ``seat`` saw it, every card ``seat`` has not seen drawn afresh
    with ``rng``; and the state it replays to. The new record has no seed and no result.

    The state's ``view(seat)`` equals the old record's, event for event; the other seats' hidden
    cards are new (see the module's notes). Raises UpdownError for a game it cannot do this for,
    or if no draw passes the rules' check in ``tries`` attempts.
    """
    game = get_game(record.game)
    spec = _spec_for(game)
    played = _play(record, game, spec)
    keep = _told_steps(record, played)
    if keep < len(record.steps):
        record = Record(record.game, record.players, record.options, record.seats, record.steps[:keep])
        played = _play(record, game, spec)
    state = played.state
    if not 0 <= seat < state.players:
        raise UpdownError(f"there is no seat {seat}")
    want = state.view(seat)
    current = _deals(state)
    problem = "no draw was tried"
    for _attempt in range(tries):
        try:
            changes: dict[int, int] = {}
            for d in range(current):
                changes.update(_finished_deal(played, seat, d, spec, rng))
            if not state.is_terminal():
                changes.update(_current_deal(played, game, seat, spec, rng))
            out = Record(record.game, record.players, dict(record.options), list(record.seats),
                         _relabel(record, game, played, changes))
            again = replay_record(out)
        except UpdownError as err:
            problem = str(err)
            continue
        if again.view(seat) == want:
            return out, again
        problem = "the seat's view changed"
    raise UpdownError(f"could not draw the unseen cards afresh ({problem})")


__all__ = ["CardSpec", "can_redraw", "card_chance", "redraw"]
