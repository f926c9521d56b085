"""Short rules summaries per game and language (``<game>.<lang>.md``), shown by the browser's
Rules button until the shared catalogue (``GET /api/rules/{game}``) serves the full ones."""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent
_GAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


def rules_summary(game: str, lang: str) -> str | None:
    """The summary of ``game`` in ``lang`` (English when that language has none), or None."""
    if not _GAME_RE.match(game):
        return None
    for candidate in (lang, "en"):
        if candidate in ("en", "de", "pt"):
            path = HERE / f"{game}.{candidate}.md"
            if path.exists():
                return path.read_text(encoding="utf-8")
    return None
