"""The games. Every module in this package that defines ``GAME`` is registered on import.

Each game module imports only from :mod:`updown.core`; adding a game is adding its module.
"""

import importlib
import pkgutil

from updown.core.registry import register

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    if hasattr(_module, "GAME"):
        register(_module.GAME)
