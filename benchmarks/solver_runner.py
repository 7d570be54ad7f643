"""Our solver over a list of seeds, in this process or in N warm worker processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from benchmarks.memory import own_peak_rss_mb, worker_peak_rss_mb
from benchmarks.stats_util import ignore_interrupts
from solver.benchmark import warm_up
from solver.deal import Deal
from solver.rules import Ruleset
from solver.solve import solve
_in_worker_process = False  # set by the pool initializer


@dataclass(frozen=True)
class SolveSettings:
    """What every deal of a run is solved with."""

    rules: Ruleset
    time_limit: float | None
    memory_mb: int
    max_nodes: int | None = None


@dataclass
class DealOutcome:
    """Our solver's answer on one deal.

    seconds: as `solve` reports it (search plus the replay check of a winning line).
    table_bytes: size of the transposition tables at the end of the search.
    peak_rss_mb: peak resident memory of the process that solved it, so far in that process's life.
    """

    seed: int
    result: str
    seconds: float
    nodes: int
    table_bytes: int
    reason: str | None
    actions: int | None
    peak_rss_mb: float


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB: getrusage in the main process, VmHWM in a
    pool worker (whose ru_maxrss would start at the parent's peak)."""
    return worker_peak_rss_mb() if _in_worker_process else own_peak_rss_mb()


def solve_seed(seed: int, settings: SolveSettings) -> DealOutcome:
    """Solve the native deal of `seed` under the settings."""
    result = solve(Deal.from_seed(seed), settings.rules, max_nodes=settings.max_nodes,
                   time_limit=settings.time_limit, memory_mb=settings.memory_mb)
    return DealOutcome(seed, result.result, result.seconds, result.nodes, result.peak_table_bytes,
                       result.reason, result.actions, peak_rss_mb())


def _solve_task(task: tuple[int, SolveSettings]) -> DealOutcome:
    """Pool entry point: one (seed, settings) pair."""
    return solve_seed(*task)


def _warm_worker() -> None:
    """Pool initializer: leave Ctrl-C to the parent; load the numba kernels before the first timed deal."""
    global _in_worker_process
    _in_worker_process = True
    ignore_interrupts()  # Ctrl-C is the benchmark's: it stops the pool
    warm_up()


def solve_seeds(seeds: Iterable[int], settings: SolveSettings, jobs: int = 1) -> Iterator[DealOutcome]:
    """Solve each seed; yields outcomes as they finish (in seed order when jobs == 1).

    With jobs == 1 the deals run in this process (warm it first with `warm_up`); otherwise in
    `jobs` fresh worker processes, each warmed before its first deal.
    """
    seeds = list(seeds)
    if jobs <= 1:
        for seed in seeds:
            yield solve_seed(seed, settings)
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=_warm_worker) as pool:
        yield from pool.imap_unordered(_solve_task, [(seed, settings) for seed in seeds], chunksize=1)
