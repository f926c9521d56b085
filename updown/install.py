"""How to install an optional part (an extra of the package), said so that it works as printed:
from a checkout (``pip install -e 'CHECKOUT[server]'``, with this very Python) or from an installed
package (the extra's own pinned requirements, which come from the package index)."""

from __future__ import annotations

import re
import shlex
import sys
from importlib import metadata
from pathlib import Path


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` for the Python running now."""
    pip = f"{shlex.quote(sys.executable)} -m pip install"
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file():  # a checkout (an editable install, or run from the tree)
        return f"{pip} -e {shlex.quote(f'{root}[{extra}]')}"
    try:
        requires = metadata.requires("updown") or []
    except metadata.PackageNotFoundError:
        requires = []
    wanted = [r.split(";")[0].strip() for r in requires
              if re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", r)]
    wanted = [w for w in wanted if not w.startswith("updown")]
    return f"{pip} {' '.join(shlex.quote(w) for w in wanted)}" if wanted else f"{pip} 'updown[{extra}]'"
