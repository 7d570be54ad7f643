"""Resumable searches: the Python side of the numba kernels.

A kernel works on arrays it is handed (a stack with one row per depth, a transposition table,
a context array) for a node budget, then returns a status. `ChunkedSearch` owns those arrays:
it grows the stack and the table within the memory budget (or, at its largest, makes room in
it: `_free_room`), and runs the kernel until it finishes or a node or time budget runs out.

Growing the table is one step that no time check interrupts, and it can be slow where fresh memory
is (docs/MEASUREMENTS.md, "Memory on this machine": 7 s for 16 M to 32 M entries), so a growth
that would end past the time limit, judged by the last one's speed, is not started: the table
makes room instead.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import time

import numpy as np

from .search import (CTX_CAN_GROW_STACK, CTX_DEPTH, CTX_NODES, CTX_SIZE, CTX_TABLE_COUNT, CTX_TABLE_LIMIT,
                     CTX_TRUNCATED, EXHAUSTED, RUNNING, STACK_FULL, TABLE_FULL)

CHUNK_NODES = 100_000
FIRST_TABLE_ENTRIES = 1 << 14
TABLE_LOAD = 0.7  # grow the table at this load
FULL_TABLE_LOAD = 0.85  # at its largest, fill it this far before making room (probes get longer)
FIRST_STACK_DEPTH = 128  # grown by doubling on demand: many searches (hints) are tiny
MIN_MAX_DEPTH = 512  # the stack may always grow this deep, whatever the memory budget
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # glibc's mallopt parameters


def machine_memory_mb() -> int | None:
    """This machine's physical memory in MB, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20
    except (ValueError, OSError, AttributeError):
        return None


def free_cores() -> int:
    """How many cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@functools.cache
def keep_freed_memory() -> bool:
    """Have the C library keep the memory of freed arrays for the process's next search, instead
    of handing it back to the system; True if it agreed (glibc; elsewhere nothing changes).

    A search's tables and nodes are large arrays, each mapped afresh and unmapped when freed. Where
    fresh pages are slow (here 5-11 s per GB: docs/MEASUREMENTS.md, "Memory on this machine"), a
    process that runs search after search (`batch`, the benchmarks, hints) paid that again for
    every one; kept, the same gigabyte is taken again in 0.25 s. The process then holds its peak
    memory until it ends, which is within the budget it was given. Called by the command line and
    the benchmarks, not by the library on import: it changes the whole process's allocator.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    # No allocation gets its own mapping, and free memory at the heap's top is never trimmed. (A
    # threshold of 2 GB did not do: once the top passed it, glibc handed back all of it, so a deal
    # after one whose search used more than 2 GB took every page afresh.) -1 is SIZE_MAX to glibc.
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD, -1))


def check_request(deal, rules, start=None, max_nodes=None, time_limit=None, memory_mb=1) -> None:
    """TypeError or KlondikeError for what a search cannot take, before it starts: a deal that is
    not a Deal, rules not a Ruleset, a `start` that cannot occur (`positions.check_position`), a node
    budget that is not a whole number >= 1, a time limit that is not a number > 0, memory that is
    not a whole number of MB >= 1. (None: no budget of that kind.)"""
    from .deal import Deal
    from .positions import check_position
    from .rules import Ruleset

    if not isinstance(deal, Deal):
        raise TypeError(f"deal must be a Deal (Deal.from_seed, Deal.from_codes), got {type(deal).__name__}")
    if not isinstance(rules, Ruleset):
        raise TypeError(f"rules must be a Ruleset (rules.get_ruleset), got {type(rules).__name__}")
    if start is not None:
        check_position(start)
    check_budget(max_nodes, time_limit, memory_mb)


def check_budget(max_nodes=None, time_limit=None, memory_mb=1) -> None:
    """KlondikeError unless the node budget is a whole number >= 1, the time limit a number of
    seconds > 0 and the memory a whole number of MB >= 1 (None: no budget of that kind)."""
    from .errors import KlondikeError
    from .cards import is_whole_number

    if max_nodes is not None and not (is_whole_number(max_nodes) and max_nodes >= 1):
        raise KlondikeError(f"max_nodes must be a whole number >= 1 or None, got {max_nodes!r}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool)
                                       and time_limit > 0 and not math.isnan(time_limit)):
        raise KlondikeError(f"time_limit must be a number of seconds > 0 or None, got {time_limit!r}")
    if not (is_whole_number(memory_mb) and memory_mb >= 1):
        raise KlondikeError(f"memory_mb must be a whole number >= 1, got {memory_mb!r}")


SLICE_DONE = "slice done"  # `run_within`: its slice of nodes is searched, no budget ran out


WRAPPED_SPARE = 4096  # entries a table's growth in place may set aside (`tt.grow_in_place`)


class GrowingColumns:
    """A table's columns, each a prefix of an array reserved at the start for the table's largest
    size, so that the table grows in place (`tt.grow_in_place`).

    np.empty takes address space only, and a page is used when it is first touched, so each size
    of the table uses the pages of the size before and those of its new part. A table grown into
    a new array each time took fresh pages for every size in turn, and where the process keeps
    freed memory (`keep_freed_memory`) it held them all: `klondike solve 270` under draw 1 with
    unlimited passes peaked at 706 MB resident with `--memory 512`. The columns are plain
    contiguous arrays, as a table's were, so the kernels are compiled for the same types."""

    def __init__(self, dtypes: tuple, entries: int, most_entries: int):
        self.reserves = [np.empty(max(entries, most_entries), dtype=dtype) for dtype in dtypes]
        self.entries = 0
        self.columns = self.grow(entries)

    def grow(self, entries: int) -> list[np.ndarray]:
        """The columns at `entries` slots (no fewer than now), the new slots zeroed and the entries
        left where they are, for the caller to move. Past the reserve, the columns move to larger
        arrays."""
        if entries > self.reserves[0].shape[0]:
            larger = [np.empty(entries, dtype=reserve.dtype) for reserve in self.reserves]
            for new, old in zip(larger, self.reserves):
                new[:self.entries] = old[:self.entries]
            self.reserves = larger
        for reserve in self.reserves:
            reserve[self.entries:entries] = 0
        self.entries = entries
        self.columns = self._columns_of(self.reserves, entries)
        return self.columns

    def copy(self) -> list[np.ndarray]:
        """The columns of a copy of the table, laid out as its own (numba compiles a kernel once
        for both)."""
        return self._columns_of([reserve[:self.entries].copy() for reserve in self.reserves], self.entries)

    def _columns_of(self, arrays: list[np.ndarray], entries: int) -> list[np.ndarray]:
        """The table's columns, the first `entries` of `arrays` (shaped as the reserves)."""
        return [array[:entries] for array in arrays]


class ChunkedSearch:
    """Owns the arrays of one search and runs its kernel in chunks.

    Subclasses give `stack_layout` (name -> (shape of one level, dtype)), `table_dtypes` (a
    column of the table each; an instance may set its own before `__init__`), and implement
    `_kernel(node_budget)`, `_rehash(old, new)` and `_free_room(depth)` (make room in the table
    at its largest, keeping the path down to `depth`; returns the entries left).
    """

    stack_layout: dict[str, tuple[tuple[int, ...], type]] = {}
    table_dtypes: tuple[type, ...] = ()
    context_size = CTX_SIZE
    # The slowest growth of any table in this process, in seconds per entry of the new table: a
    # process that keeps its freed memory (`keep_freed_memory`) grows fast on the pages it holds,
    # but a table larger than any before takes fresh pages, as slow as its first growths were.
    slowest_growth_seconds_per_entry = 0.0

    def __init__(self, memory_mb: float):
        if memory_mb <= 0:
            raise ValueError("memory must be positive")
        budget = int(memory_mb * (1 << 20))
        level_bytes = self._level_bytes()
        entry_bytes = sum(np.dtype(dtype).itemsize for dtype in self.table_dtypes)
        # The stack may take a quarter of the budget; the table the rest.
        self.max_depth = max(MIN_MAX_DEPTH, budget // 4 // level_bytes)
        self.max_stack_bytes = (self.max_depth + 1) * level_bytes  # the stack at its deepest
        self.entry_bytes = entry_bytes
        self.max_table_entries = self._entries_within(budget - min(budget // 4, self.max_depth * level_bytes))
        self.stack: dict[str, np.ndarray] = {}
        self._allocate_stack(min(FIRST_STACK_DEPTH, self.max_depth))
        self.table = self._new_table(min(FIRST_TABLE_ENTRIES, self.max_table_entries))
        self.ctx = np.zeros(self.context_size, dtype=np.int64)
        self.ctx[CTX_DEPTH] = -1
        self._set_limits()
        self.status = RUNNING
        self.table_purges = 0  # times the table was full at its largest, or could not grow in time
        self.deadline: float | None = None  # when the time budget of `run_within` ends (perf_counter)
        self.growth_seconds_per_entry = 0.0  # the last growth of a table, per entry of the new one
        # set by a kernel step that would end past the deadline (`BestFirst` making room): the run
        # stops as if the time were up, instead of overrunning it
        self.out_of_time = False

    @classmethod
    @functools.cache
    def _level_bytes(cls) -> int:
        """Bytes of one stack level, worked out once per class."""
        return sum(math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in cls.stack_layout.values())

    # The reserve of a table that grows in place (`GrowingColumns`), which `_new_table` makes; None
    # for a table that grows into a new array
    table_reserve: GrowingColumns | None = None

    def _entries_within(self, table_bytes: int) -> int:
        """The largest table (a power of two) whose growth fits in `table_bytes`: while it grows
        into a new array, the old table, half the size, is alive too (a table that grows in place,
        `GrowingColumns`, needs that only where it falls back on a copy)."""
        return 1 << max(10, int(max(0, table_bytes) * 2 // (3 * self.entry_bytes)).bit_length() - 1)

    def allow_table(self, table_bytes: int) -> None:
        """Let the table grow as far as `table_bytes` allows from now on (never below its size)."""
        self.max_table_entries = max(self._entries_within(table_bytes), self.table_entries)
        self._set_limits()

    @property
    def bytes_in_use(self) -> int:
        """Bytes of the table and the stack as they are now."""
        return self.table_bytes + sum(array.nbytes for array in self.stack.values())

    def _new_table(self, entries: int) -> list[np.ndarray]:
        return [np.zeros(entries, dtype=dtype) for dtype in self.table_dtypes]

    def _allocate_stack(self, depth: int) -> None:
        levels = depth + 1
        for name, (shape, dtype) in self.stack_layout.items():
            grown = np.zeros((levels, *shape), dtype=dtype)
            old = self.stack.get(name)
            if old is not None:
                grown[: old.shape[0]] = old
            self.stack[name] = grown

    @property
    def stack_depth(self) -> int:
        """Rows in the stack arrays, less one."""
        return next(iter(self.stack.values())).shape[0] - 1

    def _set_limits(self) -> None:
        load = TABLE_LOAD if self.table_entries * 2 <= self.max_table_entries else FULL_TABLE_LOAD
        self.ctx[CTX_TABLE_LIMIT] = int(self.table_entries * load)
        self.ctx[CTX_CAN_GROW_STACK] = int(self.stack_depth < self.max_depth)

    @property
    def nodes(self) -> int:
        """Nodes searched so far."""
        return int(self.ctx[CTX_NODES])

    @property
    def proved(self) -> bool:
        """True if the search explored everything it had to: its answer is a proof."""
        return self.status == EXHAUSTED and not self.truncated

    @property
    def truncated(self) -> bool:
        """True if some position was left unexplored for want of stack depth."""
        return bool(self.ctx[CTX_TRUNCATED])

    @property
    def table_entries(self) -> int:
        """Current size of the table in entries."""
        return int(self.table[0].shape[0])

    @property
    def table_bytes(self) -> int:
        """Current size of the table in bytes."""
        return sum(column.nbytes for column in self.table)

    def run(self, node_budget: int) -> int:
        """Search for up to `node_budget` more nodes; returns the kernel's final status or RUNNING."""
        target = self.nodes + node_budget
        while self.nodes < target:
            self.status = self._kernel(target - self.nodes)
            if self.out_of_time:
                return RUNNING
            if self.status == TABLE_FULL:
                size = self.table_entries
                if size * 2 <= self.max_table_entries and self._growth_fits(size * 2):
                    started = time.perf_counter()
                    self.ctx[CTX_TABLE_COUNT] = self._grow_table(size * 2)
                    self._note_growth(started, size * 2)
                else:
                    self.ctx[CTX_TABLE_COUNT] = self._free_room(int(self.ctx[CTX_DEPTH]))
                    self.table_purges += 1
                self._set_limits()
            elif self.status == STACK_FULL:
                self._allocate_stack(min(self.max_depth, 2 * self.stack_depth))
                self._set_limits()
            elif self.status != RUNNING:
                return self.status
        return RUNNING

    def _grow_table(self, entries: int) -> int:
        """Make the table one of `entries` holding every entry of the old one; returns how many.
        A table in a reserve (`table_reserve`) grows in place (`_move_in_place`), or, where that
        cannot be done, has a copy rehashed into it; any other table is replaced by a new one,
        rehashed into."""
        if self.table_reserve is None:
            bigger = self._new_table(entries)
            count = self._rehash(self.table, bigger)
            self.table = bigger
            return count
        old = self.table_entries
        self.table = self.table_reserve.grow(entries)
        count = self._move_in_place(old)
        if count < 0:
            copy = self.table_reserve.copy()
            for column in self.table:
                column[:] = 0
            count = self._rehash(copy, self.table)
        return count

    def _move_in_place(self, old_size: int) -> int:
        """For a table in `table_reserve` just doubled from `old_size` slots, move its entries to
        their new slots (a `tt` kernel); returns how many, or -1, with nothing changed, where more
        entries wrap round the old end than the search's spare columns hold."""
        raise NotImplementedError

    def compile_growth(self) -> None:
        """Run the kernels a growth of the table runs, leaving the table as it was, so that they
        are compiled before any budget counts (`precompile.compile_search`)."""
        if self.table_reserve is None:
            self._rehash(self.table, self._new_table(self.table_entries))
        else:  # a growth to the same size moves nothing; nor does rehashing the table's own entries
            self._move_in_place(self.table_entries)
            self._rehash(self.table_reserve.copy(), self.table)

    def _note_growth(self, started: float, entries: int) -> None:
        """Keep the speed of a table growth to `entries` begun at `started` (`_growth_fits`)."""
        self.growth_seconds_per_entry = (time.perf_counter() - started) / entries
        ChunkedSearch.slowest_growth_seconds_per_entry = max(ChunkedSearch.slowest_growth_seconds_per_entry,
                                                             self.growth_seconds_per_entry)

    def _growth_fits(self, entries: int) -> bool:
        """True if growing the table to `entries` should end before the deadline, at the slower of
        the last growth's speed and the slowest of the process (the first, from a small table, is
        always tried)."""
        if self.deadline is None:
            return True
        seconds_per_entry = max(self.growth_seconds_per_entry, ChunkedSearch.slowest_growth_seconds_per_entry)
        return time.perf_counter() + seconds_per_entry * entries <= self.deadline

    def run_within(self, began: float, nodes_before: int, max_nodes: int | None, time_limit: float | None,
                   progress=None, slice_nodes: int | None = None) -> str | None:
        """Run to the end or to a budget (nodes counted from `nodes_before`, time from `began`).

        Returns the budget that ran out ("node budget", "time limit"), SLICE_DONE once
        `slice_nodes` more nodes are searched, or None when finished.
        """
        slice_end = None if slice_nodes is None else self.nodes + slice_nodes
        self.deadline = None if time_limit is None else began + time_limit
        self.out_of_time = False
        while True:
            chunk = CHUNK_NODES
            if slice_end is not None:
                if self.nodes >= slice_end:
                    return SLICE_DONE
                chunk = min(chunk, slice_end - self.nodes)
            if max_nodes is not None:
                chunk = min(chunk, max_nodes - nodes_before - self.nodes)
                if chunk <= 0:
                    return "node budget"
            status = self.run(chunk)
            if progress is not None:
                progress(nodes_before + self.nodes)
            if status != RUNNING:
                return None
            if self.out_of_time or (time_limit is not None and time.perf_counter() - began >= time_limit):
                return "time limit"

    def compile_rest(self) -> None:
        """Call the kernels a one-node run does not reach, so that they are compiled (or loaded
        from the cache) before any budget counts (`precompile.compile_search`)."""

    def _kernel(self, node_budget: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _rehash(self, old: list[np.ndarray], new: list[np.ndarray]) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _free_room(self, depth: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError
