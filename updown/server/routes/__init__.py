"""The server's routes, one module per concern; ``updown.server.app.create_app`` assembles them.

- ``accounts.py``: register, sign in and out, guests, ``/api/me``.
- ``tables.py``: games, the lobby, creating, joining and leaving tables, records, hints.
- ``info.py``: leaderboards, rules texts, the message catalogue, health.
- ``play.py``: the table's WebSocket: seat authority on every message, acting, leaving.
- ``lobby.py``: the lobby's WebSocket: the list of tables pushed when it changes (no seat, no actions).

Each route takes what it needs as typed dependencies (``updown.server.deps``): the services, the
account of the session now, the table, the seat the account holds now.
"""
