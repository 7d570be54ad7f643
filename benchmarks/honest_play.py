"""Honest play benchmark: whole draw-3, unlimited-pass games played by the honest hint alone.

    python benchmarks/honest_play.py --games 20 [--time-limit 5] [--max-nodes 2000000] [--samples 16] \\
        [--first-seed 1] [--jobs 1] [--max-samples N] [--max-actions 1000] [--look-first] [--commitments] \\
        [--games-table] [--json out.json]

The player sees a face-down card only when the game turns it (a tableau card turned, a stock card
drawn; `solver.hint.Observer`); every action is the first of the honest hint's ranking
(`solver.hint.honest_hint`, every candidate judged over sampled deals) that has a chance (it won a
sample, or some sample was undecided) and does not bring back a position already played (a loop);
the player resigns when no candidate is left, even with four times the samples. Once every card
has been seen the hint is the known-cards one; when its line wins, the player plays it out.
With `--look-first` the player first draws the stock through once and turns the waste back (free
with unlimited passes and no points: every stock card is then known); with `--commitments` the
hints weigh commitments (`solver.commitments`) and the whole chosen commitment is played. The win
rate comes with a 95% Wilson interval, beside the published figures for play with hidden cards.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm

from benchmarks.stats_util import (MAX_SEEDS, Interruption, check_seed_count, ignore_interrupts, interrupted_line,
                                   non_negative_int, partial_fields, positive_int, positive_seconds, raise_terminated,
                                   run_script, writable_file, write_report)
from solver.deal import Deal
from solver.game import Game
from solver.hint import Observer, fork, honest_hint, look_through_stock, position_key
from solver.rules import PRESETS
from solver.stats import wilson_interval

RULES = PRESETS["classic"].with_overrides(draw=3, passes=None, foundation_to_tableau=True)
RESIGN_SAMPLES = 4  # before resigning, the hint is asked again with this many times the samples
PUBLISHED = ("36.97 ± 1.92% (Bjarnason, Fern and Tadepalli 2009, hidden cards, draw 3, unlimited passes); "
             "about 44.5% (lonelybot)")


def play_game(seed: int, samples: int, time_limit: float, max_nodes: int | None, max_actions: int,
              look_first: bool = False, commitments: bool = False, max_samples: int | None = None) -> dict:
    """Play the native deal `seed` to its end with the honest hint; returns the game's record."""
    began = time.perf_counter()
    game = Game(Deal.from_seed(seed), RULES)
    observer = Observer(game.position)
    if look_first:
        look_through_stock(game, observer)
    visited = {position_key(game.position)}
    decisions = 0
    end = "action cap"
    while game.actions < max_actions:
        if game.won:
            end = "won"
            break
        result = honest_hint(game, observer.seen, samples=samples, rng_seed=seed * 1_000_003 + decisions,
                             top=None, time_limit=time_limit, max_nodes=max_nodes, commitments=commitments,
                             max_samples=max_samples)
        decisions += 1
        if result.mode == "known" and result.best is not None and result.best.outcome.won:
            for token in result.best.outcome.line:  # every card has been seen: the hint's line is a sure win
                if not token.endswith("*"):
                    game.play(token)
            continue
        if all(c.action is None or c.outcome.hopeless for c in result.candidates):
            # no sample was won: look again, with more samples, before resigning
            result = honest_hint(game, observer.seen, samples=RESIGN_SAMPLES * samples,
                                 rng_seed=seed * 1_000_003 + decisions, top=None, time_limit=RESIGN_SAMPLES * time_limit,
                                 max_nodes=None if max_nodes is None else RESIGN_SAMPLES * max_nodes,
                                 commitments=commitments,
                                 max_samples=None if max_samples is None else RESIGN_SAMPLES * max_samples)
        choice, loops = None, False
        for candidate in result.candidates:  # the best first
            if candidate.action is None or candidate.outcome.hopeless:
                continue
            plan = candidate.plan or (candidate.action,)
            after = fork(game)
            for action in plan:
                after.apply(action)
            if position_key(after.position) in visited:
                loops = True
                continue
            choice = plan
            break
        if choice is None:
            end = "resigned: every action loops" if loops else "resigned: no sampled deal is won"
            break
        for action in choice:  # a commitment's reversible actions show no card: the whole plan is played
            game.apply(action)
            observer.look(game.position)
        visited.add(position_key(game.position))
    return {"seed": seed, "won": game.won, "end": end, "actions": game.actions, "decisions": decisions,
            "foundation_cards": sum(game.position.foundations), "seconds": time.perf_counter() - began,
            "line": [a.token for a in game.line]}


def _play(args: tuple) -> dict:
    return play_game(*args)


def run(games: int, first_seed: int, samples: int, time_limit: float, max_nodes: int | None, max_actions: int,
        jobs: int, show_progress: bool, look_first: bool = False, commitments: bool = False,
        max_samples: int | None = None, records: list[dict] | None = None) -> list[dict]:
    """Play `games` deals (native seeds from `first_seed`); the records in seed order.

    Each record is also appended to `records` (when given) as its game ends, so that the games
    finished are known when Ctrl-C stops the run (the worker processes are then stopped)."""
    tasks = [(seed, samples, time_limit, max_nodes, max_actions, look_first, commitments, max_samples)
             for seed in range(first_seed, first_seed + games)]
    records = [] if records is None else records
    pool = None
    try:
        with tqdm(total=games, desc="honest play", unit="game", file=sys.stderr, disable=not show_progress) as bar:
            if jobs == 1:
                results = map(_play, tasks)
            else:
                pool = multiprocessing.Pool(jobs, initializer=ignore_interrupts)
                results = pool.imap_unordered(_play, tasks)
            for record in results:
                records.append(record)
                bar.set_postfix(won=sum(r["won"] for r in records), refresh=False)
                bar.update()
            if pool is not None:
                pool.close()
                pool.join()
    finally:
        if pool is not None:  # after Ctrl-C (or an error), the games in play are not waited for
            pool.terminate()
            pool.join()
    return sorted(records, key=lambda r: r["seed"])


def summarize(records: list[dict]) -> dict:
    """Wins, the win rate with its 95% Wilson interval, and seconds and actions per game."""
    n = len(records)
    wins = sum(r["won"] for r in records)
    low, high = wilson_interval(wins, n)
    seconds = [r["seconds"] for r in records]
    return {"games": n, "wins": wins, "win_rate": wins / n, "ci95": [low, high],
            "seconds_per_game": {"mean": statistics.mean(seconds), "median": statistics.median(seconds),
                                 "max": max(seconds), "total": sum(seconds)},
            "actions_per_game": statistics.mean(r["actions"] for r in records),
            "ends": {end: sum(r["end"] == end for r in records) for end in sorted({r["end"] for r in records})}}


# The default reach of adaptive sampling: over seeds 1-200 it took the win rate to 45.5% (README).
ADAPTIVE_FACTOR = 4


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Play whole draw-3 unlimited-pass games with the honest hint only; report the win rate.")
    parser.add_argument("--games", type=positive_int, default=20,
                        help=f"number of deals (native seeds) to play, at most {MAX_SEEDS:,} (default 20)")
    parser.add_argument("--first-seed", type=non_negative_int, default=1,
                        help="the first native seed (0 <= seed < 2^64); the games take the seeds from it on"
                             " (default 1)")
    parser.add_argument("--time-limit", type=positive_seconds, default=5.0,
                        help="seconds per hint, > 0; no further sample is started past it (default 5)")
    parser.add_argument("--max-nodes", type=non_negative_int, default=2_000_000,
                        help="nodes per hint, shared by its searches; 0 for no limit (default 2,000,000)")
    parser.add_argument("--samples", type=positive_int, default=16, help="sampled deals per hint (default 16)")
    parser.add_argument("--max-samples", type=positive_int, default=None,
                        help="close candidates get more samples, up to this many, at least --samples"
                             f" (default: {ADAPTIVE_FACTOR} x --samples, so 64)")
    parser.add_argument("--max-actions", type=positive_int, default=1000,
                        help="actions before a game is stopped (default 1000)")
    parser.add_argument("--jobs", type=positive_int, default=1, help="games played at once (default 1)")
    parser.add_argument("--look-first", action="store_true",
                        help="draw the stock through once before the first hint (every stock card then known;"
                             " default off)")
    parser.add_argument("--commitments", action="store_true",
                        help="hints weigh commitments instead of single actions; the whole commitment is played"
                             " (default off)")
    parser.add_argument("--json", type=writable_file, default=None,
                        help="also write the figures and every game to this file (checked at start; default none)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=sys.stderr.isatty(),
                        help="a progress bar on stderr (default: on a terminal)")
    parser.add_argument("--games-table", action="store_true", help="print one row per game (default off)")
    return parser


def main(argv=None) -> int:
    """Run the benchmark and print the report; returns the exit status (130 after Ctrl-C, 143 after
    SIGTERM: the figures of the games finished are printed and written all the same, marked partial)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_seed_count(args.games, args.first_seed + args.games - 1)
    except argparse.ArgumentTypeError as error:
        parser.error(f"argument --first-seed/--games: {error}")
    if args.max_samples is None:
        args.max_samples = ADAPTIVE_FACTOR * args.samples
    if args.max_samples < args.samples:
        parser.error("argument --max-samples: must be at least --samples")
    signal.signal(signal.SIGTERM, raise_terminated)
    records: list[dict] = []
    stopped = Interruption()
    with stopped:
        run(args.games, args.first_seed, args.samples, args.time_limit, args.max_nodes or None, args.max_actions,
            args.jobs, args.progress, args.look_first, args.commitments, args.max_samples, records)
    records.sort(key=lambda r: r["seed"])
    seeds = f"{args.first_seed}-{args.first_seed + args.games - 1}"
    print(f"honest play: {RULES.describe()}")
    nodes = f"{args.max_nodes:,} nodes" if args.max_nodes else "no node limit"
    player = ", ".join(["looks through the stock first"] * args.look_first + ["weighs commitments"] * args.commitments)
    samples = f"{args.samples} samples" + (f" (up to {args.max_samples} for close candidates)"
                                           if args.max_samples and args.max_samples > args.samples else "")
    print(f"seeds {seeds}; per hint {samples}, {args.time_limit:g} s, {nodes}; {args.jobs} job(s)"
          + (f"; the player {player}" if player else ""))
    settings = vars(args) | {"json": str(args.json)}
    if stopped:
        if not records:
            print(f"interrupted: 0 of {args.games} games done; no figures")
            write_report(args.json, {"rules": RULES.to_json(), "settings": settings, "summary": None, "games": [],
                                     **partial_fields(0, args.games)})
            return stopped.exit_code
        print(interrupted_line(len(records), args.games, "games"))
    summary = summarize(records)
    if args.games_table:
        for r in records:
            print(f"  seed {r['seed']:>6}  {'won ' if r['won'] else 'lost'}  {r['actions']:4d} actions  "
                  f"{r['foundation_cards']:2d} cards up  {r['seconds']:7.1f} s  {r['end']}")
    low, high = summary["ci95"]
    print(f"won {summary['wins']} of {summary['games']} = {100 * summary['win_rate']:.1f}% "
          f"(95% Wilson interval {100 * low:.1f}% to {100 * high:.1f}%)")
    s = summary["seconds_per_game"]
    print(f"seconds per game: mean {s['mean']:.1f}, median {s['median']:.1f}, max {s['max']:.1f} "
          f"(total {s['total']:.0f} s); actions per game: mean {summary['actions_per_game']:.0f}")
    print("games ended: " + ", ".join(f"{end} {count}" for end, count in summary["ends"].items()))
    print(f"published, hidden cards: {PUBLISHED}")
    write_report(args.json, {"rules": RULES.to_json(), "settings": settings, "summary": summary, "games": records,
                             **(partial_fields(len(records), args.games) if stopped else {"interrupted": False})})
    return stopped.exit_code


if __name__ == "__main__":
    run_script(main)
