"""The registered games. Each module here imports only from :mod:`updown.core`."""

from updown.core.registry import register
from updown.games import updown as _updown

register(_updown.GAME)
