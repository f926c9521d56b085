"""The browser client: static pages (HTML, CSS, JavaScript modules, no build step) served by
``updown serve``, and a few web-only JSON helpers. See ``docs/web.md``.

The server's ``create_app`` calls :func:`mount` when this package is present. Everything about a
game reaches the browser through the server's public API and WebSocket; the helpers here serve
only what the page itself needs:

* ``GET /web/i18n/{lang}``: the page's own strings (gettext domain ``web``) and the card letters
  of that language (the terminal's, ``{"J": "B", "Q": "D", ...}``) as JSON;
* ``POST /web/replay``: a game record stepped through the engine, each step's spectator view
  (and every seat's hand only for a finished record);

The rules texts come from the server's ``/api/rules/{game}`` (the same files ``updown rules``
shows), and event lines in the frames are translated by the server from the shared catalogue.
"""

import asyncio
from pathlib import Path
from typing import Any

STATIC = Path(__file__).parent / "static"
PAGES = ("/", "/signin", "/lobby", "/replay", "/leaderboard", "/leaderboard/{game}", "/account", "/t/{table_id}")


def mount(app: Any) -> None:
    """Add the browser client's pages, static files and web-only helpers to the server's app."""
    from fastapi import Request
    from fastapi.responses import FileResponse, JSONResponse
    from starlette.staticfiles import StaticFiles

    from updown.server.errors import coded
    from updown.web.i18n import LANGS, catalogue, rank_letters
    from updown.web.replay import MAX_RECORD_BYTES, ReplayError, replay_steps

    class Static(StaticFiles):
        """Static files the browser revalidates on every load (ETag), so an upgrade shows at once."""

        def file_response(self, *args: Any, **kwargs: Any) -> Any:
            response = super().file_response(*args, **kwargs)
            response.headers["Cache-Control"] = "no-cache"
            return response

    app.mount("/static", Static(directory=STATIC), name="static")
    index = STATIC / "index.html"

    def page() -> FileResponse:
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    for path in PAGES:
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)

    @app.get("/web/i18n/{lang}", include_in_schema=False)
    def i18n(lang: str) -> JSONResponse:
        if lang not in LANGS:
            detail = f"no language {lang[:8]!r} (we have {', '.join(LANGS)})"
            return JSONResponse({"detail": detail, **coded(detail)}, status_code=404)
        return JSONResponse({"lang": lang, "messages": catalogue(lang), "ranks": rank_letters(lang)})

    @app.post("/web/replay", include_in_schema=False)
    async def replay(request: Request) -> JSONResponse:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_RECORD_BYTES:
                detail = f"a record may have at most {MAX_RECORD_BYTES // 1_000_000} MB"
                return JSONResponse({"detail": detail, **coded(detail)}, status_code=413)
        try:
            lang = request.query_params.get("lang", "en")
            # A long match replays for seconds: off the event loop, so that no table waits for it.
            steps = await asyncio.to_thread(replay_steps, body, lang if lang in LANGS else "en")
            return JSONResponse(steps)
        except ReplayError as err:
            return JSONResponse({"detail": str(err), **coded(str(err))}, status_code=400)

