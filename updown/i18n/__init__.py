"""One message catalogue for every client: the terminal now, the browser later.

English is the source language: the messages in the code are English, and
``locales/<lang>/LC_MESSAGES/updown.po`` translate them (German ``de``, Portuguese ``pt``). The
compiled ``.mo`` files beside them are committed and read with the standard library's
:mod:`gettext`, so playing needs no extra package; ``make i18n`` re-extracts the template and
recompiles (Babel, from the test extra), and a test checks that the ``.mo`` files match the ``.po``.

Messages use ``str.format`` placeholders with names (``{name} wins``), so a translation can move
them. In code a translator is called ``_``::

    _ = translator("de")
    _("Your move")                            # gettext
    _.n("{n} trick", "{n} tricks", n)         # ngettext (the caller still formats {n})

A browser client gets the same catalogue as JSON from :func:`catalogue_json`.
"""

from __future__ import annotations

import gettext
import json
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "de", "pt")
"""The languages of the catalogue; English is the source."""

LANGUAGE_NAMES: dict[str, str] = {"en": "English", "de": "Deutsch", "pt": "Português"}

DOMAIN = "updown"
LOCALE_DIR = Path(__file__).with_name("locales")


class Translator:
    """``_(message)`` translates one message; ``_.n(singular, plural, n)`` picks a plural form."""

    def __init__(self, lang: str, translations: gettext.NullTranslations):
        self.lang = lang
        self._t = translations

    def __call__(self, message: str) -> str:
        return self._t.gettext(message)

    def n(self, singular: str, plural: str, n: int) -> str:
        return self._t.ngettext(singular, plural, n)


def normalize(lang: str | None) -> str:
    """``de_DE.UTF-8`` -> ``de``; anything not in :data:`LANGUAGES` -> ``en``."""
    if not lang:
        return "en"
    code = lang.strip().replace("-", "_").split(".")[0].split("_")[0].lower()
    return code if code in LANGUAGES else "en"


def detect_language(environ: Mapping[str, str] | None = None) -> str:
    """The language from the locale variables (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``)."""
    env = os.environ if environ is None else environ
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if not value or value in ("C", "POSIX", "C.UTF-8"):
            continue
        # LANGUAGE may list several ("de:en"): the first one we have wins.
        for part in value.split(":"):
            code = part.strip().replace("-", "_").split(".")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
        return "en"
    return "en"


@lru_cache(maxsize=None)
def _translations(lang: str) -> gettext.NullTranslations:
    if lang == "en":
        return gettext.NullTranslations()
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as fh:
        return gettext.GNUTranslations(fh)


def translator(lang: str | None = None) -> Translator:
    """The translator for ``lang`` (a code such as ``de`` or a locale such as ``pt_PT.UTF-8``)."""
    code = normalize(lang) if lang is not None else detect_language()
    return Translator(code, _translations(code))


def catalogue(lang: str) -> dict[str, Any]:
    """The catalogue of ``lang`` as data: ``{"lang", "plural_forms", "messages"}``.

    ``messages`` maps each English message to its translation, or, for a message with plural
    forms, to the list of forms (``plural_forms`` is the gettext formula that picks one).
    English has an empty ``messages``: the source text is the English text.
    """
    code = normalize(lang)
    out: dict[str, Any] = {"lang": code, "plural_forms": "nplurals=2; plural=(n != 1);", "messages": {}}
    if code == "en":
        return out
    trans = _translations(code)
    raw: dict[Any, str] = getattr(trans, "_catalog", {})
    messages: dict[str, Any] = {}
    for key, text in raw.items():
        if isinstance(key, tuple):
            msgid, index = key
            forms = messages.setdefault(msgid, [])
            while len(forms) <= index:
                forms.append("")
            forms[index] = text
        elif key:
            messages[key] = text
        else:  # the header entry
            for line in text.splitlines():
                if line.lower().startswith("plural-forms:"):
                    out["plural_forms"] = line.split(":", 1)[1].strip()
    out["messages"] = dict(sorted(messages.items()))
    return out


def catalogue_json(lang: str) -> str:
    """:func:`catalogue` as JSON text, for a browser client."""
    return json.dumps(catalogue(lang), ensure_ascii=False, sort_keys=True)


__all__ = ["LANGUAGES", "LANGUAGE_NAMES", "Translator", "catalogue", "catalogue_json", "detect_language",
           "normalize", "translator"]
