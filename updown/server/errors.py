"""Every error answer carries a stable ``code`` beside its English ``detail``, and ``params`` with
the figures and names in it, so that a page says it in its own language (``docs/server.md``,
Error codes; the browser's catalogue: ``updown/web/static/js/errors.js``).

A route may raise :class:`Refused` with its code; an ``HTTPException`` raised with a message alone
(``deps.bad``) gets the code of the first pattern of :data:`PATTERNS` its message matches, and its
named groups as ``params``. A message no pattern knows keeps no code: the page shows the English.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

PATTERNS: list[tuple[str, str]] = [
    # accounts and sessions
    ("sign-in", r"sign in or play as a guest first"),
    ("wrong-credentials", r"wrong name or password"),
    ("account-disabled", r"this account is disabled; ask the site's host"),
    ("name-rule", r"a name has 2 to 24 letters, digits, spaces, '\.', '_' or '-'.*"),
    ("name-reserved", r"the name (?P<name>.+) is kept for the site \(.*\)"),
    ("password-short", r"a password has at least 8 characters"),
    ("name-taken", r"the name '(?P<name>.+)' is taken"),
    ("guest-name", r"could not make a guest name; try again"),
    # tables
    ("no-table", r"no such table"),
    ("no-seat", r"you have no seat at this table"),
    ("no-game", r"no game '(?P<game>.*)' \(games: .*\)"),
    ("players", r"(?:options: )?(?P<game>.+) is for (?P<range>[\d–-]+) players, not (?P<players>-?\d+)"),
    ("option-range", r"options: (?P<option>\w+) must be (?P<low>-?\d+) to (?P<high>-?\d+), not (?P<value>-?\d+)"),
    ("option-choice", r"options: (?P<option>\w+) must be (?P<choices>\w+(?: or \w+)+), not (?P<value>.*)"),
    ("option-unknown", r"options: unknown option (?P<option>.+?) \(known: .*\)"),
    ("option-missing", r"options: option (?P<option>\w+) needs a value"),
    ("option-type", r"options: option (?P<option>\w+)=(?P<value>.*) must be (?P<kinds>.+)"),
    ("options", r"options: .*"),
    ("timer", r"the move timer is 5 to 3600 seconds, or none"),
    ("grace", r"the grace period is 0 to 3600 seconds"),
    ("guest-rated", r"guests play unrated tables only; register to play rated"),
    ("seat-count", r"give (?P<players>\d+) seats, not (?P<seats>\d+)"),
    ("rated-needs-person", r"a rated table needs a seat for a person .*"),
    ("one-seat", r"you can take one seat"),
    ("seat-spec", r"seat (?P<seat>\d+): .* is not 'me', 'open' or 'bot:NAME' .*"),
    ("started", r"the game has started; watch it instead"),
    ("rated-register", r"this table is rated: register to play it"),
    ("already-seated", r"you already have a seat at this table"),
    ("seat-kept", r"that seat is kept for another player"),
    ("seat-taken", r"that seat is taken|that seat was just taken"),
    ("seats-full", r"every seat is taken"),
    ("not-running", r"the game is not running"),
    ("already-left", r"you have already left this game"),
    # the coach, the review, the rematch
    ("hint-rated", r"hints are for unrated tables only"),
    ("hint-seat", r"only a seated player gets hints, for their own seat"),
    ("hint-budget-range", r"the budget is 50 to 2000 playouts"),
    ("not-your-turn", r"it is not your turn|it is no longer your turn"),
    ("left-seat", r"you left the seat"),
    ("request-closed", r"the request was closed"),
    ("review-rated", r"reviews are for unrated tables only"),
    ("review-player", r"only a player who stayed to the end gets a review, of their own seat"),
    ("review-not-over", r"the review comes when the game is over"),
    ("rematch-not-over", r"a rematch comes when the game is over"),
    ("rematch-player", r"only the players of this game can ask for a rematch"),
    ("rematch-failed", r"the rematch could not be made; try again"),
    ("rematch-started", r"the rematch has started without you; watch it instead"),
    ("rematch-full", r"every seat of the rematch is taken"),
    # information
    ("no-rules", r"no rules text for (?P<game>.+)"),
    ("no-language", r"no language .*"),
    # limits (``limits.Limited`` names its limit itself; this one is raised by the tables' route)
    ("rate-limited", r"you have (?P<at_once>\d+) tables of bots alone running; wait for one to end; "
                     r"try again in (?P<retry_after>\d+) s"),
    ("rate-limited", r".*; try again in (?P<retry_after>\d+) s"),
    # the replay viewer's upload
    ("record-too-large", r"a record may have at most (?P<mb>\d+) MB"),
    ("record-not-json", r"this file is not JSON: open a game record \(\.json\)"),
    ("record-spectator", r"this is a running game seen by a spectator .*"),
    ("record-steps", r"a record may have at most (?P<max>\d+) steps, this one has (?P<steps>\d+)"),
    ("record-invalid", r"not a game record: .*"),
    ("record-replay", r"the record does not replay: .*"),
    # the guards and the framework
    ("too-large", r"the request body is too large: .*"),
    ("cross-origin", r"cross-origin request refused: .*"),
    ("not-found", r"Not Found"),
    ("method", r"Method Not Allowed"),
]
"""(code, pattern of the whole English message); the first that matches gives the code."""

_COMPILED = [(code, re.compile(pattern, re.S)) for code, pattern in PATTERNS]
EXTRA: dict[str, str] = {"rate-limited": "bot-tables"}
"""The ``what`` of a limit a pattern recognises (the bots-alone limit of the tables' route)."""


def coded(detail: object) -> dict[str, Any]:
    """``{"code", "params"}`` for an English message, or ``{}`` when no pattern knows it."""
    if not isinstance(detail, str):
        return {}
    for code, pattern in _COMPILED:
        m = pattern.fullmatch(detail)
        if m:
            params: dict[str, Any] = {k: int(v) if v.lstrip("-").isdigit() else v
                                      for k, v in m.groupdict().items() if v is not None}
            if code == "rate-limited" and "at_once" in params:
                params["what"] = EXTRA[code]
            return {"code": code, "params": params}
    return {}


class Refused(HTTPException):
    """An HTTP error with its code (and params) given by the route rather than found from its text."""

    def __init__(self, status: int, message: str, code: str, **params: Any):
        super().__init__(status_code=status, detail=message)
        self.code = code
        self.params = params


def body(exc: StarletteHTTPException) -> dict[str, Any]:
    """The JSON answer of an HTTP error: ``detail`` as before, with ``code`` and ``params``."""
    out: dict[str, Any] = {"detail": exc.detail}
    found = coded(exc.detail)
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        params = found["params"] if found.get("code") == code else {}
        out.update(code=code, params={**params, **(getattr(exc, "params", None) or {})})
    else:
        out.update(found)
    return out


async def http_error(_request: Request, exc: Exception) -> Response:
    """FastAPI's answer to an ``HTTPException`` (status, headers, ``detail``), with its code."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code in (204, 304) or exc.status_code < 200:
        return Response(status_code=exc.status_code, headers=exc.headers)
    return JSONResponse(body(exc), status_code=exc.status_code, headers=exc.headers)
