"""Write the web domain's .po files from a TSV of msgid, German, Portuguese (one message a line).

    python tools/web_po.py translations.tsv

The .po files (updown/i18n/locales/{de,pt}/LC_MESSAGES/web.po) are the catalogue; this helper only
saves typing when many strings are added at once. `tests/test_web_i18n.py` checks that every string
the pages show has a translation in both.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "updown" / "i18n" / "locales"


def main(tsv: str) -> None:
    rows = [line.split("\t") for line in Path(tsv).read_text(encoding="utf-8").splitlines() if line.strip()]
    for col, lang in ((1, "de"), (2, "pt")):
        path = LOCALES / lang / "LC_MESSAGES" / "web.po"
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang, domain="web")
        else:
            catalog = Catalog(locale=lang, domain="web", project="updown", version="1", charset="utf-8",
                              fuzzy=False, header_comment=f"# The browser client's strings ({lang}), gettext domain web.")
        catalog.fuzzy = False
        for row in rows:
            if len(row) != 3:
                raise SystemExit(f"not three columns: {row!r}")
            catalog.add(row[0], row[col])
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=0, omit_header=False)
        print(f"{path}: {len(catalog)} messages")


if __name__ == "__main__":
    main(sys.argv[1])
