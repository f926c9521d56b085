"""The rules of each game in the project's own words, as package data: ``<game>.<lang>.md``.

A summary a player can learn from, with the readings the project takes where a rulebook is
silent (see ``docs/rules-notes.md``), in English, German and Portuguese. ``updown rules GAME``
and ``rules`` during a game show them; a browser client shows the same files.
"""

from __future__ import annotations

from pathlib import Path

from updown.i18n import LANGUAGES, normalize

RULES_DIR = Path(__file__).parent


def rules_path(game_id: str, lang: str) -> Path | None:
    """The rules file of a game in a language (English if that language has none); None if none."""
    for code in (normalize(lang), "en"):
        path = RULES_DIR / f"{game_id}.{code}.md"
        if path.is_file():
            return path
    return None


def rules_text(game_id: str, lang: str) -> str | None:
    path = rules_path(game_id, lang)
    return path.read_text(encoding="utf-8") if path else None


def available() -> dict[str, list[str]]:
    """Game id -> the languages its rules are written in."""
    out: dict[str, list[str]] = {}
    for path in sorted(RULES_DIR.glob("*.md")):
        game_id, _sep, code = path.stem.rpartition(".")
        if code in LANGUAGES:
            out.setdefault(game_id, []).append(code)
    return out
