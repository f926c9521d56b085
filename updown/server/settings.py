"""The server's settings, in one place (pydantic-settings).

Each setting comes from, in this order of precedence: a flag of ``updown serve`` (``--port 8080``),
an environment variable (``UPDOWN_PORT=8080``; a limit: ``UPDOWN_LIMITS__HASH_SLOTS=4``), an
optional TOML file (``--config FILE`` or ``UPDOWN_CONFIG``; a limit in its ``[limits]`` table),
then the default below. ``updown serve --help`` lists them all; ``docs/hosting.md`` has an example
file.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict,
                               TomlConfigSettingsSource)

from updown.server.limits import Limits

_CONFIG: ContextVar[Path | None] = ContextVar("updown_config", default=None)


class GcSettings(BaseModel):
    """The garbage collector's policy in the server process (``updown.server.gcpolicy``); in the
    environment ``UPDOWN_GC__FREEZE=false``, in the TOML file a ``[gc]`` table."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    freeze: bool = True
    """Freeze the heap after start-up and after each long full collection, so that full collections
    skip the long-lived objects of idle players (a pause of 0.7 s at 5,000 idle otherwise). Off:
    Python's own collector, untouched (collections are still timed)."""
    freeze_over: float = Field(default=0.0, ge=0, le=60)
    """A full collection that took this many seconds of CPU or more is followed by a freeze; 0 (the
    default since 30 November 2026): every full collection is. The 0.05 s it was let short full
    collections leave their survivors to the next one, which under churn at 5,000 idle players made
    twice the pauses over 100 ms and twice the slow frames, for no memory saved (docs/server.md,
    "The full collections under churn")."""
    full_after: int = Field(default=100, ge=0, le=1_000_000)
    """With ``freeze``: Python's third threshold, a full collection after this many collections of
    the middle generation (Python's is 10, which after a freeze meant one every 16 to 20 s under
    churn at 5,000 idle players, a pause of 50 to 300 ms each, freeing next to nothing: docs/server.md,
    "A closed socket's parser"). 0: Python's own, as until 30 November 2026."""
    unfreeze_every: float = Field(default=21600.0, ge=10, le=86400)
    """Seconds to the first renewal, and the shortest period between two: the heap unfrozen,
    collected in full (one pause of the old length) and frozen again, freeing the cycles that
    became garbage among the frozen objects. Six hours by default, as ``unfreeze_longest``: the
    server's sockets, games, lobby and error paths leave no cycles, so a renewal finds next to
    nothing (docs/server.md, "Error paths and the renewal's period"); it was 1800 s."""
    unfreeze_longest: float = Field(default=21600.0, ge=10, le=604800)
    """The longest period between two renewals: one comes then even if the memory did not grow."""
    renew_growth: float = Field(default=0.1, ge=0, le=10)
    """Between ``unfreeze_every`` and ``unfreeze_longest`` a renewal comes once the process's
    memory has grown by this share since the last one (0: every ``unfreeze_every``)."""
    log_over: float = Field(default=0.1, ge=0, le=60)
    """Log every collection longer than this many seconds (all are in the ``updown_gc_seconds``
    histogram)."""

    @model_validator(mode="after")
    def _check_periods(self) -> GcSettings:
        if self.unfreeze_longest < self.unfreeze_every:
            raise ValueError(f"gc.unfreeze_longest ({self.unfreeze_longest:g} s) is shorter than "
                             f"gc.unfreeze_every ({self.unfreeze_every:g} s)")
        return self


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="UPDOWN_", env_nested_delimiter="__", extra="forbid",
                                      validate_default=True, use_attribute_docstrings=True)

    db: str = "sqlite:///updown.db"
    """Database URL: ``sqlite:///FILE`` or ``postgresql+psycopg://user:pass@host/db``."""
    host: str = "127.0.0.1"
    """Address to listen on (``0.0.0.0``: every interface)."""
    port: int = Field(default=8000, ge=0, le=65535)
    """Port to listen on (0: any free port; the one taken is printed)."""
    redis: str | None = None
    """Redis URL, to run several server processes together (with PostgreSQL)."""
    bot_delay: float = Field(default=0.6, ge=0, le=10)
    """Seconds a bot waits before it plays, so that people can follow."""
    bot_workers: int | None = Field(default=None, ge=0, le=256)
    """Worker processes in which bots that search (``normal``, ``hard``) decide and the coach gives
    hints, shared fairly between tables and users (``updown.server.botpool``). None: one for each
    core of the machine; 0: in the server process (tests, tiny hosts)."""
    secure_cookies: bool = False
    """Mark the session cookie Secure (behind HTTPS)."""
    sqlite_sync: Literal["normal", "full"] = "normal"
    """SQLite: ``normal`` survives any crash of the server, ``full`` also power loss (slower)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins (``https://example.org``) besides the server's own whose pages may use the API and the
    WebSocket with a player's cookie. Empty: the server's own origin only."""
    trusted_proxies: str | None = None
    """Addresses of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (comma
    separated, or ``*``), so that limits and logs see the client's address. None: headers ignored."""
    api_docs: bool = False
    """Serve ``/api/docs`` and ``/api/openapi.json``."""
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    """What the server logs: tables created, started, ended and abandoned are ``info``."""
    log_json: bool = False
    """Log one JSON object a line (for a log collector) instead of plain text."""
    access_log: bool = False
    """Log every HTTP request (method, path, status, client)."""
    ws_deflate: bool = True
    """Compress WebSocket messages (permessage-deflate) for clients that offer it: frames 8 to 9 times
    smaller on the wire, for about a sixth more CPU an action and twice the memory an idle socket
    (measured, docs/server.md, Capacity). Off where bandwidth is cheap and CPU or memory is not: a
    client that offers it then gets plain messages."""
    ws_ping_interval: float = Field(default=20.0, ge=0, le=3600)
    """Seconds between the server's WebSocket keepalive pings on each socket (0: none). A client
    that answers none within 20 s more is closed, so a vanished client (no close, no FIN) is taken
    for disconnected within this plus 20 s; proxies that close idle sockets (60 s on some load
    balancers) need it below their timeout."""
    gc: GcSettings = Field(default_factory=GcSettings)
    """The garbage collector's policy: ``freeze``, ``unfreeze_every``, ``unfreeze_longest``,
    ``renew_growth``, ``log_over`` (``gcpolicy.py``)."""
    limits: Limits = Field(default_factory=Limits)
    """What one client may spend (``updown.server.limits``): rates, hash slots, body sizes."""

    @model_validator(mode="after")
    def _check_limits(self) -> Settings:
        self.limits.check()
        return self

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        config = _CONFIG.get()
        if config is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=config))
        return tuple(sources)

    @classmethod
    def load(cls, flags: dict[str, Any] | None = None, config: Path | None = None) -> Settings:
        """Settings from flags (only those given), the environment, the TOML file ``config`` (or
        ``UPDOWN_CONFIG``), then defaults. Raises :class:`SettingsError` with one line per problem."""
        import os

        if config is None and os.environ.get("UPDOWN_CONFIG"):
            config = Path(os.environ["UPDOWN_CONFIG"])
        if config is not None and not config.is_file():
            raise SettingsError(f"no configuration file {str(config)[:200]!r}")
        token = _CONFIG.set(config)
        try:
            return cls(**{k: v for k, v in (flags or {}).items() if v is not None})
        except ValidationError as err:
            raise SettingsError("; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}" for e in err.errors())) from None
        except ValueError as err:  # a limit's own check, or the TOML file
            raise SettingsError(str(err).splitlines()[0][:300]) from None
        finally:
            _CONFIG.reset(token)


class SettingsError(Exception):
    """Settings that cannot be used; the message names each problem."""


def describe() -> list[tuple[str, str, str]]:
    """Each setting as (name, environment variable, help) for ``--help`` and the docs."""
    out = []
    for name, field in Settings.model_fields.items():
        out.append((name, f"UPDOWN_{name.upper()}", (field.description or "").strip()))
    return out
