"""Sets of cards as 64-bit words (bit `card` for each card), numba helpers.

The 13 cards of a suit are consecutive bits from its ace, suits in card-code order, so "one
value lower" is a shift by one within a suit and "the other colour" moves a suit's block by 13
or 26 bits. Used where a kernel asks a question about many cards at once (`deadends`, the
foundation->tableau test of `movegen`).
"""

from __future__ import annotations

import numpy as np

from .jitcache import kernel

ONE = np.uint64(1)
SUIT_BITS = np.uint64(0x1FFF)  # the 13 cards of one suit, as bits from the suit's ace
CLUBS, DIAMONDS, HEARTS, SPADES = (SUIT_BITS << np.uint64(13 * suit) for suit in range(4))
ACES = np.uint64(sum(1 << (13 * suit) for suit in range(4)))
KINGS = ACES << np.uint64(12)
# The index of the lowest set bit of a 64-bit word w: DE_BRUIJN_INDEX[((w & -w) * DE_BRUIJN) >> 58].
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)


def _de_bruijn_index() -> np.ndarray:
    """The table of `lowest_bit_index`: a bit's index by the top 6 bits of the bit times DE_BRUIJN."""
    table = np.zeros(64, dtype=np.int64)
    for index in range(64):
        table[(((1 << index) * int(DE_BRUIJN)) & (2**64 - 1)) >> 58] = index
    return table


DE_BRUIJN_INDEX = _de_bruijn_index()


@kernel
def single(card):
    """The card set holding only `card`."""
    return ONE << np.uint64(card)


@kernel
def lowest_bit_index(word):
    """The index of the lowest set bit of a non-zero uint64."""
    lowest = word & (~word + ONE)
    return DE_BRUIJN_INDEX[np.int64((lowest * DE_BRUIJN) >> np.uint64(58))]


@kernel
def card_count(cards):
    """The number of cards in a card set (bits set)."""
    count = 0
    while cards != 0:
        cards &= cards - ONE
        count += 1
    return count


@kernel
def other_colour(cards):
    """Each card of `cards` moved to the same value in both suits of the other colour."""
    clubs, spades = cards & CLUBS, cards & SPADES
    diamonds, hearts = cards & DIAMONDS, cards & HEARTS
    thirteen, twenty_six = np.uint64(13), np.uint64(26)
    black_to_red = (clubs << thirteen) | (clubs << twenty_six) | (spades >> twenty_six) | (spades >> thirteen)
    red_to_black = (diamonds >> thirteen) | (diamonds << twenty_six) | (hearts >> twenty_six) | (hearts << thirteen)
    return black_to_red | red_to_black


@kernel
def cards_on(bases):
    """The cards that may lie on some card of `bases` in the tableau (one lower, other colour)."""
    return other_colour((bases & ~ACES) >> ONE)  # a suit's ace has no card below it


@kernel
def bases_of(cards):
    """The cards that some card of `cards` may lie on in the tableau (one higher, other colour)."""
    return other_colour((cards & ~KINGS) << ONE)  # a king lies on no card
