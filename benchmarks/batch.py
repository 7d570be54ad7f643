"""Batch throughput: deals/s with --jobs 1 and --jobs 2 (or any list) on the same seeds, the scaling
ratio, and the peak memory of each worker.

    python benchmarks/batch.py [--seeds 1-200] [--rules classic] [--max-nodes 100000] [--jobs 1,2]
                               [--repeat 1] [--json]

A tiny batch first starts the forkserver (which loads the kernels once), so every measured run
starts from the same point. For each job count: `wall` is seeds / the whole batch time (worker
start-up included); `steady` counts only the rows after every worker reported ready, over the time
since then (the figure the scaling ratio uses; target >= 1.8x on 2 cores). With --repeat, the best
run of each job count is kept. Peak memory is each worker's peak RSS (getrusage; it includes the
pages shared with the forkserver). Worker and parent CPU time per deal, and the parallelism
achieved (worker CPU / wall time), tell the code's scaling apart from other load on the machine.
The rows of every run must be the same (times aside).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile

from solver.batch import BatchConfig, parse_seeds, read_rows, run_batch
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


def main() -> int:
    """Run the benchmark; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1-200")
    parser.add_argument("--rules", default="classic", choices=list(PRESETS))
    parser.add_argument("--max-nodes", type=int, default=100_000)
    parser.add_argument("--jobs", default="1,2", help="comma-separated job counts")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    seeds = parse_seeds(args.seeds)
    config = BatchConfig(PRESETS[args.rules], max_nodes=args.max_nodes, time_limit=None)
    job_counts = [int(j) for j in args.jobs.split(",")]
    report = {"seeds": args.seeds, "deals": seeds.count, "rules": args.rules, "max_nodes": args.max_nodes,
              "cpu_count": os.cpu_count(), "load_average": os.getloadavg(), "runs": []}
    reference = None
    with tempfile.TemporaryDirectory() as directory:
        run_batch(parse_seeds("1-2"), config, out=os.path.join(directory, "warm.jsonl"), jobs=1)
        for jobs in job_counts:
            best = None
            for attempt in range(args.repeat):
                summary, rows = measure(seeds, config, jobs, directory, f"jobs{jobs}-{attempt}")
                if reference is None:
                    reference = rows
                elif rows != reference:
                    print(f"error: the rows with --jobs {jobs} differ from the first run", file=sys.stderr)
                    return 1
                if best is None or (summary["steady_deals_per_second"] or 0) > (best["steady_deals_per_second"] or 0):
                    best = summary
            report["runs"].append({
                "jobs": jobs, "seconds": round(best["seconds"], 3),
                "wall_deals_per_second": round(best["deals_per_second"], 2),
                "steady_deals_per_second": round(best["steady_deals_per_second"] or 0.0, 2),
                "worker_peak_rss_mb": best["worker_peak_rss_mb"], "counts": best["counts"],
                "worker_cpu_ms_per_deal": round(1000 * sum(best["worker_cpu_seconds"]) / seeds.count, 3),
                "parent_cpu_ms_per_deal": round(1000 * best["parent_cpu_seconds"] / seeds.count, 3),
                "parallelism": round(sum(best["worker_cpu_seconds"]) / best["seconds"], 2)})
    by_jobs = {run["jobs"]: run for run in report["runs"]}
    if 1 in by_jobs:
        for run in report["runs"]:
            run["scaling"] = round(run["steady_deals_per_second"] / by_jobs[1]["steady_deals_per_second"], 3)
            run["wall_scaling"] = round(run["wall_deals_per_second"] / by_jobs[1]["wall_deals_per_second"], 3)
    if args.json:
        print(json.dumps(report))
        return 0
    load = ", ".join(f"{x:.2f}" for x in report["load_average"])
    print(f"batch benchmark: seeds {args.seeds} ({seeds.count} deals), rules {args.rules}, max-nodes "
          f"{args.max_nodes:,}, {report['cpu_count']} cores (load average before: {load})")
    counts = report["runs"][0]["counts"]
    print("results: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + " (identical for every job count)")
    print(f"{'jobs':>4}  {'seconds':>7}  {'wall deals/s':>12}  {'steady deals/s':>14}  {'scaling':>7}  "
          f"{'wall scaling':>12}  {'worker CPU ms/deal':>18}  {'parent CPU ms/deal':>18}  {'parallelism':>11}  "
          f"peak RSS per worker (MB)")
    for run in report["runs"]:
        print(f"{run['jobs']:>4}  {run['seconds']:>7.2f}  {run['wall_deals_per_second']:>12.1f}  "
              f"{run['steady_deals_per_second']:>14.1f}  {run.get('scaling', float('nan')):>6.2f}x  "
              f"{run.get('wall_scaling', float('nan')):>11.2f}x  {run['worker_cpu_ms_per_deal']:>18.2f}  "
              f"{run['parent_cpu_ms_per_deal']:>18.3f}  {run['parallelism']:>11.2f}  "
              f"{', '.join(f'{mb:.0f}' for mb in run['worker_peak_rss_mb'])}")
    print("parallelism = the workers' CPU seconds / wall seconds: below the job count when other processes "
          "share the cores; equal worker CPU per deal across job counts means the work itself scales.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
