"""The page's own strings: gettext catalogues of the domain ``web``
(``updown/i18n/locales/<lang>/LC_MESSAGES/web.po``, msgids in English), read with Babel.

English needs no catalogue: a msgid is its own English text. A missing or empty translation
falls back to English, so a new string shows in English until it is translated.

Card letters come with the strings (:func:`rank_letters`), from the table the terminal reads
(:data:`updown.i18n.events.RANK_LETTERS`), so a card shows ``D♥`` in German on both.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

LANGS = ("en", "de", "pt")
LOCALES = Path(__file__).resolve().parent.parent / "i18n" / "locales"


def rank_letters(lang: str) -> dict[str, str]:
    """The notation's rank letters (J Q K A) -> the letters players of ``lang`` read (German
    B D K A, Portuguese V D R A): the terminal's table, keyed by the letters cards are sent in."""
    from updown.i18n.events import RANK_LETTERS

    english = RANK_LETTERS["en"]
    local = RANK_LETTERS.get(lang, english)
    return {english[rank]: local.get(rank, english[rank]) for rank in english}


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
