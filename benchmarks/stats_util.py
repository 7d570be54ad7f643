"""Statistics for the benchmarks: verdict and time summaries built on the project's own helpers.

The Wilson interval, the percentile and the Solvitaire-style win rate (unknown deals counted both
ways) come from `solver.stats`; this module adapts them to lists of per-deal verdicts and times
(empty lists give NaN instead of an error).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from solver.benchmark import BENCH_RULESETS, parse_range
from solver.deal import MAX_SEED
from solver.errors import KlondikeError
from solver.stats import percentile as percentile_of_sorted
from solver.stats import wilson_interval as solver_wilson_interval
from solver.stats import win_rate


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval (as fractions) of `successes / trials`; NaNs when there are no trials."""
    if trials <= 0:
        return math.nan, math.nan
    return solver_wilson_interval(successes, trials)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of unsorted values, interpolated linearly; NaN for no values."""
    return percentile_of_sorted(sorted(values), q) if values else math.nan


def time_summary(seconds: Sequence[float]) -> dict:
    """Median, mean, 99th percentile, maximum and total of a list of durations (NaN when empty)."""
    if not seconds:
        return {"count": 0, "median": math.nan, "mean": math.nan, "p99": math.nan, "max": math.nan, "total": 0.0}
    return {"count": len(seconds), "median": percentile(seconds, 50), "mean": sum(seconds) / len(seconds),
            "p99": percentile(seconds, 99), "max": max(seconds), "total": sum(seconds)}


def ratio_summary(ratios: Sequence[float], target: float) -> dict:
    """Median, geometric mean and range of positive ratios, and how many reach `target` (NaN when empty)."""
    if not ratios:
        return {"count": 0, "median": math.nan, "geometric_mean": math.nan, "min": math.nan, "max": math.nan,
                "at_target": 0, "target": target}
    return {"count": len(ratios), "median": percentile(ratios, 50),
            "geometric_mean": math.exp(sum(math.log(ratio) for ratio in ratios) / len(ratios)),
            "min": min(ratios), "max": max(ratios), "at_target": sum(ratio >= target for ratio in ratios),
            "target": target}


def verdict_summary(verdicts: Sequence[str]) -> dict:
    """Counts of `win` / `loss` / `unknown`, the decided share, and the win share with its intervals.

    `win_interval`: the 95% Wilson interval of wins among decided deals.
    `win_fraction_bounds` / `win_interval_unknowns_both_ways`: over all deals, unknown deals counted
    as losses (low end) and as wins (high end), as the Solvitaire paper reports (solver.stats.win_rate).
    """
    counts = {"win": 0, "loss": 0, "unknown": 0}
    for verdict in verdicts:
        counts[verdict] += 1
    total = len(verdicts)
    decided = counts["win"] + counts["loss"]
    both_ways = win_rate(counts["win"], counts["unknown"], total) if total else None
    return {
        **counts,
        "deals": total,
        "decided": decided,
        "decided_fraction": decided / total if total else math.nan,
        "win_fraction_of_decided": counts["win"] / decided if decided else math.nan,
        "win_interval": wilson_interval(counts["win"], decided),
        "win_fraction_bounds": (both_ways["low"], both_ways["high"]) if both_ways else (math.nan, math.nan),
        "win_interval_unknowns_both_ways": tuple(both_ways["ci95"]) if both_ways else (math.nan, math.nan),
    }


# --- command-line arguments shared by the benchmarks -----------------------------------------------

MAX_SEEDS = 10_000_000  # the most seeds one benchmark run takes (each deal's figures are kept)


def check_seed_count(count: int, highest: int) -> None:
    """Refuse seeds past the native range (0 <= seed < 2^64) or more than MAX_SEEDS of them, with
    an argparse error (before any list of them is built)."""
    if highest >= MAX_SEED:
        raise argparse.ArgumentTypeError(f"seed {highest} out of range: a native seed is below 2^64")
    if count > MAX_SEEDS:
        raise argparse.ArgumentTypeError(f"{count:,} seeds: at most {MAX_SEEDS:,} in one run")


def seeds_help(default: str) -> str:
    """The --help text of a --seeds option."""
    return (f"native seeds (0 <= seed < 2^64): a range A-B (inclusive), a seed, or several separated by commas;"
            f" at most {MAX_SEEDS:,} in all (default {default})")


def parse_seeds(text: str) -> list[int]:
    """`1-1000`, `7`, or a comma-separated list of those, as a list of distinct seeds in order.

    Every seed must be a native one (0 <= seed < 2^64) and there may be at most MAX_SEEDS in all
    (checked on the ranges, before the list is built)."""
    ranges = []
    for part in text.split(","):
        try:
            ranges.append(parse_range(part.strip()))
        except KlondikeError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    check_seed_count(sum(seeds.stop - seeds.start for seeds in ranges), max(seeds.stop - 1 for seeds in ranges))
    seeds: dict[int, None] = {}
    for part in ranges:
        seeds.update(dict.fromkeys(part))
    return list(seeds)


def int_between(low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: a whole number from `low` to `high` (None: no upper end)."""
    wanted = f">= {low}" if high is None else f"from {low} to {high}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected a whole number {wanted}, got {text!r}")
        return value
    parse.__name__ = f"int_between_{low}_{high}"
    return parse


positive_int = int_between(1)
non_negative_int = int_between(0)  # where the option gives 0 a meaning of its own


def _finite_float(text: str) -> float | None:
    """The number in `text`, or None if it is not a finite number."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds > 0."""
    value = _finite_float(text)
    if value is None or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def seconds_or_zero(text: str) -> float:
    """argparse type: a finite number of seconds >= 0 (0 meaning no limit, as the option says)."""
    value = _finite_float(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0 (0 for no limit), got {text!r}")
    return value


def writable_file(text: str) -> Path:
    """argparse type: a file the report can be written to, checked now rather than after the run.

    An existing file is opened for appending (its contents untouched); a new one is created and
    removed again."""
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got ''")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: it is a directory")
    try:
        if path.exists():
            with open(path, "a", encoding="utf-8"):
                pass
        else:
            with open(path, "x", encoding="utf-8"):
                pass
            os.unlink(path)
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {error.strerror or error}") from None
    return path


def parse_rule_names(text: str) -> list[str]:
    """A comma-separated list of ruleset names from BENCH_RULESETS."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in BENCH_RULESETS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown ruleset {', '.join(unknown) or '(none)'}: choose from {', '.join(BENCH_RULESETS)}")
    return list(dict.fromkeys(names))


def json_ready(value):
    """The value with NaN replaced by None and tuples by lists, for strict JSON."""
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    return value


def write_report(path: Path | None, report: dict) -> None:
    """Write a benchmark's report as strict JSON to `path` (nothing when None) and say so."""
    if path is not None:
        path.write_text(json.dumps(json_ready(report), indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {path}")


# --- stopping a long run: Ctrl-C or SIGTERM, and the figures of what was finished ------------------------

class Terminated(KeyboardInterrupt):
    """SIGTERM, routed as Ctrl-C is (`raise_terminated`): the run stops and reports what it finished."""


def raise_terminated(signum, frame) -> None:
    """SIGTERM handler: stop the run as Ctrl-C does (the exit status is then 128 + 15)."""
    raise Terminated()


def ignore_interrupts() -> None:
    """In a worker process (pool initializer, peer worker): leave Ctrl-C to the benchmark, which
    stops the workers itself, and let SIGTERM end the process at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def interrupt_exit_code(terminated: bool) -> int:
    """130 after Ctrl-C, 143 after SIGTERM."""
    return 128 + (signal.SIGTERM if terminated else signal.SIGINT)


class Interruption:
    """A context manager that stops Ctrl-C (KeyboardInterrupt) and SIGTERM (Terminated) in its block
    and remembers that one came; true once one has. Enter it outside a block's pools and workers:
    they see the interrupt first and are stopped. It may be entered again (and nested); the
    exception itself is not kept, so nothing of the interrupted block stays alive."""

    def __init__(self):
        self.interrupted = False
        self.terminated = False

    def __bool__(self) -> bool:
        return self.interrupted

    def __enter__(self) -> "Interruption":
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> bool:
        if exc_type is None or not issubclass(exc_type, KeyboardInterrupt):
            return False
        self.interrupted = True
        self.terminated = self.terminated or issubclass(exc_type, Terminated)
        return True

    @property
    def exit_code(self) -> int:
        """The exit status: 0 when not interrupted, else 130 (Ctrl-C) or 143 (SIGTERM)."""
        return interrupt_exit_code(self.terminated) if self.interrupted else 0


def interrupted_line(done: int, asked: int, what: str = "deals", where: str = "") -> str:
    """`interrupted: 150 of 200 deals done; the figures below are for those` (`where` after `done`)."""
    return f"interrupted: {done} of {asked} {what} done{where}; the figures below are for those"


def partial_fields(done: int, asked: int) -> dict:
    """The fields a report takes when its run was interrupted."""
    return {"interrupted": True, "done": done, "asked": asked}


def interrupted_ruleset(report: dict, names: list[str], asked: int, current: str | None) -> tuple:
    """After Ctrl-C in a run over the rulesets `names` (`asked` deals each): (the ruleset cut short,
    the rulesets not run, their mention for the printed line). If the run stopped between two
    rulesets, or while `current`'s figures were printed, the ruleset is None: the line is printed
    and the report marked here."""
    reported = [section["name"] for section in report["rulesets"]]
    if current in reported:
        current = None
    not_run = [name for name in names if name not in reported and name != current]
    later = f"; {', '.join(not_run)} not run" if not_run else ""
    if current is None:
        print(f"\ninterrupted: {len(reported)} of {len(names)} rulesets done{later}")
        report.update(interrupted=True, done=asked, asked=asked, interrupted_ruleset=None, interrupted_stage=None,
                      rulesets_not_run=not_run)
    return current, not_run, later


def print_interrupted_stage(name: str, asked: int, later: str, ours: list, peer: list | None) -> tuple[str, int]:
    """Print where a ruleset's run stopped: in ours (`peer` None) or in pyksolve's, which only
    the deals both finished are compared on. Returns (stage, deals done in it)."""
    if peer is None:
        if ours:
            print("\n" + interrupted_line(len(ours), asked, "deals", f" on {name}{later}"))
        else:
            print(f"\ninterrupted: 0 of {asked} deals done on {name}{later}; no figures for it")
        return "ours", len(ours)
    print(f"\ninterrupted: {len(peer)} of {asked} deals done by pyksolve on {name} (ours: all {len(ours)}{later});"
          f" the figures below are for those, and only the {len(peer)} both finished are compared")
    return "pyksolve", len(peer)


def run_script(main: Callable[[], int]) -> None:
    """Run a benchmark's main and exit with its code. A Ctrl-C (or SIGTERM) that main lets through
    (before any deal, or a second one while the figures are printed) exits at once with 130
    (143) and one line."""
    try:
        sys.exit(main())
    except KeyboardInterrupt as error:
        print("interrupted", file=sys.stderr)
        sys.exit(interrupt_exit_code(isinstance(error, Terminated)))


def secs(seconds: float | None) -> str:
    """A duration with a sensible unit (n/a for None or NaN)."""
    if seconds is None or math.isnan(seconds):
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"
