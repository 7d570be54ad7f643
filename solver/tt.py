"""The transposition table: open addressing over 64-bit position keys, numba kernels.

Two parallel arrays: `keys` (uint64, 0 marks an empty slot, probed linearly) and `orders`
(int32, the dominance order of the stored position, see `canon`). Under rules where every
position's order is 0 (`canon.orders_used`), `orders` is empty and the table holds keys alone:
8 bytes an entry instead of 12, so more fit in a memory budget (a hard loss stores tens of
millions of positions). The Python side grows the table in place (doubling, `grow_in_place`) up
to the memory budget; when it is full at that size the search `evict`s about a quarter of it,
keeping the current path, so a cycle back to an ancestor is still seen and the search stays
correct (it may then redo some work).
"""

from __future__ import annotations

import numpy as np

from .jitcache import kernel
from .movegen import auto_playable
from .objective import OBJ_AUTO, OBJ_DRAW, OBJ_PASS_LIMIT, class_of_pass, pass_class, pass_classes, recycle_penalties
from .prefetch import prefetch
from .state import TALON, TALON_LEN, WASTE_COUNT, ZOBRIST_PASS, ZOBRIST_WASTE_COUNT


@kernel
def home_slot(size, key):
    """The slot where the probes for `key` start in a table of `size` slots (a power of two). It
    takes the size, not the table: the tables are contiguous arrays or fields of records, and a
    kernel given both would be compiled twice."""
    return np.int64(key & np.uint64(size - 1))


@kernel
def prefetch_slot(keys, key):
    """Start fetching the home slot of `key` into the cache, ahead of a probe (`prefetch`)."""
    prefetch(keys, home_slot(keys.shape[0], key))


@kernel
def find_slot(keys, key):
    """The slot of `key` in the table, or the empty slot where it would go (linear probing)."""
    mask = keys.shape[0] - 1
    slot = home_slot(keys.shape[0], key)
    while keys[slot] != key and keys[slot] != 0:
        slot = (slot + 1) & mask
    return slot


@kernel
def tt_visit(keys, orders, key, order):
    """Record a visit; True if the position must be searched (new, or better than the stored one).

    A stored entry with an order <= `order` reaches this position by talon actions alone, and it
    was searched (or is being searched, on the current path), so this one need not be. With no
    `orders` stored every order is 0: a stored key is enough.
    """
    with_orders = orders.shape[0] != 0
    slot = find_slot(keys, key)
    if keys[slot] == key and (not with_orders or orders[slot] <= order):
        return False
    keys[slot] = key
    if with_orders:
        orders[slot] = order
    return True


@kernel
def tt_seen(keys, orders, key, order):
    """True if `tt_visit` would answer False (the position need not be searched); records nothing."""
    slot = find_slot(keys, key)
    return keys[slot] == key and (orders.shape[0] == 0 or orders[slot] <= order)


@kernel
def rehash(old_keys, old_orders, keys, orders):
    """Insert every entry of the old table into the (empty) new one; returns the count."""
    with_orders = old_orders.shape[0] != 0
    count = 0
    for i in range(old_keys.shape[0]):
        if old_keys[i] != 0:
            tt_visit(keys, orders, old_keys[i], old_orders[i] if with_orders else 0)
            count += 1
    return count


@kernel
def evict(keys, orders, selector, keep_keys, keep_orders, keep_count):
    """Make room in a full table: drop every entry whose key has all the bits of `selector` set
    (two bits: about a quarter), close the gaps in place, then put back the first `keep_count`
    path entries; returns the count.

    An evicted position is only searched again if it is reached again, so the search stays
    complete; the path entries stay so that a cycle back to an ancestor is still seen. Keeping
    most of the table costs far less than emptying it: most of what was explored stays known.
    """
    start = -1
    for i in range(keys.shape[0]):
        if keys[i] == 0:
            start = i
        elif keys[i] & selector == selector:
            keys[i] = 0
    return _settle(keys, orders, start, keys.shape[0]) + _put_back(keys, orders, keep_keys, keep_orders, keep_count)


@kernel
def grow_in_place(keys, orders, old_size, spare_keys, spare_orders):
    """Double the table in place (`runner.GrowingColumns`): the columns are the table at twice
    `old_size`, the entries in the first `old_size` slots and the rest zero. Returns the entries,
    or -1, with nothing changed, if the entries from slot 0 up to the first empty slot outnumber
    the spare columns (the caller then rehashes a copy).

    An entry's new home slot is its old one or that plus `old_size`. The entries before the first
    empty slot may have wrapped round from the old end, so they are set aside and their slots
    emptied; from that empty slot, which no probe sequence crosses, the rest settle as `evict`
    settles its entries, and the set-aside entries go back in as new ones."""
    with_orders = orders.shape[0] != 0
    first_empty = 0
    while first_empty < old_size and keys[first_empty] != 0:
        first_empty += 1
    if first_empty == old_size or first_empty > spare_keys.shape[0]:
        return -1
    for slot in range(first_empty):
        spare_keys[slot] = keys[slot]
        spare_orders[slot] = orders[slot] if with_orders else 0
        keys[slot] = 0
    # the old slots after the empty one; an entry moved up into the new half is settled there
    settled = _settle(keys, orders, first_empty, old_size - first_empty)
    return settled + _put_back(keys, orders, spare_keys, spare_orders, first_empty)


@kernel
def _settle(keys, orders, start, span):
    """Move each entry of the `span` - 1 slots after the empty slot `start` (going round the end)
    to the first empty slot from its home slot on; returns how many there were.

    Linear probing keeps no empty slot between an entry's home slot and its own. No probe sequence
    crosses `start`, so going round from it each entry finds the entries before it settled, and a
    slot it leaves empty lies after them."""
    with_orders = orders.shape[0] != 0
    mask = keys.shape[0] - 1
    count = 0
    for step in range(1, span):
        i = (start + step) & mask
        key = keys[i]
        if key == 0:
            continue
        count += 1
        slot = np.int64(key & np.uint64(mask))
        while slot != i and keys[slot] != 0:
            slot = (slot + 1) & mask
        if slot != i:
            keys[slot] = key
            keys[i] = 0
            if with_orders:
                orders[slot] = orders[i]
    return count


@kernel
def _put_back(keys, orders, put_keys, put_orders, count):
    """Visit the first `count` entries of `put_keys`, `put_orders`; returns how many were new."""
    added = 0
    for i in range(count):
        if tt_visit(keys, orders, put_keys[i], put_orders[i]):
            added += 1
    return added


# The scored table (the optimal searches): a visit is one 64-bit word of points and actions
# (`scored_info`) beside its key, stored as key XOR info. The best-first search's threads share the
# table without locks: a probe that reads the two words of an entry while another thread writes
# them sees a key that does not match (the words of two visits XOR to no key), a miss, which
# only costs work; a match is a visit that was stored whole. (The same check as lockless hashing
# in chess engines; a store of one aligned 64-bit word is atomic on the machines numba targets.)


@kernel
def scored_info(points, actions):
    """One word holding a visit's points (the upper 32 bits, signed) and actions (the lower 32)."""
    return (np.int64(points) << 32) | np.int64(actions)


@kernel
def info_points(info):
    """The points of a visit packed by `scored_info`."""
    return info >> 32


@kernel
def info_actions(info):
    """The actions of a visit packed by `scored_info`."""
    return info & 0xFFFFFFFF


@kernel
def find_scored_slot(checks, infos, key):
    """The slot of `key` in the scored table, or the empty slot where it would go (linear probing;
    an entry is empty when both its words are 0, as no key is)."""
    mask = checks.shape[0] - 1
    slot = home_slot(checks.shape[0], key)
    while True:
        check, info = checks[slot], infos[slot]
        if check ^ np.uint64(info) == key or (check == 0 and info == 0):
            return slot
        slot = (slot + 1) & mask


@kernel
def tt_visit_scored(checks, infos, key, new_points, new_actions):
    """Record a visit for the optimal search; True if the position must be searched.

    A stored visit with at least as many points and no more actions reaches everything this one
    can, at least as well, so this one need not be searched. Otherwise the new visit replaces it.
    """
    if tt_seen_scored(checks, infos, key, new_points, new_actions):
        return False
    tt_store_scored(checks, infos, key, new_points, new_actions)
    return True


@kernel
def tt_seen_scored(checks, infos, key, new_points, new_actions):
    """True if `tt_visit_scored` would answer False (a stored visit dominates this one); records
    nothing. The searches ask this first, as most children are such repeats, and work out a bound
    only for the others."""
    slot = find_scored_slot(checks, infos, key)
    info = infos[slot]
    return checks[slot] ^ np.uint64(info) == key and info_points(info) >= new_points and \
        info_actions(info) <= new_actions


@kernel
def tt_store_scored(checks, infos, key, new_points, new_actions):
    """Store a visit in the slot of its position, replacing what was there (the caller knows no
    stored visit dominates it: `tt_seen_scored`)."""
    slot = find_scored_slot(checks, infos, key)
    info = scored_info(new_points, new_actions)
    infos[slot] = info
    checks[slot] = key ^ np.uint64(info)


@kernel
def tt_dominated_scored(checks, infos, key, own_points, own_actions):
    """True if the table holds another visit of the position that dominates this one (at least
    the points, at most the actions); its own entry, the same visit, does not count. Records nothing."""
    slot = find_scored_slot(checks, infos, key)
    info = infos[slot]
    if checks[slot] ^ np.uint64(info) != key or info == scored_info(own_points, own_actions):
        return False
    return info_points(info) >= own_points and info_actions(info) <= own_actions


@kernel
def rehash_scored(old_checks, old_infos, checks, infos):
    """Insert every entry of the old scored table into the (empty) new one; returns the count."""
    return rehash_scored_part(old_checks, old_infos, checks, infos, 0, old_checks.shape[0])


@kernel
def rehash_scored_part(old_checks, old_infos, checks, infos, start, stop):
    """`rehash_scored` for the old table's slots `start` to `stop`: threads may each take a part at
    once (the table is shared as in the search: two inserts may race for a slot, and then one is
    lost, which costs only a duplicate)."""
    count = 0
    for i in range(start, stop):
        info = old_infos[i]
        if old_checks[i] != 0 or info != 0:
            tt_visit_scored(checks, infos, old_checks[i] ^ np.uint64(info), info_points(info), info_actions(info))
            count += 1
    return count


@kernel
def grow_scored_in_place(checks, infos, old_size, spare_checks, spare_infos):
    """Double the scored table in place (`optimal.GrowingRecords`): the columns are the table at
    twice `old_size`, the entries in the first `old_size` slots and the rest zero. Returns the
    entries, or -1, with nothing changed, if the entries from slot 0 up to the first empty slot
    outnumber the spare columns (the caller then rehashes a copy).

    An entry's new home slot is its old one or that plus `old_size`, and linear probing keeps no
    empty slot between an entry's home and its slot. The entries before the first empty slot may
    have wrapped round from the end, so they are set aside in the spare columns and their slots
    emptied. Then, going up from that empty slot, which no probe sequence crosses, each entry moves
    to the first empty slot from its new home on, as `evict` closes gaps: the slots it passes are
    settled, and the slot it leaves lies after them. An entry whose probes run past the new end
    finds the set-aside slots empty or settled. Last, the set-aside entries go in as new ones."""
    first_empty = 0
    while first_empty < old_size and (checks[first_empty] != 0 or infos[first_empty] != 0):
        first_empty += 1
    if first_empty == old_size or first_empty > spare_checks.shape[0]:
        return -1
    for slot in range(first_empty):
        spare_checks[slot] = checks[slot]
        spare_infos[slot] = infos[slot]
        checks[slot] = 0
        infos[slot] = 0
    count = 0
    for i in range(first_empty + 1, old_size):
        check, info = checks[i], infos[i]
        if check == 0 and info == 0:
            continue
        count += 1
        # the first empty slot from its new home, or its own slot if none comes before
        slot = find_scored_slot(checks, infos, check ^ np.uint64(info))
        if slot != i:
            checks[slot] = check
            infos[slot] = info
            checks[i] = 0
            infos[i] = 0
    for index in range(first_empty):
        check, info = spare_checks[index], spare_infos[index]
        slot = find_scored_slot(checks, infos, check ^ np.uint64(info))
        checks[slot] = check
        infos[slot] = info
        count += 1
    return count


@kernel
def flush_scored(checks, infos, keep_keys, keep_points, keep_actions, keep_count):
    """Empty the scored table, then put back the first `keep_count` path entries."""
    checks[:] = 0
    infos[:] = 0
    count = 0
    for i in range(keep_count):
        if tt_visit_scored(checks, infos, keep_keys[i], keep_points[i], keep_actions[i]):
            count += 1
    return count


# The table of talon positions (best-first): the same position but for how far the stock has
# been drawn, one entry a slot (its key's home slot), lost when another lands there. Its key is
# stored XOR its info, checked as the scored table's are (threads share it too).


@kernel
def talon_key(key, state, obj):
    """The key of a position without its talon position: `key` (`bnb.scored_key`) with the waste
    count and the pass class (`objective.pass_class`) taken out."""
    free = key ^ ZOBRIST_WASTE_COUNT[state[WASTE_COUNT]]
    if pass_classes(obj):
        free ^= ZOBRIST_PASS[pass_class(obj, state)]
    return free if free != 0 else np.uint64(1)


@kernel
def talon_dominated(talon_keys, talon_info, free_key, state, points, actions, obj):
    """True if the talon table holds a visit of this position, but for how far the stock was drawn
    (and, with unlimited passes, the pass), from which drawing, and recycling, reaches this
    position (no drawn card going up by auto-play) with at most `actions` and at least `points`:
    that visit reaches everything this one can, at least as well.

    Within a pass the stored visit has a waste of at most this one's (or it is of an earlier pass
    class: with the same layout, a pass with more free recycles to come is worth at least as much);
    through a recycle (unlimited passes: the pass does not count, or only its class), any waste: it
    draws the rest of its stock, recycles, and draws this waste again."""
    slot = home_slot(talon_keys.shape[0], free_key)
    info = talon_info[slot]
    if talon_keys[slot] ^ np.uint64(info) != free_key:
        return False
    stored_waste, stored_class, stored_actions, stored_points = _talon_entry(info)
    waste = np.int64(state[WASTE_COUNT])
    length = np.int64(state[TALON_LEN])
    draw = obj[OBJ_DRAW]
    here_class = pass_class(obj, state)
    if stored_class <= here_class and stored_waste <= waste:
        gap = waste - stored_waste
        if gap % draw != 0 and waste != length:
            return False  # not a position the draws from there stop at
        if stored_points < points or stored_actions + (gap + draw - 1) // draw > actions:
            return False
        return not _draws_auto_play(state, stored_waste, waste, obj)
    if obj[OBJ_PASS_LIMIT] != 0 or (waste % draw != 0 and waste != length):
        return False
    # through a recycle: the next pass draws from the talon's first card
    if class_of_pass(obj, stored_class + 1) != here_class:  # a class stands for its passes alike
        return False
    penalty = recycle_penalties(obj, stored_class, stored_class + 1)
    cost = (length - stored_waste + draw - 1) // draw + 1 + (waste + draw - 1) // draw
    if stored_points - penalty < points or stored_actions + cost > actions:
        return False
    return not _draws_auto_play(state, stored_waste, length, obj) and not _draws_auto_play(state, 0, waste, obj)


@kernel
def _draws_auto_play(state, first, end, obj):
    """True if, with auto-play, a talon card at positions first..end-1 would go up when drawn."""
    if obj[OBJ_AUTO]:
        for position in range(first, end):
            if auto_playable(state, state[TALON + position]):
                return True
    return False


@kernel
def talon_store(talon_keys, talon_info, free_key, state, points, actions, obj):
    """Keep a visit in the talon table, in place of whatever is in its slot, but for a visit of the
    same position whose actions less its waste count are fewer (it dominates more of the visits to
    come: on `harmony` seed 43, 7% fewer positions than always replacing)."""
    slot = home_slot(talon_keys.shape[0], free_key)
    waste = np.int64(state[WASTE_COUNT])
    stored = talon_info[slot]
    if talon_keys[slot] ^ np.uint64(stored) == free_key:
        stored_waste, _, stored_actions, _ = _talon_entry(stored)
        if stored_actions - stored_waste < actions - waste:
            return
    info = (np.int64(points) << 24) | (np.int64(actions) << 8) | (pass_class(obj, state) << 6) | waste
    talon_info[slot] = info
    talon_keys[slot] = free_key ^ np.uint64(info)  # checked as the scored table's entries are


@kernel
def grow_talon_in_place(talon_keys, talon_info, old_size):
    """Grow the talon table in place (`optimal.GrowingRecords`): the columns are the table at its
    new size, a power of two times `old_size`, with the entries in the first `old_size` slots and
    the rest zero. Nothing is lost: an entry's new slot has its old slot's number as its low bits,
    so it is its old slot or one of the zeroed ones, and no two entries meet there."""
    for slot in range(old_size):
        stored = talon_info[slot]
        check = talon_keys[slot]
        if check != 0 or stored != 0:
            target = home_slot(talon_keys.shape[0], check ^ np.uint64(stored))
            if target != slot:
                talon_info[target] = stored
                talon_keys[target] = check
                talon_info[slot] = 0
                talon_keys[slot] = 0


@kernel
def _talon_entry(info):
    """(waste count, pass class, actions, points) of a talon table entry (`talon_store` packs them:
    6, 2, 16 and the upper 40 bits, the points signed)."""
    return info & 63, (info >> 6) & 3, (info >> 8) & 0xFFFF, info >> 24
