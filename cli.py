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


if __name__ == "__main__":
    main()
