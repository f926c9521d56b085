"""The page's own strings: gettext catalogues of the domain ``web``
(``updown/i18n/locales/<lang>/LC_MESSAGES/web.po``, msgids in English), read with Babel.

English needs no catalogue: a msgid is its own English text. A missing or empty translation
falls back to English, so a new string shows in English until it is translated.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

LANGS = ("en", "de", "pt")
LOCALES = Path(__file__).resolve().parent.parent / "i18n" / "locales"


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / "web.po"


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """msgid -> translation for ``lang`` (empty for English or a language without a catalogue)."""
    if lang == "en" or lang not in LANGS:
        return {}
    path = po_path(lang)
    if not path.exists():
        return {}
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        cat = read_po(f, locale=lang, domain="web")
    out: dict[str, str] = {}
    for message in cat:
        if message.id and isinstance(message.id, str) and isinstance(message.string, str) and message.string \
                and not message.fuzzy:
            out[message.id] = message.string
    return out
