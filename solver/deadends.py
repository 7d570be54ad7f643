"""Dead-end detection: positions that provably cannot be won, found without searching them.

A card U that lies above a card L in a stack (a pile, or the waste once no recycle is left)
must leave before L can. U can leave to its foundation only after the card below it in suit,
and to the tableau only onto one of the two cards of the other colour one higher (a king onto
an empty pile). If the card below it in suit and both possible bases all lie under U in the
same stack (or the bases are on foundations that cannot give cards back), U can never leave,
so L never comes out: the position is lost.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .movegen import PARAM_DEAD_ENDS, PARAM_F2T, PARAM_PASS_LIMIT
from .state import (CARD_RED, CARD_SUIT, CARD_VALUE, FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN,
                    PILE_SLOTS, PILES, TALON, TALON_LEN, WASTE_COUNT)

# Where each card is, for the test: stack number (pile 0..6, waste 7, elsewhere -1) and height.
WASTE_STACK = 7


@njit(cache=True)
def _stuck(card, stack, height, where_stack, where_height, state, foundation_to_tableau):
    """True if `card` (at `height` in `stack`) can never leave it."""
    value = CARD_VALUE[card]
    if value == 13 or value == 1:
        return False  # a king can always go to an empty pile; an ace to its foundation
    below_in_suit = card - 1
    if not (where_stack[below_in_suit] == stack and where_height[below_in_suit] < height):
        return False
    red = CARD_RED[card]
    for suit in range(4):
        if CARD_RED[suit * 13] == red:
            continue
        base = suit * 13 + value  # the other-colour card one higher
        if where_stack[base] == stack and where_height[base] < height:
            continue
        if where_stack[base] < 0 and not foundation_to_tableau and state[FOUNDATION + suit] > value:
            continue  # on its foundation, under at least one more card: it can never come down
        return False
    return True


@njit(cache=True)
def is_dead_end(state, params):
    """True if the position provably cannot be won (see the module docstring and
    `relaxed_unwinnable`); always False when the search has dead-end tests off."""
    if not params[PARAM_DEAD_ENDS]:
        return False
    where_stack = np.full(52, -1, dtype=np.int8)
    where_height = np.zeros(52, dtype=np.int8)
    for pile in range(PILES):
        base = PILE_CARDS + pile * PILE_SLOTS
        for i in range(state[PILE_LEN + pile]):
            card = state[base + i]
            where_stack[card] = pile
            where_height[card] = i
    pass_limit = params[PARAM_PASS_LIMIT]
    waste_is_stack = pass_limit != 0 and state[PASS] >= pass_limit
    if waste_is_stack:
        for i in range(state[WASTE_COUNT]):
            card = state[TALON + i]
            where_stack[card] = WASTE_STACK
            where_height[card] = i
    foundation_to_tableau = params[PARAM_F2T]
    for pile in range(PILES):
        base = PILE_CARDS + pile * PILE_SLOTS
        # the face-down cards and the lowest face-up one: each leaves only on its own
        last = state[FACE_DOWN + pile]
        if last >= state[PILE_LEN + pile]:
            last = state[PILE_LEN + pile] - 1
        for i in range(1, last + 1):
            if _stuck(state[base + i], pile, i, where_stack, where_height, state, foundation_to_tableau):
                return True
    if waste_is_stack:
        for i in range(1, state[WASTE_COUNT]):
            if _stuck(state[TALON + i], WASTE_STACK, i, where_stack, where_height, state, foundation_to_tableau):
                return True
    return relaxed_unwinnable(state, params)


@njit(cache=True)
def _leaves(state, pile, index, exposable, upable, foundation_to_tableau):
    """In the relaxation: can the card at `index` of `pile` (with what lies on it) ever leave?"""
    card = state[PILE_CARDS + pile * PILE_SLOTS + index]
    if index < state[FACE_DOWN + pile] and not exposable[card]:
        return False  # a face-down card moves only once it is on top
    if CARD_VALUE[card] == 13:
        return True  # to an empty pile (the relaxation assumes one can be made)
    if upable[card] and exposable[card]:
        return True
    red = CARD_RED[card]
    for suit in range(4):
        if CARD_RED[suit * 13] != red:
            base = suit * 13 + CARD_VALUE[card]
            if exposable[base]:
                return True
    return False


@njit(cache=True)
def _leaves_waste(card, exposable, upable):
    """In the relaxation: can this waste card, once on top, ever leave the waste?"""
    if not exposable[card]:
        return False
    if CARD_VALUE[card] == 13 or upable[card]:
        return True
    red = CARD_RED[card]
    for suit in range(4):
        if CARD_RED[suit * 13] != red and exposable[suit * 13 + CARD_VALUE[card]]:
            return True
    return False


@njit(cache=True)
def relaxed_unwinnable(state, params):
    """True if even a relaxed game cannot put every card up: a proof that the position is lost.

    The relaxation keeps only what must hold in any real line: a card goes up after the one
    below it in suit, once it is on top of its pile (or anywhere in the talon: the talon's order
    is ignored, except that in the last pass the waste is a stack like a pile); a card is on top once the card lying on it leaves, and a card leaves to a
    foundation, onto one of its two bases once that base has been on top somewhere, or (a king)
    to an empty pile. The least fixpoint of these rules over-approximates every real line, so a
    card it never puts up can never go up.
    """
    exposable = np.zeros(52, dtype=np.bool_)
    upable = np.zeros(52, dtype=np.bool_)
    foundation_to_tableau = params[PARAM_F2T]
    for suit in range(4):
        for value in range(state[FOUNDATION + suit]):
            upable[suit * 13 + value] = True
            if foundation_to_tableau:
                exposable[suit * 13 + value] = True
    # In the last pass the waste is a stack: a waste card comes to the top only when the one on it
    # leaves. Otherwise (and for the stock) the relaxation lets every talon card be reached.
    pass_limit = params[PARAM_PASS_LIMIT]
    waste_is_stack = pass_limit != 0 and state[PASS] >= pass_limit
    waste_count = state[WASTE_COUNT]
    first_free = waste_count - 1 if waste_is_stack and waste_count > 0 else 0
    for i in range(first_free, state[TALON_LEN]):
        exposable[state[TALON + i]] = True
    for pile in range(PILES):
        length = state[PILE_LEN + pile]
        if length > 0:
            exposable[state[PILE_CARDS + pile * PILE_SLOTS + length - 1]] = True
    changed = True
    while changed:
        changed = False
        for pile in range(PILES):
            base = PILE_CARDS + pile * PILE_SLOTS
            for index in range(state[PILE_LEN + pile] - 2, -1, -1):
                card = state[base + index]
                if exposable[card]:
                    continue
                if not _leaves(state, pile, index + 1, exposable, upable, foundation_to_tableau):
                    continue  # (a face-up card below may still leave with the run on it)
                exposable[card] = True
                changed = True
        for index in range(first_free - 1, -1, -1):
            card = state[TALON + index]
            if not exposable[card] and _leaves_waste(state[TALON + index + 1], exposable, upable):
                exposable[card] = True
                changed = True
        for card in range(52):
            if not upable[card] and exposable[card] and (CARD_VALUE[card] == 1 or upable[card - 1]):
                upable[card] = True
                changed = True
    for card in range(52):
        if not upable[card]:
            return True
    return False
