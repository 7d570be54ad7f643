"""Klondike solitaire solver and analysis library.

The Python layer (cards, deal, rules, game, positions) holds the user-facing objects and the
reference engine; the numba kernels (state, movegen, search, tt) hold the fast solver core.
"""

from pathlib import Path as _Path

from .jitcache import refresh_cache as _refresh_cache

__version__ = "0.1.0"

_refresh_cache(_Path(__file__).resolve().parent)
