"""``updown serve`` and ``updown db upgrade``: the online server and its database."""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from updown.cli.app import app, console, fail

DEFAULT_DB = "sqlite:///updown.db"

db_app = typer.Typer(help="The server's database.", no_args_is_help=True)
app.add_typer(db_app, name="db")


EXIT_SETTINGS, EXIT_DEPENDENCIES, EXIT_DATABASE, EXIT_PORT, EXIT_REDIS = 2, 3, 4, 5, 6
"""``updown serve``'s exit codes for each start-up failure (docs/hosting.md)."""


@app.command()
def serve(
    db: Annotated[Optional[str], typer.Option(
        help="database URL: sqlite:///FILE or postgresql+psycopg://... [env UPDOWN_DB; default sqlite:///updown.db]",
        show_default=False)] = None,
    host: Annotated[Optional[str], typer.Option(
        help="address to listen on, 0.0.0.0 for every interface [env UPDOWN_HOST; default 127.0.0.1]",
        show_default=False)] = None,
    port: Annotated[Optional[int], typer.Option(
        help="port to listen on, 0 for any free one [env UPDOWN_PORT; default 8000]", show_default=False)] = None,
    redis: Annotated[Optional[str], typer.Option(
        help="Redis URL, to run several server processes together [env UPDOWN_REDIS]", show_default=False)] = None,
    bot_delay: Annotated[Optional[float], typer.Option(
        help="seconds a bot waits before it plays, so people can follow [env UPDOWN_BOT_DELAY; default 0.6]",
        show_default=False)] = None,
    bot_workers: Annotated[Optional[int], typer.Option(
        help="worker processes for the bots that search and the coach's hints, 0 to think in the server "
             "process [env UPDOWN_BOT_WORKERS; default one a core]", show_default=False)] = None,
    secure_cookies: Annotated[Optional[bool], typer.Option(
        "--secure-cookies/--no-secure-cookies",
        help="mark the session cookie Secure, behind HTTPS [env UPDOWN_SECURE_COOKIES]", show_default=False)] = None,
    sqlite_sync: Annotated[Optional[str], typer.Option(
        help="SQLite: 'normal' survives any crash of the server; 'full' also power loss, slower "
             "[env UPDOWN_SQLITE_SYNC; default normal]", show_default=False)] = None,
    allowed_origin: Annotated[Optional[list[str]], typer.Option(
        help="another origin (https://example.org) whose pages may use a player's cookie; repeatable "
             "[env UPDOWN_ALLOWED_ORIGINS as a JSON list]", show_default=False)] = None,
    trusted_proxies: Annotated[Optional[str], typer.Option(
        help="addresses of reverse proxies whose X-Forwarded-For/-Proto are believed, comma separated or * "
             "[env UPDOWN_TRUSTED_PROXIES; default none: the headers are ignored]", show_default=False)] = None,
    api_docs: Annotated[Optional[bool], typer.Option(
        "--api-docs/--no-api-docs", help="serve the API's docs at /api/docs [env UPDOWN_API_DOCS]",
        show_default=False)] = None,
    log_level: Annotated[Optional[str], typer.Option(
        help="critical, error, warning, info or debug [env UPDOWN_LOG_LEVEL; default info]",
        show_default=False)] = None,
    log_json: Annotated[Optional[bool], typer.Option(
        "--log-json/--no-log-json", help="one JSON object a log line [env UPDOWN_LOG_JSON]",
        show_default=False)] = None,
    access_log: Annotated[Optional[bool], typer.Option(
        "--access-log/--no-access-log", help="log every HTTP request [env UPDOWN_ACCESS_LOG]",
        show_default=False)] = None,
    ws_deflate: Annotated[Optional[bool], typer.Option(
        "--ws-deflate/--no-ws-deflate",
        help="compress WebSocket messages (permessage-deflate) for clients that offer it; off saves CPU where "
             "bandwidth is cheap [env UPDOWN_WS_DEFLATE; default on]", show_default=False)] = None,
    limit: Annotated[Optional[list[str]], typer.Option(
        metavar="NAME=VALUE",
        help="one of the server's limits, e.g. tables_per_guest=5/hour, hash_slots=4, max_body=131072, or a "
             "rate 'off'; repeatable [env UPDOWN_LIMITS__NAME] (docs/server.md, Limits)", show_default=False)] = None,
    config: Annotated[Optional[Path], typer.Option(
        help="a TOML file of settings (the same names; limits in a [limits] table) [env UPDOWN_CONFIG]",
        show_default=False)] = None,
) -> None:
    """Run the online server: accounts, tables, play over WebSockets, the browser client.

    Each setting comes from its flag, else its environment variable, else the --config file, else its
    default. The database and the port are checked before anything is served; a failure is one line
    naming the cause and the fix, with its own exit code (docs/hosting.md)."""
    from updown.install import install_hint

    try:
        import uvicorn

        from updown.server.app import create_app
        from updown.server.protocol import HttpProtocol  # noqa: F401 (httptools, checked with the rest)
        from updown.server.settings import Settings, SettingsError
    except ImportError as err:
        raise fail(f"the server needs its packages ({err.name} is missing): {install_hint('server')}",
                   EXIT_DEPENDENCIES) from None
    flags = {"db": db, "host": host, "port": port, "redis": redis, "bot_delay": bot_delay, "bot_workers": bot_workers,
             "secure_cookies": secure_cookies, "sqlite_sync": sqlite_sync, "trusted_proxies": trusted_proxies,
             "allowed_origins": tuple(allowed_origin) if allowed_origin else None, "api_docs": api_docs,
             "log_level": log_level.lower() if log_level else None, "log_json": log_json, "access_log": access_log,
             "ws_deflate": ws_deflate}
    try:
        settings = Settings.load(flags, config)
        for assignment in limit or []:
            settings.limits.set(assignment)
    except SettingsError as err:
        raise fail(f"settings: {err}", EXIT_SETTINGS) from None
    except ValueError as err:
        raise fail(f"--limit {err}", EXIT_SETTINGS) from None
    from updown.server import logs

    logs.setup(settings.log_level, settings.log_json)
    _open_files()
    _check_database(settings.db, settings.sqlite_sync)
    if settings.redis:
        _check_redis(settings.redis)
    sock = _bind(settings.host, settings.port)
    bound = sock.getsockname()[1]
    application = create_app(settings)
    for address in _addresses(settings.host):
        console.print(f"updown server on [bold]http://{address}:{bound}/[/bold]")
    console.print(f"database {_safe(settings.db)}{', Redis ' + _safe(settings.redis) if settings.redis else ''}; "
                  "Ctrl-C stops it.")
    server = uvicorn.Server(uvicorn_config(application, settings))
    server.run(sockets=[sock])


def uvicorn_config(application: Any, settings: Any) -> Any:
    """uvicorn's configuration for the app under these settings (a ``uvicorn.Config``).

    Its HTTP protocol is :class:`updown.server.protocol.HttpProtocol`: uvicorn's own leaves a
    reference cycle behind each WebSocket, for the garbage collector (docs/server.md). Its WebSocket
    protocol is :class:`updown.server.protocol.WebSocketProtocol`: with ``ws_deflate`` on, messages
    under ``PLAIN_BELOW`` bytes go uncompressed (docs/server.md, "Compression's cost")."""
    import uvicorn

    from updown.server.protocol import HttpProtocol, WebSocketProtocol

    proxies = settings.trusted_proxies
    return uvicorn.Config(
        application, http=HttpProtocol, ws=WebSocketProtocol, log_config=None, log_level=settings.log_level,
        access_log=settings.access_log, ws_max_size=2 * 1024 * 1024, ws_per_message_deflate=settings.ws_deflate,
        proxy_headers=proxies is not None,
        forwarded_allow_ips=proxies if proxies is not None else "", server_header=False,
        ws_ping_interval=settings.ws_ping_interval or None)


OPEN_FILES_WANTED = 65536
"""Open files (each connection is one) the server raises its own soft limit to, up to the hard limit."""
OPEN_FILES_LOW = 4096
"""Below this many open files the server warns: about as many connections as that, and a little over."""


def _open_files() -> int:
    """Raise this process's soft limit of open files (RLIMIT_NOFILE) towards ``OPEN_FILES_WANTED``,
    as far as the hard limit allows (raising that needs the host: ``ulimit -Hn``, systemd's
    ``LimitNOFILE=``); warn in the log when what is left is low. The limit now."""
    import logging
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(OPEN_FILES_WANTED, hard)
    if want > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    if soft < OPEN_FILES_LOW:
        logging.getLogger("updown.server").warning(
            "open files limited to %d: about that many connections at most; raise the hard limit "
            "(ulimit -Hn, or LimitNOFILE= in a systemd unit; docs/hosting.md)", soft)
    return soft


def _check_database(url: str, sqlite_sync: str) -> None:
    """Open the database and bring it up to date, or end with one line that says what to do."""
    from updown.server.db import make_engine, upgrade

    if not url.startswith(("sqlite", "postgresql")):
        raise fail(f"the database URL {_safe(url)[:80]} is neither sqlite:///FILE nor "
                   "postgresql+psycopg://USER:PASSWORD@HOST/DB", EXIT_DATABASE)
    try:
        engine = make_engine(url, sqlite_sync)
    except Exception as err:
        raise fail(f"cannot use the database {_safe(url)}: {_first_line(err)}", EXIT_DATABASE) from None
    try:
        upgrade(engine)
    except Exception as err:
        fix = ("check that its folder exists and is writable" if url.startswith("sqlite") else
               "check that PostgreSQL runs and that the URL's host, port, user, password and database are right")
        raise fail(f"cannot open the database {_safe(url)}: {_first_line(err)}; {fix}", EXIT_DATABASE) from None
    finally:
        engine.dispose()


def _check_redis(url: str) -> None:
    import redis as redis_lib

    try:
        client = redis_lib.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        client.ping()
        client.close()
    except Exception as err:
        raise fail(f"cannot reach Redis at {_safe(url)}: {_first_line(err)}; check that it runs and the URL is "
                   "right (or leave --redis out to run one process alone)", EXIT_REDIS) from None


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is said to be served."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise fail(f"port {port} on {host} is in use (another server?): stop it, or choose another "
                       "with --port", EXIT_PORT) from None
        if err.errno == errno.EACCES:
            raise fail(f"not allowed to listen on port {port}: ports below 1024 need privileges; choose "
                       "another with --port (and a reverse proxy in front, docs/hosting.md)", EXIT_PORT) from None
        raise fail(f"cannot listen on {host}:{port}: {err.strerror or err}; check --host", EXIT_PORT) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _addresses(host: str) -> list[str]:
    """Where the server can be reached: each address of this machine for 0.0.0.0 (or ::)."""
    if host not in ("0.0.0.0", "::", ""):
        return [f"[{host}]" if ":" in host else host]
    found = ["127.0.0.1"]
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if address not in found:
                found.append(address)
    except OSError:
        pass
    return found


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return (text[0] if text else type(err).__name__)[:200]


@db_app.command("backup")
def db_backup(
    file: Annotated[Path, typer.Argument(help="the backup file to write (a new file)")],
    db: Annotated[str, typer.Option(help="database URL")] = DEFAULT_DB,
) -> None:
    """Back up the database, also while the server runs (SQLite's online backup; PostgreSQL: pg_dump)."""
    from updown.server.backup import BackupError, backup

    try:
        backup(db, file)
    except BackupError as err:
        raise fail(f"no backup: {err}", 1) from None
    console.print(f"backed up {_safe(db)} to {file}.")


@db_app.command("restore")
def db_restore(
    file: Annotated[Path, typer.Argument(help="a backup made by `updown db backup`")],
    db: Annotated[str, typer.Option(help="database URL to restore into")] = DEFAULT_DB,
    force: Annotated[bool, typer.Option(help="replace an existing database (stop the server first)")] = False,
) -> None:
    """Restore a backup into a database no server is using; then start the server on it."""
    from updown.server.backup import BackupError, restore

    try:
        restore(file, db, force=force)
    except BackupError as err:
        raise fail(f"not restored: {err}", 1) from None
    console.print(f"restored {file} into {_safe(db)}; start the server on it (migrations apply at the start).")


@db_app.command("upgrade")
def db_upgrade(
    db: Annotated[str, typer.Option(help="database URL")] = DEFAULT_DB,
) -> None:
    """Apply the database migrations (the server also does this when it starts)."""
    from updown.server.db import make_engine, upgrade

    engine = make_engine(db)
    try:
        upgrade(engine)
    except Exception as err:  # a bad URL or an unreachable server: one clear line
        raise fail(f"cannot upgrade {_safe(db)}: {str(err).splitlines()[0][:200]}") from None
    finally:
        engine.dispose()
    console.print(f"database {_safe(db)} is up to date.")


def _safe(url: str) -> str:
    """The URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':', 1)[0]}:***@{host}"
    return url
