"""The games as OpenSpiel Python games (extra ``openspiel``), registered on import.

``import updown.adapters.openspiel`` registers, for every game with an observation encoder:

* ``python_<id>`` (``-`` written ``_``: ``python_updown``, ``python_updown_sueca``,
  ``python_up_or_down``, ``python_euchre``). A node where several seats must act at once (UP&DOWN's
  secret card) is a simultaneous-move node, so ``python_updown`` has simultaneous dynamics; the
  others are sequential.
* ``python_<id>_turns`` for a game with simultaneous choices: the same game with the choice asked
  one seat at a time, each choice hidden from the others until the reveal (as the engine takes
  it). OpenSpiel's MCTS and ISMCTS need sequential games; this is the one they play.

Parameters: ``players`` (default: the game's usual count) and each of the game's options by name
(``python_updown(players=3,rounds=1)``); an option whose default is "none" (UP&DOWN's ``rounds``:
one per player) takes ``-1`` for none. Research options are parameters too: UP&DOWN's ``deck``
(``python_updown_turns(players=2,rounds=1,deck=4:DS:2)``), Euchre's ``deck``
(``python_euchre(deals=1,deck=9JA:DH:1)``), the Sueca game's ``deck`` with ``deals``
(``python_updown_sueca(deals=1,deck=K7A:DH:1)``) and Up or Down?'s ``deck``
(``python_up_or_down(players=2,deck=6:2:1:2:2)``) are reduced decks small enough for OpenSpiel's exact
solvers (``docs/research-variants.md``). Chance nodes are the engine's own chance steps, with their
probabilities. Rewards are terminal: a seat's utility is (seats placed behind it minus seats placed
ahead) / (players - 1), zero-sum in [-1, 1], from the game's placings; the game's own scores are
not OpenSpiel's returns (see ``docs/adapters.md``).

Information: the information-state string is the seat's view as sorted JSON (the view holds every
event the seat has seen, so it has perfect recall); the observation string is the same without the
log. Both tensors are the seat's observation vector (:mod:`updown.adapters.observations`); the
tensor has the current position and this deal's cards, not the whole history. Everything comes
from ``view(seat)``. ``resample_from_infostate`` is the engine's ``resample``; a resampled state
starts with an empty ``history()``, because the real one would give the hidden cards away.

Serialisation: games and states pickle, deep-copy and go through ``serialize()`` and
``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state``. A state serialises as the
game's record of moves so far, chance outcomes included, and is read back by replaying it through
the engine. That is a full-state serialisation (OpenSpiel's contract), not a seat's view; a
resampled world serialises as the seat's view it was drawn from, its seed and its moves since (see
:class:`UpdownSpielState`).
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from updown.adapters.observations import (
    DecisionSpace, Encoder, encoder_class, encoder_for, encoder_ids, placing_utility,
)
from updown.core.options import GameOptions
from updown.core.protocol import Game, State, View
from updown.core.registry import get_game

NONE = -1
"""The parameter value that stands for an option's ``None``."""


def short_name(game_id: str, turns: bool = False) -> str:
    return "python_" + game_id.replace("-", "_") + ("_turns" if turns else "")


ADAPTER_PARAMETERS = ("players", "decisions")
"""Parameters of the adapter, not of the game's rules."""


def _parameters(game: Game[Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"players": game.bench_players, "decisions": False}
    for name, _kind, default, _help in game.Options.fields(research=True):  # research options too
        params[name] = NONE if default is None else default
    return params


def _options(game: Game[Any], params: dict[str, Any]) -> GameOptions:
    values = {k: (None if v == NONE and not isinstance(v, bool) else v) for k, v in params.items()
              if k not in ADAPTER_PARAMETERS}
    options: GameOptions = game.options(values)
    return options


_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)

Move = tuple[int | None, int]
"""One step of the engine: ``(seat, action)``, or ``(None, outcome)`` for a chance outcome."""

World = tuple[View, float]
"""Where a resampled world starts: the seat's view it was drawn from and the seed of its
``random.Random`` (pickled with the view as JSON)."""


class _Engine:
    """The engine state and the record that rebuilds it: the state's only per-position data (the
    Python ``__dict__`` OpenSpiel clones and serialises is ``{"_engine": this}``).

    The record is where play started (``start``: ``None`` for the game's initial state; for a world
    from ``resample_from_infostate``, the seat's view it was drawn from and the seed) and every
    move since, chance outcomes included. Deep-copied (by OpenSpiel's clone) with the engine's
    cheap clone; pickled (by OpenSpiel's ``serialize``) as the record, and unpickled by replaying
    it through the engine, which rebuilds exactly the same position (the rules draw nothing
    themselves; a world is drawn with its seed only) and rejects a move that is not legal."""

    __slots__ = ("state", "options", "start", "moves", "player")

    def __init__(self, state: State, options: GameOptions, start: World | None = None,
                 moves: list[Move] | None = None) -> None:
        self.state = state
        self.options = options
        self.start = start
        self.moves: list[Move] = [] if moves is None else moves
        self.player: int | None = None
        """OpenSpiel's current player at this position, once asked (OpenSpiel asks it several
        times a step: in ``apply_action``, ``is_chance_node``, ``legal_actions``); forgotten by
        :meth:`apply`, the only way the position changes."""

    def apply(self, action: int, seat: int | None) -> None:
        self.player = None
        self.state.apply(action, seat)
        self.moves.append((seat, action))

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.clone(), self.options, self.start, list(self.moves))

    def __reduce__(self) -> tuple[Any, ...]:
        s = self.state
        start = None if self.start is None else (json.dumps(self.start[0], sort_keys=True), self.start[1])
        return (_replay, (s.game.id, s.players, self.options.to_dict(), start, tuple(self.moves)))


def _replay(game_id: str, players: int, options: dict[str, Any], start: tuple[str, float] | None,
            moves: tuple[Move, ...]) -> _Engine:
    """The engine state that a record names (how an :class:`_Engine` is unpickled)."""
    game = get_game(game_id)
    opts = game.options(options)
    world: World | None = None
    if start is None:
        state = game.new_state(players, opts)
    else:
        world = (json.loads(start[0]), float(start[1]))
        state = game.sample_world(world[0], random.Random(world[1]))
    engine = _Engine(state, opts, world)
    for seat, action in moves:
        engine.apply(action, seat)
    return engine


class UpdownSpielGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games as an OpenSpiel game; built by ``pyspiel.load_game``.

    Each registration is a subclass that sets the three class attributes below. (A class, not a
    closure, is what OpenSpiel keeps as the maker: a closure freed by OpenSpiel's registry at
    interpreter exit, without the GIL, aborts the process.)"""

    engine_game: Game[Any]
    game_type: Any
    simultaneous: bool

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game = self.engine_game
        full = {**_parameters(game), **(params or {})}
        players = int(full["players"])
        self.engine_options = _options(game, full)
        self.encoder: Encoder = encoder_for(game, players, self.engine_options)
        self.space: DecisionSpace | None = self.encoder.decisions if full["decisions"] else None
        """With ``decisions=true``: players' actions are the compact decision-only ids."""
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.n if self.space is not None else self.encoder.num_actions,
            max_chance_outcomes=self.encoder.num_actions,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.encoder.max_game_length(),
        )
        super().__init__(self.game_type, info, full)

    def new_initial_state(self) -> UpdownSpielState:
        return UpdownSpielState(self, self.engine_game.new_state(self.num_players(), self.engine_options))

    def __reduce__(self) -> tuple[Any, ...]:
        # By its string, through this module (so that unpickling registers the games first) and
        # ``pyspiel.load_game``. (pyspiel's own pickling would restore the C++ game under an
        # instance without this class's Python attributes.)
        return (_load_game, (str(self),))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        return ViewObserver(self.encoder, iig_obs_type, params)


class UpdownSpielState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state around an engine state.

    It pickles, deep-copies and goes through ``serialize()``, ``pyspiel.serialize_game_and_state``
    and ``deserialize_game_and_state`` as OpenSpiel's Python games do; what OpenSpiel serialises
    (its ``history=`` and ``move_number=`` lines and the pickled ``__dict__``) carries the game's
    record of moves so far, chance outcomes included, and deserialising replays it through the
    engine: the same position, views, legal actions and tensors. This is a full-state
    serialisation (OpenSpiel's contract), not a seat's view: it names every hidden card, as
    ``history()`` does. A world from ``resample_from_infostate`` (whose ``history()`` is empty)
    serialises as the seat's view it was drawn from, its seed and its moves since. The
    serialised text holds a pickle: deserialise only what you trust.
    """

    # Per-game constants, set by __init__, kept out of __dict__: OpenSpiel's clone and serialize
    # start from a new initial state and copy only __dict__ (here ``_engine``).
    __slots__ = ("__dict__", "_simultaneous", "_spiel_game", "_space")

    def __init__(self, game: UpdownSpielGame, state: State, start: World | None = None) -> None:
        super().__init__(game)
        self._engine = _Engine(state, game.engine_options, start)
        self._simultaneous = game.simultaneous
        self._spiel_game = game
        self._space = game.space

    @property
    def engine(self) -> State:
        return self._engine.state

    def __reduce__(self) -> tuple[Any, ...]:
        # Through OpenSpiel's own text (pyspiel's pickling would restore the C++ state under an
        # instance without its Python attributes).
        return (_deserialize_state, (pyspiel.serialize_game_and_state(self._spiel_game, self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> UpdownSpielState:
        copy: UpdownSpielState = self.clone()  # OpenSpiel's clone: a new initial state, __dict__ deep-copied
        return copy

    # -- who acts -------------------------------------------------------------------------------
    def current_player(self) -> int:
        engine = self._engine
        player = engine.player
        if player is None:
            player = engine.player = self._who_acts(engine.state)
        return player

    def _who_acts(self, s: State) -> int:
        if s.is_terminal():
            return _TERMINAL
        if s.is_chance():
            return _CHANCE
        actors = s.actors()
        if self._simultaneous and len(actors) > 1:
            return _SIMULTANEOUS
        return actors[0]

    def is_terminal(self) -> bool:
        return self._engine.state.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        s = self._engine.state
        if player < 0:  # a simultaneous node asked as a whole: the flat joint actions
            count = 1
            for seat in range(s.players):
                count *= max(1, len(s.legal_actions(seat)))
            return list(range(count))
        legal = sorted(s.legal_actions(player))
        if self._space is not None:  # compact ids keep the full ids' order
            return [self._space.to_compact(a) for a in legal]
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return sorted(self._engine.state.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        player = self.current_player()  # known already: OpenSpiel asked it to check the action
        if player >= 0:
            self._engine.apply(self._full(int(action)), player)
            return
        if player == _CHANCE:
            self._engine.apply(int(action), None)
            return
        if player == _TERMINAL:
            raise pyspiel.SpielError("the game is over: no action can be applied")
        s = self._engine.state
        if player == _SIMULTANEOUS:
            # A flat joint action (OpenSpiel's apply_action at a simultaneous node): each seat's
            # index into its sorted legal actions, seat 0 the least significant digit.
            flat = int(action)
            joint = []
            for seat in range(s.players):
                legal = sorted(s.legal_actions(seat)) or [-1]
                joint.append(legal[flat % len(legal)])
                flat //= len(legal)
            self._apply_full(joint)

    def _full(self, action: int) -> int:
        """A player's action as a full id (it is one already unless ``decisions=true``)."""
        if self._space is None:
            return action
        try:
            return self._space.to_full(action)
        except ValueError as e:
            raise pyspiel.SpielError(str(e)) from None

    def _apply_actions(self, actions: list[int]) -> None:
        self._apply_full([self._full(int(a)) if int(a) >= 0 else -1 for a in actions])

    def _apply_full(self, actions: list[int]) -> None:
        engine = self._engine
        for seat in engine.state.actors():
            engine.apply(int(actions[seat]), seat)

    def _action_to_string(self, player: int, action: int) -> str:
        if player >= 0:
            action = self._full(int(action))
        return self._spiel_game.engine_game.action_to_str(int(action))

    # -- outcome --------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        s = self._engine.state
        if not s.is_terminal():
            return [0.0] * s.players
        return placing_utility(s.result())

    def rewards(self) -> list[float]:
        return self.returns()

    # -- information ----------------------------------------------------------------------------
    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The seat's observation vector as a list (the current player's if ``player`` is None),
        as OpenSpiel's own ``observation_tensor`` gives it. Encoded here, once: OpenSpiel's C++
        path for a Python game builds a new initial state and encodes it at every call (to learn
        the tensor's size) before encoding this state through the observer, about twice the
        work for the same list; C++ code (``State::ObservationTensor``) still goes through the
        observer, :class:`ViewObserver`, and gets the same numbers."""
        p = self.current_player() if player is None else int(player)
        if not 0 <= p < self._engine.state.players:
            raise pyspiel.SpielError(f"observation tensor of player {p}: not a seat (0 to {self._engine.state.players - 1})")
        return self._spiel_game.encoder.encode_list(self._engine.state.view(p))

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The same vector as :meth:`observation_tensor` (the adapter's two tensors are one)."""
        return self.observation_tensor(player)

    def resample_from_infostate(self, player: int, sampler: Any) -> UpdownSpielState:
        """A state ``player`` cannot tell from this one, from the engine's ``resample`` (seeded by
        ``sampler()``, OpenSpiel's uniform sampler). Its ``history()`` starts empty (the real
        one would give the hidden cards away); it serialises as the view it was drawn from, the
        seed and its moves since, so that it holds nothing ``player`` did not see."""
        seed = float(sampler())
        view = self._engine.state.view(player)
        world = self._spiel_game.engine_game.sample_world(view, random.Random(seed))
        return UpdownSpielState(self._spiel_game, world, (view, seed))

    def __str__(self) -> str:
        return json.dumps(self._engine.state.view(None), sort_keys=True)


def _load_game(text: str) -> UpdownSpielGame:
    """``pyspiel.load_game(text)`` (how a game is unpickled)."""
    return pyspiel.load_game(text)  # type: ignore[no-any-return]


def _deserialize_state(text: str) -> UpdownSpielState:
    """The state of ``pyspiel.serialize_game_and_state``'s ``text`` (how a state is unpickled)."""
    _game, state = pyspiel.deserialize_game_and_state(text)
    return state  # type: ignore[no-any-return]


class ViewObserver:
    """OpenSpiel's Python observer interface, from a seat's view only."""

    def __init__(self, encoder: Encoder, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not obs_type.public_info:
            raise ValueError("only a seat's own observation is provided (public and its private information)")
        self.perfect_recall = bool(obs_type.perfect_recall)
        self.encoder = encoder
        self._buffer = encoder.new_buffer()
        self.tensor = np.frombuffer(self._buffer, np.float32)
        """The vector of the last ``set_from`` (over ``_buffer``, which ``set_from`` writes)."""
        self.dict = encoder.layout.split(self.tensor)

    def set_from(self, state: UpdownSpielState, player: int) -> None:
        self.encoder.encode_into(state.engine.view(player), self._buffer)  # straight into self.tensor

    def string_from(self, state: UpdownSpielState, player: int) -> str:
        view = state.engine.view(player)
        if not self.perfect_recall:
            view = {k: v for k, v in view.items() if k != "log"}
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


def _register(game: Game[Any], simultaneous: bool, turns: bool) -> str:
    name = short_name(game.id, turns)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"{game.name} (updown engine{', one seat at a time' if turns else ''})",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(game),
    )

    maker = type(f"SpielGame_{name}", (UpdownSpielGame,),
                 {"engine_game": game, "game_type": game_type, "simultaneous": simultaneous,
                  "__module__": __name__})
    _MAKERS.append(maker)
    globals()[maker.__name__] = maker  # pickle finds a class by its module and name
    pyspiel.register_game(game_type, maker)
    return name


_MAKERS: list[type[UpdownSpielGame]] = []


def _register_all() -> list[str]:
    names = []
    registered = set(pyspiel.registered_names())
    for game_id in encoder_ids():
        game = get_game(game_id)
        simultaneous = encoder_class(game_id).simultaneous
        for turns in ((False, True) if simultaneous else (False,)):
            name = short_name(game_id, turns)
            if name not in registered:
                _register(game, simultaneous and not turns, turns)
            names.append(name)
    return names


GAMES: list[str] = _register_all()
"""The short names registered with OpenSpiel."""


def load(game_id: str, players: int | None = None, turns: bool = False, **options: Any) -> Any:
    """``pyspiel.load_game`` for one of our games by its id, e.g. ``load("updown", 3, rounds=1)``."""
    params: dict[str, Any] = dict(options)
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(short_name(game_id, turns), params)
