"""HTTP guards in front of every route: the request's origin (a player's cookie serves only the
site's own pages), the request body's size (before any parsing), security headers on every answer,
and validation errors that never echo what was posted.
See ``docs/server.md`` (Limits)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The pages load only their own files: no inline script, style attribute or other site."""
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
"""FastAPI's Swagger page (only with ``--api-docs``) loads its script from a CDN and starts it inline."""
HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
           (b"x-frame-options", b"DENY")]
DRAIN = 16 * 1024 * 1024
"""Bytes of a refused body still read (and dropped) so that the client gets the 413 rather than a reset."""


class SecurityHeaders:
    """Adds the security headers to every HTTP answer that does not set them itself."""

    def __init__(self, app: ASGIApp, docs_prefix: str | None = None):
        self.app = app
        self.docs_prefix = docs_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = self.docs_prefix is not None and str(scope.get("path", "")).startswith(self.docs_prefix)
        csp = (DOCS_CSP if docs else CSP).encode()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in [(b"content-security-policy", csp), *HEADERS]
                            if name not in have]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class GuardedApp(FastAPI):
    """FastAPI with :class:`SecurityHeaders` outside all else, so that every answer carries them: the
    error pages of the outermost middleware and any middleware added later included. Its HTTP errors
    carry a ``code`` (``errors.py``)."""

    def __init__(self, **kw: Any):
        super().__init__(**kw)
        from starlette.exceptions import HTTPException as StarletteHTTPException

        from updown.server.errors import http_error

        self.add_exception_handler(StarletteHTTPException, http_error)

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack(), docs_prefix=self.docs_url)


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuses a request body larger than ``limit`` bytes (``uploads`` maps paths to their own limit)
    with 413, from its Content-Length or while it streams in, before the route parses any of it."""

    def __init__(self, app: ASGIApp, limit: int, uploads: dict[str, int] | None = None):
        self.app = app
        self.limit = limit
        self.uploads = uploads or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.uploads.get(str(scope.get("path", "")), self.limit)
        headers = {name.lower(): value for name, value in scope.get("headers", [])}
        length = headers.get(b"content-length", b"").strip()
        if length.isdigit() and int(length) > limit:
            # A client that waits for "100 Continue" never sends the body; one too large is not read.
            wait = headers.get(b"expect", b"").lower() == b"100-continue"
            await self._refuse(limit, receive, send, drain=not wait and int(length) <= DRAIN)
            return
        received = 0
        refused = False
        body_done = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, refused, body_done
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if received > limit:
                    refused = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:  # the route's own answer to a body it never fully got: ours instead
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except _TooLarge:
            pass
        if refused and not started:
            await self._refuse(limit, receive, send, drain=not body_done)

    @staticmethod
    async def _refuse(limit: int, receive: Receive, send: Send, drain: bool) -> None:
        dropped = 0
        while drain and dropped <= DRAIN:  # read the rest (dropped), or the client may never see the answer
            message = await receive()
            if message["type"] != "http.request":
                break
            dropped += len(message.get("body", b""))
            drain = message.get("more_body", False)
        size = f"{limit // 1024} KiB" if limit < 1024 * 1024 else f"{limit / (1024 * 1024):g} MiB"
        body = json.dumps({"detail": f"the request body is too large: at most {size} ({limit} bytes)",
                           "code": "too-large", "params": {"bytes": limit}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """422 with where and what is wrong, but none of the values that were sent."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [{"loc": [str(part)[:40] for part in list(err.get("loc", ()))[:6]],
               "msg": str(err.get("msg", ""))[:200], "type": str(err.get("type", ""))[:40]}
              for err in list(errors)[:10]]
    fields = sorted({".".join(d["loc"][1:]) or ".".join(d["loc"]) for d in detail})
    return JSONResponse(status_code=422, content={"detail": detail, "code": "invalid", "params": {"fields": fields}})


def same_origin(origin: str | None, host: str | None, allowed: Sequence[str] = ()) -> bool:
    """A request may use a player's cookie only from the server's own pages (or an allowed
    origin). A request without Origin is no browser's cross-site request, so it passes."""
    if origin is None:
        return True
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == (host or "").lower()


class SameOrigin:
    """Refuses (403, nothing done) a request that changes state from another origin: another site,
    or another port of this host, which SameSite cookies do not tell apart."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str] = ()):
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") not in ("GET", "HEAD", "OPTIONS"):
            headers = {name.decode("latin-1").lower(): value.decode("latin-1")
                       for name, value in scope.get("headers", [])}
            origin = headers.get("origin")
            if not same_origin(origin, headers.get("host"), self.allowed):
                response = JSONResponse(status_code=403, content={
                    "detail": f"cross-origin request refused: {str(origin)[:100]} is not this site (the server's "
                              "allowed origins are set by the host)", "code": "cross-origin", "params": {}})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

