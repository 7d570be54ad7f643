"""Batch throughput: deals/s with --jobs 1 and --jobs 2 (or any list) on the same seeds, the scaling
ratio, and the peak memory of each worker.

    python benchmarks/batch.py [--seeds 1-200] [--rules classic] [--max-nodes 100000] [--jobs 1,2]
                               [--repeat 1] [--json out.json]

A tiny batch first starts the forkserver (which loads the kernels once), so every measured run
starts from the same point. For each job count: `wall` is seeds / the whole batch time (worker
start-up included); `steady` counts only the rows after every worker reported ready, over the time
since then (the figure the scaling ratio uses; target >= 1.8x on 2 cores). With --repeat, the best
run of each job count is kept. Peak memory is each worker's peak RSS (getrusage; it includes the
pages shared with the forkserver). Worker and parent CPU time per deal, and the parallelism
achieved (worker CPU / wall time), tell the code's scaling apart from other load on the machine.
The rows of every run must be the same (times aside). A rate that cannot be measured (every row came
before all workers were ready: too few seeds) is printed `n/a` with the reason and written `null`
in the JSON, as is a scaling ratio that depends on it.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the `benchmarks` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.stats_util import MAX_SEEDS, check_seed_count, positive_int, run_script, writable_file, write_report
from solver.batch import BatchConfig, SeedList, parse_seeds, read_rows, run_batch
from solver.errors import KlondikeError
from solver.rules import PRESETS


def cpu() -> float:
    """CPU seconds this process has used (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(seeds, config, jobs: int, directory: str, tag: str) -> tuple[dict, list]:
    """One batch run on `jobs` workers: its summary (with the parent's CPU time) and its rows without times."""
    out = os.path.join(directory, f"{tag}.jsonl")
    began = cpu()
    summary = run_batch(seeds, config, out=out, jobs=jobs, force=True)
    summary["parent_cpu_seconds"] = cpu() - began
    rows = [{k: v for k, v in row.items() if k != "seconds"} for row in read_rows(out)[0]]
    return summary, rows


def seed_list(text: str) -> SeedList:
    """argparse type: `solver.batch.parse_seeds`'s SEEDS (`1-100,250,@file`), native seeds only, at
    most MAX_SEEDS of them."""
    try:
        seeds = parse_seeds(text)
    except KlondikeError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    check_seed_count(seeds.count, seeds.ranges[-1][1])
    return seeds


def seeds_text(seeds: SeedList) -> str:
    """The seeds as merged ranges: `1-100,250`."""
    return ",".join(f"{low}" if low == high else f"{low}-{high}" for low, high in seeds.ranges)


def job_counts(text: str) -> list[int]:
    """argparse type: comma-separated job counts, each >= 1."""
    counts = []
    for item in text.split(","):
        try:
            counts.append(positive_int(item.strip()))
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated whole numbers >= 1, got {text!r}") from None
    return list(dict.fromkeys(counts))


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=seed_list, default="1-200",
                        help="native seeds (0 <= seed < 2^64) as `klondike batch` takes them: seeds and ranges A-B,"
                             f" comma-separated, or @FILE; at most {MAX_SEEDS:,} (default 1-200)")
    parser.add_argument("--rules", default="classic", choices=list(PRESETS), help="the ruleset (default classic)")
    parser.add_argument("--max-nodes", type=positive_int, default=100_000,
                        help="node budget per deal, the only budget, so every run gives the same rows"
                             " (default 100,000)")
    parser.add_argument("--jobs", type=job_counts, default="1,2",
                        help="comma-separated worker counts, one measured run each; scaling is against 1"
                             " (default 1,2)")
    parser.add_argument("--repeat", type=positive_int, default=1,
                        help="runs per job count, the best (highest steady rate) kept (default 1)")
    parser.add_argument("--json", type=writable_file, default=None,
                        help="also write the report to this file (checked at start; default none)")
    return parser


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator rounded to 3 decimals; None when either is missing or the denominator is 0."""
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 3)


def add_scaling(runs: list[dict]) -> None:
    """Each run's steady and wall rates over those of the --jobs 1 run (`scaling`, `wall_scaling`),
    None where they cannot be measured, with the reason in the run's `not_measured`."""
    base = next((run for run in runs if run["jobs"] == 1), None)
    for run in runs:
        if base is None:
            reason = "no --jobs 1 run to compare with"
        elif base["steady_deals_per_second"] is None:
            reason = "no steady rate with --jobs 1"
        elif run["steady_deals_per_second"] is None:
            reason = "no steady rate"
        else:
            reason = None
        run["scaling"] = None if base is None else ratio(run["steady_deals_per_second"],
                                                         base["steady_deals_per_second"])
        run["wall_scaling"] = None if base is None else ratio(run["wall_deals_per_second"],
                                                              base["wall_deals_per_second"])
        if run["scaling"] is None:
            run["not_measured"]["scaling"] = reason
        if run["wall_scaling"] is None:
            run["not_measured"]["wall_scaling"] = reason if base is None else "no wall rate"


def cell(value: float | None, width: int, digits: int, suffix: str = "") -> str:
    """A right-aligned table cell: the value with `digits` decimals and `suffix`, or `n/a`."""
    return f"{'n/a' if value is None else f'{value:.{digits}f}{suffix}':>{width}}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code."""
    args = build_parser().parse_args(argv)
    seeds = args.seeds
    config = BatchConfig(PRESETS[args.rules], max_nodes=args.max_nodes, time_limit=None)
    report = {"seeds": seeds_text(seeds), "deals": seeds.count, "rules": args.rules,
              "max_nodes": args.max_nodes, "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
              "runs": []}
    reference = None
    try:
        with tempfile.TemporaryDirectory() as directory:
            run_batch(parse_seeds("1-2"), config, out=os.path.join(directory, "warm.jsonl"), jobs=1)
            for jobs in args.jobs:
                best = None
                for attempt in range(args.repeat):
                    summary, rows = measure(seeds, config, jobs, directory, f"jobs{jobs}-{attempt}")
                    if reference is None:
                        reference = rows
                    elif rows != reference:
                        print(f"error: the rows with --jobs {jobs} differ from the first run", file=sys.stderr)
                        return 1
                    if best is None or ((summary["steady_deals_per_second"] or 0)
                                        > (best["steady_deals_per_second"] or 0)):
                        best = summary
                steady = best["steady_deals_per_second"]
                wall = best["deals_per_second"] or None  # 0.0 when no time passed at all
                not_measured = {}
                if steady is None:
                    not_measured["steady_deals_per_second"] = (
                        "every deal finished before all workers were ready (too few seeds)")
                if wall is None:
                    not_measured["wall_deals_per_second"] = "no time measured"
                report["runs"].append({
                    "jobs": jobs, "workers": best["workers"], "seconds": round(best["seconds"], 3),
                    "wall_deals_per_second": None if wall is None else round(wall, 2),
                    "steady_deals_per_second": None if steady is None else round(steady, 2),
                    "worker_peak_rss_mb": best["worker_peak_rss_mb"], "counts": best["counts"],
                    "worker_cpu_ms_per_deal": round(1000 * sum(best["worker_cpu_seconds"]) / seeds.count, 3),
                    "parent_cpu_ms_per_deal": round(1000 * best["parent_cpu_seconds"] / seeds.count, 3),
                    "parallelism": ratio(sum(best["worker_cpu_seconds"]), best["seconds"]),
                    "not_measured": not_measured})
    except KlondikeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    add_scaling(report["runs"])
    print_report(args, seeds, report)
    write_report(args.json, report)
    return 0


def print_report(args: argparse.Namespace, seeds: SeedList, report: dict) -> None:
    """The text report: a row per job count, then what could not be measured and why."""
    load = ", ".join(f"{x:.2f}" for x in report["load_average"])
    print(f"batch benchmark: seeds {report['seeds']} ({seeds.count} deals), rules {args.rules}, max-nodes "
          f"{args.max_nodes:,}, {report['cpu_count']} cores (load average before: {load})")
    counts = report["runs"][0]["counts"]
    print("results: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + " (identical for every job count)")
    print(f"{'jobs':>4}  {'seconds':>7}  {'wall deals/s':>12}  {'steady deals/s':>14}  {'scaling':>7}  "
          f"{'wall scaling':>12}  {'worker CPU ms/deal':>18}  {'parent CPU ms/deal':>18}  {'parallelism':>11}  "
          f"peak RSS per worker (MB)")
    for run in report["runs"]:
        print(f"{run['jobs']:>4}  {run['seconds']:>7.2f}  {cell(run['wall_deals_per_second'], 12, 1)}  "
              f"{cell(run['steady_deals_per_second'], 14, 1)}  {cell(run['scaling'], 7, 2, 'x')}  "
              f"{cell(run['wall_scaling'], 12, 2, 'x')}  {run['worker_cpu_ms_per_deal']:>18.2f}  "
              f"{run['parent_cpu_ms_per_deal']:>18.3f}  {cell(run['parallelism'], 11, 2)}  "
              f"{', '.join(f'{mb:.0f}' for mb in run['worker_peak_rss_mb'])}")
    for run in report["runs"]:
        if run["workers"] != run["jobs"]:
            print(f"--jobs {run['jobs']}: {run['workers']} worker(s) only, one per deal at most")
        by_reason: dict[str, list[str]] = {}
        for what, reason in run["not_measured"].items():
            by_reason.setdefault(reason, []).append(what.replace("_", " "))
        for reason, what in by_reason.items():
            print(f"--jobs {run['jobs']}: {' and '.join(what)} n/a: {reason}")
    print("parallelism = the workers' CPU seconds / wall seconds: below the job count when other processes "
          "share the cores; equal worker CPU per deal across job counts means the work itself scales.")


if __name__ == "__main__":
    run_script(main)
