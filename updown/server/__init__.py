"""Online play: ``updown serve``.

Owns accounts and sessions, tables and seats, the WebSocket play protocol, clocks, stand-in bots,
the RISCOS ledger, ratings, stored game steps and crash recovery. It reaches the games only through
``updown.core`` (the protocol, views, records) and ``updown.bots``; no module here knows which
game a table plays. See ``docs/server.md``.

- ``models.py``: the database tables (SQLAlchemy 2); ``migrations/``: Alembic.
- ``db.py``: engines (SQLite by default, PostgreSQL by URL) and ``upgrade``.
- ``store.py``: every read and write, each a short transaction.
- ``live.py``: one running table in memory: state rebuilt from steps, frames per seat, the loop
  that plays chance and bots.
- ``hub.py``: the tables of this process, ownership, clocks, absence and leaving, who may use a
  seat (closing sockets whose seat changed hands), settlement, the bus.
- ``app.py``: ``create_app`` assembles the settings, services, guards and routers.
- ``settings.py``: every setting, from flags, ``UPDOWN_*`` environment variables or a TOML file.
- ``deps.py``: the typed dependencies of every route (services, account, table, seat, checked now).
- ``routes/``: the routers by concern: accounts, tables, info, the play WebSocket.
- ``logs.py``: plain or JSON log lines.
- ``limits.py``: what one client may spend: rate limits (memory or Redis), password hashes at once.
- ``guards.py``: the request body's size, security headers, validation errors that echo nothing.
- ``errors.py``: the stable code (and parameters) of every HTTP error, which pages translate.
- ``outage.py``: which services (database, Redis) answer now; retries; what clients are told.
- ``botpool.py``: worker processes in which bots that search and the coach think, shared fairly.
- ``admin.py``, ``backup.py``, ``metrics.py``, ``reasons.py``: ``updown admin``, ``updown db
  backup/restore``, ``/metrics``, and why an action is greyed.
"""
