"""Canonical keys of positions for the transposition table, and the dominance order among them.

Two positions with the same key are interchangeable for winnability; between two positions with
the same key, the one with the smaller `order` can reach the other by talon actions alone, so
once it has been searched the other need not be.
"""

from __future__ import annotations

from .jitcache import kernel
from .movegen import PARAM_AUTO, PARAM_DRAW, PARAM_PASS_LIMIT, PARAM_PRUNE, on_stock_cycle
from .state import PASS, TALON_SLOTS, WASTE_COUNT, finish_hash

NO_WASTE_COUNT = TALON_SLOTS  # hashed in place of the talon position when `order` carries it


@kernel
def layout_position_key(layout, state, params):
    """(key, order) of a position for the transposition table, from its `state.layout_hash`
    (a search keeps each position's parts on its path and hashes again only the piles a child's
    move changed: `state.child_layout_hashes`).

    - Unlimited passes: the pass number is irrelevant, and every stock-cycle position is one.
    - Draw 1 with a pass limit, no auto-play: a position earlier in the same pass, or in an
      earlier pass, reaches every later one by drawing (and recycling); the key leaves the talon
      position out and `order` = pass * 32 + position ranks them.
    - Otherwise (or with pruning off, for exact searches): the exact position.
    """
    pass_limit = params[PARAM_PASS_LIMIT]
    if params[PARAM_PRUNE]:
        if pass_limit == 0:
            waste_count = 0 if on_stock_cycle(state, params) else state[WASTE_COUNT]
            return finish_hash(layout, state, False, waste_count), 0
        if params[PARAM_DRAW] == 1 and not params[PARAM_AUTO]:
            return finish_hash(layout, state, False, NO_WASTE_COUNT), state[PASS] * 32 + state[WASTE_COUNT]
    return finish_hash(layout, state, pass_limit != 0, state[WASTE_COUNT]), 0


def orders_used(params) -> bool:
    """True if `layout_position_key` can give some position an order other than 0 under these search
    parameters (then the table must store orders; otherwise keys alone)."""
    return bool(params[PARAM_PRUNE] and params[PARAM_PASS_LIMIT] != 0 and params[PARAM_DRAW] == 1
                and not params[PARAM_AUTO])
