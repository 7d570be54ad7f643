"""Klondike solitaire solver and analysis library.

The Python layer (cards, deal, rules, game, positions) holds the user-facing objects and the
reference engine; the numba kernels (state, movegen, search, tt) hold the fast solver core.
"""

__version__ = "0.1.0"
