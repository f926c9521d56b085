"""Up or Down?'s research variants (issue 34): not built yet. What is here is the first step: the
rulebook's game hashed before any research option exists, so that the change which adds one can
show the game itself unchanged byte for byte (as ``tests/test_research_variants_sueca.py`` and
``tests/test_research_variants_euchre.py`` do for theirs).
"""

from __future__ import annotations

import pytest

from updown.core.registry import get_game

from test_research_variants import game_digest  # noqa: I001  (tests/ is on sys.path)

GAME = get_game("up-or-down")


SETTINGS = {
    (2, "short"): {}, (2, "full"): {"length": "full"},
    (3, "short"): {}, (4, "full"): {"length": "full"}, (6, "short"): {},
}
# Computed with the engine as it was before any research option existed (up_or_down.py of commit b6f47fe).
BEFORE = {
    (2, "full"): "94c664ea51a18058", (2, "short"): "079961c958e33a14", (3, "short"): "581b55d941e6a012",
    (4, "full"): "966c0498c2830bd4", (6, "short"): "5c7ea645cc97f20e",
}


@pytest.mark.parametrize(("players", "length"), sorted(SETTINGS))
def test_the_rulebook_game_plays_exactly_as_before(players: int, length: str) -> None:
    assert game_digest(GAME, players, SETTINGS[(players, length)]) == BEFORE[(players, length)]
