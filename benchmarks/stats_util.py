"""Statistics for the benchmarks: verdict and time summaries built on the project's own helpers.

The Wilson interval, the percentile and the Solvitaire-style win rate (unknown deals counted both
ways) come from `solver.stats`; this module adapts them to lists of per-deal verdicts and times
(empty lists give NaN instead of an error).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from solver.benchmark import BENCH_RULESETS, parse_range
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

def parse_seeds(text: str) -> list[int]:
    """`1-1000`, `7`, or a comma-separated list of those, as a list of distinct seeds in order."""
    seeds: dict[int, None] = {}
    for part in text.split(","):
        try:
            seeds.update(dict.fromkeys(parse_range(part.strip())))
        except KlondikeError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return list(seeds)


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


def run_script(main: Callable[[], int]) -> None:
    """Run a benchmark's main and exit with its code; Ctrl-C exits with 130 and one line."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


def secs(seconds: float | None) -> str:
    """A duration with a sensible unit (n/a for None or NaN)."""
    if seconds is None or math.isnan(seconds):
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"
