"""The transposition table: visits, growth and making room without losing the path."""

import numpy as np
import pytest

from solver.tt import evict, rehash, tt_visit


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
