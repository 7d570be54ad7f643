"""Canonical keys of positions for the transposition table, and the dominance order among them.

Two positions with the same key are interchangeable for winnability; between two positions with
the same key, the one with the smaller `order` can reach the other by talon actions alone, so
once it has been searched the other need not be.
"""

from __future__ import annotations

from numba import njit

from .movegen import PARAM_AUTO, PARAM_DRAW, PARAM_PASS_LIMIT, PARAM_PRUNE, auto_playable
from .state import PASS, TALON, TALON_LEN, TALON_SLOTS, WASTE_COUNT, state_hash

NO_WASTE_COUNT = TALON_SLOTS  # hashed in place of the talon position when `order` carries it


@njit(cache=True)
def on_stock_cycle(state, params):
    """True if the talon position is one the draws come back to forever with unlimited passes.

    Those positions (0, draw, 2*draw, ... and the end of the talon) can all be reached from one
    another by talon actions alone. With auto-play that holds only while no card at those
    positions would auto-play on arriving at the top (it would change the position on the way).
    """
    draw = params[PARAM_DRAW]
    length = state[TALON_LEN]
    waste_count = state[WASTE_COUNT]
    if waste_count % draw != 0 and waste_count != length:
        return False
    if params[PARAM_AUTO]:
        position = draw
        while position <= length + draw - 1:
            top = position if position < length else length
            if top > 0 and auto_playable(state, state[TALON + top - 1]):
                return False
            position += draw
    return True


@njit(cache=True)
def position_key(state, params):
    """(key, order) of a position for the transposition table.

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
            return state_hash(state, False, waste_count), 0
        if params[PARAM_DRAW] == 1 and not params[PARAM_AUTO]:
            return state_hash(state, False, NO_WASTE_COUNT), state[PASS] * 32 + state[WASTE_COUNT]
    return state_hash(state, pass_limit != 0, state[WASTE_COUNT]), 0


def orders_used(params) -> bool:
    """True if `position_key` can give some position an order other than 0 under these search
    parameters (then the table must store orders; otherwise keys alone)."""
    return bool(params[PARAM_PRUNE] and params[PARAM_PASS_LIMIT] != 0 and params[PARAM_DRAW] == 1
                and not params[PARAM_AUTO])
