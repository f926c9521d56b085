"""The server's tables, as SQLAlchemy 2 models. Alembic migrations (``migrations/``) create them.

A game is stored as its steps (one row per chance outcome or action, in record notation), so a
table is rebuilt by replaying them; nothing else about a running game is stored.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Account(Base):
    """A person (``person``), a guest, a bot (one account per bot name, so bots have ratings and a
    balance) or the house (the other side of leave penalties)."""

    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    pw_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Set by ``updown admin accounts disable``: the account's sessions are ended and none is valid."""


class Session(Base):
    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    expires_at: Mapped[float] = mapped_column(Float)


class Table(Base):
    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[str] = mapped_column(Text)  # JSON
    seed: Mapped[str] = mapped_column(String(64))  # secret: decides every hidden card
    timer: Mapped[float | None] = mapped_column(Float, nullable=True)
    grace: Mapped[float] = mapped_column(Float)
    rated: Mapped[bool] = mapped_column(Boolean)
    private: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))  # open, running, finished, aborted
    created_by: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_until: Mapped[float] = mapped_column(Float, default=0.0)


class Seat(Base):
    """One seat of a table. An account holds at most one seat per table (a unique index, so two
    racing joins cannot both win). ``seen_at`` is when a connection of the seat's holder was last
    known to be open (or the seat was taken, or the game started): the grace countdown of an absent
    person runs from it, whichever process holds the table, and across restarts. ``away_since`` is
    when a stand-in began to play the seat for a person who is still seated."""

    __tablename__ = "seats"
    __table_args__ = (Index("uq_seats_table_account", "table_id", "account_id", unique=True),)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # open, person, bot
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    left: Mapped[bool] = mapped_column(Boolean, default=False)
    away: Mapped[bool] = mapped_column(Boolean, default=False)
    seen_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    away_since: Mapped[float | None] = mapped_column(Float, nullable=True)


class Step(Base):
    """One chance outcome (``seat`` None, ``label`` set) or one seat's action, in notation."""

    __tablename__ = "steps"
    __table_args__ = (UniqueConstraint("table_id", "seat", "client_id", name="uq_steps_client_id"),)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    label: Mapped[str | None] = mapped_column(String(64), nullable=True)
    notation: Mapped[str] = mapped_column(String(64))
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    by: Mapped[str] = mapped_column(String(16))  # chance, player, bot, stand-in
    at: Mapped[float] = mapped_column(Float)


class Entry(Base):
    """A ledger entry. The entries of one transaction (``txn``) sum to zero: double entry."""

    __tablename__ = "ledger"
    __table_args__ = (UniqueConstraint("txn", "account_id", name="uq_ledger_txn_account"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    txn: Mapped[str] = mapped_column(String(80))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    amount: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[str | None] = mapped_column(ForeignKey("tables.id"), nullable=True)
    at: Mapped[float] = mapped_column(Float)


class Rating(Base):
    __tablename__ = "ratings"
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)


class AdminAction(Base):
    """One action of ``updown admin`` (``updown/server/admin.py``), stored in the transaction that
    carries it out: who (the OS user, or ``--by``), when, what (``account.disable``, ``table.close``,
    ...), on what (an account's name at the time, or a table id), why, and what it changed (JSON)."""

    __tablename__ = "admin_actions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[float] = mapped_column(Float, index=True)
    by: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    details: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON


class Chat(Base):
    """One line of a table's chat: what a person typed (or a preset phrase's key), numbered per
    table like the steps (``seq``: 1, 2, ... with no gap, so a process that reads the lines after the
    last one it has misses none), by whom (their account; ``seat`` is the seat their account held at
    that table, or None for a spectator) and when: ``n`` is the number of steps stored then (it goes
    to clients only once the game is finished: it would say when hidden steps happened)."""

    __tablename__ = "chat"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    n: Mapped[int] = mapped_column(Integer)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str] = mapped_column(Text)
    preset: Mapped[str | None] = mapped_column(String(32), nullable=True)
    at: Mapped[float] = mapped_column(Float)
