"""The transposition table: open addressing over 64-bit position keys, numba kernels.

Two parallel arrays: `keys` (uint64, 0 marks an empty slot, probed linearly) and `orders`
(int32, the dominance order of the stored position, see `canon`). The Python side grows the
table (doubling, `rehash`) up to the memory budget; when it is full at that size the search
`flush`es it, keeping only the current path, so a cycle back to an ancestor is still seen and
the search stays correct (it may then redo some work).
"""

from __future__ import annotations

import numpy as np
from numba import njit

ENTRY_BYTES = 8 + 4


@njit(cache=True)
def tt_visit(keys, orders, key, order):
    """Record a visit; True if the position must be searched (new, or better than the stored one).

    A stored entry with an order <= `order` reaches this position by talon actions alone, and it
    was searched (or is being searched, on the current path), so this one need not be.
    """
    mask = keys.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        stored = keys[slot]
        if stored == key:
            if orders[slot] <= order:
                return False
            orders[slot] = order
            return True
        if stored == 0:
            keys[slot] = key
            orders[slot] = order
            return True
        slot = (slot + 1) & mask


@njit(cache=True)
def rehash(old_keys, old_orders, keys, orders):
    """Insert every entry of the old table into the (empty) new one; returns the count."""
    count = 0
    for i in range(old_keys.shape[0]):
        if old_keys[i] != 0:
            tt_visit(keys, orders, old_keys[i], old_orders[i])
            count += 1
    return count


@njit(cache=True)
def flush(keys, orders, keep_keys, keep_orders, keep_count):
    """Empty the table, then put back the first `keep_count` path entries; returns the count."""
    keys[:] = 0
    count = 0
    for i in range(keep_count):
        if tt_visit(keys, orders, keep_keys[i], keep_orders[i]):
            count += 1
    return count


def new_table(entries: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of `entries` slots (a power of two): (keys, orders)."""
    return np.zeros(entries, dtype=np.uint64), np.zeros(entries, dtype=np.int32)


@njit(cache=True)
def tt_visit_scored(keys, points, actions, key, new_points, new_actions):
    """Record a visit for the optimal search; True if the position must be searched.

    A stored visit with at least as many points and no more actions reaches everything this one
    can, at least as well, so this one need not be searched. Otherwise the new visit replaces it.
    """
    mask = keys.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        stored = keys[slot]
        if stored == key:
            if points[slot] >= new_points and actions[slot] <= new_actions:
                return False
            points[slot] = new_points
            actions[slot] = new_actions
            return True
        if stored == 0:
            keys[slot] = key
            points[slot] = new_points
            actions[slot] = new_actions
            return True
        slot = (slot + 1) & mask


@njit(cache=True)
def rehash_scored(old_keys, old_points, old_actions, keys, points, actions):
    """Insert every entry of the old scored table into the (empty) new one; returns the count."""
    count = 0
    for i in range(old_keys.shape[0]):
        if old_keys[i] != 0:
            tt_visit_scored(keys, points, actions, old_keys[i], old_points[i], old_actions[i])
            count += 1
    return count


@njit(cache=True)
def flush_scored(keys, points, actions, keep_keys, keep_points, keep_actions, keep_count):
    """Empty the scored table, then put back the first `keep_count` path entries."""
    keys[:] = 0
    count = 0
    for i in range(keep_count):
        if tt_visit_scored(keys, points, actions, keep_keys[i], keep_points[i], keep_actions[i]):
            count += 1
    return count


SCORED_ENTRY_BYTES = 8 + 8 + 4


def new_scored_table(entries: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty scored table: (keys, points, actions)."""
    return (np.zeros(entries, dtype=np.uint64), np.zeros(entries, dtype=np.int64),
            np.zeros(entries, dtype=np.int32))
