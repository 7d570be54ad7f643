"""Optimal-line benchmark (issue 4): how often `best` proves its line optimal within a time limit,
how long it takes, and how far from proved the rest are; on Klondike-Solver's rules, our line
beside pyksolve's `solve_minimal` on the same deals.

    python benchmarks/optimal.py --seeds 1-200 --time-limit 60 \\
        --rules classic,classic-draw3,harmony,duel [--peer] [--peer-timeout 60] [--json out.json]

Per ruleset: the share of deals proved optimal, the median and mean seconds per deal (a deal cut
by the limit counts at the time it ran), and the mean gap where not proved: `bound - score` for the
scoring rules, `actions - bound` (the proven fewest actions of a win) for the others.

With --peer, the unlimited-pass rules Klondike-Solver plays (`ksolve-draw1`, `ksolve-draw3` of
`solver.benchmark.BENCH_RULESETS`: draw 1/3, unlimited passes, foundation->tableau, no auto-play)
are added if not listed, and each of their deals also goes to pyksolve's `solve_minimal` (in a
worker process with a timeout; it has none of its own). Its line is converted to our notation and
replayed by our engine; its length in our actions is its normalized count - flips + recycles
(SOLVER-NOTES.md), checked against the replay. Its "minimal" is within its own move set and cost
(which counts turned cards and not recycles), so a shorter line of ours is possible; a longer one
where ours is proved optimal is a bug and is flagged. The speed figure is its time over ours on the
wins both prove (ours proved optimal, its `SolvedMinimal`): median, geometric mean, range, and how
many reach the issue's target of 10x (`SPEED_TARGET`).
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the `benchmarks` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm

from benchmarks.peers import (CRASHED, DEFAULT_MAX_STATES, PYKSOLVE_VERDICTS, READY, TIMEOUT, WorkerProcess,
                              pyksolve_available, pyksolve_supports)
from benchmarks.stats_util import (Interruption, ignore_interrupts, int_between, interrupted_ruleset, parse_rule_names,
                                   parse_seeds, partial_fields, percentile, positive_int, positive_seconds,
                                   print_interrupted_stage,
                                   raise_terminated, ratio_summary, run_script, seconds_or_zero, secs, seeds_help,
                                   writable_file, write_report)
from solver.benchmark import BENCH_RULESETS
from solver.deal import Deal
from solver.errors import KlondikeError
from solver.formats import export_deal, play_ksolve_moves
from solver.game import replay
from solver.optimal import BEST_MEMORY_MB, MAX_THREADS, best, default_threads
from solver.rules import PRESETS, Ruleset
from solver.runner import keep_freed_memory

PEER_RULES = ("ksolve-draw1", "ksolve-draw3")


# --- our solver -----------------------------------------------------------------------------------

@dataclass
class OurDeal:
    """`best` on one deal."""

    seed: int
    won: bool
    optimal: bool
    actions: int
    score: int | None
    bound: int | None
    gap: int | None  # scoring: bound - score; fewest: actions - bound (a win and a bound); None if proved
    seconds: float
    nodes: int
    reason: str | None


def run_ours(seed: int, rules: Ruleset, time_limit: float | None, memory_mb: int, threads: int = 1) -> OurDeal:
    """Solve one native deal with `best` (its best-first search on `threads` threads)."""
    result = best(Deal.from_seed(seed), rules, time_limit=time_limit, memory_mb=memory_mb, threads=threads)
    gap = None
    if not result.optimal:
        if rules.scoring is not None:
            gap = result.bound - result.score
        elif result.won and result.bound is not None:
            gap = result.actions - result.bound
    return OurDeal(seed, result.won, result.optimal, result.actions, result.score, result.bound, gap,
                   result.seconds, result.nodes, result.reason)


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernels of `best`; returns the seconds it took."""
    began = time.perf_counter()
    for name in ("classic", "harmony"):
        best(Deal.from_seed(0), PRESETS[name], max_nodes=2000)
    return time.perf_counter() - began


# --- pyksolve's solve_minimal, in a worker process -------------------------------------------------

def peer_solve_one(deal_string: str, draw: int, max_states: int) -> dict:
    """pyksolve's solve_minimal on one deal (Klondike-Solver's 156-digit string), in this process."""
    from pyksolve.solver import Solitaire

    began = time.perf_counter()
    game = Solitaire()
    if not game.load_solitaire(deal_string):
        return {"status": "bad deal", "seconds": time.perf_counter() - began}
    game.reset_game(draw)  # required before any solve
    status = game.solve_minimal(max_closed_count=max_states).name
    seconds = time.perf_counter() - began
    answer = {"status": status, "seconds": seconds}
    if PYKSOLVE_VERDICTS.get(status) == "win":
        answer.update(moves=game.moves_made(), normalized=game.moves_made_normalized_count)
    return answer


def serve_peer() -> None:
    """Worker main loop (`python -m benchmarks.optimal --peer-worker`): `ready`, then one JSON
    request per stdin line -> one JSON answer per stdout line."""
    ignore_interrupts()  # Ctrl-C is the benchmark's to handle: it kills this worker
    import pyksolve.solver  # noqa: F401  (loaded before the first deal's clock starts)

    sys.stdout.write(READY + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.write(json.dumps(peer_solve_one(request["deal"], request["draw"], request["max_states"])) + "\n")
        sys.stdout.flush()


class MinimalWorker(WorkerProcess):
    """A persistent pyksolve process running solve_minimal (`serve_peer`)."""

    def __init__(self):
        super().__init__("benchmarks.optimal", "--peer-worker")

    def solve(self, deal_string: str, draw: int, max_states: int, timeout: float) -> dict:
        """solve_minimal on one deal, waiting at most `timeout` seconds."""
        answer = self.ask({"deal": deal_string, "draw": draw, "max_states": max_states}, timeout)
        if answer == TIMEOUT:
            return {"status": TIMEOUT, "seconds": timeout}
        if answer == CRASHED:
            return {"status": CRASHED, "seconds": math.nan}
        return answer


@dataclass
class PeerDeal:
    """pyksolve's solve_minimal on one deal, its line measured in our actions."""

    seed: int
    status: str  # SolvedMinimal, SolvedMayNotBeMinimal, Impossible, CouldNotComplete, timeout, crashed
    seconds: float
    actions: int | None = None  # in our sense (replayed by our engine)
    normalized: int | None = None  # its own count
    line_checked: str | None = None  # "ok", or what went wrong replaying its line


def run_peer(worker: MinimalWorker, seed: int, rules: Ruleset, max_states: int, timeout: float) -> PeerDeal:
    """pyksolve on one deal, its winning line replayed and measured by our engine."""
    deal = Deal.from_seed(seed)
    answer = worker.solve(export_deal(deal, "ksolve"), rules.draw, max_states, timeout)
    outcome = PeerDeal(seed, answer["status"], answer["seconds"])
    if "moves" not in answer:
        return outcome
    outcome.normalized = answer["normalized"]
    try:
        peer_line = play_ksolve_moves(deal, rules, answer["moves"])
    except KlondikeError as error:
        outcome.line_checked = f"does not replay: {error}"
        return outcome
    tokens, flips, recycles = peer_line.tokens, peer_line.flips, peer_line.recycles
    game = replay(deal, rules, tokens).game
    outcome.actions = game.actions
    if not game.won:
        outcome.line_checked = "replays but does not win"
    elif game.actions != answer["normalized"] - flips + recycles:
        outcome.line_checked = (f"{game.actions} actions replayed, normalized {answer['normalized']} - flips {flips}"
                                f" + recycles {recycles} = {answer['normalized'] - flips + recycles}")
    else:
        outcome.line_checked = "ok"
    return outcome


# --- figures ----------------------------------------------------------------------------------------

def dash(value: int | None) -> str:
    """A value for a table cell: `-` for None."""
    return "-" if value is None else str(value)


def number(value: float) -> str:
    """A mean with one decimal, or n/a."""
    return "n/a" if value is None or math.isnan(value) else f"{value:.1f}"


def mean(values) -> float:
    """The mean of the values (NaN for none)."""
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def summarize(rules: Ruleset, deals: list[OurDeal]) -> dict:
    """Proved share, times and gaps of one ruleset."""
    times = [d.seconds for d in deals]
    proved = [d for d in deals if d.optimal]
    open_deals = [d for d in deals if not d.optimal]
    gaps = [d.gap for d in open_deals if d.gap is not None]
    return {
        "deals": len(deals),
        "proved": len(proved),
        "proved_fraction": len(proved) / len(deals) if deals else math.nan,
        "won": sum(d.won for d in deals),
        "proved_wins": sum(d.won for d in proved),
        "proved_losses": sum(not d.won for d in proved),
        "median_seconds": percentile(times, 50),
        "mean_seconds": mean(times),
        "max_seconds": max(times, default=math.nan),
        "not_proved": len(open_deals),
        "gap_deals": len(gaps),
        "mean_gap": mean(gaps),
        "max_gap": max(gaps, default=None),
        "not_proved_without_gap": len(open_deals) - len(gaps),
        "reasons": sorted({d.reason for d in open_deals if d.reason}),
    }


# The speed target: at least this many times faster than solve_minimal on the deals both prove.
SPEED_TARGET = 10.0


def wins_both_prove(ours: list[OurDeal], peer: list[PeerDeal]) -> list[tuple[OurDeal, PeerDeal]]:
    """The deals we proved won in the fewest actions and pyksolve reports `SolvedMinimal`, its line
    replayed by our engine."""
    by_seed = {p.seed: p for p in peer}
    return [(o, by_seed[o.seed]) for o in ours if o.optimal and o.won and o.seed in by_seed
            and by_seed[o.seed].status == "SolvedMinimal" and by_seed[o.seed].line_checked == "ok"]


def speed(ours: list[OurDeal], peer: list[PeerDeal]) -> dict:
    """pyksolve's time over ours on `wins_both_prove` (a loss both prove takes each well under a
    millisecond: its ratio is noise)."""
    both = wins_both_prove(ours, peer)
    summary = ratio_summary([p.seconds / o.seconds for o, p in both if o.seconds > 0], SPEED_TARGET)
    summary.update(ours_seconds=sum(o.seconds for o, _ in both), pyksolve_seconds=sum(p.seconds for _, p in both),
                   seeds=[o.seed for o, _ in both])
    return summary


def compare(ours: list[OurDeal], peer: list[PeerDeal]) -> dict:
    """Our actions and time beside pyksolve's on the same deals."""
    by_seed = {p.seed: p for p in peer}
    both = [(o, by_seed[o.seed]) for o in ours if o.won and by_seed[o.seed].actions is not None
            and by_seed[o.seed].line_checked == "ok"]
    contradictions = [{"seed": o.seed, "ours": o.actions, "pyksolve": p.actions} for o, p in both
                      if o.optimal and o.actions > p.actions]
    contradictions += [{"seed": o.seed, "ours": "proved no win", "pyksolve": p.actions} for o in ours
                       for p in [by_seed[o.seed]] if o.optimal and not o.won and p.actions is not None
                       and p.line_checked == "ok"]
    bound_contradictions = [{"seed": o.seed, "bound": o.bound, "pyksolve": p.actions} for o in ours
                            for p in [by_seed[o.seed]] if p.actions is not None and p.line_checked == "ok"
                            and o.bound is not None and o.bound > p.actions]
    return {
        "both_won": len(both),
        "shorter": sum(o.actions < p.actions for o, p in both),
        "equal": sum(o.actions == p.actions for o, p in both),
        "longer": sum(o.actions > p.actions for o, p in both),
        "ours_mean_actions": mean(o.actions for o, _ in both),
        "pyksolve_mean_actions": mean(p.actions for _, p in both),
        "both_proved": len(wins_both_prove(ours, peer)),
        "contradictions": contradictions + bound_contradictions,
        "bad_peer_lines": [{"seed": p.seed, "problem": p.line_checked} for p in peer
                           if p.line_checked not in (None, "ok")],
        "pyksolve_statuses": {status: sum(p.status == status for p in peer)
                              for status in sorted({p.status for p in peer})},
        "pyksolve_median_seconds": percentile([p.seconds for p in peer if not math.isnan(p.seconds)], 50),
        "pyksolve_mean_seconds": mean(p.seconds for p in peer if not math.isnan(p.seconds)),
        "speed": speed(ours, peer),
    }


def percent(fraction: float) -> str:
    """A fraction as a percentage with one decimal, or n/a."""
    return "n/a" if math.isnan(fraction) else f"{100 * fraction:.1f}%"


def plural(count: int, word: str, words: str) -> str:
    """`1 win`, `2 wins`."""
    return f"{count} {word if count == 1 else words}"


def proved_kinds(summary: dict) -> str:
    """What the proved deals are: `1 win, 2 losses: their best stop`, and the wins not proved."""
    unproved_wins = summary["won"] - summary["proved_wins"]
    if not summary["proved"]:
        return f"{plural(unproved_wins, 'win', 'wins')} found, not proved optimal" if unproved_wins else "no win found"
    text = f"{plural(summary['proved_wins'], 'win', 'wins')}, {plural(summary['proved_losses'], 'loss', 'losses')}"
    if summary["proved_losses"]:
        text += ": their best stop"
    if unproved_wins:
        text += f"; {plural(unproved_wins, 'more win', 'more wins')} not proved optimal"
    return text


def print_section(name: str, rules: Ruleset, summary: dict) -> None:
    """Print one ruleset's figures: proved share, times, gaps."""
    pad = " " * 10
    objective = "highest score" if rules.scoring else "fewest actions"
    print(f"\n== {name}: {rules.describe().partition(': ')[2]}; objective: {objective}")
    gap_what, unit = ("bound - score", "points") if rules.scoring else ("actions - bound", "actions")
    lines = [f"proved optimal {summary['proved']}/{summary['deals']} = {percent(summary['proved_fraction'])}"
             f"  ({proved_kinds(summary)})",
             f"seconds per deal: median {secs(summary['median_seconds'])}, mean {secs(summary['mean_seconds'])},"
             f" max {secs(summary['max_seconds'])}"]
    if summary["not_proved"]:
        if summary["gap_deals"]:
            text = (f"not proved {summary['not_proved']}: mean gap ({gap_what}) {summary['mean_gap']:.1f} {unit},"
                    f" max {summary['max_gap']} {unit} over {plural(summary['gap_deals'], 'deal', 'deals')}")
        else:
            text = f"not proved {summary['not_proved']}"
        if summary["not_proved_without_gap"]:
            text += f"; {summary['not_proved_without_gap']} with no win found (no gap)"
        lines.append(text + f" (stopped by: {', '.join(summary['reasons']) or 'n/a'})")
    print("ours      " + f"\n{pad}".join(lines))


def print_peer(ours: list[OurDeal], peer: list[PeerDeal], comparison: dict, per_deal: bool) -> None:
    """Print pyksolve's figures beside ours on the same deals, and the speed comparison."""
    pad = " " * 10
    statuses = ", ".join(f"{k} {v}" for k, v in comparison["pyksolve_statuses"].items())
    lines = [f"solve_minimal: {statuses}; seconds per deal: median {secs(comparison['pyksolve_median_seconds'])},"
             f" mean {secs(comparison['pyksolve_mean_seconds'])} (a timeout counts at the timeout)",
             f"both won {comparison['both_won']}: ours shorter {comparison['shorter']}, equal {comparison['equal']},"
             f" longer {comparison['longer']}; mean actions ours {number(comparison['ours_mean_actions'])},"
             f" pyksolve {number(comparison['pyksolve_mean_actions'])};"
             f" both proved minimal {comparison['both_proved']}"]
    faster = comparison["speed"]
    if faster["count"]:
        lines.append(f"speed on the {faster['count']} wins both prove (its time / ours): median"
                     f" {faster['median']:.2f}x, geometric mean {faster['geometric_mean']:.2f}x, range"
                     f" {faster['min']:.2f}x-{faster['max']:.2f}x; at least {faster['target']:g}x on"
                     f" {faster['at_target']}; in all {secs(faster['ours_seconds'])} against"
                     f" {secs(faster['pyksolve_seconds'])}")
    if comparison["bad_peer_lines"]:
        lines.append(f"pyksolve lines that fail our replay: {comparison['bad_peer_lines']}")
    if comparison["contradictions"]:
        lines.append("CONTRADICTIONS (ours proved or bounded beyond a legal pyksolve win): "
                     f"{comparison['contradictions']}")
    else:
        lines.append("contradictions: none (no proved optimum, proved loss or bound of ours beyond a legal"
                     " pyksolve win)")
    print("pyksolve  " + f"\n{pad}".join(lines))
    if per_deal:
        print(f"{'seed':>8}  {'ours':>6} {'proved':>6} {'bound':>6} {'time':>9}  |"
              f"  {'pyksolve':>8} {'status':<22} {'time':>9}")
        by_seed = {p.seed: p for p in peer}
        for o in ours:
            p = by_seed[o.seed]
            ours_actions = str(o.actions) if o.won else "-"
            peer_actions = str(p.actions) if p.actions is not None else "-"
            print(f"{o.seed:>8}  {ours_actions:>6} {'yes' if o.optimal else 'no':>6} {dash(o.bound):>6}"
                  f" {secs(o.seconds):>9}  |  {peer_actions:>8} {p.status:<22} {secs(p.seconds):>9}")


# --- command line -------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The command line of this benchmark."""
    parser = argparse.ArgumentParser(description="Optimal-line benchmark: proved share, time and gap per ruleset;"
                                                 " pyksolve's solve_minimal beside on its own rules.")
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1-200"), help=seeds_help("1-200"))
    parser.add_argument("--time-limit", type=seconds_or_zero, default=60.0,
                        help="seconds per deal for best; 0 for none (default 60)")
    parser.add_argument("--memory", type=positive_int, default=BEST_MEMORY_MB,
                        help=f"MB for best per deal (default {BEST_MEMORY_MB}, best's own)")
    parser.add_argument("--threads", type=int_between(1, MAX_THREADS), default=default_threads(),
                        help=f"threads of best's best-first search, 1 to {MAX_THREADS} (default {default_threads()}:"
                             " the cores here, as `klondike best`)")
    parser.add_argument("--rules", type=parse_rule_names,
                        default=parse_rule_names("classic,classic-draw3,harmony,duel"),
                        help=f"comma-separated rulesets among {', '.join(BENCH_RULESETS)}"
                             " (default classic,classic-draw3,harmony,duel)")
    parser.add_argument("--peer", action="store_true",
                        help=f"add {' and '.join(PEER_RULES)} and run pyksolve's solve_minimal on their deals"
                             " (default off)")
    parser.add_argument("--peer-timeout", type=positive_seconds, default=60.0,
                        help="seconds per deal for pyksolve, > 0 (default 60)")
    parser.add_argument("--peer-max-states", type=positive_int, default=DEFAULT_MAX_STATES,
                        help=f"pyksolve's max_closed_count (default {DEFAULT_MAX_STATES:,})")
    parser.add_argument("--per-deal", action=argparse.BooleanOptionalAction, default=None,
                        help="a row per deal beside pyksolve (default: when at most 20 deals)")
    parser.add_argument("--json", type=writable_file, default=None,
                        help="also write every figure and deal to this file (checked at start; default none)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=sys.stderr.isatty(),
                        help="progress bars on stderr (default: on when stderr is a terminal)")
    parser.add_argument("--peer-worker", action="store_true", help=argparse.SUPPRESS)
    return parser


def report_ruleset(report: dict, name: str, ours: list[OurDeal], peer: list[PeerDeal] | None,
                   per_deal: bool) -> dict:
    """Print one ruleset's figures (pyksolve's beside when it ran) and add its section to the report.

    Only the deals pyksolve finished are compared (all of them, unless the run was interrupted)."""
    rules = BENCH_RULESETS[name]
    summary = summarize(rules, ours)
    print_section(name, rules, summary)
    section = {"name": name, "rules": rules.to_json(), "summary": summary, "deals": [asdict(d) for d in ours]}
    if peer:
        finished = {p.seed for p in peer}
        both = [o for o in ours if o.seed in finished]
        comparison = compare(both, peer)
        print_peer(both, peer, comparison, per_deal)
        section.update(pyksolve=comparison, pyksolve_deals=[asdict(p) for p in peer])
    sys.stdout.flush()
    report["rulesets"].append(section)
    return section


def report_interruption(report: dict, names: list[str], asked: int, current: str | None, ours: list[OurDeal],
                        peer: list[PeerDeal] | None, per_deal: bool) -> None:
    """After Ctrl-C: say where the run stopped, print the figures of the ruleset it cut short
    (`current`, over the deals finished) and mark the report partial."""
    current, not_run, later = interrupted_ruleset(report, names, asked, current)
    if current is None:
        return
    stage, done = print_interrupted_stage(current, asked, later, ours, peer)
    if ours:
        report_ruleset(report, current, ours, peer, per_deal).update(partial_fields(done, asked), stage=stage)
    report.update(partial_fields(done, asked), interrupted_ruleset=current, interrupted_stage=stage,
                  rulesets_not_run=not_run)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (130 after Ctrl-C, 143 after SIGTERM: the figures of
    the deals finished are printed and written all the same, marked partial)."""
    signal.signal(signal.SIGTERM, raise_terminated)
    keep_freed_memory()  # deal after deal in one process, as in `batch` (also the peer's worker)
    args = build_parser().parse_args(argv)
    if args.peer_worker:
        serve_peer()
        return 0
    time_limit = args.time_limit if args.time_limit > 0 else None
    names = list(args.rules)
    peer_enabled = args.peer and pyksolve_available()
    if args.peer:
        names += [name for name in PEER_RULES if name not in names]
    per_deal = args.per_deal if args.per_deal is not None else len(args.seeds) <= 20

    compile_seconds = warm_up()
    print(f"Optimal-line benchmark: {len(args.seeds)} native deals ({args.seeds[0]}..{args.seeds[-1]}),"
          f" time limit {secs(time_limit) if time_limit else 'none'} per deal, memory {args.memory} MB,"
          f" {args.threads} best-first thread{'s' if args.threads > 1 else ''};"
          f" kernels compiled/loaded in {secs(compile_seconds)}")
    if args.peer and not peer_enabled:
        print("pyksolve is not installed: peer runs skipped")
    elif peer_enabled:
        print(f"pyksolve: solve_minimal, max_closed_count {args.peer_max_states:,}, timeout {secs(args.peer_timeout)}"
              " per deal; its actions in our sense = normalized - flips + recycles, checked by replaying its line")
    sys.stdout.flush()

    report = {"seeds": args.seeds, "time_limit": time_limit, "memory_mb": args.memory, "threads": args.threads,
              "rulesets": [], "interrupted": False}
    if args.peer:
        report.update(peer=peer_enabled, peer_timeout=args.peer_timeout, peer_max_states=args.peer_max_states)
    worker = MinimalWorker() if peer_enabled else None
    stopped = Interruption()
    current: str | None = None  # the ruleset being run, not yet reported
    ours: list[OurDeal] = []
    peer: list[PeerDeal] | None = None
    try:
        with stopped:
            for name in names:
                rules = BENCH_RULESETS[name]
                current, ours, peer = name, [], None
                proved = 0
                with tqdm(total=len(args.seeds), desc=f"{name} ours", unit="deal", file=sys.stderr, leave=False,
                          disable=not args.progress) as bar:
                    for seed in args.seeds:
                        outcome = run_ours(seed, rules, time_limit, args.memory, args.threads)
                        ours.append(outcome)
                        proved += outcome.optimal
                        bar.set_postfix(proved=proved, refresh=False)
                        bar.update()
                if worker is not None and pyksolve_supports(rules):
                    peer = []
                    with tqdm(total=len(args.seeds), desc=f"{name} pyksolve", unit="deal", file=sys.stderr,
                              leave=False, disable=not args.progress) as bar:
                        for seed in args.seeds:
                            peer.append(run_peer(worker, seed, rules, args.peer_max_states, args.peer_timeout))
                            bar.update()
                report_ruleset(report, name, ours, peer, per_deal)
                current = None
    finally:
        if worker is not None:
            worker.close(kill=stopped.interrupted)  # after Ctrl-C, its deal in progress is not waited for
    if stopped:
        report_interruption(report, names, len(args.seeds), current, ours, peer, per_deal)
    write_report(args.json, report)
    return stopped.exit_code


if __name__ == "__main__":
    run_script(main)
