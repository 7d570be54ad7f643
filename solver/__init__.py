"""Klondike solitaire solver and analysis library.

The Python layer (cards, deal, rules, game, positions) holds the user-facing objects and the
reference engine; the numba kernels (state, movegen, search, tt) hold the fast solver core.

The objects most programs need are here (README, "As a library"); the functions `solve` and
`hint` live in the modules of those names (`solver.solve.solve`, `solver.hint.hint`)::

    from solver import Deal, get_ruleset, best, replay
    from solver.solve import solve
    deal = Deal.from_seed(3)
    result = solve(deal, get_ruleset("classic"), time_limit=10)

They are imported on first use, so `import solver` stays quick.
"""

from importlib import import_module as _import_module
from pathlib import Path as _Path

from .jitcache import refresh_cache as _refresh_cache

__version__ = "0.1.0"

_refresh_cache(_Path(__file__).resolve().parent)

# name -> the module that holds it
_EXPORTS = {
    "KlondikeError": "errors", "parse_card": "cards", "format_card": "cards",
    "Deal": "deal", "Ruleset": "rules", "PRESETS": "rules", "get_ruleset": "rules",
    "Game": "game", "Position": "game", "replay": "game", "Action": "notation", "parse_line": "notation",
    "from_text": "positions", "to_text": "positions", "from_json": "positions", "to_json": "positions",
    "Result": "solve", "best": "optimal", "BestResult": "optimal", "hint_position": "hint", "Hint": "hint",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(_import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
