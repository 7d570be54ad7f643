"""The transposition table: visits, growth and making room without losing the path."""

import numpy as np
import pytest

from solver.optimal import BestFirst, GrowingRecords, OptimalSearch
from solver.precompile import _tiny_search
from solver.runner import GrowingColumns
from solver.tt import (evict, flush_scored, grow_in_place, grow_scored_in_place, grow_talon_in_place, rehash,
                       rehash_scored, scored_info, tt_dominated_scored, tt_seen, tt_seen_scored, tt_store_scored,
                       tt_visit, tt_visit_scored)


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


def columns_table(rng, size, load, with_orders):
    """A winnability table of `size` slots in a `GrowingColumns` reserve of twice that, filled to
    `load` with crowded keys (runs that wrap round the end), each with an order of its own."""
    dtypes = (np.uint64, np.int32) if with_orders else (np.uint64,)
    table = GrowingColumns(dtypes, size, 2 * size)
    keys = crowded_keys(rng, size, int(size * load))
    orders = rng.integers(0, 100, size=len(keys)).astype(np.int32)
    for key, order in zip(keys, orders):
        assert tt_visit(*table_columns(table.columns), key, order)
    return table, dict(zip(keys.tolist(), orders.tolist()))


def table_columns(columns):
    return columns[0], columns[1] if len(columns) > 1 else np.zeros(0, dtype=np.int32)


def assert_holds_exactly(columns, entries, with_orders):
    keys, orders = table_columns(columns)
    assert int(np.count_nonzero(keys)) == len(entries)
    for key, order in entries.items():  # found where probing looks, with its own order
        assert tt_seen(keys, orders, np.uint64(key), order)
        assert tt_seen(keys, orders, np.uint64(key), order - 1) != with_orders


@pytest.mark.parametrize("with_orders", [True, False])
def test_a_table_doubles_in_place_keeping_every_entry_and_its_order(with_orders):
    """`grow_in_place`, at loads up to the largest table's, with runs that wrap round the end
    before and after the growth (what the first slots hold is set aside meanwhile)."""
    rng = np.random.default_rng(23)
    for trial in range(40):
        size = 1 << int(rng.integers(4, 10))
        table, entries = columns_table(rng, size, rng.uniform(0.3, 0.85), with_orders)
        spare = np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.int32)
        columns = table.grow(2 * size)
        assert grow_in_place(*table_columns(columns), size, *spare) == len(entries)
        assert_holds_exactly(columns, entries, with_orders)


def test_a_table_that_cannot_set_its_first_slots_aside_is_left_as_it_was():
    rng = np.random.default_rng(29)
    table, entries = columns_table(rng, 64, 0.7, True)
    columns = table.grow(128)
    before = [column.copy() for column in columns]
    spare = np.zeros(2, dtype=np.uint64), np.zeros(2, dtype=np.int32)
    assert grow_in_place(*columns, 64, *spare) == -1
    assert all(np.array_equal(column, old) for column, old in zip(columns, before))


@pytest.mark.parametrize("spare_entries", [2, 4096])
def test_the_winnability_search_grows_its_table_in_place_or_from_a_copy(spare_entries):
    """`solve.Search._grow_table`: in place within its reserve, or, where the first slots do not
    fit the spare, by rehashing a copy; either way every entry is kept with its order."""
    rng = np.random.default_rng(31)
    search = _tiny_search("winnability")
    search.table_dtypes = (np.uint64, np.int32)
    search.table = search._new_table(1 << 10)
    search.wrapped_spare = np.zeros(spare_entries, dtype=np.uint64), np.zeros(spare_entries, dtype=np.int32)
    keys = crowded_keys(rng, 1 << 10, 700)
    entries = {}
    for index, key in enumerate(keys):
        entries[int(key)] = index % 50
        assert tt_visit(*search.table, key, index % 50)
    reserve = search.table_reserve.reserves[0]
    assert search._grow_table(1 << 11) == len(keys)
    assert search.table_entries == 1 << 11
    assert np.shares_memory(search.table[0], reserve) == (reserve.shape[0] >= 1 << 11)
    assert_holds_exactly(search.table, entries, True)


def test_growing_columns_zero_only_their_new_slots_and_move_past_their_reserve():
    table = GrowingColumns((np.uint64, np.int32), 4, 8)
    table.columns[0][:] = 5
    table.columns[1][:] = 9
    table.reserves[0][4:] = 7  # what a reserve taken with np.empty may hold
    keys, orders = table.grow(6)
    assert list(keys) == [5] * 4 + [0] * 2 and list(orders) == [9] * 4 + [0] * 2
    assert table.reserves[0][7] == 7  # the reserve past the table is left alone
    assert keys.flags.c_contiguous and orders.flags.c_contiguous  # the kernels' types as before
    keys, orders = table.grow(16)  # past the reserve of 8: larger arrays, the entries copied
    assert list(keys) == [5] * 4 + [0] * 12 and list(orders) == [9] * 4 + [0] * 12
    assert table.reserves[0].shape[0] == 16


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


def test_the_talon_table_grows_in_place_without_losing_an_entry():
    """`grow_talon_in_place`: every entry of a full talon table is found whole in its slot once the
    table is four times larger, and the slots it left are empty."""
    rng = np.random.default_rng(5)
    records = GrowingRecords(BestFirst.talon_dtypes, 256, 1024)
    keys, info = records.columns
    stored = {}
    for slot in range(256):
        free_key = np.uint64(int(rng.integers(1, 1 << 40)) << 8 | slot)
        stored[int(free_key)] = int(rng.integers(1, 1 << 50))
        info[slot] = stored[int(free_key)]
        keys[slot] = free_key ^ np.uint64(info[slot])
    bigger_keys, bigger_info = records.grow(1024)
    grow_talon_in_place(bigger_keys, bigger_info, 256)
    assert np.count_nonzero(bigger_info) == 256 == np.count_nonzero(bigger_keys)
    for free_key, entry in stored.items():
        slot = free_key & 1023
        assert bigger_info[slot] == entry and bigger_keys[slot] ^ np.uint64(entry) == np.uint64(free_key)


def scored_table(rng, size, load):
    """A scored table of `size` slots, reserved for twice that, holding crowded keys (`crowded_keys`:
    probe runs that wrap round the end) to `load`; (records, keys)."""
    records = GrowingRecords(OptimalSearch.table_dtypes, size, 2 * size)
    checks, infos = records.columns
    keys = crowded_keys(rng, size, int(size * load))
    for index, key in enumerate(keys):
        assert tt_visit_scored(checks, infos, key, -index, index)  # index 0: an info of 0
    return records, keys


def assert_holds_just(checks, infos, keys):
    """Every visit of `keys` (as `scored_table` stored them) is found whole, and nothing else is there."""
    assert np.count_nonzero((checks != 0) | (infos != 0)) == len(keys)
    for index, key in enumerate(keys):
        assert tt_seen_scored(checks, infos, key, -index, index)
        assert not tt_seen_scored(checks, infos, key, -index + 1, index)


def test_a_scored_table_doubles_in_place_keeping_every_visit():
    """`grow_scored_in_place`, at loads up to the largest table's, with runs that wrap round the
    end before and after the growth (what the first slots hold is set aside meanwhile)."""
    rng = np.random.default_rng(13)
    for trial in range(40):
        size = 1 << int(rng.integers(4, 10))
        records, keys = scored_table(rng, size, rng.uniform(0.3, 0.85))
        spare = GrowingRecords(OptimalSearch.table_dtypes, size, size).columns
        checks, infos = records.grow(2 * size)
        assert grow_scored_in_place(checks, infos, size, *spare) == len(keys)
        assert_holds_just(checks, infos, keys)


def test_a_scored_table_that_cannot_set_its_first_slots_aside_is_left_as_it_was():
    rng = np.random.default_rng(17)
    records, keys = scored_table(rng, 64, 0.7)
    checks, infos = records.grow(128)
    before = checks.copy(), infos.copy()
    spare = GrowingRecords(OptimalSearch.table_dtypes, 2, 2).columns
    assert grow_scored_in_place(checks, infos, 64, *spare) == -1
    assert np.array_equal(checks, before[0]) and np.array_equal(infos, before[1])


@pytest.mark.parametrize("spare_entries", [2, 4096])
def test_best_first_grows_its_table_in_place_or_from_a_copy(spare_entries):
    """`BestFirst._grow_table`: in place, or, where the first slots do not fit the spare, by
    rehashing a copy; either way every visit is kept."""
    rng = np.random.default_rng(19)
    search = _tiny_search("best-first")
    search.wrapped_spare = GrowingRecords(OptimalSearch.table_dtypes, spare_entries, spare_entries).columns
    size = search.table_entries
    search._free_room(0)  # an empty table
    keys = crowded_keys(rng, size, int(size * 0.7))
    for index, key in enumerate(keys):
        assert tt_visit_scored(*search.table, key, -index, index)
    assert search._grow_table(2 * size) == len(keys)
    assert search.table_entries == 2 * size
    assert_holds_just(*search.table, keys)


def test_growing_records_zero_only_their_new_slots_and_move_past_their_reserve():
    records = GrowingRecords(OptimalSearch.table_dtypes, 4, 8)
    records.columns[0][:] = 5
    records.records[4:] = 7  # what a reserve taken with np.empty may hold
    checks, infos = records.grow(6)
    assert list(checks) == [5, 5, 5, 5, 0, 0] and list(infos) == [0] * 6
    assert records.records["c0"][7] == 7  # the reserve past the table is left alone
    checks, infos = records.grow(16)  # past the reserve of 8: a larger array, the entries copied
    assert list(checks) == [5] * 4 + [0] * 12 and records.records.shape[0] == 16
