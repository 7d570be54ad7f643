"""Winnability benchmark: how many native deals of a seed range our solver decides and wins, how
fast, with how much memory; and, where the rules are Klondike-Solver's, the same deals through
pyksolve for comparison.

    python benchmarks/winnability.py --rules ksolve-draw3 --seeds 1-1000 --time-limit 60 \\
        --memory 512 [--peer/--no-peer] [--peer-timeout 60] [--jobs 1] [--json out.json]

Win rates come with 95% Wilson intervals, over decided deals and (as the Solvitaire paper does)
with the unknown deals counted both ways. Times are per deal as `solve` measures them; a deal cut
by the time limit counts at the time it ran. Published win rates are printed beside.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the `benchmarks` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm

from benchmarks.peers import DEFAULT_MAX_STATES, PeerOutcome, PyksolvePool, pyksolve_available, pyksolve_supports
from benchmarks.solver_runner import DealOutcome, SolveSettings, solve_seeds
from benchmarks.stats_util import (Interruption, interrupted_ruleset, non_negative_int, parse_rule_names, parse_seeds,
                                   partial_fields, percentile, positive_int, positive_seconds, print_interrupted_stage,
                                   raise_terminated,
                                   run_script, seconds_or_zero, secs, seeds_help, time_summary, verdict_summary,
                                   writable_file, write_report)
from solver.benchmark import BENCH_RULESETS, warm_up
from solver.deal import Deal
from solver.formats import export_deal
from solver.rules import Ruleset
from solver.runner import keep_freed_memory

# Thoughtful (all cards known) win rates, unlimited passes, foundation->tableau allowed, by draw
# (SOLVER-NOTES.md: Dang, Gent et al. CP 2025; the Solvitaire paper agrees within its interval).
PUBLISHED_WIN_RATES = {
    1: "90.45 ± 0.09% (draw 1, unlimited passes, foundation->tableau; CP 2025; Solvitaire 90.480 ± 0.116%)",
    3: "81.94 ± 0.08% (draw 3, unlimited passes, foundation->tableau; CP 2025; Solvitaire 81.945 ± 0.084%)",
}
PUBLISHED_WIN_FRACTIONS = {1: 0.9045, 3: 0.8194}

FIRST_RUN_PROBE = """
import json, time
began = time.perf_counter()
from solver.benchmark import warm_up
imported = time.perf_counter()
print(json.dumps({"import_seconds": imported - began, "warm_up_seconds": warm_up()}))
"""


# --- command line ----------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Winnability benchmark: decided and win rates, time and memory per deal, pyksolve beside.")
    parser.add_argument("--rules", type=parse_rule_names, default=parse_rule_names("ksolve-draw3"),
                        help=f"comma-separated rulesets among {', '.join(BENCH_RULESETS)} (default ksolve-draw3)")
    parser.add_argument("--seeds", default="1-1000",
                        help=seeds_help("1-1000"))
    parser.add_argument("--time-limit", type=seconds_or_zero, default=60.0,
                        help="seconds per deal for our solver; 0 for none (default 60)")
    parser.add_argument("--memory", type=positive_int, default=512, help="MB for our solver per deal (default 512)")
    parser.add_argument("--max-nodes", type=positive_int, default=None,
                        help="node budget per deal for our solver (default none)")
    parser.add_argument("--peer", action=argparse.BooleanOptionalAction, default=True,
                        help="also run pyksolve where the rules are its own (default on)")
    parser.add_argument("--peer-timeout", type=positive_seconds, default=60.0,
                        help="seconds per deal for pyksolve, > 0 (default 60)")
    parser.add_argument("--peer-max-states", type=positive_int, default=DEFAULT_MAX_STATES,
                        help=f"pyksolve's max_closed_count (default {DEFAULT_MAX_STATES:,})")
    parser.add_argument("--jobs", type=positive_int, default=1,
                        help="worker processes per solver (default 1: deals run one at a time)")
    parser.add_argument("--slowest", type=non_negative_int, default=5,
                        help="how many slowest seeds to list (default 5)")
    parser.add_argument("--json", type=writable_file, default=None,
                        help="also write every figure and deal to this file (checked at start; default none)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=sys.stderr.isatty(),
                        help="progress bars on stderr (default: on when stderr is a terminal)")
    return parser


# --- running -----------------------------------------------------------------------------------------

def measure_first_run() -> dict:
    """Import and warm-up (numba compile, or load from its on-disk cache) times in a fresh Python process."""
    try:
        completed = subprocess.run([sys.executable, "-c", FIRST_RUN_PROBE], capture_output=True, text=True,
                                   timeout=900, check=True)
        return json.loads(completed.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, OSError, ValueError, IndexError) as error:
        return {"error": str(error)}


def follow(outcomes, bar, collected: list) -> list:
    """Collect the outcomes into `collected` as they come, with the verdict counts on the progress bar.

    The iterator is closed on the way out, so that its pool stops even when Ctrl-C lands here."""
    counts: Counter = Counter()
    outcomes = iter(outcomes)
    try:
        for outcome in outcomes:
            collected.append(outcome)
            counts[outcome.result] += 1
            bar.set_postfix(win=counts["win"], loss=counts["loss"], unknown=counts["unknown"], refresh=False)
            bar.update()
    finally:
        if hasattr(outcomes, "close"):
            outcomes.close()
    return collected


def in_seed_order(outcomes: list, seeds: list[int]) -> list:
    """The outcomes sorted into the order of `seeds`."""
    order = {seed: index for index, seed in enumerate(seeds)}
    return sorted(outcomes, key=lambda o: order[o.seed])


def run_our_solver(seeds: list[int], settings: SolveSettings, jobs: int, label: str, show_progress: bool,
                   stopped: Interruption) -> tuple[list[DealOutcome], float]:
    """Solve every seed with our solver; returns the outcomes in seed order and the wall time.

    Ctrl-C (or SIGTERM) stops the workers and is caught by `stopped`: the deals finished are returned."""
    began = time.perf_counter()
    outcomes: list[DealOutcome] = []
    with stopped, tqdm(total=len(seeds), desc=label, unit="deal", file=sys.stderr, leave=False,
                       disable=not show_progress) as bar:
        follow(solve_seeds(seeds, settings, jobs), bar, outcomes)
    wall_seconds = time.perf_counter() - began
    return in_seed_order(outcomes, seeds), wall_seconds


def run_pyksolve(seeds: list[int], rules: Ruleset, args: argparse.Namespace, label: str,
                 stopped: Interruption) -> tuple[list[PeerOutcome], float]:
    """Solve every seed's deal with pyksolve; returns the outcomes in seed order and the wall time.

    Ctrl-C (or SIGTERM) kills the workers and is caught by `stopped`: the deals finished are returned."""
    deals = [(seed, export_deal(Deal.from_seed(seed), "ksolve")) for seed in seeds]
    began = time.perf_counter()
    outcomes: list[PeerOutcome] = []
    with stopped, PyksolvePool(args.jobs, args.peer_timeout, args.peer_max_states) as pool, \
            tqdm(total=len(seeds), desc=label, unit="deal", file=sys.stderr, leave=False,
                 disable=not args.progress) as bar:
        follow(pool.solve_deals(deals, rules.draw), bar, outcomes)
    wall_seconds = time.perf_counter() - began
    return in_seed_order(outcomes, seeds), wall_seconds


# --- figures -----------------------------------------------------------------------------------------

def published_win_rate(rules: Ruleset) -> tuple[str, float] | None:
    """The published win rate (text, fraction) for these rules, if there is one."""
    if rules.passes is not None or not rules.foundation_to_tableau or rules.draw not in PUBLISHED_WIN_RATES:
        return None
    text = PUBLISHED_WIN_RATES[rules.draw]
    if rules.auto_play:
        text += " [published figure is without auto-play]"
    return text, PUBLISHED_WIN_FRACTIONS[rules.draw]


def slowest(outcomes, count: int) -> list[dict]:
    """The `count` slowest deals: seed, verdict and seconds."""
    ranked = sorted(outcomes, key=lambda o: o.seconds, reverse=True)[:count]
    return [{"seed": o.seed, "result": o.result, "seconds": o.seconds} for o in ranked]


def summarize_ours(outcomes: list[DealOutcome], wall_seconds: float, slowest_count: int) -> dict:
    """Verdicts, times, node rate and memory of our solver over a run."""
    times = time_summary([o.seconds for o in outcomes])
    total_nodes = sum(o.nodes for o in outcomes)
    return {
        "verdicts": verdict_summary([o.result for o in outcomes]),
        "unknown_reasons": dict(Counter(o.reason for o in outcomes if o.result == "unknown")),
        "seconds": times,
        "wall_seconds": wall_seconds,
        "nodes": total_nodes,
        "nodes_per_second": total_nodes / times["total"] if times["total"] else math.nan,
        "peak_rss_mb": max((o.peak_rss_mb for o in outcomes), default=math.nan),
        "largest_table_mb": max((o.table_bytes for o in outcomes), default=0) / (1 << 20),
        "slowest": slowest(outcomes, slowest_count),
    }


def summarize_peer(outcomes: list[PeerOutcome], wall_seconds: float, slowest_count: int) -> dict:
    """Verdicts, times and memory of pyksolve over a run."""
    rss = [o.peak_rss_mb for o in outcomes if o.peak_rss_mb is not None]
    return {
        "verdicts": verdict_summary([o.result for o in outcomes]),
        "statuses": dict(Counter(o.status for o in outcomes)),
        "seconds": time_summary([o.seconds for o in outcomes if not math.isnan(o.seconds)]),
        "wall_seconds": wall_seconds,
        "peak_rss_mb": max(rss, default=math.nan),
        "slowest": slowest([o for o in outcomes if not math.isnan(o.seconds)], slowest_count),
    }


def compare(ours: list[DealOutcome], peer: list[PeerOutcome]) -> dict:
    """Times on deals both decided, verdict disagreements, and deals only one of the two decided."""
    peer_by_seed = {o.seed: o for o in peer}
    pairs = [(o, peer_by_seed[o.seed]) for o in ours if o.seed in peer_by_seed]
    both = [(o, p) for o, p in pairs if o.result != "unknown" and p.result != "unknown"]
    our_times = [o.seconds for o, _ in both]
    peer_times = [p.seconds for _, p in both]
    ours_median, peer_median = percentile(our_times, 50), percentile(peer_times, 50)
    ours_mean = sum(our_times) / len(both) if both else math.nan
    peer_mean = sum(peer_times) / len(both) if both else math.nan
    per_deal_ratios = [o.seconds / p.seconds for o, p in both if p.seconds > 0]
    return {
        "both_decided": len(both),
        "ours_median": ours_median, "pyksolve_median": peer_median,
        "ours_mean": ours_mean, "pyksolve_mean": peer_mean,
        "ratio_of_medians": ours_median / peer_median if both and peer_median > 0 else math.nan,
        "ratio_of_means": ours_mean / peer_mean if both and peer_mean > 0 else math.nan,
        "median_per_deal_ratio": percentile(per_deal_ratios, 50),
        "disagreements": [{"seed": o.seed, "ours": o.result, "pyksolve": p.result, "pyksolve_status": p.status}
                          for o, p in both if o.result != p.result],
        "decided_by_ours_only": [{"seed": o.seed, "ours": o.result, "pyksolve_status": p.status}
                                 for o, p in pairs if o.result != "unknown" and p.result == "unknown"],
        "decided_by_pyksolve_only": [{"seed": o.seed, "pyksolve": p.result, "pyksolve_status": p.status,
                                      "ours_reason": o.reason}
                                     for o, p in pairs if o.result == "unknown" and p.result != "unknown"],
    }


# --- printing ----------------------------------------------------------------------------------------

def pct(fraction: float) -> str:
    """A fraction as a percentage with two decimals."""
    return "n/a" if math.isnan(fraction) else f"{100 * fraction:.2f}%"


def interval(bounds: tuple[float, float]) -> str:
    """An interval of fractions as `[a%, b%]`."""
    return "n/a" if math.isnan(bounds[0]) else f"[{100 * bounds[0]:.2f}%, {100 * bounds[1]:.2f}%]"


def ratio(value: float) -> str:
    """A time ratio ours / theirs as `0.05x (ours 20x faster)`."""
    if math.isnan(value):
        return "n/a"
    if value == 0:
        return "0x"
    factor = 1 / value if value < 1 else value
    factor_text = f"{factor:.3g}" if factor < 1000 else f"{factor:,.0f}"
    return f"{value:.3g}x (ours {factor_text}x {'faster' if value < 1 else 'slower'})"


def seed_list(items: list[dict], key: str, limit: int = 20) -> str:
    """`seed (value), ...` for up to `limit` items, then how many more."""
    shown = ", ".join(f"{item['seed']} ({item[key]})" for item in items[:limit])
    return shown + (f", ... {len(items) - limit} more" if len(items) > limit else "")


def verdict_lines(verdicts: dict) -> list[str]:
    """Decided share and win share lines common to both solvers."""
    decided, deals = verdicts["decided"], verdicts["deals"]
    low, high = verdicts["win_fraction_bounds"]
    return [
        f"decided {decided}/{deals} = {pct(verdicts['decided_fraction'])}"
        f"  (win {verdicts['win']}, loss {verdicts['loss']}, unknown {verdicts['unknown']})",
        f"win {verdicts['win']}/{decided} = {pct(verdicts['win_fraction_of_decided'])} of decided,"
        f" 95% Wilson {interval(verdicts['win_interval'])}",
        f"unknowns counted both ways: {pct(low)} .. {pct(high)}, 95% Wilson"
        f" {interval(verdicts['win_interval_unknowns_both_ways'])}",
    ]


def time_line(times: dict) -> str:
    """Median / mean / p99 / max seconds per deal."""
    return (f"seconds per deal: median {secs(times['median'])}, mean {secs(times['mean'])},"
            f" p99 {secs(times['p99'])}, max {secs(times['max'])}")


def print_section(section: dict, jobs: int) -> None:
    """Print the figures of one ruleset."""
    pad = " " * 10
    print(f"\n== {section['name']}: {section['description']}")
    ours = section["ours"]
    lines = verdict_lines(ours["verdicts"])
    if section["published"]:
        text, fraction = section["published"]
        low, high = ours["verdicts"]["win_interval_unknowns_both_ways"]
        where = "inside" if low <= fraction <= high else "outside"
        lines.append(f"published: {text}; {where} the both-ways interval")
    lines.append(time_line(ours["seconds"]) + f"  (wall {secs(ours['wall_seconds'])})")
    if ours["unknown_reasons"]:
        reasons = ", ".join(f"{reason} {count}" for reason, count in ours["unknown_reasons"].items())
        lines.append(f"unknown because of: {reasons} (counted at the time they ran)")
    lines.append(f"nodes: {ours['nodes']:,} in {secs(ours['seconds']['total'])}"
                 f" = {ours['nodes_per_second'] / 1e6:.2f} M nodes/s")
    whose = "this process" if jobs == 1 else f"largest of {jobs} worker processes"
    lines.append(f"memory: peak RSS {ours['peak_rss_mb']:.0f} MB ({whose}, so far),"
                 f" largest table {ours['largest_table_mb']:.0f} MB")
    lines.append("slowest: " + ", ".join(f"{s['seed']} ({s['result']}, {secs(s['seconds'])})"
                                         for s in ours["slowest"]))
    print("ours      " + f"\n{pad}".join(lines))

    peer = section["pyksolve"]
    if peer is None:
        print(f"pyksolve  {section['pyksolve_skipped']}")
        return
    lines = verdict_lines(peer["verdicts"])
    lines.append("statuses: " + ", ".join(f"{status} {count}" for status, count in peer["statuses"].items()))
    lines.append(time_line(peer["seconds"]) + f"  (wall {secs(peer['wall_seconds'])}; timeouts count as the timeout)")
    lines.append(f"memory: peak RSS {peer['peak_rss_mb']:.0f} MB (worker process)")
    lines.append("slowest: " + ", ".join(f"{s['seed']} ({s['result']}, {secs(s['seconds'])})"
                                         for s in peer["slowest"]))
    print("pyksolve  " + f"\n{pad}".join(lines))

    comparison = section["comparison"]
    lines = [f"{comparison['both_decided']} deals decided by both: ours median {secs(comparison['ours_median'])},"
             f" mean {secs(comparison['ours_mean'])}; pyksolve median {secs(comparison['pyksolve_median'])},"
             f" mean {secs(comparison['pyksolve_mean'])}",
             f"ours / pyksolve: median {ratio(comparison['ratio_of_medians'])},"
             f" mean {ratio(comparison['ratio_of_means'])}"
             f" (median of per-deal ratios {ratio(comparison['median_per_deal_ratio'])})"]
    disagreements = comparison["disagreements"]
    if disagreements:
        lines.append(f"DISAGREEMENTS ({len(disagreements)}): " + ", ".join(
            f"seed {d['seed']}: ours {d['ours']}, pyksolve {d['pyksolve']} ({d['pyksolve_status']})"
            for d in disagreements))
    else:
        lines.append("verdict disagreements: none")
    only_peer = comparison["decided_by_pyksolve_only"]
    only_ours = comparison["decided_by_ours_only"]
    lines.append(f"decided by pyksolve only: {len(only_peer)}" + (f": {seed_list(only_peer, 'pyksolve')}"
                                                                  if only_peer else ""))
    lines.append(f"decided by ours only: {len(only_ours)}" + (f": {seed_list(only_ours, 'ours')}"
                                                              if only_ours else ""))
    print("vs        " + f"\n{pad}".join(lines))


# --- main --------------------------------------------------------------------------------------------

def build_section(name: str, ours: list[DealOutcome], ours_wall: float, peer: list[PeerOutcome] | None,
                  peer_wall: float, peer_skipped: str | None, slowest_count: int) -> dict:
    """One ruleset's figures: ours, and pyksolve's beside when it ran (else why not: `peer_skipped`).

    The comparison takes only the deals both finished (all of them, unless the run was interrupted)."""
    rules = BENCH_RULESETS[name]
    section = {"name": name, "description": rules.describe().partition(": ")[2], "rules": rules.to_json(),
               "published": published_win_rate(rules),
               "ours": summarize_ours(ours, ours_wall, slowest_count), "ours_deals": [asdict(o) for o in ours],
               "pyksolve": None, "pyksolve_deals": None, "comparison": None, "pyksolve_skipped": peer_skipped}
    if peer is not None:
        section.update(pyksolve=summarize_peer(peer, peer_wall, slowest_count),
                       pyksolve_deals=[asdict(o) for o in peer], comparison=compare(ours, peer))
    return section


def peer_skipped_because(peer_enabled: bool, rules: Ruleset) -> str | None:
    """Why pyksolve does not run on these rules (None when it does)."""
    if not peer_enabled:
        return "not run (--no-peer or not installed)"
    if not pyksolve_supports(rules):
        return ("not run: Klondike-Solver plays only draw 1/3, unlimited passes, foundation->tableau,"
                " no auto-play")
    return None


def report_interruption(report: dict, names: list[str], asked: int, current: dict | None, jobs: int,
                        slowest_count: int) -> None:
    """After Ctrl-C: say where the run stopped, print the figures of the ruleset it cut short
    (`current`: its name and the deals finished) and mark the report partial."""
    name, not_run, later = interrupted_ruleset(report, names, asked, current and current["name"])
    if name is None:
        return
    ours, peer = current["ours"], current["peer"]
    stage, done = print_interrupted_stage(name, asked, later, ours, peer)
    skipped = (current["peer_skipped"] or "not run: interrupted") if peer is None else None
    if peer is not None and not peer:
        peer, skipped = None, "not run: interrupted before its first deal"
    if ours:
        section = build_section(name, ours, current["ours_wall"], peer, current["peer_wall"], skipped, slowest_count)
        section.update(partial_fields(done, asked), stage=stage)
        print_section(section, jobs)
        report["rulesets"].append(section)
    report.update(partial_fields(done, asked), interrupted_ruleset=name, interrupted_stage=stage,
                  rulesets_not_run=not_run)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status (130 after Ctrl-C, 143 after SIGTERM: the figures
    of the deals finished are printed and written all the same, marked partial)."""
    signal.signal(signal.SIGTERM, raise_terminated)
    keep_freed_memory()  # deal after deal in one process, as in `batch`
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        seeds = parse_seeds(args.seeds)
    except argparse.ArgumentTypeError as error:
        parser.error(f"argument --seeds: {error}")
    time_limit = args.time_limit if args.time_limit > 0 else None
    first_run = measure_first_run()
    this_process_warm_up = warm_up() if args.jobs == 1 else None
    peer_enabled = args.peer and pyksolve_available()

    print(f"Winnability benchmark: seeds {args.seeds} ({len(seeds)} native deals),"
          f" time limit {secs(time_limit) if time_limit else 'none'} per deal, memory {args.memory} MB,"
          f" jobs {args.jobs}")
    if "error" in first_run:
        print(f"first run (fresh process): failed to measure: {first_run['error']}")
    else:
        print(f"first run (fresh process): import {secs(first_run['import_seconds'])},"
              f" warm_up (numba compile or cache load) {secs(first_run['warm_up_seconds'])}"
              + (f"; warm-up in this process {secs(this_process_warm_up)}" if this_process_warm_up is not None
                 else "; each worker warms up before its first deal"))
    if args.peer and not peer_enabled:
        print("pyksolve is not installed: peer runs skipped")
    elif peer_enabled:
        print(f"pyksolve: solve_fast, max_closed_count {args.peer_max_states:,}, timeout {secs(args.peer_timeout)}"
              " per deal (persistent worker, restarted after a timeout); 'Impossible' (no move at the start)"
              " counts as a loss, 'CouldNotComplete' as unknown")
    sys.stdout.flush()

    report = {"seeds": seeds, "time_limit": time_limit, "memory_mb": args.memory, "max_nodes": args.max_nodes,
              "jobs": args.jobs, "peer_timeout": args.peer_timeout, "peer_max_states": args.peer_max_states,
              "first_run": first_run, "this_process_warm_up_seconds": this_process_warm_up, "rulesets": [],
              "interrupted": False}
    stopped = Interruption()
    current = None  # the ruleset being run and the deals it finished, until its figures are printed
    with stopped:
        for name in args.rules:
            rules = BENCH_RULESETS[name]
            settings = SolveSettings(rules, time_limit, args.memory, args.max_nodes)
            current = {"name": name, "ours": [], "ours_wall": math.nan, "peer": None, "peer_wall": math.nan,
                       "peer_skipped": peer_skipped_because(peer_enabled, rules)}
            current["ours"], current["ours_wall"] = run_our_solver(seeds, settings, args.jobs, f"{name} ours",
                                                                   args.progress, stopped)
            if stopped:
                break
            if current["peer_skipped"] is None:
                current["peer"], current["peer_wall"] = run_pyksolve(seeds, rules, args, f"{name} pyksolve", stopped)
                if stopped:
                    break
            section = build_section(name, current["ours"], current["ours_wall"], current["peer"],
                                    current["peer_wall"], current["peer_skipped"], args.slowest)
            print_section(section, args.jobs)
            sys.stdout.flush()
            report["rulesets"].append(section)
            current = None
    if stopped:
        report_interruption(report, args.rules, len(seeds), current, args.jobs, args.slowest)
    write_report(args.json, report)
    return stopped.exit_code


if __name__ == "__main__":
    run_script(main)
