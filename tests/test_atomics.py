"""The atomic fetch-and-add the best-first search's threads take their node numbers from."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from solver.atomics import fetch_add
from solver.bestfirst import COUNTER_SIZE, NODE_COUNT
from solver.jitcache import kernel


@kernel
def _take_numbers(counter, taken):
    """Take one number after another from the counter, as `bestfirst.new_node` does."""
    for index in range(taken.shape[0]):
        taken[index] = fetch_add(counter, NODE_COUNT, 1)


def test_fetch_add_returns_the_value_before_and_adds():
    counter = np.zeros(COUNTER_SIZE, dtype=np.int64)
    taken = np.zeros(5, dtype=np.int64)
    _take_numbers(counter, taken)
    assert list(taken) == [0, 1, 2, 3, 4] and counter[NODE_COUNT] == 5
    assert counter.sum() == 5  # it touched no other slot


def test_two_threads_never_take_the_same_number():
    """Two threads taking numbers at once, each a million: every number from 0 is taken exactly
    once (a plain read and write would lose some under contention)."""
    counter = np.zeros(COUNTER_SIZE, dtype=np.int64)
    rows = [np.zeros(1_000_000, dtype=np.int64) for _ in range(2)]
    _take_numbers(counter, np.zeros(1, dtype=np.int64))  # compiled before the threads race
    counter[NODE_COUNT] = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda row: _take_numbers(counter, row), rows))
    everything = np.sort(np.concatenate(rows))
    assert counter[NODE_COUNT] == 2_000_000
    assert (everything == np.arange(2_000_000)).all()
