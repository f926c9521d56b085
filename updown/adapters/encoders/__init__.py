"""Per-game observation encoders: a module per game with ``GAME_ID`` and ``Encoder`` (a subclass
of :class:`updown.adapters.observations.Encoder`), found on import. Each reads only the view."""
