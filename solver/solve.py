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
from .canon import orders_used
from .deal import Deal
from .game import Game, Position
from .movegen import (MAX_MOVES, MOVE_FIELDS, NOWHERE, PARAM_AUTO, PARAM_DEAD_ENDS, PARAM_DRAW, PARAM_EXACT,
                      PARAM_F2T, PARAM_FORCED, PARAM_ORDER, PARAM_PASS_LIMIT, PARAM_PRUNE, PARAM_SIZE, PARAM_WAIT,
                      apply_move)
from .precompile import compile_search
from .rules import Ruleset
from .runner import SLICE_DONE, WRAPPED_SPARE, ChunkedSearch, GrowingColumns, check_request
from .search import CTX_DEPTH, EXHAUSTED, FORCED_ROWS, WIN, follow_forced_moves, search_chunk
from .state import LAYOUT_HASHES, STATE_SIZE, encode
from .tt import evict, grow_in_place, rehash

DEFAULT_MEMORY_MB = 512
NO_ORDERS = np.zeros(0, dtype=np.int32)  # the orders column of a table that holds keys alone


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
    peak_table_bytes: int = 0
    path: list = field(default_factory=list, repr=False)  # the macro-moves of a win
    # For a loss: the rules under which every reachable position was searched, the rules
    # themselves or their `relaxation` (which allows every line of these and more)
    proved_under: Ruleset | None = None

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
            "proved_under": None if self.proved_under is None else self.proved_under.to_json(),
        }


def deal_fields(deal: Deal, rules: Ruleset) -> dict:
    """The fields every JSON answer about a deal starts with: seed, source, deal, rules."""
    return {"seed": deal.seed, "source": deal.source, "deal": deal.codes, "rules": rules.to_json()}


def search_params(rules: Ruleset, prune: bool = True, dead_ends: bool | None = None,
                  forced: bool | None = None, wait: bool | None = None, exact: bool | None = None) -> np.ndarray:
    """The int32 parameter array of the numba core for a ruleset.

    `prune` switches the pruning rules of the winnability search; `dead_ends` (default: as
    `prune`) the dead-end tests, separately so that tests can check them against lines found
    without them; `forced` (default: as `prune`) the safe moves to the foundation; `wait`
    (default: as `prune`) the rule that a whole pile moves off only when a king could take its
    place, which only makes a move wait and so keeps every line's actions and score; `exact`
    (default: as `prune`) the rules that keep every line's value, not only some win: part of a
    run moves only to send the card it uncovers up (`movegen.partial_run_needed`); without
    auto-play, a foundation card comes down only if it may be of use (`movegen.worth_taking_down`),
    an ace never.
    """
    params = np.zeros(PARAM_SIZE, dtype=np.int32)
    params[PARAM_DRAW] = rules.draw
    params[PARAM_PASS_LIMIT] = 0 if rules.passes is None else rules.passes
    params[PARAM_F2T] = int(rules.foundation_to_tableau)
    params[PARAM_AUTO] = int(rules.auto_play)
    params[PARAM_PRUNE] = int(prune)
    params[PARAM_DEAD_ENDS] = int(prune if dead_ends is None else dead_ends)
    params[PARAM_FORCED] = int(prune if forced is None else forced)
    params[PARAM_WAIT] = int(prune if wait is None else wait)
    params[PARAM_EXACT] = int(prune if exact is None else exact)
    return params


class Search(ChunkedSearch):
    """One resumable winnability search (depth-first, `search.search_chunk`)."""

    stack_layout = {
        "states": ((STATE_SIZE,), np.int8),
        "layouts": ((LAYOUT_HASHES,), np.uint64),
        "moves": ((MAX_MOVES, MOVE_FIELDS), np.int16),
        "move_count": ((), np.int32),
        "move_next": ((), np.int32),
        "path_keys": ((), np.uint64),
        "path_orders": ((), np.int32),
    }
    table_dtypes = (np.uint64, np.int32)  # keys, orders; keys alone where no order is used

    def __init__(self, position: Position, rules: Ruleset, memory_mb: float = DEFAULT_MEMORY_MB, prune: bool = True,
                 dead_ends: bool | None = None, order: int = 0):
        self.rules = rules
        self.params = search_params(rules, prune, dead_ends)
        self.params[PARAM_ORDER] = order
        if not orders_used(self.params):
            self.table_dtypes = (np.uint64,)
        super().__init__(memory_mb)
        self.stack["states"][0] = encode(position)
        self.scratch = np.empty(52, dtype=np.int8)  # the kernel's work space (it allocates nothing)
        self.forced = np.empty((FORCED_ROWS, MOVE_FIELDS), dtype=np.int16)

    @staticmethod
    def _columns(table) -> tuple[np.ndarray, np.ndarray]:
        """(keys, orders) of a table; `orders` empty when it holds keys alone (see `tt`)."""
        return table[0], table[1] if len(table) > 1 else NO_ORDERS

    def _kernel(self, node_budget: int) -> int:
        st = self.stack
        return search_chunk(st["states"], st["layouts"], st["moves"], st["move_count"], st["move_next"],
                            st["path_keys"], st["path_orders"], *self._columns(self.table), self.ctx, self.params,
                            node_budget, self.scratch, self.forced)

    def _rehash(self, old, new) -> int:
        return rehash(*self._columns(old), *self._columns(new))

    def _new_table(self, entries: int) -> list[np.ndarray]:
        # the first table, in a reserve for the largest (`__init__`); it then grows in place
        self.table_reserve = GrowingColumns(self.table_dtypes, entries, self.max_table_entries)
        self.wrapped_spare = (np.zeros(WRAPPED_SPARE, dtype=np.uint64), np.zeros(WRAPPED_SPARE, dtype=np.int32))
        return self.table_reserve.columns

    def _move_in_place(self, old_size: int) -> int:
        return grow_in_place(*self._columns(self.table), old_size, *self.wrapped_spare)

    def _free_room(self, depth: int) -> int:
        # Each purge drops the entries with another pair of key bits set (a quarter of them), so
        # an entry that survived one purge is not the likelier to go at the next.
        pair = self.table_purges % 16
        selector = np.uint64((3 << 62) >> (2 * pair))
        return evict(*self._columns(self.table), selector, self.stack["path_keys"], self.stack["path_orders"],
                     depth + 1)

    def path(self) -> list[tuple[int, int, int, int]]:
        """The macro-moves from the root to the current position (after a WIN), with the forced
        moves the search played after each one (`search.follow_forced_moves`) found again."""
        depth = int(self.ctx[CTX_DEPTH])
        moves, move_next = self.stack["moves"], self.stack["move_next"]
        state = self.stack["states"][0].copy()
        path = []
        for row in moves[np.arange(depth), move_next[:depth] - 1]:
            apply_move(state, row, self.params)
            path.append(tuple(row[:4].tolist()))
            played = follow_forced_moves(state, self.params, self.forced)
            path.extend(tuple(forced) for forced in self.forced[:played, :4].tolist())
        return path


# The move orders of a portfolio (`movegen`, PARAM_ORDER). Search times are heavy-tailed: a deal
# that one order wins only after minutes, another often wins at once.
MOVE_ORDERS = (0, 1, 2)
SOLO_NODES = 1_000_000  # the first search alone decides most deals within this many nodes
SLICE_NODES = 100_000  # then the searches take turns, this many nodes each
# ... the searches that can prove a loss (under the full rules, under the relaxation) this many
# times as many: losses are most of the slow deals (draw 3, unlimited passes, seeds 1-1000: 18 of
# the 25 deals past 10 M nodes). The wins that another search finds between 1 M and 10 M nodes
# come later.
FULL_SLICES = 6
# Past this many nodes in all, only one search under the full rules and the relaxed one go on.
TURNS_NODES = 10_000_000


# The roles of a portfolio's searches: which verdicts decide the deal.
RESTRICTED = "restricted"  # without foundation->tableau: a win decides, a loss ends these searches
FULL = "full"  # under the rules themselves: a win or a loss decides
RELAXED = "relaxed"  # under rules that allow more (`relaxation`): a loss decides, a win ends it


@dataclass(eq=False)
class Member:
    """One search of a portfolio: its rules, move order and role (RESTRICTED, FULL, RELAXED)."""

    rules: Ruleset
    order: int
    role: str
    search: Search | None = None  # made at its first turn

    @property
    def proves_losses(self) -> bool:
        """True if a loss of this search is a loss of the deal."""
        return self.role != RESTRICTED

    def decides(self) -> bool:
        """True if this finished search's answer is the deal's: any answer under the rules (a
        search cut short by its stack answers unknown), a win without foundation->tableau, a
        proved loss under the relaxation."""
        if self.role == FULL:
            return True
        if self.role == RESTRICTED:
            return self.search.status == WIN
        return self.search.proved


def relaxation(rules: Ruleset) -> Ruleset | None:
    """Rules under which every win of `rules` is a win too, with a search that decides losses
    sooner: draw 1 with unlimited passes and no auto-play (the rest as `rules`); None where those
    are the rules already.

    Auto-play only makes moves a player could make by hand (a card to its foundation), so a line
    under auto-play is a line without it. Draw 1 with unlimited passes lets a player take any
    talon card at any time: draw up to it, recycling if need be. Whatever card a line takes from
    the talon under any draw and pass limit, the same line under draw 1 takes it too, leaving the
    same talon order, tableau and foundations (only the waste count differs, which under draw 1
    with unlimited passes limits nothing). So a deal that cannot be won there cannot be won under
    `rules`. Hard losses are much cheaper to prove there (draw 3 seed 634: 49 M nodes instead of
    969 M).
    """
    if rules.draw == 1 and rules.passes is None and not rules.auto_play:
        return None
    return rules.with_overrides(draw=1, passes=None, auto_play=False)


def portfolio_members(rules: Ruleset) -> list[Member]:
    """The searches of a `Portfolio` under `rules`, in turn order.

    With foundation->tableau allowed the first searches leave those moves out: a much smaller
    space, a win there is a win under the full rules, and few deals need them; then one search
    plays the full rules, which both finds the wins that need them (some at once that the others
    find late) and proves losses. With unlimited passes, most deals are wins, and the slow ones are
    mostly wins that one move order finds late and another soon: each order has its search. With a
    pass limit the slow deals are mostly losses, which every order would have to prove alone: one
    order only. Last, where there is one, a search under the `relaxation` proves losses sooner.
    """
    orders = MOVE_ORDERS if rules.passes is None else MOVE_ORDERS[:1]
    if not rules.foundation_to_tableau:
        members = [Member(rules, order, FULL) for order in orders]
    else:
        restricted = dataclasses.replace(rules, foundation_to_tableau=False)
        members = [Member(restricted, order, RESTRICTED) for order in orders] + [Member(rules, 0, FULL)]
    relaxed = relaxation(rules)
    if relaxed is not None:
        members.append(Member(relaxed, 0, RELAXED))
    return members


class Portfolio:
    """Searches of one position (`portfolio_members`) that take turns until one decides.

    Each search is complete on its own. A win under the rules or without foundation->tableau is
    a win (with its line); a loss under the rules or under the relaxation is a loss. A loss
    without foundation->tableau ends every search without them; a win under the relaxation ends
    that search. The first search runs alone for SOLO_NODES, then all take turns of SLICE_NODES
    (the searches that can prove a loss FULL_SLICES times as many); past TURNS_NODES in all the
    deal is most likely a loss, which every search would have to prove alone, so only the first
    under the full rules and the one under the relaxation go on. They share the memory budget:
    before its turn, a search's table may grow into whatever the others do not use (a table
    purged for want of room costs a search part of its progress, so a fixed share each would be
    worse).
    """

    def __init__(self, position: Position, rules: Ruleset, memory_mb: float):
        self.position = position
        self.members = portfolio_members(rules)
        self.budget_bytes = int(memory_mb * (1 << 20))
        self.share_mb = memory_mb / len(self.members)  # sets each search's stack limit
        self.dropped_nodes = 0  # nodes of searches no longer running
        self.peak_table_bytes = 0  # of all the tables together
        self.finished: Search | None = None

    @property
    def searches(self) -> list[Search]:
        """The searches running (or that have run) and not dropped."""
        return [member.search for member in self.members if member.search is not None]

    def _drop(self, members: list[Member]) -> None:
        """Stop these searches for good (their memory goes to the others)."""
        self.dropped_nodes += sum(member.search.nodes for member in members if member.search is not None)
        self.members = [member for member in self.members if member not in members]

    def _make_room(self, search: Search) -> None:
        """Let `search`'s table grow into the budget that the others and its own stack leave."""
        others = sum(other.bytes_in_use for other in self.searches if other is not search)
        search.allow_table(self.budget_bytes - others - search.max_stack_bytes)

    @property
    def nodes(self) -> int:
        """Nodes searched so far by all the searches."""
        return self.dropped_nodes + sum(search.nodes for search in self.searches)

    def run_within(self, began: float, max_nodes: int | None, time_limit: float | None,
                   progress=None) -> str | None:
        """Run until a search decides (`finished`) or a budget runs out (returned as in
        `ChunkedSearch.run_within`)."""
        turn = 0
        while True:
            if self.nodes >= TURNS_NODES:
                first_full = next(member for member in self.members if member.role == FULL)
                others = [member for member in self.members if member is not first_full and member.role != RELAXED]
                if others:
                    self._drop(others)
                    turn = 0
            member = self.members[turn]
            if member.search is None:
                member.search = Search(self.position, member.rules, self.share_mb, order=member.order)
            search = member.search
            self._make_room(search)
            slice_nodes = SOLO_NODES if self.nodes == 0 else SLICE_NODES * (FULL_SLICES if member.proves_losses else 1)
            reason = search.run_within(began, self.nodes - search.nodes, max_nodes, time_limit, progress,
                                       slice_nodes)
            self.peak_table_bytes = max(self.peak_table_bytes, sum(other.table_bytes for other in self.searches))
            if reason is not None and reason != SLICE_DONE:
                return reason
            if reason is None:
                if member.decides():
                    self.finished = search
                    return None
                if member.role == RELAXED:
                    self._drop([member])  # a win where more is allowed proves nothing
                else:
                    # A loss (or an incomplete search) without foundation->tableau: those moves are needed.
                    self._drop([other for other in self.members if other.role == RESTRICTED])
                turn = 0
                continue
            turn = (turn + 1) % len(self.members)


def solve(deal: Deal, rules: Ruleset, max_nodes: int | None = None, time_limit: float | None = None,
          memory_mb: int = DEFAULT_MEMORY_MB, start: Position | None = None, progress=None,
          expand: bool = True) -> Result:
    """Decide whether the deal (or `start`, a position of it) can be won under `rules`.

    A win comes with its line, played through the reference engine. `expand=False` is for
    callers that judge many sampled positions and need only the verdict, the first action and
    the length: the win then keeps only its macro-moves (`path`, with `actions` counted from
    them and `line` left empty); `first_token` expands the first one when asked.

    The searches of a `Portfolio` take turns: under other move orders and, with
    foundation->tableau allowed, without those moves (`portfolio_members`). `progress`, if given,
    is called with the total node count after every chunk.
    """
    check_request(deal, rules, start, max_nodes, time_limit, memory_mb)
    compile_search("winnability")
    began = time.perf_counter()
    position = start if start is not None else Position.initial(deal)
    portfolio = Portfolio(position, rules, memory_mb)
    reason = portfolio.run_within(began, max_nodes, time_limit, progress)
    search = portfolio.finished
    seconds = time.perf_counter() - began
    common = dict(deal=deal, rules=rules, nodes=portfolio.nodes, seconds=seconds,
                  peak_table_bytes=portfolio.peak_table_bytes)
    if search is None:
        return Result("unknown", reason=reason, **common)
    if search.status == WIN:
        path = search.path()
        if not expand:
            actions = sum(steps + (source != NOWHERE) for source, _, _, steps in path)
            return Result("win", actions=actions, path=path, **common)
        game = line_module.continue_game(Game(deal, rules, start, check=False), path)  # checked above
        if not game.won:
            raise line_module.SolverBug("the solver's winning line does not win in the reference engine")
        return Result("win", line=line_module.tokens(game), actions=game.actions, game=game, path=path, **common)
    if search.proved:
        return Result("loss", proved_under=search.rules, **common)
    if search.status == EXHAUSTED:
        reason = "stack depth"
    return Result("unknown", reason=reason, **common)
