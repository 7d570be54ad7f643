"""The `klondike` command line: parses options, calls the `solver` library, prints.

Exit codes: 0 success (for `solve`: a win was found), 1 `solve` proved the deal unwinnable,
2 bad input or an illegal line, 3 `solve` gave up (a budget ran out: unknown), 4 internal error.
"""

from __future__ import annotations

import json
import sys
from functools import wraps

import click

from solver import positions
from solver.errors import KlondikeError
from solver.game import replay
from solver.options import DEAL_SOURCES, build_ruleset, load_deal, load_line
from solver.rules import PRESETS

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 4


def fail(message: str, code: int = EXIT_BAD_INPUT):
    """Print one line on stderr and exit with `code`."""
    click.echo(f"klondike: error: {message}", err=True)
    sys.exit(code)


def friendly_errors(func):
    """Turn library errors into one clear line on stderr and a non-zero exit, never a traceback."""

    @wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except KlondikeError as err:
            fail(str(err))
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except click.exceptions.Exit:
            raise
        except (click.ClickException, click.Abort):
            raise
        except Exception as err:  # a bug: still one line, and a distinct exit code
            fail(f"internal error: {type(err).__name__}: {err} (please report it)", EXIT_INTERNAL)

    return wrapper


def rules_options(func):
    """The ruleset options shared by every command that takes rules."""
    options = [
        click.option("--rules", "rules_name", default="classic", show_default=True,
                     type=click.Choice(list(PRESETS)), help="Ruleset preset (RULES.md 5)."),
        click.option("--draw", type=click.Choice(["1", "3"]), default=None, help="Cards per draw (overrides the preset)."),
        click.option("--passes", default=None, metavar="N|unlimited", help="Passes through the stock (1 = no recycle)."),
        click.option("--foundation-to-tableau/--no-foundation-to-tableau", "foundation_to_tableau", default=None,
                     help="Allow moving a foundation top back to the tableau."),
        click.option("--auto-play/--no-auto-play", "auto_play", default=None,
                     help="The game moves safe cards to the foundations by itself (RULES.md 4)."),
        click.option("--scoring", type=click.Choice(["harmony", "duel", "none"]), default=None,
                     help="Scoring table (RULES.md 6); none = fewest actions."),
        click.option("--seconds-per-action", type=float, default=None, metavar="S",
                     help="Clock model: seconds charged per action (default 1)."),
        click.option("--no-clock", is_flag=True, default=False, help="Switch the clock off (no time bonus or limit)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def deal_options(func):
    """The deal options shared by every command that takes a deal: SEED, --source, --deal, --deal-file."""
    options = [
        click.argument("seed", required=False),
        click.option("--source", default="native", show_default=True, type=click.Choice(list(DEAL_SOURCES)),
                     help="Where the seed's deal comes from: native (RULES.md 3), pysol (PySol FC game "
                          "numbers), ksolve (Klondike-Solver's shuffle)."),
        click.option("--deal", "deal_codes", default=None, metavar="CODES",
                     help="An explicit deal: 52 card codes in deal order (instead of SEED)."),
        click.option("--deal-file", default=None, metavar="FILE", help="Read the deal from a file (instead of SEED)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def make_rules(kw: dict):
    """Pop the rules options out of a command's keyword arguments and build the Ruleset."""
    return build_ruleset(kw.pop("rules_name"), draw=kw.pop("draw"), passes=kw.pop("passes"),
                         foundation_to_tableau=kw.pop("foundation_to_tableau"), auto_play=kw.pop("auto_play"),
                         scoring=kw.pop("scoring"), seconds_per_action=kw.pop("seconds_per_action"),
                         no_clock=kw.pop("no_clock"))


def make_deal(kw: dict):
    """Pop the deal options out of a command's keyword arguments and load the Deal."""
    return load_deal(kw.pop("seed"), kw.pop("source"), kw.pop("deal_codes"), kw.pop("deal_file"))


def picture(position) -> str:
    """The position picture: symbols and colour on a terminal, plain text otherwise."""
    terminal = sys.stdout.isatty()
    return positions.to_text(position, symbols=terminal, colour=terminal)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="klondike-solver")
def main():
    """Klondike solitaire solver and analysis tool.

    Deals come from seeds (RULES.md 3) or are given as 52 card codes. Rulesets: classic (draw 1,
    one pass), classic-draw3 (draw 3, three passes), harmony (draw 1, unlimited, scored), duel
    (draw 3, unlimited, scored); every parameter can be overridden.
    """


@main.command()
@deal_options
@rules_options
@click.option("--json", "as_json", is_flag=True, help="Print the deal as JSON.")
@click.option("--format", "export_format", default="native", show_default=True,
              type=click.Choice(["native", "ksolve", "pysol", "solvitaire"]),
              help="Export the deal in another tool's format.")
@friendly_errors
def deal(as_json, export_format, **kw):
    """Show the layout of a deal: SEED (or --deal / --deal-file)."""
    from solver.game import Position

    the_deal = make_deal(kw)
    rules = make_rules(kw)
    if export_format != "native":
        from solver.formats import export_deal

        click.echo(export_deal(the_deal, export_format))
        return
    if as_json:
        click.echo(json.dumps(the_deal.to_json()))
        return
    where = f"seed {the_deal.seed} ({the_deal.source})" if the_deal.seed is not None else "explicit deal"
    click.echo(f"{where}, {rules.describe()}")
    click.echo(picture(Position.initial(the_deal)), nl=False)


@main.command(name="replay")
@deal_options
@click.argument("tokens", nargs=-1)
@click.option("--line-file", default=None, metavar="FILE", help="Read the line from a file (tokens or a JSON list).")
@rules_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@friendly_errors
def replay_command(tokens, line_file, as_json, **kw):
    """Replay a line (RULES.md 7 tokens) on a deal: SEED TOKEN... or SEED --line-file F.

    Prints the final position, actions, cards on the foundations, passes, time and score. Exits 0
    if the line is legal, 2 with the first illegal token and the reason otherwise.
    """
    the_deal = make_deal(kw)
    rules = make_rules(kw)
    line = load_line(tokens, line_file)
    result = replay(the_deal, rules, line)
    summary = result.game.summary()
    if as_json:
        data = {"seed": the_deal.seed, "source": the_deal.source, "rules": rules.to_json(), "legal": result.legal,
                "line": line, **summary, "position": positions.to_json(result.game.position)}
        if not result.legal:
            data["error"] = {"index": result.error_index, "token": line[result.error_index], "reason": result.error}
        click.echo(json.dumps(data))
    else:
        click.echo(picture(result.game.position), nl=False)
        click.echo(format_summary(summary))
    if not result.legal:
        fail(f"illegal token {line[result.error_index]!r} at index {result.error_index}: {result.error}")


def format_summary(summary: dict) -> str:
    """Human-readable lines for a game summary."""
    lines = [f"actions: {summary['actions']}   foundation cards: {summary['foundation_cards']}/52   "
             f"pass: {summary['passes']}   won: {'yes' if summary['won'] else 'no'}"]
    if summary["seconds"] is not None:
        lines.append(f"time: {summary['seconds']:g} s" + (f" (cut at 300 s after action {summary['cut_at_action']})"
                                                          if summary["cut_at_action"] is not None else ""))
    if summary["score"] is not None:
        parts = ", ".join(f"{k} {v:+d}" for k, v in summary["breakdown"].items() if k != "total" and v)
        lines.append(f"score: {summary['score']:,}" + (f"  ({parts})" if parts else ""))
    return "\n".join(lines)


def node_progress(description: str):
    """A tqdm counter of searched nodes on stderr, shown only on a terminal; returns (callback, bar)."""
    from tqdm import tqdm

    bar = tqdm(desc=description, unit=" nodes", unit_scale=True, file=sys.stderr, leave=False,
               disable=not sys.stderr.isatty(), mininterval=0.5)

    def update(nodes: int) -> None:
        bar.update(nodes - bar.n)

    return update, bar


@main.command()
@deal_options
@rules_options
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, metavar="N", help="Node budget (default: none).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              metavar="S", help="Time budget in seconds.")
@click.option("--memory", "memory_mb", type=click.IntRange(min=16), default=512, show_default=True, metavar="MB",
              help="Memory for the transposition table and the search stack.")
@click.option("--show", is_flag=True, help="Also print the board before and after the line.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@friendly_errors
def solve(max_nodes, time_limit, memory_mb, show, as_json, **kw):
    """Is this deal winnable? Prints the verdict and, for a win, a line to play it.

    The verdict is win (with the line, replayed through the reference engine), loss (proved: every
    reachable position was searched) or unknown (a budget ran out). Exit code: 0 win, 1 loss,
    3 unknown, 2 bad input.
    """
    from solver.game import Position
    from solver.line import numbered
    from solver.solve import solve as run_solve

    the_deal = make_deal(kw)
    rules = make_rules(kw)
    update, bar = node_progress("solving")
    try:
        result = run_solve(the_deal, rules, max_nodes=max_nodes, time_limit=time_limit, memory_mb=memory_mb,
                           progress=update)
    finally:
        bar.close()
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        where = f"seed {the_deal.seed} ({the_deal.source})" if the_deal.seed is not None else "explicit deal"
        click.echo(f"{where}, {rules.describe()}")
        if show:
            click.echo(picture(Position.initial(the_deal)), nl=False)
        stats = f"{result.nodes:,} nodes, {result.seconds:.3f} s"
        if result.result == "win":
            click.echo(f"result: win in {result.actions} actions ({stats})")
            click.echo("\n".join(numbered(result.game.line)))
            if show:
                click.echo(picture(result.game.position), nl=False)
        elif result.result == "loss":
            click.echo(f"result: loss: no line wins, every reachable position was searched ({stats})")
        else:
            click.echo(f"result: unknown: the {result.reason} ran out before an answer ({stats})")
    sys.exit({"win": 0, "loss": 1, "unknown": 3}[result.result])


@main.command()
@click.option("--seeds", default="1-20", show_default=True, help="Seed range A-B of the fixed set.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=200_000, show_default=True,
              help="Node budget per deal (fixed, so the node total is a signature of the search).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@friendly_errors
def bench(seeds, max_nodes, as_json):
    """Solve a fixed set of seeds under each ruleset; print the node total (a signature that
    changes only when the search changes) and nodes per second.
    """
    from solver.benchmark import run_bench

    report = run_bench(seeds, max_nodes)
    if as_json:
        click.echo(json.dumps(report))
        return
    click.echo(f"compile/load time: {report['compile_seconds']:.2f} s")
    for row in report["rulesets"]:
        click.echo(f"{row['rules']:<16} win {row['win']:3d}  loss {row['loss']:3d}  unknown {row['unknown']:3d}  "
                   f"nodes {row['nodes']:>11,}  {row['seconds']:7.2f} s  {row['nodes_per_second']:>11,.0f} nodes/s")
    click.echo(f"signature: {report['total_nodes']} nodes in total, {report['nodes_per_second']:,.0f} nodes/s")


def run():
    """Console entry point: like `main`, but a usage error is one line on stderr (exit 2)."""
    try:
        code = main.main(standalone_mode=False)
    except click.UsageError as err:
        fail(err.format_message().splitlines()[0] if err.format_message() else str(err))
    except click.Abort:
        fail("interrupted", 130)
    except click.ClickException as err:
        fail(err.format_message(), err.exit_code)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    run()
