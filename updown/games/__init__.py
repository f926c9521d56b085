"""The games. Every module in this package that defines ``GAME`` is registered on import.

Each game module imports only from :mod:`updown.core`; adding a game is adding its module.
Modules compiled by ``make fast`` are checked against their sources first (a stale one raises
ImportError: see :mod:`updown.core.compiled`).
"""

import importlib
import pkgutil
from pathlib import Path

from updown.core.compiled import check_compiled
from updown.core.registry import register

COMPILED = check_compiled(Path(__file__).parent, __name__)
"""The modules here that are compiled extension modules (``make fast``); empty: pure Python."""

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    if hasattr(_module, "GAME"):
        register(_module.GAME)
