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
from .movegen import (MAX_MOVES, MOVE_FIELDS, NOWHERE, PARAM_AUTO, PARAM_DEAD_ENDS, PARAM_DRAW, PARAM_F2T,
                      PARAM_FORCED, PARAM_ORDER, PARAM_PASS_LIMIT, PARAM_PRUNE, PARAM_SIZE)
from .rules import Ruleset
from .runner import SLICE_DONE, ChunkedSearch
from .search import CTX_DEPTH, EXHAUSTED, WIN, search_chunk
from .state import STATE_SIZE, encode
from .tt import flush, rehash

DEFAULT_MEMORY_MB = 512


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
    path: list = field(default_factory=list, repr=False)  # the macro-moves of a win

    def to_json(self) -> dict:
        """The JSON form of `klondike solve --json`."""
        return {
            **deal_fields(self.deal, self.rules),
            "result": self.result,
            "line": self.line,
            "actions": self.actions,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "reason": self.reason,
        }


def deal_fields(deal: Deal, rules: Ruleset) -> dict:
    """The fields every JSON answer about a deal starts with: seed, source, deal, rules."""
    return {"seed": deal.seed, "source": deal.source, "deal": deal.codes, "rules": rules.to_json()}


def search_params(rules: Ruleset, prune: bool = True, dead_ends: bool | None = None,
                  forced: bool | None = None) -> np.ndarray:
    """The int32 parameter array of the numba core for a ruleset.

    `prune` switches the pruning rules of the winnability search; `dead_ends` (default: as
    `prune`) the dead-end tests, separately so that tests can check them against lines found
    without them; `forced` (default: as `prune`) the safe moves to the foundation.
    """
    params = np.zeros(PARAM_SIZE, dtype=np.int32)
    params[PARAM_DRAW] = rules.draw
    params[PARAM_PASS_LIMIT] = 0 if rules.passes is None else rules.passes
    params[PARAM_F2T] = int(rules.foundation_to_tableau)
    params[PARAM_AUTO] = int(rules.auto_play)
    params[PARAM_PRUNE] = int(prune)
    params[PARAM_DEAD_ENDS] = int(prune if dead_ends is None else dead_ends)
    params[PARAM_FORCED] = int(prune if forced is None else forced)
    return params


class Search(ChunkedSearch):
    """One resumable winnability search (depth-first, `search.search_chunk`)."""

    stack_layout = {
        "states": ((STATE_SIZE,), np.int8),
        "moves": ((MAX_MOVES, MOVE_FIELDS), np.int16),
        "move_count": ((), np.int32),
        "move_next": ((), np.int32),
        "path_keys": ((), np.uint64),
        "path_orders": ((), np.int32),
    }
    table_dtypes = (np.uint64, np.int32)

    def __init__(self, position: Position, rules: Ruleset, memory_mb: float = DEFAULT_MEMORY_MB, prune: bool = True,
                 dead_ends: bool | None = None, order: int = 0):
        super().__init__(memory_mb)
        self.rules = rules
        self.params = search_params(rules, prune, dead_ends)
        self.params[PARAM_ORDER] = order
        self.stack["states"][0] = encode(position)

    def _kernel(self, node_budget: int) -> int:
        st = self.stack
        return search_chunk(st["states"], st["moves"], st["move_count"], st["move_next"], st["path_keys"],
                            st["path_orders"], self.table[0], self.table[1], self.ctx, self.params, node_budget)

    def _rehash(self, old, new) -> int:
        return rehash(old[0], old[1], new[0], new[1])

    def _flush(self, depth: int) -> int:
        return flush(self.table[0], self.table[1], self.stack["path_keys"], self.stack["path_orders"], depth + 1)

    def path(self) -> list[tuple[int, int, int, int]]:
        """The macro-moves from the root to the current position (after a WIN)."""
        depth = int(self.ctx[CTX_DEPTH])
        moves, move_next = self.stack["moves"], self.stack["move_next"]
        rows = moves[np.arange(depth), move_next[:depth] - 1, :4]
        return [tuple(row) for row in rows.tolist()]


# The move orders of a portfolio (`movegen`, PARAM_ORDER). Search times are heavy-tailed: a deal
# that one order wins only after minutes, another often wins at once.
MOVE_ORDERS = (0, 1, 2)
SOLO_NODES = 1_000_000  # the first order alone decides most deals within this many nodes
SLICE_NODES = 100_000  # then the orders take turns, this many nodes each


class Portfolio:
    """Searches of one position under each move order, run in turns until one finishes.

    Each search is complete on its own, so the first to finish decides: a win (its line) or a
    loss (it explored everything). They share the memory budget: before its turn, a search's
    table may grow into whatever the others do not use (a table flushed for want of room can
    cost a search most of its progress, so a fixed share each would be worse).
    """

    def __init__(self, position: Position, rules: Ruleset, memory_mb: float, orders=MOVE_ORDERS):
        self.position, self.rules, self.orders = position, rules, orders
        self.budget_bytes = int(memory_mb * (1 << 20))
        self.share_mb = memory_mb / len(orders)  # sets each search's stack limit
        self.searches = [Search(position, rules, self.share_mb, order=orders[0])]
        self.finished: Search | None = None

    def _make_room(self, search: Search) -> None:
        """Let `search`'s table grow into the budget that the others and its own stack leave."""
        others = sum(other.bytes_in_use for other in self.searches if other is not search)
        search.allow_table(self.budget_bytes - others - search.max_stack_bytes)

    @property
    def nodes(self) -> int:
        """Nodes searched so far by all the searches."""
        return sum(search.nodes for search in self.searches)

    @property
    def table_entries(self) -> int:
        """Slots of all the tables together."""
        return sum(search.table_entries for search in self.searches)

    def run_within(self, began: float, nodes_before: int, max_nodes: int | None, time_limit: float | None,
                   progress=None) -> str | None:
        """Run until a search finishes (`finished`) or a budget runs out (returned as in
        `ChunkedSearch.run_within`)."""
        turn = 0
        while True:
            search = self.searches[turn]
            self._make_room(search)
            slice_nodes = SOLO_NODES if search.nodes == 0 and turn == 0 else SLICE_NODES
            reason = search.run_within(began, nodes_before + self.nodes - search.nodes, max_nodes, time_limit,
                                       progress, slice_nodes)
            if reason is None:
                self.finished = search
                return None
            if reason != SLICE_DONE:
                return reason
            turn = (turn + 1) % len(self.orders)
            if turn == len(self.searches):
                self.searches.append(Search(self.position, self.rules, self.share_mb, order=self.orders[turn]))


def portfolio_orders(rules: Ruleset, second_stage: bool) -> tuple[int, ...]:
    """The move orders to take turns, for a stage of `solve`.

    With unlimited passes most deals are wins, and the slow ones are mostly wins that one order
    finds late and another soon. With a pass limit the slow deals are mostly losses, which each
    order must prove alone: turns would only make them slower. So is the second stage under
    foundation->tableau (a loss without those moves is nearly always a loss with them)."""
    if rules.passes is None and not second_stage:
        return MOVE_ORDERS
    return MOVE_ORDERS[:1]


_compiled: set[str] = set()


def compile_once(name: str, search_class, *args) -> None:
    """Compile (or load from the cache) a search's kernels once per process, on a tiny search,
    so that time budgets count searching only."""
    if name in _compiled:
        return
    search = search_class(Position.initial(Deal.from_seed(0)), *args)
    search.run(1)
    search._rehash(search.table, search._new_table(search.table_entries))
    search._flush(0)
    _compiled.add(name)


def solve(deal: Deal, rules: Ruleset, max_nodes: int | None = None, time_limit: float | None = None,
          memory_mb: int = DEFAULT_MEMORY_MB, start: Position | None = None, progress=None,
          expand: bool = True) -> Result:
    """Decide whether the deal (or `start`, a position of it) can be won under `rules`.

    A win comes with its line, played through the reference engine. `expand=False` is for
    callers that judge many sampled positions and need only the verdict, the first action and
    the length: the win then keeps only its macro-moves (`path`, with `actions` counted from
    them and `line` left empty); `first_token` expands the first one when asked.

    With foundation->tableau allowed, the search first runs without those moves (a much smaller
    space, and a win there is a win under the full rules: few deals need them); only a proved
    loss there sends it on to the full rules. Where wins are hard to find the orders of a
    `Portfolio` take turns (`portfolio_orders`). `progress`, if given, is called with the total node
    count after every chunk.
    """
    if memory_mb < 1:
        raise ValueError("memory must be at least 1 MB")
    compile_once("winnability", Search, rules, 16)
    began = time.perf_counter()
    position = start if start is not None else Position.initial(deal)
    stages = [False, True] if rules.foundation_to_tableau else [False]
    nodes_before = 0
    reason = None
    for with_f2t in stages:
        stage_rules = rules if with_f2t or not rules.foundation_to_tableau else \
            dataclasses.replace(rules, foundation_to_tableau=False)
        portfolio = Portfolio(position, stage_rules, memory_mb, portfolio_orders(stage_rules, with_f2t))
        reason = portfolio.run_within(began, nodes_before, max_nodes, time_limit, progress)
        nodes_before += portfolio.nodes
        search = portfolio.finished
        if reason is not None or search.status == WIN or search.truncated:
            break
    seconds = time.perf_counter() - began
    common = dict(deal=deal, rules=rules, nodes=nodes_before, seconds=seconds,
                  peak_table_entries=portfolio.table_entries)
    if search is None:
        return Result("unknown", reason=reason, **common)
    if search.status == WIN:
        path = search.path()
        if not expand:
            actions = sum(steps + (source != NOWHERE) for source, _, _, steps in path)
            return Result("win", actions=actions, path=path, **common)
        game = line_module.continue_game(Game(deal, rules, start), path)
        if not game.won:
            raise line_module.SolverBug("the solver's winning line does not win in the reference engine")
        return Result("win", line=line_module.tokens(game), actions=game.actions, game=game, path=path, **common)
    if search.status == EXHAUSTED and not search.truncated:
        return Result("loss", **common)
    if search.status == EXHAUSTED:
        reason = "stack depth"
    return Result("unknown", reason=reason, **common)
