"""The compact state of the numba core: one flat int8 array per position, and its hash.

Layout (offsets into the array):

- ``PILE_CARDS + 20*p + i``: card i (bottom = 0) of pile p (0..6); ``PILE_LEN + p`` cards in
  pile p, of which the first ``FACE_DOWN + p`` are face down.
- ``FOUNDATION + s``: number of cards on the foundation of suit s (c d h s).
- ``TALON + i``: the stock and waste as one sequence in dealing order: the first ``WASTE_COUNT``
  cards are the waste (top = the last of them), the rest up to ``TALON_LEN`` are the stock (the
  next to be drawn first). A card played from the waste is deleted from the sequence, so the
  remaining set of talon cards fixes the sequence.
- ``PASS``: the pass in progress (1 = first).

The hash is Zobrist-style and canonical: a pile's part of it does not depend on which of the
seven places the pile is in, so positions that differ only by a permutation of piles hash alike
(and only those: each pile card's part depends on the card it lies on, which fixes every pile's
order).
The foundations are not hashed: they are exactly the cards found nowhere else.
"""

from __future__ import annotations

import numpy as np

from .errors import PositionError
from .jitcache import kernel
from .rules import MAX_PASSES

PILES = 7
PILE_SLOTS = 20  # 6 face-down cards + a full K..A run is 19
PILE_CARDS = 0
PILE_LEN = PILE_CARDS + PILES * PILE_SLOTS
FACE_DOWN = PILE_LEN + PILES
FOUNDATION = FACE_DOWN + PILES
TALON = FOUNDATION + 4
TALON_SLOTS = 24
TALON_LEN = TALON + TALON_SLOTS
WASTE_COUNT = TALON_LEN + 1
PASS = WASTE_COUNT + 1
STATE_SIZE = 192
MAX_PASS_HASHED = MAX_PASSES  # the pass number is kept up to this (unlimited passes: capped there)

# Card tables: suit, value, colour of each card index 0..51 (RULES.md section 1).
CARD_SUIT = np.array([c // 13 for c in range(52)], dtype=np.int8)
CARD_VALUE = np.array([c % 13 + 1 for c in range(52)], dtype=np.int8)
CARD_RED = np.array([1 if c // 13 in (1, 2) else 0 for c in range(52)], dtype=np.int8)


def _base_masks() -> np.ndarray:
    """For each card, the bits (1 << card) of the two cards it can lie on in the tableau (none for a king)."""
    masks = np.zeros(52, dtype=np.uint64)
    for card in range(52):
        for suit in range(4):
            if CARD_VALUE[card] < 13 and CARD_RED[suit * 13] != CARD_RED[card]:
                masks[card] |= np.uint64(1) << np.uint64(suit * 13 + CARD_VALUE[card])
    return masks


BASE_MASK = _base_masks()

_rng = np.random.default_rng(0x6B6C6F6E64696B65)  # fixed: hashes are the same in every run
# A pile card's part: by the card and the card it lies on (52: none, the pile's bottom card).
ZOBRIST_PILE = _rng.integers(1, 2**63, size=(52, 53), dtype=np.int64).astype(np.uint64)
ZOBRIST_FACE_DOWN = _rng.integers(1, 2**63, size=52, dtype=np.int64).astype(np.uint64)
ZOBRIST_TALON = _rng.integers(1, 2**63, size=52, dtype=np.int64).astype(np.uint64)
ZOBRIST_WASTE_COUNT = _rng.integers(1, 2**63, size=TALON_SLOTS + 1, dtype=np.int64).astype(np.uint64)
ZOBRIST_PASS = _rng.integers(1, 2**63, size=MAX_PASS_HASHED + 1, dtype=np.int64).astype(np.uint64)


def encode(position) -> np.ndarray:
    """The state array of a reference-engine Position (no unknown cards); PositionError for one
    the array cannot hold (a game never makes one: a pile of more than 20 cards, a talon of more
    than 24; the reference engine plays them, for its tests)."""
    talon_length = len(position.stock) + len(position.waste)
    if any(len(pile) > PILE_SLOTS for pile in position.piles) or talon_length > TALON_SLOTS:
        raise PositionError(f"the solver takes piles of at most {PILE_SLOTS} cards and a stock and waste of at "
                            f"most {TALON_SLOTS} together (no game makes more)")
    state = np.zeros(STATE_SIZE, dtype=np.int8)
    for p, pile in enumerate(position.piles):
        for i, card in enumerate(pile):
            state[PILE_CARDS + p * PILE_SLOTS + i] = card
        state[PILE_LEN + p] = len(pile)
        state[FACE_DOWN + p] = position.face_down[p]
    for s in range(4):
        state[FOUNDATION + s] = position.foundations[s]
    talon = list(position.waste) + list(position.stock)
    for i, card in enumerate(talon):
        state[TALON + i] = card
    state[TALON_LEN] = len(talon)
    state[WASTE_COUNT] = len(position.waste)
    state[PASS] = min(position.pass_number, MAX_PASS_HASHED)
    return state


def decode(state: np.ndarray):
    """The reference-engine Position of a state array (for tests and debugging)."""
    from .game import Position

    piles = [[int(state[PILE_CARDS + p * PILE_SLOTS + i]) for i in range(state[PILE_LEN + p])] for p in range(PILES)]
    talon = [int(state[TALON + i]) for i in range(state[TALON_LEN])]
    waste_count = int(state[WASTE_COUNT])
    return Position(piles, [int(state[FACE_DOWN + p]) for p in range(PILES)], talon[waste_count:],
                    talon[:waste_count], [int(state[FOUNDATION + s]) for s in range(4)], int(state[PASS]))


@kernel
def state_hash(state, hash_pass, waste_count):
    """Canonical 64-bit hash of a state, with `waste_count` standing for the talon position.

    The pass number counts only when `hash_pass` is set. The caller chooses `waste_count`: the
    real one, or a class representative when positions are interchangeable (`movegen`).
    """
    return finish_hash(layout_hash(state), state, hash_pass, waste_count)


@kernel
def layout_hash(state):
    """The part of `state_hash` the cards' places give: the piles' parts added up, the talon's
    XORed in (`finish_hash` adds where the talon stands, and the pass)."""
    piles = np.uint64(0)
    for pile in range(PILES):
        piles += pile_hash(state, pile)
    return piles ^ talon_hash(state)


@kernel
def pile_hash(state, pile):
    """What one pile adds to `state_hash`.

    Each pile card adds a number drawn for it and the card it lies on: those pairs fix every
    pile's order, and a sum over the piles does not depend on which of the seven places a pile is
    in. The parts are independent lookups, with no chain of operations from one card to the next.
    """
    base = PILE_CARDS + pile * PILE_SLOTS
    down = state[FACE_DOWN + pile]
    below = 52
    part = np.uint64(0)
    for i in range(state[PILE_LEN + pile]):
        card = state[base + i]
        part += ZOBRIST_PILE[card, below]
        if i < down:
            part += ZOBRIST_FACE_DOWN[card]  # added too: the sum must not depend on the order
        below = card
    return part


@kernel
def talon_hash(state):
    """What the talon's cards add to `state_hash` (where it stands is `waste_count`'s part)."""
    part = np.uint64(0)
    for i in range(state[TALON_LEN]):
        part ^= ZOBRIST_TALON[state[TALON + i]]
    return part


@kernel
def finish_hash(layout, state, hash_pass, waste_count):
    """`state_hash` from the piles' and the talon's parts (`layout_hash`)."""
    key = layout ^ ZOBRIST_WASTE_COUNT[waste_count]
    if hash_pass:
        key ^= ZOBRIST_PASS[state[PASS]]
    if key == 0:
        key = np.uint64(1)  # 0 marks an empty table slot
    return key


# `layout_hashes`: one part a pile, then the piles' sum, then the talon's part
LAYOUT_HASHES = PILES + 2


@kernel
def layout_hashes(state, hashes):
    """Fill `hashes` (LAYOUT_HASHES uint64) with the parts of `state_hash` that `child_layout_hash`
    starts from: each pile's, their sum, the talon's."""
    piles = np.uint64(0)
    for pile in range(PILES):
        hashes[pile] = pile_hash(state, pile)
        piles += hashes[pile]
    hashes[PILES] = piles
    hashes[PILES + 1] = talon_hash(state)


@kernel
def layout_of(hashes):
    """`layout_hash` of the state whose `layout_hashes` are `hashes`."""
    return hashes[PILES] ^ hashes[PILES + 1]


@kernel
def child_layout_hash(child, parent, parent_hashes):
    """`layout_hash(child)` for a state one move (`movegen.apply_move`) from `parent`, whose
    `layout_hashes` are `parent_hashes`: only the piles the move changed are hashed again (on
    `harmony`, hashing every child whole took a tenth of the best-first search's time).

    A move takes cards off pile tops (the move's own and auto-play's) and puts one run on one pile,
    before auto-play: so a pile of the parent's length and face-down count is the parent's pile
    (what went on it, if anything, is what came off). The talon only loses cards: one of the
    parent's length holds the parent's cards."""
    piles = parent_hashes[PILES]
    for pile in range(PILES):
        if child[PILE_LEN + pile] != parent[PILE_LEN + pile] or child[FACE_DOWN + pile] != parent[FACE_DOWN + pile]:
            piles += _pile_hash_change(child, parent, pile)
    return piles ^ _child_talon_hash(child, parent, parent_hashes)


@kernel
def child_layout_hashes(child, parent, parent_hashes, hashes):
    """`layout_hashes(child, hashes)` for a state one move from `parent`, as `child_layout_hash`
    works it out."""
    piles = np.uint64(0)
    for pile in range(PILES):
        hashes[pile] = parent_hashes[pile]
        if child[PILE_LEN + pile] != parent[PILE_LEN + pile] or child[FACE_DOWN + pile] != parent[FACE_DOWN + pile]:
            hashes[pile] += _pile_hash_change(child, parent, pile)
        piles += hashes[pile]
    hashes[PILES] = piles
    hashes[PILES + 1] = _child_talon_hash(child, parent, parent_hashes)


@kernel
def _child_talon_hash(child, parent, parent_hashes):
    """`talon_hash(child)` for a state one move from `parent` (`child_layout_hash`)."""
    return parent_hashes[PILES + 1] if child[TALON_LEN] == parent[TALON_LEN] else talon_hash(child)


@kernel
def _pile_hash_change(child, parent, pile):
    """`pile_hash(child, pile) - pile_hash(parent, pile)` (mod 2**64) for a child one move from
    `parent` (`child_layout_hash`): the pile's cards up to the shorter of its two lengths are the
    same in both (a pile loses cards from its top, or gains a run that auto-play may take some
    of, or more), so only the cards above them and the cards turned count. (Hashing the whole
    pile again was a twentieth of the best-first search's time on `harmony`.)"""
    base = PILE_CARDS + pile * PILE_SLOTS
    parent_length, child_length = parent[PILE_LEN + pile], child[PILE_LEN + pile]
    parent_down, child_down = parent[FACE_DOWN + pile], child[FACE_DOWN + pile]
    common = min(parent_length, child_length)
    change = np.uint64(0)
    for i in range(common, parent_length):
        card = parent[base + i]
        change -= ZOBRIST_PILE[card, parent[base + i - 1] if i > 0 else 52]
        if i < parent_down:
            change -= ZOBRIST_FACE_DOWN[card]
    for i in range(common, child_length):
        card = child[base + i]
        change += ZOBRIST_PILE[card, child[base + i - 1] if i > 0 else 52]
        if i < child_down:
            change += ZOBRIST_FACE_DOWN[card]
    for i in range(min(child_down, common), min(parent_down, common)):
        change -= ZOBRIST_FACE_DOWN[parent[base + i]]  # turned face up
    return change


@kernel
def foundation_total(state):
    """Cards on the foundations."""
    return state[FOUNDATION] + state[FOUNDATION + 1] + state[FOUNDATION + 2] + state[FOUNDATION + 3]


@kernel
def copy_into(target, source):
    """Copy one array into another of the same length. An explicit loop: numba's slice
    assignment (`target[:] = source`) guards against overlap with a temporary copy and takes
    about 20 times as long for a state, a cost paid at every node."""
    for i in range(source.shape[0]):
        target[i] = source[i]
