"""Winnability: `solve()` runs the numba search on a deal under a ruleset and returns a Result.

A win always comes with its line, replayed through the reference engine before it is returned.
`loss` means the whole reachable space was explored; `unknown` means a budget (nodes, time,
stack) ran out first.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from . import line as line_module
from .deal import Deal
from .game import Game, Position
from .movegen import (MAX_MOVES, MOVE_FIELDS, PARAM_AUTO, PARAM_DRAW, PARAM_F2T, PARAM_PASS_LIMIT,
                      PARAM_PRUNE, PARAM_SIZE)
from .rules import Ruleset
from .search import (CTX_CAN_GROW_STACK, CTX_DEPTH, CTX_NODES, CTX_SIZE, CTX_TABLE_COUNT, CTX_TABLE_LIMIT,
                     CTX_TRUNCATED, EXHAUSTED, RUNNING, STACK_FULL, TABLE_FULL, WIN, search_chunk)
from .state import STATE_SIZE, encode
from .tt import ENTRY_BYTES, flush, new_table, rehash

DEFAULT_MEMORY_MB = 512
CHUNK_NODES = 100_000
FIRST_TABLE_ENTRIES = 1 << 14
TABLE_LOAD = 0.7
FIRST_STACK_DEPTH = 512
STACK_BYTES_PER_LEVEL = STATE_SIZE + MAX_MOVES * MOVE_FIELDS * 2 + 4 + 4 + 8 + 4


@dataclass
class Result:
    """The answer of a solve: `win` (with its line), `loss` (proved) or `unknown` (budget ran out)."""

    result: str
    deal: Deal
    rules: Ruleset
    line: list[str] = field(default_factory=list)
    actions: int | None = None
    nodes: int = 0
    seconds: float = 0.0
    reason: str | None = None  # for unknown: which budget ran out
    game: Game | None = None  # the engine's replay of the line (wins)
    peak_table_entries: int = 0

    def to_json(self) -> dict:
        """The JSON form of `klondike solve --json`."""
        return {
            "seed": self.deal.seed,
            "source": self.deal.source,
            "deal": self.deal.codes,
            "rules": self.rules.to_json(),
            "result": self.result,
            "line": self.line,
            "actions": self.actions,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "reason": self.reason,
        }


def search_params(rules: Ruleset, prune: bool = True) -> np.ndarray:
    """The int32 parameter array of the numba core for a ruleset."""
    params = np.zeros(PARAM_SIZE, dtype=np.int32)
    params[PARAM_DRAW] = rules.draw
    params[PARAM_PASS_LIMIT] = 0 if rules.passes is None else rules.passes
    params[PARAM_F2T] = int(rules.foundation_to_tableau)
    params[PARAM_AUTO] = int(rules.auto_play)
    params[PARAM_PRUNE] = int(prune)
    return params


class Search:
    """One resumable depth-first search; owns the arrays the numba kernel works on."""

    def __init__(self, position: Position, rules: Ruleset, memory_mb: int = DEFAULT_MEMORY_MB, prune: bool = True):
        if memory_mb < 1:
            raise ValueError("memory must be at least 1 MB")
        self.rules = rules
        self.params = search_params(rules, prune)
        budget = memory_mb * (1 << 20)
        # The stack may take a quarter of the budget; the table the rest, counting the moment of
        # growth when the old table (half size) and the new one are both alive.
        self.max_depth = max(FIRST_STACK_DEPTH, budget // 4 // STACK_BYTES_PER_LEVEL)
        table_budget = budget - min(budget // 4, self.max_depth * STACK_BYTES_PER_LEVEL)
        self.max_table_entries = 1 << max(10, int(table_budget // (ENTRY_BYTES * 3 // 2)).bit_length() - 1)
        self._allocate_stack(min(FIRST_STACK_DEPTH, self.max_depth))
        self.states[0] = encode(position)
        self.keys, self.orders = new_table(min(FIRST_TABLE_ENTRIES, self.max_table_entries))
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)
        self.ctx[CTX_DEPTH] = -1
        self._set_limits()
        self.status = RUNNING
        self.flushes = 0

    def _allocate_stack(self, depth: int) -> None:
        old = getattr(self, "states", None)
        levels = depth + 1
        states = np.zeros((levels, STATE_SIZE), dtype=np.int8)
        moves = np.zeros((levels, MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
        move_count = np.zeros(levels, dtype=np.int32)
        move_next = np.zeros(levels, dtype=np.int32)
        path_keys = np.zeros(levels, dtype=np.uint64)
        path_orders = np.zeros(levels, dtype=np.int32)
        if old is not None:
            n = old.shape[0]
            states[:n] = self.states
            moves[:n] = self.moves
            move_count[:n] = self.move_count
            move_next[:n] = self.move_next
            path_keys[:n] = self.path_keys
            path_orders[:n] = self.path_orders
        self.states, self.moves, self.move_count, self.move_next, self.path_keys, self.path_orders = (
            states, moves, move_count, move_next, path_keys, path_orders)

    def _set_limits(self) -> None:
        self.ctx[CTX_TABLE_LIMIT] = int(self.keys.shape[0] * TABLE_LOAD)
        self.ctx[CTX_CAN_GROW_STACK] = int(self.states.shape[0] - 1 < self.max_depth)

    @property
    def nodes(self) -> int:
        """Nodes searched so far."""
        return int(self.ctx[CTX_NODES])

    def run(self, node_budget: int) -> int:
        """Search for up to `node_budget` more nodes; returns the status (WIN, EXHAUSTED or RUNNING)."""
        target = self.nodes + node_budget
        while self.nodes < target:
            self.status = search_chunk(self.states, self.moves, self.move_count, self.move_next, self.path_keys,
                                       self.path_orders, self.keys, self.orders, self.ctx, self.params,
                                       target - self.nodes)
            if self.status == TABLE_FULL:
                self._grow_or_flush_table()
            elif self.status == STACK_FULL:
                self._allocate_stack(min(self.max_depth, 2 * (self.states.shape[0] - 1)))
                self._set_limits()
            elif self.status in (WIN, EXHAUSTED):
                return self.status
        return RUNNING

    def _grow_or_flush_table(self) -> None:
        size = self.keys.shape[0]
        if size * 2 <= self.max_table_entries:
            keys, orders = new_table(size * 2)
            self.ctx[CTX_TABLE_COUNT] = rehash(self.keys, self.orders, keys, orders)
            self.keys, self.orders = keys, orders
        else:
            depth = int(self.ctx[CTX_DEPTH])
            self.ctx[CTX_TABLE_COUNT] = flush(self.keys, self.orders, self.path_keys, self.path_orders, depth + 1)
            self.flushes += 1
        self._set_limits()

    @property
    def truncated(self) -> bool:
        """True if some position was left unexplored for want of stack depth."""
        return bool(self.ctx[CTX_TRUNCATED])

    def path(self) -> list[tuple[int, int, int, int]]:
        """The macro-moves from the root to the current position (after a WIN)."""
        depth = int(self.ctx[CTX_DEPTH])
        return [tuple(int(v) for v in self.moves[d, self.move_next[d] - 1, :4]) for d in range(depth)]


def solve(deal: Deal, rules: Ruleset, max_nodes: int | None = None, time_limit: float | None = None,
          memory_mb: int = DEFAULT_MEMORY_MB, start: Position | None = None, progress=None) -> Result:
    """Decide whether the deal (or `start`, a position of it) can be won under `rules`.

    With foundation->tableau allowed, the search first runs without those moves (a much smaller
    space, and a win there is a win under the full rules: few deals need them); only a proved
    loss there sends it on to the full rules. `progress`, if given, is called with the total node
    count after every chunk.
    """
    began = time.perf_counter()
    position = start if start is not None else Position.initial(deal)
    stages = [False, True] if rules.foundation_to_tableau else [False]
    nodes_before = 0
    reason = None
    for with_f2t in stages:
        stage_rules = rules if with_f2t or not rules.foundation_to_tableau else \
            dataclasses.replace(rules, foundation_to_tableau=False)
        search = Search(position, stage_rules, memory_mb)
        reason = _run(search, began, nodes_before, max_nodes, time_limit, progress)
        nodes_before += search.nodes
        if reason is not None or search.status == WIN or search.truncated:
            break
    seconds = time.perf_counter() - began
    common = dict(deal=deal, rules=rules, nodes=nodes_before, seconds=seconds,
                  peak_table_entries=int(search.keys.shape[0]))
    if search.status == WIN:
        game = line_module.expand(deal, rules, search.path(), start)
        if not game.won:
            raise line_module.SolverBug("the solver's winning line does not win in the reference engine")
        return Result("win", line=line_module.tokens(game), actions=game.actions, game=game, **common)
    if search.status == EXHAUSTED and not search.truncated:
        return Result("loss", **common)
    if search.status == EXHAUSTED:
        reason = "stack depth"
    return Result("unknown", reason=reason, **common)


def _run(search: Search, began: float, nodes_before: int, max_nodes: int | None, time_limit: float | None,
         progress) -> str | None:
    """Run a search to its end or to a budget; returns the budget that ran out, or None."""
    while True:
        if max_nodes is None:
            chunk = CHUNK_NODES
        else:
            chunk = min(CHUNK_NODES, max_nodes - nodes_before - search.nodes)
            if chunk <= 0:
                return "node budget"
        status = search.run(chunk)
        if progress is not None:
            progress(nodes_before + search.nodes)
        if status != RUNNING:
            return None
        if time_limit is not None and time.perf_counter() - began >= time_limit:
            return "time limit"
