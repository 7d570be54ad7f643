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

The fixpoint runs on 64-bit card sets (bit `card` per card): every round works out at once the
set of cards that can leave, with a few shifts for "one of its bases is on top", so the test
costs little more than a pass over the piles to set it up (it runs at every node).
"""

from __future__ import annotations

import numpy as np

from .cardsets import KINGS, ONE, SUIT_BITS, cards_on, lowest_bit_index, single
from .jitcache import allocating_kernel, kernel
from .movegen import PARAM_DEAD_ENDS, PARAM_F2T, PARAM_PASS_LIMIT
from .state import FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN, PILE_SLOTS, PILES, TALON, TALON_LEN, WASTE_COUNT

ALL_CARDS = (ONE << np.uint64(52)) - ONE


@allocating_kernel  # not `kernel`: it allocates its scratch array
def relaxed_unwinnable(state, params):
    """True if the relaxed game (module docstring) cannot put every card up: the position is lost.
    (The kernels that test every node call `is_dead_end` or `relaxed_game` with a scratch array
    of their own, allocated once, not once a node.)"""
    return relaxed_game(state, params, np.empty(52, dtype=np.int8), False) != ALL_CARDS


@kernel
def relaxed_game(state, params, below, exposed):
    """The relaxed game (module docstring) played to its end (`below`: a scratch array of 52 int8).

    Returns the cards it puts up, those already up included (no line from this position ever puts
    any other card up); or, with `exposed` set, the cards it brings on top somewhere (no line turns
    a face-down card outside them). `ALL_CARDS` when it puts every card up. (One set a call: a
    kernel returning a pair is slower in the search, which needs only the first.)
    """
    # `below[card]`: the card it lies on, where that card can come out only once it has left;
    # `on_top_only`: the cards that can leave only from the top (face-down, or in a stacked waste).
    has_below = np.uint64(0)
    exposable = np.uint64(0)
    if params[PARAM_F2T]:
        for suit in range(4):
            exposable |= ((ONE << np.uint64(state[FOUNDATION + suit])) - ONE) << np.uint64(13 * suit)
    pass_limit = params[PARAM_PASS_LIMIT]
    waste_count = state[WASTE_COUNT]
    waste_is_stack = pass_limit != 0 and state[PASS] >= pass_limit
    first_free = waste_count - 1 if waste_is_stack and waste_count > 0 else 0
    for i in range(first_free, state[TALON_LEN]):
        exposable |= single(state[TALON + i])
    for i in range(1, first_free + 1):
        card = state[TALON + i]
        below[card] = state[TALON + i - 1]
        has_below |= single(card)
    on_top_only = has_below  # every stacked waste card above the bottom one
    for pile in range(PILES):
        length = state[PILE_LEN + pile]
        if length == 0:
            continue
        base = PILE_CARDS + pile * PILE_SLOTS
        down = state[FACE_DOWN + pile]
        exposable |= single(state[base + length - 1])
        for index in range(1, length):
            card = state[base + index]
            below[card] = state[base + index - 1]
            has_below |= single(card)
            if index < down:
                on_top_only |= single(card)
    left = np.uint64(0)  # cards already found able to leave
    while True:
        up = np.uint64(0)  # the cards the relaxed game can put up (a run from each suit's ace)
        all_up = True
        for suit in range(4):
            shift = np.uint64(13 * suit)
            already_up = (ONE << np.uint64(state[FOUNDATION + suit])) - ONE
            in_reach = ((exposable >> shift) & SUIT_BITS) | already_up
            height = lowest_bit_index(~in_reach)  # the length of the run from the ace
            all_up = all_up and height >= 13
            up |= ((ONE << np.uint64(height)) - ONE) << shift
        if all_up:
            return ALL_CARDS  # the relaxed game puts every card up: no proof here
        movable = KINGS | cards_on(exposable)
        can_leave = (exposable & (movable | up)) | (~on_top_only & movable)
        newly = can_leave & has_below & ~left
        if newly == 0:
            return exposable if exposed else up
        left |= newly
        while newly != 0:
            card = lowest_bit_index(newly)
            exposable |= single(below[card])
            newly &= newly - ONE


@kernel
def is_dead_end(state, params, below):
    """True if the position provably cannot be won (`relaxed_unwinnable`, `below` its scratch
    array); always False when the search has dead-end tests off."""
    if not params[PARAM_DEAD_ENDS]:
        return False
    return relaxed_game(state, params, below, False) != ALL_CARDS
