"""The transposition table: an open-addressing set of 64-bit state hashes, numba kernels.

The table is a power-of-two uint64 array, 0 marking an empty slot, probed linearly. The Python
side grows it (doubling, `rehash`) up to the memory budget; when it is full at that size the
search `flush`es it, keeping only the hashes of the current path, so a cycle back to an ancestor
is still seen and the search stays correct (it may then redo some work).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def tt_insert(table, key):
    """Insert `key`; returns True if it was new, False if it was already there."""
    mask = table.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        stored = table[slot]
        if stored == key:
            return False
        if stored == 0:
            table[slot] = key
            return True
        slot = (slot + 1) & mask


@njit(cache=True)
def tt_contains(table, key):
    """True if `key` is in the table."""
    mask = table.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        stored = table[slot]
        if stored == key:
            return True
        if stored == 0:
            return False
        slot = (slot + 1) & mask


@njit(cache=True)
def rehash(old, new):
    """Insert every key of `old` into the (empty) table `new`; returns the count."""
    count = 0
    for i in range(old.shape[0]):
        if old[i] != 0:
            tt_insert(new, old[i])
            count += 1
    return count


@njit(cache=True)
def flush(table, keep, keep_count):
    """Empty the table, then put back the first `keep_count` keys of `keep`; returns the count."""
    table[:] = 0
    count = 0
    for i in range(keep_count):
        if tt_insert(table, keep[i]):
            count += 1
    return count


def new_table(entries: int) -> np.ndarray:
    """An empty table of `entries` slots (a power of two)."""
    return np.zeros(entries, dtype=np.uint64)
