"""``updown serve`` and ``updown db upgrade``: the online server and its database."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from updown.cli.app import app, console, fail

DEFAULT_DB = "sqlite:///updown.db"

db_app = typer.Typer(help="The server's database.", no_args_is_help=True)
app.add_typer(db_app, name="db")


@app.command()
def serve(
    db: Annotated[str, typer.Option(help="database URL: sqlite:///FILE or postgresql+psycopg://...")] = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    redis: Annotated[Optional[str], typer.Option(help="Redis URL, to run several server processes together")] = None,
    bot_delay: Annotated[float, typer.Option(help="seconds a bot waits before it plays, so people can follow")] = 0.6,
    secure_cookies: Annotated[bool, typer.Option(help="mark the session cookie Secure (behind HTTPS)")] = False,
    sqlite_sync: Annotated[str, typer.Option(help="SQLite: 'normal' survives any crash of the server; "
                                                  "'full' also power loss, slower")] = "normal",
    api_docs: Annotated[bool, typer.Option(help="serve the API's docs at /api/docs and /api/openapi.json")] = False,
    limit: Annotated[Optional[list[str]], typer.Option(
        metavar="NAME=VALUE",
        help="NAME=VALUE: one of the server's limits, e.g. tables_per_guest=5/hour, hash_slots=4, "
             "max_body=131072, or a rate 'off' (repeatable; see docs/server.md, Limits)")] = None,
) -> None:
    """Run the online server: accounts, tables, play over WebSockets, the browser client."""
    try:
        import uvicorn

        from updown.server.app import Settings, create_app
    except ImportError as err:
        raise fail(f"the server needs its dependencies ({err.name}): pip install -e '.[server]'") from None
    if not 0 < port < 65536:
        raise fail("--port is 1 to 65535")
    if sqlite_sync not in ("normal", "full"):
        raise fail("--sqlite-sync is 'normal' or 'full'")
    if not 0 <= bot_delay <= 10:
        raise fail("--bot-delay is 0 to 10 seconds")
    from updown.server.limits import Limits

    limits = Limits()
    for assignment in limit or []:
        try:
            limits.set(assignment)
        except ValueError as err:
            raise fail(f"--limit {err}") from None
    application = create_app(Settings(db=db, redis=redis, bot_delay=bot_delay, secure_cookies=secure_cookies,
                                      sqlite_sync=sqlite_sync, api_docs=api_docs, limits=limits))
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    console.print(f"updown server on [bold]http://{shown}:{port}/[/bold] (database {_safe(db)}); Ctrl-C stops it.")
    uvicorn.run(application, host=host, port=port, log_level="warning", ws_max_size=2 * 1024 * 1024)


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
