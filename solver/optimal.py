"""Optimal lines: the highest score under a scoring ruleset, the fewest actions otherwise.

`best()` first asks the winnability search for a line (a good incumbent, and a proof when there
is no win at all). Then the best-first search (`bestfirst`, A* for the fewest actions) looks for
better lines, highest bound first. With scoring it gets the first thirtieth of the budget alone
(`FIRST_LOOK_SHARE`), where most deals are proved; if it has not proved the optimum by then, the
depth-first branch and bound (`bnb`), which improves a poor line fast, gets as much, and the
best-first search goes on with the rest, storing no child that cannot beat the improved line
(`BestFirst.raise_floor`), but for the last thirtieth: if it has not proved the optimum by then,
depth-first searches from its open nodes of highest bound finish lines it has begun (dives,
`best.dive_from_frontier`). For the fewest actions it gets all but the last twelfth, and where it
proves nothing in time a chain of greedy searches and the branch and bound shorten the line in
that twelfth (`FEWEST_IMPROVE_SHARE`). Where the deal is proved lost, the branch and bound goes
first for a thirtieth of the budget (it finds the best stop fast) and best-first gets the rest,
the dives' thirtieth apart.
If best-first ends without a proof and with budget left (it dropped open nodes its best line does
not reach, or could make no room), the branch and bound goes on below the bound it proved, with
the best line so far to beat, after searches with higher values to beat (`aspiration_floors`).
A line not proved best has its detours cut in the last moments of the time (`detours`).
`optimal` is true only when a search finished with a line (or the last one finished: the
incumbent is best), or the line reaches a proven bound; otherwise `bound` is a proven limit on
what any line can reach. The reported line is replayed by the reference engine, and the engine's
score must equal the search's.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from . import line as line_module
from .bestfirst import (COUNTER_SIZE, F_BEST_NODE, F_CTX_SIZE, F_DROPPED, F_HEAP_SIZE, F_NODE_MARGIN,
                        F_TALON_DOMINATED, NODE_COUNT, NODE_NUMBER_BITS, NODES_FULL, ROUND_OVER, best_first_chunk,
                        best_first_start, compact, heap_key, key_bound, key_node, move_heap_top)
from .bnb import B_BEST, B_BEST_LENGTH, B_CTX_SIZE, bnb_chunk, open_bound, position_bound
from .deal import Deal
from .detours import cut_detours
from .errors import KlondikeError
from .game import Game, Position
from .movegen import MAX_MOVES, MOVE_FIELDS
from .objective import (CARD_WEIGHT, NEVER, OBJ_DEFER_SLACK, OBJ_GREEDY, OBJ_NO_WIN, TALON_CACHE_ENTRIES, WON_BASE,
                        objective_params, set_root)
from .cards import is_whole_number
from .rules import Ruleset
from .score import RECYCLE_PENALTY, TURN_POINTS, UNDO_PENALTY, actions_within_limit
from .runner import WRAPPED_SPARE, ChunkedSearch, GrowingColumns, check_request, free_cores, machine_memory_mb
from .search import (CTX_CAN_GROW_STACK, CTX_DEPTH, CTX_NODES, CTX_TABLE_COUNT, CTX_TABLE_LIMIT, EXHAUSTED, RUNNING,
                     STACK_FULL, TABLE_FULL)
from .precompile import compile_in_second_process, compile_search
from .solve import Result, deal_fields, search_params, solve
from .state import LAYOUT_HASHES, STATE_SIZE, encode
from .tt import flush_scored, grow_scored_in_place, grow_talon_in_place, rehash_scored, rehash_scored_part

INCUMBENT_SHARE = 3  # the winnability search gets at most a third of the budgets
# ... and a thirtieth where the fewest actions count: A* needs no line to start from and, where
# the winnability search is slow, A* alone is often faster (`ksolve-draw3` seed 137: a win after
# 10.8 s, A* without it proves the shortest in 1.3 s; seed 198: a loss after 2.4 s, A* proves the
# best stop in 2.1 s)
FEWEST_INCUMBENT_SHARE = 30


def best_memory_mb(machine_mb: int | None) -> int:
    """The memory `best` takes by default on a machine of `machine_mb` MB (None: not known).

    More than `solve`: the best-first search keeps every open position (44 bytes each,
    `BestFirst`), and at 512 MB its proofs on `duel` were memory-bound. The longest searches fill
    even 2 GB (28 M nodes) and then make room, dropping nodes they may have to find again:
    `harmony` seed 88 took 53 s at 2 GB and 40 s at 8 GB, `ksolve-draw1` seed 14 was not proved
    in 60 s at 2 GB and was in 41 s at 8 GB. So: the largest power of two within two fifths of the
    machine's memory (the tables are powers of two: a budget just below one has tables half the
    size; the system and other work keep the rest), at least 1 GB and at most 8 GB (where the nodes
    have long reached the most a heap key can number, 67 M, and the tables their largest useful
    size), but never more than the machine has; 2 GB where its memory is not known."""
    if machine_mb is None:
        return 2048
    return min(machine_mb, max(1024, min(8192, 1 << (machine_mb * 2 // 5).bit_length() - 1)))


BEST_MEMORY_MB = best_memory_mb(machine_memory_mb())
MAX_THREADS = 8  # threads of one best-first search, at most


@dataclass
class BestResult:
    """The best line found, its value, and how sure we are of it."""

    deal: Deal
    rules: Ruleset
    won: bool
    line: list[str]
    actions: int
    score: int | None  # the line's score (rulesets with scoring), else None
    bound: int | None  # scoring: the proven best possible score; else: the proven fewest actions of a win
    optimal: bool
    breakdown: dict | None
    foundation_cards: int
    nodes: int = 0
    seconds: float = 0.0
    winnable: str = "unknown"  # the winnability verdict: win, loss or unknown
    reason: str | None = None
    game: Game | None = field(default=None, repr=False)
    # Without scoring, when the bound leaves no win: {"cards", "actions"}, the best a line can do
    # (no line puts up more cards, nor as many in fewer actions; see `_stop_bound_for_people`)
    stop_bound: dict | None = None

    def to_json(self) -> dict:
        """The JSON form of `klondike best --json` (the fields of `solve`, plus score and bound)."""
        return {
            **deal_fields(self.deal, self.rules),
            "result": "win" if self.won else ("loss" if self.winnable == "loss" else "no win found"),
            "line": self.line,
            "actions": self.actions,
            "foundation_cards": self.foundation_cards,
            "score": self.score,
            "bound": self.bound,
            "stop_bound": self.stop_bound,
            "optimal": self.optimal,
            "breakdown": self.breakdown,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "reason": self.reason,
        }


def line_value(game: Game) -> int:
    """The objective value of a played line, as the reference engine counts it."""
    if game.rules.scoring is not None:
        return game.score().total
    if game.won:
        return WON_BASE - game.actions
    return CARD_WEIGHT * sum(game.position.foundations) - game.actions


def _root_search(origin: Game, rules: Ruleset, no_win: bool, state: np.ndarray, placed: np.ndarray) -> tuple:
    """What the optimal searches share at the root: (params, objective, card points, points,
    actions), with the root's state and placed cards written into `state` and `placed`."""
    # Most of the winnability search's pruning rules keep some win, not the best line; kept are
    # only the safe moves to the foundation where they provably cost no action (fewest actions,
    # no auto-play: see movegen.forced_move), the rule that only makes a
    # whole pile's move wait (movegen._king_could_fill), which changes no line's actions or
    # score, and the rules that keep every line's value (PARAM_EXACT: part of a run moves only to
    # send the card it uncovers up, movegen.partial_run_needed; without auto-play, a foundation
    # card comes down only if it may be of use, movegen.worth_taking_down).
    forced = rules.scoring is None and not rules.auto_play
    params = search_params(rules, prune=False, forced=forced, wait=True, exact=True)
    obj, card_points = objective_params(rules)
    obj[OBJ_NO_WIN] = int(no_win)
    state[:] = encode(origin.position)
    # The root carries the game so far: its clock, its points, the cards already placed once.
    counters = origin.counters
    points = 0
    if rules.scoring is not None:
        points = (counters.card_points + TURN_POINTS * counters.turned
                  - RECYCLE_PENALTY * counters.penalised_recycles - UNDO_PENALTY * counters.undos)
    for card in origin.placed:
        placed[card] = 1
    set_root(obj, card_points, placed, state, points)
    return params, obj, card_points, points, counters.actions


class GrowingRecords(GrowingColumns):
    """A table of records, one field of each of `dtypes` an entry, whose columns are strided views
    of the records, growing in place within a reserve as `GrowingColumns` does.

    An entry's fields lie side by side, so a probe waits for one cache line, not one a column (the
    kernels take the views as they are). Best-first alone on `harmony` seeds 13 and 14 took 14% and
    12% less time with the main table so; seed 147 a fifth less with the talon table so too. Grown
    into a new array each time, a table took fresh pages for every size in turn, about twice its
    largest size; where the machine backs memory only when it is first touched, fresh pages took a
    third of the time of a lone `best` (docs/MEASUREMENTS.md, "A lone `best` and fresh pages")."""

    def __init__(self, dtypes: tuple, entries: int, most_entries: int):
        self.dtype = np.dtype([(f"c{column}", dtype) for column, dtype in enumerate(dtypes)])
        super().__init__((self.dtype,), entries, most_entries)

    @property
    def records(self) -> np.ndarray:
        """The reserve of records; the table is its first `entries`."""
        return self.reserves[0]

    def _columns_of(self, arrays: list[np.ndarray], entries: int) -> list[np.ndarray]:
        return [arrays[0][name][:entries] for name in self.dtype.names]


class OptimalSearch(ChunkedSearch):
    """What the two optimal searches share: the table of visits with their points and actions
    (`tt.tt_visit_scored`) and the best value so far, in the same slot of their contexts."""

    table_dtypes = (np.uint64, np.int64)  # key XOR info, info: points and actions (`tt.scored_info`)

    def _new_table(self, entries: int) -> list[np.ndarray]:
        return GrowingRecords(self.table_dtypes, entries, entries).columns

    def _rehash(self, old, new) -> int:
        return rehash_scored(old[0], old[1], new[0], new[1])

    @property
    def best_value(self) -> int:
        """The value of the best line so far (the incumbent's until the search beats it)."""
        return int(self.ctx[B_BEST])


class BranchAndBound(OptimalSearch):
    """One resumable optimal search, depth-first (`bnb.bnb_chunk`)."""

    stack_layout = {
        "states": ((STATE_SIZE,), np.int8),
        "layouts": ((LAYOUT_HASHES,), np.uint64),
        "placed": ((52,), np.int8),
        "points": ((), np.int64),
        "actions": ((), np.int64),
        "bounds": ((), np.int64),
        "moves": ((MAX_MOVES, MOVE_FIELDS), np.int16),
        "move_count": ((), np.int32),
        "move_next": ((), np.int32),
        "path_keys": ((), np.uint64),
        "best_path": ((4,), np.int16),
    }
    context_size = B_CTX_SIZE

    def __init__(self, origin: Game, rules: Ruleset, incumbent: int, no_win: bool,
                 memory_mb: int = BEST_MEMORY_MB):
        super().__init__(memory_mb)
        root = _root_search(origin, rules, no_win, self.stack["states"][0], self.stack["placed"][0])
        self.params, self.obj, self.card_points, self.stack["points"][0], self.stack["actions"][0] = root
        self.scratch = np.empty(52, dtype=np.int8)  # the kernels' work space (they allocate nothing)
        self.ctx[B_BEST] = incumbent
        self.ctx[B_BEST_LENGTH] = -1

    def _kernel(self, node_budget: int) -> int:
        st = self.stack
        return bnb_chunk(st["states"], st["layouts"], st["placed"], st["points"], st["actions"], st["bounds"],
                         st["moves"], st["move_count"], st["move_next"], st["path_keys"], self.table[0], self.table[1],
                         st["best_path"], self.ctx, self.params, self.obj, self.card_points,
                         node_budget, self.scratch)

    def _free_room(self, depth: int) -> int:
        st = self.stack
        return flush_scored(self.table[0], self.table[1], st["path_keys"], st["points"],
                            st["actions"], depth + 1)

    def best_path(self) -> list[tuple[int, int, int, int]] | None:
        """The macro-moves of the best line found by this search, or None if it is the incumbent."""
        length = int(self.ctx[B_BEST_LENGTH])
        if length < 0:
            return None
        return [tuple(int(v) for v in self.stack["best_path"][d]) for d in range(length)]

    def compile_rest(self) -> None:
        """Compile the bound of the open positions, which a search asks for only when it stops
        unproved (`runner.ChunkedSearch`)."""
        self.proven_bound()

    def proven_bound(self) -> int:
        """A value no line can beat: the best itself once finished, else also the moves not yet
        tried from the open positions (`bnb.open_bound`; the root's own bound when the search never
        started)."""
        if self.proved:
            return self.best_value
        st = self.stack
        if self.ctx[CTX_DEPTH] < 0:
            return max(self.best_value, int(position_bound(self.obj, self.card_points, st["placed"][0],
                                                           st["states"][0], st["points"][0], st["actions"][0],
                                                           self.params, self.best_value, self.scratch)))
        return int(open_bound(st["states"], st["placed"], st["points"], st["actions"], st["bounds"], st["moves"],
                              st["move_count"], st["move_next"], self.ctx, self.params, self.obj, self.card_points,
                              np.empty_like(st["states"][0]), np.empty_like(st["placed"][0]), self.scratch))


ROOM_KEPT = 0.75  # making room, the best-first search keeps at most this share of its nodes
ROOM_ROUNDS = 4
ROOM_TIMED_NODES = 1_000_000  # `BestFirst._room_fits` learns from making room among this many nodes or more
# ... and until it has, it takes making room to cost this a stored node: the first time a process
# made room was free to its judgement, and `harmony` seed 36 at 8 GB, in a process that had made
# none, made room among 67 M nodes 56.5 s into its 60 s and took 8.2 s (0.12 us a node)
ROOM_SECONDS_PER_NODE_UNTIMED = 0.2e-6
# The best-first search's table may grow within this share of the memory: with the growth's room
# (the old table lives beside the new one while it grows) and the stack's, that is a final table of
# a power of two entries that fills 18% to 35% of the memory; the nodes take the rest. The growth
# is over long before the nodes fill their share. Measured on classic-draw3 seeds 10, 19 and 145
# at 512 MB (8 M entries, 7.8 M nodes): proved in 18.6 s, 24.8 s and 27.0 s, against 35.4 s,
# 48.8 s and 49.2 s with a table half the size and more nodes; with half the memory each
# (before), `best` proved seed 10 in 52.4 s and neither of the others within 60 s.
TABLE_BUDGET = 0.7

# Partial expansion (A* for the fewest actions; `bestfirst.best_first_chunk`): a child whose
# bound lies more than this many actions above its parent's is not stored, and the parent goes
# back into the heap at the best such child's bound, to be expanded again if the search gets
# there. A* never expands a child whose bound lies beyond the optimum, but storing it (table, talon
# table, node, heap, fresh pages) takes time and memory; with draw 1 and unlimited passes a child
# that draws much of the stock lies far above its parent. Nodes only expand again where
# they lie more than this far below the optimum, and the search has few of those: each action of
# bound holds about 1.4 times the children of the one before (docs/MEASUREMENTS.md).
DEFER_SLACK = 8
TALON_TABLE_SHARE = 1 / 16  # of the memory budget, for the table of talon positions (`BestFirst`)
# The table of talon positions starts at this many entries (16 MB) and doubles to keep at least
# TALON_ENTRIES_PER_NODE entries for each node stored, up to its share. Its probes land anywhere
# in it, so a table made whole at the start took fresh pages all over it even in a short search
# (`ksolve-draw3` seed 6 at 8 GB, a table of 512 MB: 0.12-0.14 s instead of 0.08 s); but in a long
# one a larger table cuts more (`ksolve-draw1` seed 14 at 8 GB: 108 M children with 512 MB,
# 134 M with 128 MB).
FIRST_TALON_ENTRIES = 1 << 20
TALON_ENTRIES_PER_NODE = 4
STACK_RESERVE = 4096  # levels of the state stack kept room for: a line is never that many macro-moves


SHARED_NODES = 4096  # at most this many open nodes handed from one thread to another at a time
# Children each thread searches in a round, at most, before the threads meet to pool what they found
# and share work (about 15-20 ms). The first thread to end its part ends the round for all
# (`bestfirst.ROUND_OVER`), so none waits for the others.
ROUND_NODES = 25_000


class _Lane:
    """What one thread of a best-first search has of its own: its state stack, heap, context and
    work space (`BestFirst`)."""

    def __init__(self, stack: dict[str, np.ndarray], heap_keys: np.ndarray, ctx: np.ndarray):
        self.stack, self.heap_keys, self.ctx = stack, heap_keys, ctx
        self.scratch = np.empty(52, dtype=np.int8)
        self.moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
        # an expansion's children, one row a move, in the kernels' order (`bestfirst.play_children`),
        # and the parent's hashes they are keyed from
        self.children = {"states": np.empty((MAX_MOVES, STATE_SIZE), dtype=np.int8),
                         "placed": np.empty((MAX_MOVES, 52), dtype=np.int8),
                         "actions": np.empty(MAX_MOVES, dtype=np.int64),
                         "points": np.empty(MAX_MOVES, dtype=np.int64),
                         "keys": np.empty(MAX_MOVES, dtype=np.uint64),
                         "free_keys": np.empty(MAX_MOVES, dtype=np.uint64),
                         "parent_hashes": np.empty(LAYOUT_HASHES, dtype=np.uint64)}
        self.talon_costs = np.zeros(TALON_CACHE_ENTRIES, dtype=np.uint64)  # `objective.cached_talon_actions`


_POOL: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    """The threads that run the best-first searches' other lanes, started once per process (the
    kernels release Python's lock: `jitcache.kernel`)."""
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=MAX_THREADS - 1, thread_name_prefix="best-first"))
    return _POOL[0]


def default_threads() -> int:
    """The threads a best-first search may use here: the cores this process may run on, at most
    MAX_THREADS."""
    return max(1, min(MAX_THREADS, free_cores()))


class BestFirst(OptimalSearch):
    """One resumable best-first optimal search (`bestfirst.best_first_chunk`): the same answers
    as `BranchAndBound`, found in bound order. Its table takes a fifth to a third of the memory
    budget (`TABLE_BUDGET`), its table of talon positions a sixteenth at most (`TALON_TABLE_SHARE`;
    it grows with the nodes), its nodes and heap the rest. When the nodes are all used it frees
    those it no longer needs and, if that is not enough, drops the open nodes of lowest bound: its
    answer is then a proof only if its best line reaches their bound.

    With `threads` > 1 the kernel runs on that many threads at once, in rounds (`_run_lanes`):
    one heap, stack and context each (`_Lane`), the nodes and both tables shared (README, "How
    the solver works"). With one thread it is the same search, child for child, as before threads."""

    stack_layout = {
        "states": ((STATE_SIZE,), np.int8),
        "placed": ((52,), np.int8),
        "path_nodes": ((), np.int32),
    }
    context_size = F_CTX_SIZE
    # A node's fields lie side by side in one 32-byte record (the kernels take them as strided
    # views), so the node that comes out of the heap, often far from the last, costs one cache
    # line, not seven (on `harmony` seeds 13 and 14, 5% and 1% less time). The heap (by slot) and
    # `compact`'s work space are arrays of their own.
    node_record = np.dtype([("key", np.uint64), ("parent", np.int32), ("actions", np.int32), ("points", np.int32),
                            ("move", np.int16, (4,)), ("depth", np.int16), ("tight", np.int8)], align=True)
    node_work = {"heap_keys": np.int64, "remap": np.int32}
    talon_dtypes = (np.uint64, np.int64)  # key XOR info, info (`tt.talon_store`)

    def __init__(self, origin: Game, rules: Ruleset, incumbent: int, no_win: bool,
                 memory_mb: int = BEST_MEMORY_MB, threads: int = 1, greedy: int = 0,
                 defer_slack: int | None = DEFER_SLACK):
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if greedy and rules.scoring is not None:
            raise ValueError("a greedy best-first search is for the fewest actions only")
        self.lanes: list[_Lane] = []  # before the stack is made: `_allocate_stack` grows theirs too
        super().__init__(memory_mb * TABLE_BUDGET)
        node_bytes = self.node_record.itemsize + sum(np.dtype(dtype).itemsize for dtype in self.node_work.values())
        stack_bytes = threads * min(self.max_stack_bytes, STACK_RESERVE * self._level_bytes())
        # A visit of a position but for a waste of fewer cards, from which drawing reaches this
        # one with no more actions and no card going up, dominates it (`tt.talon_dominated`).
        self.max_talon_entries = 1 << max(10, int(memory_mb * (1 << 20) * TALON_TABLE_SHARE / 16).bit_length() - 1)
        # key and info side by side, as in the main table: the probe of a child, fetched ahead
        # (`bestfirst.play_children`), then waits for one cache line
        self.talon_records = GrowingRecords(self.talon_dtypes, min(FIRST_TALON_ENTRIES, self.max_talon_entries),
                                            self.max_talon_entries)
        self.talon_keys, self.talon_info = self.talon_records.columns
        nodes_budget = int(memory_mb * (1 << 20)) - self.max_table_entries * self.entry_bytes - stack_bytes - \
            self.max_talon_entries * 16
        # at most the node numbers a heap key holds (`bestfirst.heap_key`): 2 GB keep about 28 M
        capacity = min(max(4 * threads * MAX_MOVES, nodes_budget // node_bytes), 1 << NODE_NUMBER_BITS)
        # np.empty takes address space only: pages are used as nodes are stored
        records = np.empty(capacity, dtype=self.node_record)
        self.nodes_of = {name: records[name] for name in self.node_record.names}
        self.nodes_of.update({name: np.empty(capacity, dtype=dtype) for name, dtype in self.node_work.items()})
        self.counter = np.zeros(COUNTER_SIZE, dtype=np.int64)  # the nodes stored (`bestfirst.NODE_COUNT`)
        root = _root_search(origin, rules, no_win, self.stack["states"][0], self.stack["placed"][0])
        self.params, self.obj, self.card_points, root_points, root_actions = root
        # greedy > 1 (the fewest actions only): weighted A*, which stops at its first line better than
        # the incumbent; fast, but its line need not be the best and it proves nothing
        self.greedy = greedy
        self.obj[OBJ_GREEDY] = greedy
        if defer_slack is not None and rules.scoring is None and not greedy:
            self.obj[OBJ_DEFER_SLACK] = defer_slack
        # Each thread has its own stack, heap, context and work space; the nodes, both tables and
        # the node counter are shared (`bestfirst`, `tt`). The first thread's stack and context
        # are the search's own. A thread's heap holds the nodes it stored or was handed
        # (`_share_work`): the heaps of the threads after the first take address space only, and
        # pages as they fill, so they share the nodes' memory.
        first = _Lane(self.stack, self.nodes_of["heap_keys"], self.ctx)
        self.lanes.append(first)
        self.ctx[B_BEST] = incumbent
        self.ctx[F_BEST_NODE] = -1
        self.ctx[F_DROPPED] = NEVER
        self.ctx[F_NODE_MARGIN] = 2 * MAX_MOVES * threads  # each thread's expansion may store two nodes a child
        best_first_start(*self._arrays(first), root_points, root_actions, first.scratch, first.moves[0, :4],
                         self.counter)
        for _ in range(1, threads):  # each starts at the root, its stack's first row
            stack = {name: rows.copy() for name, rows in self.stack.items()}
            lane = _Lane(stack, np.empty(capacity, dtype=np.int64), self.ctx.copy())
            lane.ctx[F_HEAP_SIZE] = 0
            self.lanes.append(lane)
        self.lane_nodes = [0] * threads  # the children each thread searched (with one thread: not kept)
        self.nodes_full = False  # no room could be made
        self.compactions = 0

    def _allocate_stack(self, depth: int) -> None:
        super()._allocate_stack(depth)
        for lane in self.lanes[1:]:
            for name, rows in lane.stack.items():
                grown = np.zeros((depth + 1, *rows.shape[1:]), dtype=rows.dtype)
                grown[: rows.shape[0]] = rows
                lane.stack[name] = grown

    def _arrays(self, lane: _Lane) -> tuple:
        st, nd = lane.stack, self.nodes_of
        return (st["states"], st["placed"], st["path_nodes"], nd["parent"], nd["move"], nd["actions"], nd["points"],
                nd["depth"], nd["key"], nd["tight"], lane.heap_keys, self.table[0], self.table[1], lane.ctx,
                self.params, self.obj, self.card_points)

    def _new_table(self, entries: int) -> list[np.ndarray]:
        # Reserved for the largest table the memory allows (the nodes have the rest: `__init__`) and
        # grown in place (`_grow_table`). The depth-first search's table is not: its searches run
        # beside this one (`best`'s improver and dives), and a reserve of the whole budget for each
        # would take more address space than a `batch` worker is allowed (RLIMIT_AS, `--memory`).
        self.table_reserve = GrowingRecords(self.table_dtypes, entries, self.max_table_entries)
        self.wrapped_spare = GrowingRecords(self.table_dtypes, WRAPPED_SPARE, WRAPPED_SPARE).columns
        return self.table_reserve.columns

    def _move_in_place(self, old_size: int) -> int:
        return grow_scored_in_place(*self.table, old_size, *self.wrapped_spare)

    def _rehash(self, old, new) -> int:
        # Growing the table stops the search: all its threads take a part of the old table, as
        # each spends the time (harmony seed 147: 3.5 s of a 30 s search, the last doubling 1.8 s).
        size, parts = old[0].shape[0], len(self.lanes)
        bounds = [size * part // parts for part in range(parts + 1)]
        others = [_pool().submit(rehash_scored_part, *old, *new, bounds[part], bounds[part + 1])
                  for part in range(1, parts)]
        return rehash_scored_part(*old, *new, bounds[0], bounds[1]) + sum(future.result() for future in others)

    def _run_lane(self, lane: _Lane, node_budget: int) -> int:
        return best_first_chunk(*self._arrays(lane), node_budget, lane.scratch, lane.moves, self.talon_keys,
                                self.talon_info, *lane.children.values(), lane.talon_costs, self.counter)

    def _grow_talon_table(self) -> None:
        """Double the table of talon positions (more than once if need be) while it has fewer than
        TALON_ENTRIES_PER_NODE entries for each node stored, up to its share of the memory."""
        entries = self.talon_keys.shape[0]
        wanted = min(self.max_talon_entries, TALON_ENTRIES_PER_NODE * self.stored_nodes)
        if wanted <= entries:
            return
        size = 1 << (wanted - 1).bit_length()
        if not self._growth_fits(size):
            return  # a smaller table only cuts fewer visits; a late growth overran the deadline
        started = time.perf_counter()
        old = self.talon_keys.shape[0]
        self.talon_keys, self.talon_info = self.talon_records.grow(size)
        grow_talon_in_place(self.talon_keys, self.talon_info, old)
        self._note_growth(started, size)  # its records are as large as the main table's

    def _kernel(self, node_budget: int) -> int:
        self._grow_talon_table()  # between rounds: no thread is using it
        self.counter[ROUND_OVER] = 0  # raised as the last round ended (`bestfirst.ROUND_OVER`)
        if len(self.lanes) == 1:
            status = self._run_lane(self.lanes[0], node_budget)
        else:
            status = self._run_lanes(node_budget)
        if status == NODES_FULL:
            if not self._room_fits():
                self.out_of_time = True
                return RUNNING
            if self._make_room():
                return RUNNING
            self.nodes_full = True
        return status

    # The slowest `_make_room` of this process so far, in seconds per stored node (of those with at
    # least ROOM_TIMED_NODES: a small one is mostly fixed costs), or None before the first. On
    # `harmony` seed 36 each took 4-5 s, and one begun late ran the search 5 s past a 60 s limit.
    slowest_room_seconds_per_node: float | None = None

    def _room_fits(self) -> bool:
        """True if making room should end before the deadline, at the slowest speed seen (before
        any, at ROOM_SECONDS_PER_NODE_UNTIMED)."""
        if self.deadline is None:
            return True
        per_node = BestFirst.slowest_room_seconds_per_node
        seconds = (ROOM_SECONDS_PER_NODE_UNTIMED if per_node is None else per_node) * self.stored_nodes
        return time.perf_counter() + seconds <= self.deadline

    def _run_lanes(self, node_budget: int) -> int:
        """One round of every thread side by side, each with its share of `node_budget`; then what
        they found is pooled in the first thread's context, and the threads left without work at
        the highest bound are handed some (`_share_work`). Returns the status that asks the most of
        the caller: a full table or stack, full nodes, and EXHAUSTED only once every thread is."""
        first = self.lanes[0]
        table_count, table_limit = int(first.ctx[CTX_TABLE_COUNT]), int(first.ctx[CTX_TABLE_LIMIT])
        share = max(1, min(ROUND_NODES, node_budget // len(self.lanes)))
        searched = []
        for lane in self.lanes:
            if lane is not first:
                for slot in (B_BEST, F_BEST_NODE, CTX_CAN_GROW_STACK):
                    lane.ctx[slot] = first.ctx[slot]
            # the table's room left, split between the threads
            lane.ctx[CTX_TABLE_COUNT] = table_count
            lane.ctx[CTX_TABLE_LIMIT] = table_count + (table_limit - table_count) // len(self.lanes)
            searched.append(int(lane.ctx[CTX_NODES]))
        others = [_pool().submit(self._run_lane, lane, share) for lane in self.lanes[1:]]
        statuses = [self._run_lane(first, share)] + [future.result() for future in others]
        for index, (lane, before) in enumerate(zip(self.lanes, searched)):
            self.lane_nodes[index] += int(lane.ctx[CTX_NODES]) - before
        first.ctx[CTX_TABLE_LIMIT] = table_limit
        first.ctx[CTX_TABLE_COUNT] = table_count + sum(int(lane.ctx[CTX_TABLE_COUNT]) - table_count
                                                       for lane in self.lanes)
        for lane, before in zip(self.lanes[1:], searched[1:]):
            first.ctx[CTX_NODES] += lane.ctx[CTX_NODES] - before
            lane.ctx[CTX_NODES] = before
            first.ctx[F_TALON_DOMINATED] += lane.ctx[F_TALON_DOMINATED]
            lane.ctx[F_TALON_DOMINATED] = 0
            first.ctx[F_DROPPED] = max(first.ctx[F_DROPPED], lane.ctx[F_DROPPED])
            if lane.ctx[B_BEST] > first.ctx[B_BEST]:
                first.ctx[B_BEST], first.ctx[F_BEST_NODE] = lane.ctx[B_BEST], lane.ctx[F_BEST_NODE]
        for urgent in (TABLE_FULL, STACK_FULL, NODES_FULL):
            if urgent in statuses:
                return urgent
        if all(status == EXHAUSTED for status in statuses):
            return EXHAUSTED
        self._share_work()
        return RUNNING

    def _share_work(self) -> None:
        """Hand a thread whose heap is empty, or whose highest bound is below another's, the top
        nodes of the heap with the highest bound (half of them, at most SHARED_NODES): then every
        thread works at the highest bounds, where best-first wants the work done."""
        best = self.best_value

        def top(lane: _Lane) -> int:
            size = int(lane.ctx[F_HEAP_SIZE])
            return int(key_bound(lane.heap_keys[0])) if size else NEVER

        for lane in self.lanes:
            richest = max(self.lanes, key=top)
            if top(richest) <= best or top(lane) >= top(richest):
                continue
            count = min(int(richest.ctx[F_HEAP_SIZE]) // 2, SHARED_NODES)
            if count > 0:
                move_heap_top(richest.heap_keys, richest.ctx, lane.heap_keys, lane.ctx, count)

    def _make_room(self) -> bool:
        """Free nodes (`bestfirst.compact`): those no open node needs, then, while more than
        ROOM_KEPT of them are left, the open nodes of the lower half of the bounds. True if
        enough room was made to go on. With several threads, their heaps are made one first, and
        dealt out again after."""
        started, stored = time.perf_counter(), self.stored_nodes
        nd = self.nodes_of
        first = self.lanes[0]
        self._pool_heaps()
        capacity = nd["parent"].shape[0]
        drop_key = heap_key(self.best_value + 1, 0, 0) - 1  # a node bounded by the best line so far is no use
        for _ in range(ROOM_ROUNDS):
            left = compact(nd["parent"], nd["move"], nd["actions"], nd["points"], nd["depth"], nd["key"], nd["tight"],
                           nd["remap"], first.heap_keys, first.stack["path_nodes"], first.ctx, drop_key, self.counter)
            self.compactions += 1
            if left <= capacity * ROOM_KEPT or self.open_nodes == 0:
                break
            # the lower half by heap key: by bound, and among equal bounds the nodes stored first
            drop_key = int(np.median(first.heap_keys[:self.open_nodes]))
        self._deal_heaps()
        if stored >= ROOM_TIMED_NODES:
            BestFirst.slowest_room_seconds_per_node = max(BestFirst.slowest_room_seconds_per_node or 0.0,
                                                          (time.perf_counter() - started) / stored)
        return self.stored_nodes + 4 * len(self.lanes) * MAX_MOVES < capacity and self.open_nodes > 0

    def _pool_heaps(self) -> None:
        """Put every thread's open nodes into the first thread's heap array (not yet a heap:
        `compact` makes it one again)."""
        first = self.lanes[0]
        size = int(first.ctx[F_HEAP_SIZE])
        for lane in self.lanes[1:]:
            count = int(lane.ctx[F_HEAP_SIZE])
            first.heap_keys[size:size + count] = lane.heap_keys[:count]
            size += count
            lane.ctx[F_HEAP_SIZE] = 0
        first.ctx[F_HEAP_SIZE] = size

    def _deal_heaps(self) -> None:
        """Deal the first thread's heap out to every thread again, highest keys first in turn (a
        sorted array is a heap); the stacks name no node any longer (`compact` renumbered them)."""
        first = self.lanes[0]
        for lane in self.lanes[1:]:
            lane.ctx[F_BEST_NODE] = first.ctx[F_BEST_NODE]
            lane.ctx[F_DROPPED] = first.ctx[F_DROPPED]
            lane.stack["path_nodes"][0] = 0
            lane.ctx[CTX_DEPTH] = 0
        if len(self.lanes) == 1:
            return
        size = int(first.ctx[F_HEAP_SIZE])
        ordered = np.sort(first.heap_keys[:size])[::-1]
        for index, lane in enumerate(self.lanes):
            dealt = ordered[index::len(self.lanes)]
            lane.heap_keys[:dealt.shape[0]] = dealt
            lane.ctx[F_HEAP_SIZE] = dealt.shape[0]

    def compile_rest(self) -> None:
        """Compile the kernels that make room and hand work between threads (`runner.ChunkedSearch`)."""
        self._make_room()
        # a growth to the same size: nothing moves
        grow_talon_in_place(self.talon_keys, self.talon_info, self.talon_keys.shape[0])
        first = self.lanes[0]
        move_heap_top(first.heap_keys, first.ctx, first.heap_keys, first.ctx, 0)

    @property
    def proved(self) -> bool:
        """True if the search is over and no dropped node could beat its best line (never for a
        greedy search)."""
        return not self.greedy and self.status == EXHAUSTED and self.best_value >= int(self.ctx[F_DROPPED])

    def _free_room(self, depth: int) -> int:
        # Empties the table. Only duplicates are lost: an open node without an entry is expanded
        # when it comes out; no path needs keeping, as the nodes hold their own.
        for column in self.table:
            column[:] = 0
        return 0

    @property
    def open_nodes(self) -> int:
        """Nodes waiting to be expanded (in every thread's heap)."""
        return sum(int(lane.ctx[F_HEAP_SIZE]) for lane in self.lanes)

    @property
    def stored_nodes(self) -> int:
        """Nodes stored so far (open, expanded, or ends of lines)."""
        return int(self.counter[NODE_COUNT])

    def raise_floor(self, incumbent: int) -> None:
        """A line worth `incumbent` was found by another search: from now on no child that cannot
        beat it is stored, and the search proves that line the best if nothing beats it (as if
        it had started from it). A lower value changes nothing."""
        if incumbent > self.best_value:
            self.ctx[B_BEST] = incumbent
            self.ctx[F_BEST_NODE] = -1  # the best line is the incumbent, kept by the caller

    def best_path(self) -> list[tuple[int, int, int, int]] | None:
        """The macro-moves of the best line found by this search, or None if it is the incumbent."""
        node = int(self.ctx[F_BEST_NODE])
        return None if node < 0 else self._path_to(node)

    def _path_to(self, node: int) -> list[tuple[int, int, int, int]]:
        """The macro-moves from the root to a stored node."""
        parent, move = self.nodes_of["parent"], self.nodes_of["move"]
        path = []
        while parent[node] >= 0:
            path.append(tuple(int(v) for v in move[node]))
            node = int(parent[node])
        return path[::-1]

    def frontier_paths(self, count: int, round_number: int = 0) -> list[list[tuple[int, int, int, int]]]:
        """The macro-moves to at most `count` open nodes of high bound, spread from the highest
        down over the tops of the threads' heaps (FRONTIER_CANDIDATES slots of each: a parent's
        key is never below its children's, so they hold the highest keys without sorting the
        whole heap, which takes seconds at tens of millions of nodes): where `best`'s dives
        start. Rounds 1, 2, ... give other nodes of the same spread, none given before (the
        candidates next to those of round 0), and none once every candidate has been given."""
        tops = [lane.heap_keys[:min(int(lane.ctx[F_HEAP_SIZE]), FRONTIER_CANDIDATES)] for lane in self.lanes]
        ordered = np.sort(np.concatenate(tops))[::-1]
        stride = max(1, len(ordered) // max(1, count))
        if round_number >= stride:
            return []
        return [self._path_to(int(key_node(key))) for key in ordered[round_number::stride][:count]]

    def proven_bound(self) -> int:
        """A value no line can beat: the best itself once proved, else the highest bound of an open
        or dropped node (every line not yet searched runs through one), or the best if higher. A
        greedy search's keys are no bounds: it proves no limit (NO_CEILING)."""
        if self.greedy:
            return NO_CEILING
        if self.proved:
            return self.best_value
        limit = max(self.best_value, int(self.ctx[F_DROPPED]))
        for lane in self.lanes:
            if lane.ctx[F_HEAP_SIZE]:
                limit = max(limit, int(key_bound(lane.heap_keys[0])))
        return limit


def best(deal: Deal, rules: Ruleset, max_nodes: int | None = None, time_limit: float | None = None,
         memory_mb: int = BEST_MEMORY_MB, start: Position | None = None, game: Game | None = None,
         progress=None, best_first: bool = True, threads: int = 1, verdict: Result | None = None) -> BestResult:
    """The best line for the deal under `rules`, with its proven bound.

    It starts from the deal, from the position `start`, or from a game in progress (`game`: its
    clock, points and placed cards count, so values are those of the whole game). The line and
    `actions` are the continuation; `score` is the whole game's. `best_first=False` skips the
    best-first search and goes depth-first at once (for comparisons and tests). `threads` is how
    many threads the best-first search runs (`BestFirst`; `default_threads()` is what this machine
    has); the depth-first searches run in one. `verdict` is an answer `solve` already gave for the
    same deal and rules from the deal's start: its line (or proof of loss) is used instead of
    searching again (`batch --best`).
    """
    check_request(deal, rules, start, max_nodes, time_limit, memory_mb)
    if game is not None:
        if start is not None:
            raise KlondikeError("give best() a start position or a game in progress, not both")
        if not isinstance(game, Game) or game.deal != deal or game.rules != rules:
            raise KlondikeError("a game in progress given to best() must be a Game of the same deal and rules")
    if not (is_whole_number(threads) and threads >= 1):
        raise KlondikeError(f"threads must be a whole number >= 1, got {threads!r}")
    if verdict is not None and (not isinstance(verdict, Result) or verdict.deal != deal or verdict.rules != rules
                                or start is not None or game is not None):
        raise KlondikeError("a verdict given to best() must be solve's Result for the same deal and rules, "
                            "from the deal's start")
    # On a cold cache the depth-first search compiles in a second process meanwhile (`precompile`).
    compile_in_second_process("optimal")
    for name in ("winnability", "best-first", "optimal"):
        compile_search(name)
    began = time.perf_counter()
    # The searches leave the last moments to cutting detours out of a line not proved best.
    search_limit = None if time_limit is None else time_limit - min(DETOUR_MOST_SECONDS, time_limit / DETOUR_SHARE)

    def time_left() -> float:
        """Of the searches' time, what is left."""
        return max(0.0, search_limit - (time.perf_counter() - began))

    origin = game if game is not None else Game(deal, rules, start, check=False)  # checked above
    if actions_within_limit(rules, origin.actions) < origin.actions:
        # Past the 300 s limit nothing more counts: the game is worth what it had then.
        return _result(deal, rules, origin, origin, None, True, "unknown", 0, began, None)
    position = origin.position
    incumbent_share = INCUMBENT_SHARE if rules.scoring is not None else FEWEST_INCUMBENT_SHARE
    share_nodes = None if max_nodes is None else max(1, max_nodes // incumbent_share)
    share_time = None if time_limit is None else time_limit / incumbent_share
    nodes = 0  # a verdict given was searched, and paid for, by the caller
    if verdict is None:
        verdict = solve(deal, rules, max_nodes=share_nodes, time_limit=share_time, memory_mb=memory_mb,
                        start=position, progress=progress)
        nodes = verdict.nodes
    incumbent = line_module.continue_game(origin, verdict.path if verdict.result == "win" else [])
    no_win = verdict.result == "loss"
    ceiling = None  # no line is worth more than this (proven by an earlier search), if known

    def run(search: OptimalSearch, fraction: float = 1.0, most_nodes: int | None = None,
            start: Game = origin) -> str | None:
        """Run a search on `fraction` of the budgets left (and at most `most_nodes` nodes), keep
        its line (a better one than the incumbent; the search began at `start`, on the way from
        `origin`), and return the budget that ran out, as `run_within`."""
        nonlocal nodes, incumbent
        share_nodes = max_nodes
        if max_nodes is not None and fraction < 1:
            share_nodes = nodes + max(1, int((max_nodes - nodes) * fraction))
        if most_nodes is not None:
            share_nodes = nodes + most_nodes if share_nodes is None else min(share_nodes, nodes + most_nodes)
        share_time = None if time_limit is None else time_left() * fraction
        searched_before = search.nodes  # a search resumed has counted its nodes so far already
        reason = search.run_within(time.perf_counter(), nodes - searched_before, share_nodes, share_time, progress)
        nodes += search.nodes - searched_before
        if search.best_path() is not None:
            incumbent = _checked_line(start, search)
        return reason

    def improve_greedily(share: float) -> None:
        """Weighted A* again and again on `share` of the budgets left, each run from the line the
        one before found: a run stops at its first line shorter than the incumbent, most often by
        an action or two, so a chain of short runs shortens a poor line most in the time."""
        time_end = None if time_limit is None else time_left() * (1 - share)
        nodes_end = None if max_nodes is None else nodes + (max_nodes - nodes) * share
        while True:
            fraction = 1.0  # of the budgets left, the part still the chain's
            if time_end is not None:
                left = time_left()  # read once: it could reach 0 between a test and a division
                fraction = min(fraction, 1 - time_end / left if left > 0 else 0.0)
            if nodes_end is not None:
                fraction = min(fraction, (nodes_end - nodes) / (max_nodes - nodes) if max_nodes > nodes else 0.0)
            if fraction <= 0:
                return
            before = line_value(incumbent)
            run(BestFirst(origin, rules, before, no_win, memory_mb, threads, greedy=GREEDY_WEIGHT), fraction)
            if line_value(incumbent) <= before:
                return

    def answer(bound: int, optimal: bool, reason: str | None) -> BestResult:
        nonlocal incumbent
        if not optimal and line_value(incumbent) < bound:
            incumbent = cut_detours(origin, incumbent, line_value, None if time_limit is None else began + time_limit)
        if not optimal and line_value(incumbent) >= bound:  # a dive's line, or one cut of its detours, reaches it
            optimal, reason = True, None
        final = _stop_at_time_limit(origin, incumbent)
        winnable = verdict.result
        if winnable == "unknown" and final.won:
            winnable = "win"
        elif winnable == "unknown" and optimal and rules.scoring is None:
            # the fewest actions rank every win above every stop, so a stop proved best means no
            # line wins (with scoring a stop can outscore a win that ends past the 300 s cut)
            winnable = "loss"
        return _result(deal, rules, origin, final, bound, optimal, winnable, nodes, began, reason)

    # Unless the deal is proved lost, best-first goes first: it makes the proofs, and a depth-first
    # search that improves the incumbent before it only delays the easy ones. For the fewest
    # actions, A*'s first line is the shortest (`classic-draw3` seed 6, unlimited passes,
    # foundation->tableau: 1.2 s with the depth-first search first, 0.15 s without); if it has not
    # proved the optimum within eleven twelfths of the budgets, the last twelfth goes to shortening
    # the line (`FEWEST_IMPROVE_SHARE`). With scoring, best-first alone gets the first thirtieth
    # (`FIRST_LOOK_SHARE`: 2 s of 60, where most deals are proved); if it has not proved the optimum
    # by then, the depth-first search improves the incumbent for as long, and best-first goes on
    # from where it was with that line as its floor, storing no child that cannot beat it
    # (`BestFirst.raise_floor`). The floor matters on long searches: `harmony` seed 42 took 52-54 s
    # with 2 s of depth-first search first, 61-64 s with none. If best-first has still not proved
    # the optimum by the last thirtieth, that thirtieth goes to dives from its open nodes
    # (`dive_from_frontier`). Where the winnability search found
    # no answer, best-first finds the best line or, searching every position a better one is not
    # ruled out from, proves the incumbent best.
    best_first_first = verdict.result != "loss"
    shortens_at_the_end = best_first_first and rules.scoring is None  # the last twelfth, see above

    def improve_depth_first(fraction: float) -> BestResult | None:
        """The depth-first search against the incumbent on `fraction` of the budgets left (it
        improves a poor line within seconds, where best-first finds no line until it reaches the
        best one): its answer if it proved the incumbent best, else None, with its bound kept."""
        nonlocal ceiling
        improver = BranchAndBound(origin, rules, line_value(incumbent), no_win, memory_mb)
        run(improver, fraction)
        if improver.proved:
            return answer(improver.best_value, True, None)
        ceiling = min(ceiling, improver.proven_bound())
        return None

    def dive_from_frontier(search: BestFirst) -> None:
        """Depth-first searches against the incumbent from open nodes of best-first's highest
        bounds, on all of the budgets left, DIVE_NODES nodes each at most: best-first has made the
        early choices that lead towards its bound, and a dive finishes such a line; the search
        from the root keeps the early choices of its first line, which make it poor (`harmony`
        seed 104, 60 s: 86,900 points without dives, 94,550 with them; bound 98,000). Where
        the dives of a round leave budget unspent (each ends at DIVE_NODES, or once it has
        searched all below its node), the rest goes to a round from other open nodes, until the
        budgets run out (with neither set, one round). They stop once a line reaches the bound."""
        for round_number in itertools.count():
            starts = search.frontier_paths(DIVES, round_number)
            for done, path in enumerate(starts):
                if ((time_limit is not None and time_left() <= 0) or (max_nodes is not None and nodes >= max_nodes)
                        or line_value(incumbent) >= ceiling):
                    return
                start = line_module.continue_game(origin, path)
                dive = BranchAndBound(start, rules, line_value(incumbent), no_win, memory_mb)
                run(dive, 1 / (len(starts) - done), DIVE_NODES, start)
            if not starts or (time_limit is None and max_nodes is None):
                return

    if best_first:
        ceiling = NO_CEILING
        # A deal proved lost: the depth-first search first finds its best stop fast.
        if not best_first_first and (proved := improve_depth_first(1 / IMPROVE_SHARE)) is not None:
            return proved
        # Then best-first, making room among its nodes as it goes; if it ends without a proof
        # (it dropped open nodes its best line does not reach, or could make no room),
        # depth-first again below the bound it proved.
        search = BestFirst(origin, rules, line_value(incumbent), no_win, memory_mb, threads)
        if shortens_at_the_end:
            reason = run(search, 1 - 1 / FEWEST_IMPROVE_SHARE)
        elif not best_first_first:
            reason = run(search, 1 - 1 / DIVE_SHARE)
        else:
            reason = run(search, 1 / FIRST_LOOK_SHARE)
            if reason is not None and not search.proved:
                # as long as best-first's first look: 2 s of 60
                if (proved := improve_depth_first(1 / (FIRST_LOOK_SHARE - 1))) is not None:
                    return proved
                search.raise_floor(line_value(incumbent))
                reason = run(search, 1 - 1 / DIVE_SHARE)
        ceiling = min(ceiling, search.proven_bound())
        if search.proved:
            return answer(ceiling, True, reason)
        if reason is not None and not shortens_at_the_end:
            # With scoring, the last thirtieth goes to finishing lines best-first has begun.
            dive_from_frontier(search)
            return answer(ceiling, False, reason)  # optimal if a dive's line reaches the bound
        del search
        if shortens_at_the_end:
            # A* found no line in time, so the incumbent is still the winnability line, often far
            # longer than the best (or none, where the winnability search found no answer).
            # Weighted A* finds a much shorter one in a fraction of a second (`ksolve-draw1` seed
            # 16: 129 actions in 0.4 s, where the depth-first search improved 185 to 163 in 2 s),
            # and again from that one: four fifths of what is left go to it, the rest to the
            # depth-first search below, which starts from its line.
            improve_greedily(GREEDY_SHARE)
    last = BranchAndBound(origin, rules, line_value(incumbent), no_win, memory_mb)  # its root bound first
    root_bound = last.proven_bound() if ceiling is None else min(ceiling, last.proven_bound())
    for floor in aspiration_floors(root_bound, line_value(incumbent))[:-1]:
        if floor <= line_value(incumbent):
            continue  # an earlier search found a line worth this much
        # Each aspiration search gets a share of what is left, so that the search against the
        # incumbent always runs: it is the one that improves a poor line.
        search = BranchAndBound(origin, rules, floor, no_win, memory_mb)
        run(search, 1 / ASPIRATION_BUDGET_SHARE)
        if search.proved and search.best_path() is not None:
            return answer(search.best_value, True, None)  # the best line of all: nothing above the floor beats it
        if search.proved:
            ceiling = floor  # no line above the floor at all
    search = last if last.best_value == line_value(incumbent) else BranchAndBound(origin, rules, line_value(incumbent),
                                                                                   no_win, memory_mb)
    reason = run(search)
    bound = search.proven_bound() if ceiling is None else min(ceiling, search.proven_bound())
    return answer(bound, search.proved, None if search.proved else (reason or "stack depth"))


def _checked_line(origin: Game, search: OptimalSearch) -> Game:
    """The best line a search found, played by the reference engine, which must value it alike."""
    line = line_module.continue_game(origin, search.best_path())
    if line_value(line) != search.best_value:
        raise line_module.SolverBug(f"the engine values the best line at {line_value(line)}, "
                                    f"the search at {search.best_value}")
    return line


# With scoring, best-first alone gets the first thirtieth of the budgets (2 s of 60), and the
# depth-first search that improves the incumbent as long after it, only if best-first has not
# proved the optimum by then. On `harmony` that search gains most of what it gains in 6 s within
# 2 s (seeds 6, 8, 10, 23, 36: 0 to 750 points less). Where the deal is proved lost, it goes first,
# for a thirtieth (`IMPROVE_SHARE`).
FIRST_LOOK_SHARE = 30
IMPROVE_SHARE = 30
# With scoring, where best-first has not proved the optimum by the last thirtieth of the budgets,
# that thirtieth goes to dives (`best.dive_from_frontier`): depth-first searches against the
# incumbent from DIVES open nodes of high bound, DIVE_NODES nodes each at most (about 0.1 s). On
# `harmony` seeds 1-200 at 60 s the nine deals not proved were 4,328 points short of their bounds
# on average, 1,989 with dives (104: 86,900 points to 94,550; 36: 94,000 to 98,150); no proof lost.
DIVE_SHARE = 30
DIVES = 64
DIVE_NODES = 250_000
FRONTIER_CANDIDATES = 4096  # heap slots of each thread looked at for them (`BestFirst.frontier_paths`)
# For the fewest actions A* goes first and gets all but a twelfth of the budgets; if it proves
# nothing, the twelfth goes to shortening the line it could not find: the chain of greedy searches
# (`best.improve_greedily`) gets four fifths of it, the depth-first search the rest. `ksolve-draw1`
# seeds 14, 54 and 88, not proved in 60 s: 130, 136 and 139 actions with one greedy search on half
# of the last thirtieth (as before), 118, 118 and 119 so (pyksolve's lines: 112, none, 119); with a
# sixth or a fourth, within 2 actions of that. A* loses what it would have proved in its last 5 s:
# on Klondike-Solver's rules, `classic` and `classic-draw3`, seeds 1-200, no deal in the last runs
# (docs/MEASUREMENTS.md); a sixth would have cost deals this machine proves in 50-58 s on a slow day.
FEWEST_IMPROVE_SHARE = 12
# A line not proved best has its detours cut (`detours.cut_detours`) in the last fiftieth of the
# time, a quarter of a second at most (0.25 s of 60, 0.04 s of 2; cutting took at most 0.07 s on
# `harmony` seeds 1-40 at 2 s, where it gained 300-600 points on 4 of the 26 lines not proved).
DETOUR_SHARE = 50
DETOUR_MOST_SECONDS = 0.25
GREEDY_SHARE = 0.8
GREEDY_WEIGHT = 2  # the weight of the actions still needed in the greedy search (`BestFirst`)
NO_CEILING = 1 << 62  # above every value: no bound proven yet
ASPIRATION_BUDGET_SHARE = 4  # each aspiration search gets at most a quarter of the budget left
ASPIRATION_SHARES = (16, 4)  # the first searches take on 1/16, then 1/4 of the gap, then all of it


def aspiration_floors(root_bound: int, incumbent_value: int) -> list[int]:
    """The values to beat, one search each (aspiration): first only the lines within a small part of
    the gap between the root's bound and the incumbent, then more, at last every line better than
    the incumbent.

    A search that looks only for lines above a floor cuts far more (the bound must beat the floor),
    so when the best line lies near the bound it is found and proved much sooner; a search that
    finishes without a line proves that none lies above its floor, and the next one goes lower.
    """
    gap = root_bound - incumbent_value
    floors = []
    for share in ASPIRATION_SHARES:
        floor = root_bound - max(1, gap // share)
        if incumbent_value < floor and (not floors or floor < floors[-1]):
            floors.append(floor)
    return floors + [incumbent_value]


def _result(deal: Deal, rules: Ruleset, origin: Game, final: Game, bound: int | None, optimal: bool, winnable: str,
            nodes: int, began: float, reason: str | None) -> BestResult:
    """The BestResult of a line `final` continuing `origin` (bound None: the line's own value)."""
    if bound is None:
        bound = line_value(final)
    return BestResult(
        deal=deal, rules=rules, won=final.won, line=line_module.tokens(final, since=len(origin.line)),
        actions=final.actions - origin.actions,
        score=final.score().total if rules.scoring else None,
        bound=_bound_for_people(rules, bound, origin.actions),
        stop_bound=_stop_bound_for_people(rules, bound, origin.actions),
        optimal=optimal,
        breakdown=final.score().to_json() if rules.scoring else None,
        foundation_cards=sum(final.position.foundations),
        nodes=nodes, seconds=time.perf_counter() - began,
        winnable=winnable, reason=reason, game=final)


def _stop_at_time_limit(origin: Game, final: Game) -> Game:
    """The line stopped by the 300 s limit: what comes after it does not count (RULES.md 6), so
    it is left out; stopping there scores at least as much as running past it."""
    counted = actions_within_limit(final.rules, final.actions)
    if counted == final.actions:
        return final
    game = origin.copy()
    for action in final.line[len(origin.line):]:
        if game.actions >= counted:
            break
        if not action.auto:
            game.apply(action)
    return game


def _stop_bound_for_people(rules: Ruleset, bound: int, actions_before: int) -> dict | None:
    """Without scoring, a bound that leaves no win, as the best stop it allows: the most cards up
    and, with that many, the fewest further actions (None where a win is not ruled out, or with
    scoring). The objective ranks a stop at `1000 * cards - actions`, which orders lines by cards
    first for lines under 1,000 actions (every line our searches meet): no line ranks above it."""
    if rules.scoring is not None or bound > CARD_WEIGHT * 52:
        return None
    cards = -(-bound // CARD_WEIGHT)
    if cards >= 52:
        return {"cards": 51, "actions": 0}  # all 52 up would be a win, which the bound rules out
    return {"cards": cards, "actions": max(0, CARD_WEIGHT * cards - bound - actions_before)}


def _bound_for_people(rules: Ruleset, bound: int, actions_before: int) -> int | None:
    """Scoring: the bound is a score. Fewest actions: the fewest further actions any win can
    take (None when even the bound is not a win)."""
    if rules.scoring is not None:
        return bound
    return WON_BASE - bound - actions_before if bound > CARD_WEIGHT * 52 else None
