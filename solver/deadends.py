"""Dead-end detection: positions that provably cannot be won, found without searching them.

A relaxed game, which keeps only what must hold in every real line, is played to its end at
once (a least fixpoint); if even it cannot put some card up, the real game cannot either.

- A card goes up after the one below it in suit, once it is on top: of its pile, of the waste,
  or anywhere in the talon (the talon's order is ignored, except that in the last pass the
  waste is a stack like a pile).
- A card is on top once the card lying on it leaves. A card leaves to its foundation (once it
  is on top and the card below it in suit is up), onto one of its two bases once that base has
  been on top somewhere (with foundation->tableau, a foundation card may come down to serve),
  or, a king, to an empty pile (the relaxation assumes one). A face-down card, like a waste
  card, moves only once it is on top; a face-up card may leave with the cards on it.

This covers, for example, a card lying above the card below it in suit and above both its
bases in the same pile: it can never leave, so nothing under it ever comes out.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .movegen import PARAM_DEAD_ENDS, PARAM_F2T, PARAM_PASS_LIMIT
from .state import (BASE_MASK, CARD_VALUE, FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN, PILE_SLOTS, PILES,
                    TALON, TALON_LEN, WASTE_COUNT)

ONE = np.uint64(1)


@njit(cache=True)
def _bit(card):
    return ONE << np.uint64(card)


@njit(cache=True)
def _can_leave(card, on_top_only, exposable, up_heights):
    """In the relaxation: can `card` (with what lies on it) ever leave its place?"""
    on_top = exposable & _bit(card) != 0
    if on_top_only and not on_top:
        return False
    if CARD_VALUE[card] == 13:
        return True
    if on_top and up_heights[card // 13] >= CARD_VALUE[card]:
        return True
    return exposable & BASE_MASK[card] != 0  # one of its bases has been on top somewhere


@njit(cache=True)
def relaxed_unwinnable(state, params):
    """True if the relaxed game (module docstring) cannot put every card up: the position is lost."""
    exposable = np.uint64(0)
    if params[PARAM_F2T]:
        for suit in range(4):
            for value in range(state[FOUNDATION + suit]):
                exposable |= _bit(suit * 13 + value)
    pass_limit = params[PARAM_PASS_LIMIT]
    waste_count = state[WASTE_COUNT]
    waste_is_stack = pass_limit != 0 and state[PASS] >= pass_limit
    first_free = waste_count - 1 if waste_is_stack and waste_count > 0 else 0
    for i in range(first_free, state[TALON_LEN]):
        exposable |= _bit(state[TALON + i])
    for pile in range(PILES):
        length = state[PILE_LEN + pile]
        if length > 0:
            exposable |= _bit(state[PILE_CARDS + pile * PILE_SLOTS + length - 1])
    up_heights = np.zeros(4, dtype=np.int64)
    changed = True
    while changed:
        changed = False
        all_up = True
        for suit in range(4):
            height = max(up_heights[suit], state[FOUNDATION + suit])
            while height < 13 and exposable & _bit(suit * 13 + height):
                height += 1
            if height != up_heights[suit]:
                up_heights[suit] = height
                changed = True
            all_up = all_up and height == 13
        if all_up:
            return False  # the relaxed game puts every card up: no proof here
        for pile in range(PILES):
            base = PILE_CARDS + pile * PILE_SLOTS
            down = state[FACE_DOWN + pile]
            for index in range(state[PILE_LEN + pile] - 2, -1, -1):
                card = state[base + index]
                if exposable & _bit(card):
                    continue
                if _can_leave(state[base + index + 1], index + 1 < down, exposable, up_heights):
                    exposable |= _bit(card)
                    changed = True
        for index in range(first_free - 1, -1, -1):
            card = state[TALON + index]
            if not exposable & _bit(card) and _can_leave(state[TALON + index + 1], True, exposable, up_heights):
                exposable |= _bit(card)
                changed = True
    for suit in range(4):
        if up_heights[suit] < 13:
            return True
    return False


@njit(cache=True)
def is_dead_end(state, params):
    """True if the position provably cannot be won (`relaxed_unwinnable`); always False when the
    search has dead-end tests off."""
    if not params[PARAM_DEAD_ENDS]:
        return False
    return relaxed_unwinnable(state, params)
