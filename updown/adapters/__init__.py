"""Research adapters: the four games as PettingZoo environments and OpenSpiel games.

This package owns everything a reinforcement-learning or game-theory toolkit needs to reach a
game, and nothing else; it reaches a game only through the public protocol (``new_state``,
``view``, ``legal_actions``, ``actors``, ``apply``, ``is_chance``, ``chance_outcomes``,
``result``, ``clone``, ``resample``), so the rules stay untouched.

* :mod:`updown.adapters.observations`: a fixed-size numpy encoding of ``view(seat)`` and the
  legal-action mask, for every game and player count (``docs/observations.md``). The per-game
  part of an encoding lives in ``encoders/<anything>.py`` with ``GAME_ID`` and ``Encoder``,
  found by module as the terminal's screens are.
* :mod:`updown.adapters.pettingzoo`: AEC environments for every game, and a Parallel environment
  in which UP&DOWN's secret card choice is truly simultaneous (extra ``pettingzoo``).
* :mod:`updown.adapters.vector`: ``num_envs`` games stepped together (every game and player
  count), each row exactly the AEC environment's observation and mask; UP&DOWN on the batched
  engine.
* :mod:`updown.adapters.openspiel`: every game registered with ``pyspiel.register_game`` as a
  Python game, UP&DOWN's choice as a simultaneous-move node (extra ``openspiel``).

``docs/adapters.md`` says how to use them; numpy is needed by all three, so this package is not
imported by anything that playing uses.
"""
