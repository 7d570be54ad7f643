"""The transposition table: visits, growth and making room without losing the path."""

import numpy as np
import pytest

from solver.optimal import BestFirst, record_columns
from solver.tt import (evict, flush_scored, rehash, rehash_scored, rehash_talon, scored_info, tt_dominated_scored,
                       tt_seen_scored, tt_store_scored, tt_visit, tt_visit_scored)


def crowded_keys(rng, size, count):
    """`count` distinct nonzero keys whose home slots crowd into a quarter of a `size`-slot
    table, so that probe sequences are long and wrap round the end."""
    keys = set()
    while len(keys) < count:
        high = int(rng.integers(1, 1 << 40)) * size
        keys.add(high | int(rng.integers(0, size // 4)) | (size - size // 8))
    return np.array(sorted(keys, key=lambda _: rng.random()), dtype=np.uint64)


def filled_table(rng, size, with_orders):
    keys = np.zeros(size, dtype=np.uint64)
    orders = np.zeros(size if with_orders else 0, dtype=np.int32)
    stored = crowded_keys(rng, size, int(size * 0.7))
    for key in stored:
        assert tt_visit(keys, orders, key, 3)
    return keys, orders, stored


@pytest.mark.parametrize("with_orders", [True, False])
def test_a_stored_position_is_found_and_a_better_order_replaces_it(with_orders):
    keys = np.zeros(16, dtype=np.uint64)
    orders = np.zeros(16 if with_orders else 0, dtype=np.int32)
    assert tt_visit(keys, orders, np.uint64(35), 5)
    assert not tt_visit(keys, orders, np.uint64(35), 5)
    assert not tt_visit(keys, orders, np.uint64(35), 7)
    # Keys alone stand for rules where every order is 0: there is nothing better to replace.
    assert tt_visit(keys, orders, np.uint64(35), 2) == with_orders


@pytest.mark.parametrize("with_orders", [True, False])
def test_evict_keeps_every_entry_without_the_selected_bits_and_the_path(with_orders):
    rng = np.random.default_rng(7)
    for trial in range(60):
        size = 1 << int(rng.integers(4, 11))
        keys, orders, stored = filled_table(rng, size, with_orders)
        selector = (1 << int(rng.integers(0, 32))) | (1 << int(rng.integers(32, 64)))
        path = stored[:4].copy()
        path_orders = np.full(4, 3, dtype=np.int32)
        count = evict(keys, orders, np.uint64(selector), path, path_orders, len(path))
        kept = {int(key) for key in stored if int(key) & selector != selector} | {int(key) for key in path}
        assert count == len(kept) == int(np.count_nonzero(keys))
        for key in kept:  # every kept entry is still found where probing looks for it
            assert not tt_visit(keys, orders, np.uint64(key), 3)
        dropped = [key for key in stored if int(key) not in kept]
        for key in dropped:
            assert tt_visit(keys, orders, key, 3)


def test_rehash_into_a_bigger_table_keeps_every_entry():
    rng = np.random.default_rng(11)
    keys, orders, stored = filled_table(rng, 256, True)
    bigger_keys, bigger_orders = np.zeros(512, dtype=np.uint64), np.zeros(512, dtype=np.int32)
    assert rehash(keys, orders, bigger_keys, bigger_orders) == len(stored)
    for key in stored:
        assert not tt_visit(bigger_keys, bigger_orders, key, 3)


def test_a_scored_entry_is_found_only_whole():
    """The scored table keeps key XOR info (threads share it without locks): a stored visit is
    found and dominates as stored; an entry whose two words do not belong together, as a probe
    may read one that another thread is writing, is a miss, never a visit."""
    checks = np.zeros(64, dtype=np.uint64)
    infos = np.zeros(64, dtype=np.int64)
    key = np.uint64(0xABCDEF12_34567890)
    tt_store_scored(checks, infos, key, 1500, 40)
    assert tt_seen_scored(checks, infos, key, 1500, 40) and tt_seen_scored(checks, infos, key, 1400, 41)
    assert not tt_seen_scored(checks, infos, key, 1600, 40) and not tt_seen_scored(checks, infos, key, 1500, 39)
    assert not tt_dominated_scored(checks, infos, key, 1500, 40)  # its own visit
    assert tt_dominated_scored(checks, infos, key, 1500, 41)
    slot = int(np.flatnonzero(infos)[0])
    infos[slot] = scored_info(99_999, 0)  # a torn entry: another visit's info beside this check
    assert not tt_seen_scored(checks, infos, key, 0, 300)
    assert not tt_dominated_scored(checks, infos, key, 0, 300)


def test_a_scored_table_grows_and_empties_with_its_visits():
    """Rehashing keeps every visit with its points and actions; flushing keeps only the path."""
    rng = np.random.default_rng(3)
    checks, infos = np.zeros(256, dtype=np.uint64), np.zeros(256, dtype=np.int64)
    keys = crowded_keys(rng, 256, 150)
    for index, key in enumerate(keys):
        assert tt_visit_scored(checks, infos, key, -index, index)  # negative points too
    bigger_checks, bigger_infos = np.zeros(512, dtype=np.uint64), np.zeros(512, dtype=np.int64)
    assert rehash_scored(checks, infos, bigger_checks, bigger_infos) == 150
    for index, key in enumerate(keys):
        assert tt_seen_scored(bigger_checks, bigger_infos, key, -index, index)
        assert not tt_seen_scored(bigger_checks, bigger_infos, key, -index + 1, index)
    path_points, path_actions = np.array([5, 6], dtype=np.int64), np.array([1, 2], dtype=np.int64)
    assert flush_scored(bigger_checks, bigger_infos, keys[:2].copy(), path_points, path_actions, 2) == 2
    assert tt_seen_scored(bigger_checks, bigger_infos, keys[0], 5, 1)
    assert not tt_seen_scored(bigger_checks, bigger_infos, keys[2], -1000, 1000)


def test_the_talon_table_doubles_without_losing_an_entry():
    """`rehash_talon`: every entry of a full talon table is found whole in one four times larger."""
    rng = np.random.default_rng(5)
    keys, info = record_columns(256, BestFirst.talon_dtypes)
    stored = {}
    for slot in range(256):
        free_key = np.uint64(int(rng.integers(1, 1 << 40)) << 8 | slot)
        stored[int(free_key)] = int(rng.integers(1, 1 << 50))
        info[slot] = stored[int(free_key)]
        keys[slot] = free_key ^ np.uint64(info[slot])
    bigger_keys, bigger_info = record_columns(1024, BestFirst.talon_dtypes)
    rehash_talon(keys, info, bigger_keys, bigger_info)
    assert np.count_nonzero(bigger_info) == 256
    for free_key, entry in stored.items():
        slot = free_key & 1023
        assert bigger_info[slot] == entry and bigger_keys[slot] ^ np.uint64(entry) == np.uint64(free_key)
