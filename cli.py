"""The `klondike` command line: parses options, calls the `solver` library, prints.

Exit codes: 0 success (for `solve`: a win was found), 1 `solve` proved the deal unwinnable,
2 bad input or an illegal line, 3 `solve` gave up (a budget ran out: unknown), 4 internal error,
130 interrupted, 141 the output's reader went away.
"""

from __future__ import annotations

import sys

# Importing numba takes most of a second, before `run` can catch anything: a Ctrl-C then is an
# interrupt like any other (one line, exit 130), not Python's traceback.
try:
    import json
    import math
    import os
    import re
    from functools import wraps

    import click
    from click.core import ParameterSource

    from solver import positions
    from solver.cards import is_plain_number
    from solver.errors import KlondikeError
    from solver.game import replay
    from solver.jitcache import set_compile_notice
    from solver.optimal import BEST_MEMORY_MB, MAX_THREADS, default_threads
    from solver.options import DEAL_SOURCES, build_ruleset, load_deal, load_line
    from solver.precompile import allow_second_process
    from solver.rules import PRESETS
    from solver.runner import keep_freed_memory, machine_memory_mb
    from solver.solve import DEFAULT_MEMORY_MB
except KeyboardInterrupt:
    sys.stderr.write("klondike: error: interrupted\n")
    sys.exit(130)

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 4
EXIT_OUTPUT_CLOSED = 141  # 128 + SIGPIPE, as a shell reports a program a closed pipe stopped


class Seconds(click.FloatRange):
    """A time budget: more than 0 seconds (`inf`: none). NaN passes every range test unnoticed, so
    it is refused here."""

    name = "seconds"

    def __init__(self):
        super().__init__(min=0, min_open=True)

    def convert(self, value, param, ctx):
        seconds = super().convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return seconds


SECONDS = Seconds()


class Megabytes(click.IntRange):
    """A memory budget: at least 16 MB and no more than the machine has (a larger one would fail
    when the search allocates its tables, or be killed when it fills them)."""

    name = "megabytes"

    def __init__(self):
        super().__init__(min=16)

    def convert(self, value, param, ctx):
        megabytes = super().convert(value, param, ctx)
        available = machine_memory_mb()
        if available is not None and megabytes > available:
            self.fail(f"{megabytes:,} MB is more than this machine's memory ({available:,} MB)", param, ctx)
        return megabytes


MEGABYTES = Megabytes()


# Error messages quote the user's input, which may be huge (a 100 KB deal string): a word longer
# than this is cut to its start, and a message still longer than MESSAGE_SHOWN loses its middle.
WORD_SHOWN = 60
MESSAGE_SHOWN = 1000
_LONG_WORD = re.compile(r"\S{%d,}" % (WORD_SHOWN + 1))
_AROUND = re.compile(r"(['\"(]?)(.+?)(['\")]?)([,:;]*)")


def cut_long_words(text: str) -> str:
    """`text` with every word longer than WORD_SHOWN cut to its start and its length."""
    def cut(match) -> str:
        # the quotes and punctuation around the user's text stay, and only that text is counted
        lead, inner, close, punctuation = _AROUND.fullmatch(match.group(0)).groups()
        if len(inner) <= WORD_SHOWN:
            return match.group(0)
        return f"{lead}{inner[:WORD_SHOWN - 20]}...{close} ({len(inner):,} characters){punctuation}"

    return _LONG_WORD.sub(cut, text)


def shorten_message(message: str) -> str:
    """An error message with its over-long words cut (`cut_long_words`), and at most MESSAGE_SHOWN
    characters (its start and end kept)."""
    message = cut_long_words(message)
    if len(message) > MESSAGE_SHOWN:
        message = f"{message[:MESSAGE_SHOWN // 2]} ... {message[-MESSAGE_SHOWN * 2 // 5:]}"
    return message


def fail(message: str, code: int = EXIT_BAD_INPUT):
    """Print one line on stderr and exit with `code`."""
    click.echo(f"klondike: error: {shorten_message(message)}", err=True)
    sys.exit(code)


def friendly_errors(func):
    """Turn library errors into one clear line on stderr and a non-zero exit, never a traceback."""

    @wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except KlondikeError as err:
            fail(str(err))
        except MemoryError:
            fail("out of memory: this machine could not give what was asked for (try less --memory)")
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except BrokenPipeError:
            # The reader went away (`klondike solve 3 | head`): stop quietly, as pipes expect, with
            # an exit code of its own (1 would say "unwinnable" for `solve`).
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_OUTPUT_CLOSED)
        except click.exceptions.Exit:
            raise
        except (click.ClickException, click.Abort):
            raise
        except Exception as err:  # a bug: still one line, and a distinct exit code
            fail(f"internal error: {type(err).__name__}: {err} (please report it)", EXIT_INTERNAL)

    return wrapper


RULES_PARAMETERS = ("rules_name", "draw", "passes", "foundation_to_tableau", "auto_play", "scoring",
                    "seconds_per_action", "no_clock")


def rules_options(func):
    """The ruleset options shared by every command that takes rules (their parameters: RULES_PARAMETERS)."""
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
                     help="An explicit deal instead of SEED: 52 card codes in deal order, a Klondike-Solver "
                          "numeric string, a PySol FC board or a Solvitaire JSON deal."),
        click.option("--deal-file", default=None, metavar="FILE", help="Read the deal from a file (any format --deal takes), instead of SEED."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def search_options(memory_mb: int, memory_help: str):
    """The budget and output options of the searching commands (solve, best), with their default
    memory and what it holds."""
    def decorate(func):
        options = [
            click.option("--max-nodes", type=click.IntRange(min=1), default=None, metavar="N",
                         help="Node budget (default: none)."),
            click.option("--time-limit", type=SECONDS, default=60.0,
                         show_default=True, metavar="S", help="Time budget in seconds."),
            click.option("--memory", "memory_mb", type=MEGABYTES, default=memory_mb, show_default=True,
                         metavar="MB", help=memory_help),
            click.option("--show", is_flag=True, help="Also print the board before and after the line."),
            click.option("--json", "as_json", is_flag=True, help="Print the result as JSON."),
        ]
        for option in reversed(options):
            func = option(func)
        return func
    return decorate


def option_name(ctx, name: str) -> str:
    """The option a parameter was given as: `--rules` for `rules_name`, `--no-auto-play` for
    `auto_play` set false."""
    for param in ctx.command.params:
        if param.name == name and param.opts:
            if getattr(param, "secondary_opts", None) and ctx.params.get(name) is False:
                return param.secondary_opts[0]
            return max(param.opts, key=len)
    return "--" + name.replace("_", "-")


def refuse_unused(names, why: str) -> None:
    """KlondikeError if the user gave any of the options named by their parameters (`rng_seed` is
    `--rng-seed`): they would change nothing, `why`, and a user should hear of it."""
    ctx = click.get_current_context()
    given = [option_name(ctx, name) for name in names
             if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)]
    if given:
        raise KlondikeError(f"{' and '.join(given)} would change nothing: {why}")


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(package_name="klondike-solver")
@click.pass_context
def main(ctx):
    """Klondike solitaire solver and analysis tool.

    Deals come from seeds (RULES.md 3) or are given as 52 card codes. Rulesets: classic (draw 1,
    one pass), classic-draw3 (draw 3, three passes), harmony (draw 1, unlimited, scored), duel
    (draw 3, unlimited, scored); every parameter can be overridden.
    """
    if ctx.invoked_subcommand is None:  # `klondike` alone: the help, not an error
        click.echo(ctx.get_help())
    if sys.stderr.isatty():  # a first run would otherwise sit silent for a minute
        set_compile_notice(notice_compiling)
    allow_second_process()  # a first `best` compiles one search in a second process, on a second core


def notice_compiling(search_name: str) -> None:
    """Tell the person at the terminal, once a run, why the first run after an install or update
    is slow."""
    click.echo("klondike: compiling the solver core (once after an install or update, up to a minute; "
               "later runs start at once)", err=True)
    set_compile_notice(None)


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
    if export_format != "native" and as_json:
        raise KlondikeError(f"--json gives our own JSON form; --format {export_format} gives that tool's: choose one")
    if export_format != "native" or as_json:
        refuse_unused(RULES_PARAMETERS, "a deal is the same under every ruleset (the rules only name the heading "
                                        "of the picture)")
    if export_format != "native":
        from solver.formats import export_deal

        click.echo(export_deal(the_deal, export_format))
        return
    if as_json:
        click.echo(json.dumps(the_deal.to_json()))
        return
    click.echo(deal_heading(the_deal, rules))
    click.echo(picture(Position.initial(the_deal)), nl=False)


@main.command(name="replay")
@deal_options
@click.argument("tokens", nargs=-1)
@click.option("--line-file", default=None, metavar="FILE", help="Read the line from a file (tokens or a JSON list).")
@rules_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@friendly_errors
def replay_command(tokens, line_file, as_json, **kw):
    """Replay a line (RULES.md 7 tokens) on a deal: SEED TOKEN..., --deal CODES TOKEN..., or either
    with --line-file F.

    Prints the final position, actions, cards on the foundations, passes, time and score. Exits 0
    if the line is legal, 2 with the first illegal token and the reason otherwise.
    """
    if kw["seed"] is not None and (kw["deal_codes"] is not None or kw["deal_file"] is not None) \
            and not is_plain_number(kw["seed"].strip()):
        # with --deal or --deal-file every argument is a token (click gives the first to SEED)
        tokens, kw["seed"] = (kw["seed"], *tokens), None
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
    won = "yes" if summary["won"] else "no"
    if summary["won"] and summary["cut_at_action"] is not None:
        won += " (but past the 300 s limit: the score counts the game cut there, unwon)"
    lines = [f"actions: {summary['actions']}   foundation cards: {summary['foundation_cards']}/52   "
             f"pass: {summary['passes']}   won: {won}"]
    if summary["seconds"] is not None:
        lines.append(f"time: {summary['seconds']:g} s" + (f" (cut at 300 s after action {summary['cut_at_action']})"
                                                          if summary["cut_at_action"] is not None else ""))
    if summary["score"] is not None:
        lines.append(score_line(summary["score"], summary["breakdown"]))
    return "\n".join(lines)


def score_line(score: int, breakdown: dict) -> str:
    """`score: 98,900  (cards +52,000, turns +2,100, ...)`: the score and its non-zero parts."""
    parts = ", ".join(f"{k} {v:+,d}" for k, v in breakdown.items() if k != "total" and v)
    return f"score: {score:,}" + (f"  ({parts})" if parts else "")


def node_progress(description: str):
    """A tqdm counter of searched nodes on stderr, shown only on a terminal; returns (callback, bar)."""
    from tqdm import tqdm

    bar = tqdm(desc=description, unit=" nodes", unit_scale=True, file=sys.stderr, leave=False,
               disable=not sys.stderr.isatty(), mininterval=0.5)

    def update(nodes: int) -> None:
        bar.update(nodes - bar.n)

    return update, bar


def deal_origin(the_deal) -> str:
    """`seed 5 (native)` or `explicit deal`."""
    return f"seed {the_deal.seed} ({the_deal.source})" if the_deal.seed is not None else "explicit deal"


def deal_heading(the_deal, rules) -> str:
    """`seed 5 (native), classic: draw 1, ...`: the first line of a command's answer."""
    return f"{deal_origin(the_deal)}, {rules.describe()}"


def run_search(search, label: str, kw: dict, max_nodes, time_limit, memory_mb, show: bool, as_json: bool,
               **extra):
    """Load the deal and rules from the options and run a search with a node counter on stderr;
    `extra` goes to the search as it is."""
    if show and as_json:
        raise KlondikeError("--show draws the board for people and --json gives no board: choose one")
    the_deal = make_deal(kw)
    rules = make_rules(kw)
    update, bar = node_progress(label)
    try:
        result = search(the_deal, rules, max_nodes=max_nodes, time_limit=time_limit, memory_mb=memory_mb,
                        progress=update, **extra)
    finally:
        bar.close()
    return the_deal, rules, result


@main.command()
@deal_options
@rules_options
@search_options(DEFAULT_MEMORY_MB, "Memory for the transposition table and the search stack.")
@friendly_errors
def solve(max_nodes, time_limit, memory_mb, show, as_json, **kw):
    """Is this deal winnable? Prints the verdict and, for a win, a line to play it.

    The verdict is win (with the line, replayed through the reference engine), loss (proved: every
    reachable position was searched, under the rules or under draw 1 with unlimited passes and no
    auto-play, which allow every line of any other draw, pass limit and auto-play setting) or
    unknown (a budget ran out). Exit code: 0 win, 1 loss, 3 unknown, 2 bad input.
    """
    from solver.game import Position
    from solver.line import counted, numbered
    from solver.solve import solve as run_solve

    the_deal, rules, result = run_search(run_solve, "solving", kw, max_nodes, time_limit, memory_mb, show, as_json)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        click.echo(deal_heading(the_deal, rules))
        if show:
            click.echo(picture(Position.initial(the_deal)), nl=False)
        stats = f"{counted(result.nodes, 'node')}, {result.seconds:.3f} s"
        if result.result == "win":
            click.echo(f"result: win in {counted(result.actions, 'action')} ({stats})")
            click.echo("\n".join(numbered(result.game.line)))
            if show:
                click.echo(picture(result.game.position), nl=False)
        elif result.result == "loss" and result.proved_under != rules:
            # proved under `solve.relaxation`: said from the rules searched, so the text follows it
            relaxed = result.proved_under
            passes = "unlimited passes" if relaxed.passes is None else f"{relaxed.passes} passes"
            auto_play = "auto-play" if relaxed.auto_play else "no auto-play"
            click.echo(f"result: loss: no line wins even with draw {relaxed.draw}, {passes} and {auto_play}, which allow "
                       f"every line of these rules; every position reachable there was searched ({stats})")
        elif result.result == "loss":
            click.echo(f"result: loss: no line wins, every reachable position was searched ({stats})")
        else:
            click.echo(f"result: unknown: the {result.reason} ran out before an answer ({stats})")
    sys.exit({"win": 0, "loss": 1, "unknown": 3}[result.result])


@main.command()
@deal_options
@rules_options
@search_options(BEST_MEMORY_MB, "Memory for the searches: their transposition tables, and the positions the "
                                "best-first search keeps (44 bytes each). The default is this machine's: the largest "
                                "power of two within two fifths of its memory, from 1 GB to 8 GB.")
@click.option("--threads", type=click.IntRange(1, MAX_THREADS), default=None, metavar="N",
              help=f"Threads for the best-first search, which shares its positions and tables between them "
                   f"(default: the cores this process may use, at most {MAX_THREADS}).")
@friendly_errors
def best(max_nodes, time_limit, memory_mb, threads, show, as_json, **kw):
    """The best line: the highest score (harmony, duel), or the win in the fewest actions.

    Without scoring, and without a win, the line puts the most cards on the foundations, then
    takes the fewest actions; with scoring and no win it is the best place to stop. "optimal:
    proved" only when the search finished; otherwise the bound is a proven limit of what any
    line can reach. Exit code: 0 proved optimal, 3 budget ran out (best found and bound), 2 bad input.
    """
    from solver.game import Position
    from solver.line import counted, numbered
    from solver.optimal import best as run_best

    the_deal, rules, result = run_search(run_best, "searching", kw, max_nodes, time_limit, memory_mb, show, as_json,
                                         threads=threads or default_threads())
    if as_json:
        click.echo(json.dumps(result.to_json()))
        sys.exit(0 if result.optimal else 3)
    click.echo(deal_heading(the_deal, rules))
    if show:
        click.echo(picture(Position.initial(the_deal)), nl=False)
    outcome = "win" if result.won else f"no win ({counted(result.foundation_cards, 'card')} up)"
    outcome += f" in {counted(result.actions, 'action')}"
    if result.winnable == "loss":
        outcome += "; the deal is proved unwinnable"
    click.echo(f"result: {outcome} ({counted(result.nodes, 'node')}, {result.seconds:.2f} s)")
    if result.score is not None:
        click.echo(score_line(result.score, result.breakdown))
    if result.optimal:
        click.echo("optimal: proved")
    elif result.score is not None:
        click.echo(f"optimal: not proved ({result.reason} ran out); no line scores more than {result.bound:,}")
    elif result.bound is not None:
        click.echo(f"optimal: not proved ({result.reason} ran out); no win takes fewer than {result.bound} actions")
    elif result.stop_bound is not None:
        cards, actions = result.stop_bound["cards"], result.stop_bound["actions"]
        fewest = f", nor {cards} in fewer than {actions} actions" if actions else ""
        click.echo(f"optimal: not proved ({result.reason} ran out); no line puts up more than {cards} cards{fewest}")
    else:
        click.echo(f"optimal: not proved ({result.reason} ran out)")
    if result.line:
        click.echo("\n".join(numbered(result.game.line)))
    if show:
        click.echo(picture(result.game.position), nl=False)
    sys.exit(0 if result.optimal else 3)


def count_progress(description: str):
    """A tqdm bar of searches done on stderr, shown only on a terminal; returns (callback(done, total), bar)."""
    from tqdm import tqdm

    bar = tqdm(desc=description, unit=" searches", file=sys.stderr, leave=False,
               disable=not sys.stderr.isatty(), mininterval=0.5)

    def update(done: int, total: int) -> None:
        if bar.total != total or done < bar.n:
            bar.reset(total=total)
        bar.update(done - bar.n)

    return update, bar


@main.command(name="hint")
@deal_options
@click.option("--position", "position_file", default=None, metavar="FILE",
              help="Judge a typed-in position instead of a deal: its text form (as `klondike replay` prints "
                   "it) or JSON, `??` for an unknown face-down card (tableau or stock); - reads stdin.")
@rules_options
@click.option("--played", default=None, metavar="TOKENS",
              help="The moves played so far on the deal (RULES.md 7 tokens, space or comma separated, or a JSON list).")
@click.option("--played-file", default=None, metavar="FILE", help="Read the moves played so far from a file.")
@click.option("--top", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="Rank the K best candidate actions (each searched on its own within a share of the budget).")
@click.option("--samples", type=click.IntRange(min=1), default=20, show_default=True, metavar="N",
              help="With unknown cards: deals sampled consistent with what is seen.")
@click.option("--rng-seed", type=int, default=0, show_default=True, metavar="S",
              help="With unknown cards: seed of the sampling (the same seed gives the same samples).")
@click.option("--max-samples", type=click.IntRange(min=1), default=None, metavar="N",
              help="With unknown cards and no points: close candidates get more samples, up to N in all "
                   "(default: --samples, no more).")
@click.option("--commitments", is_flag=True,
              help="With unknown cards and no points: rank commitments (see above) instead of single actions.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, metavar="N",
              help="Node budget of the whole hint (default: none).")
@click.option("--time-limit", type=SECONDS, default=10.0, show_default=True,
              metavar="S", help="Time budget of the whole hint in seconds.")
@click.option("--memory", "memory_mb", type=MEGABYTES, default=256, show_default=True, metavar="MB",
              help="Memory of each search.")
@click.option("--json", "as_json", is_flag=True, help="Print the hint as JSON.")
@friendly_errors
def hint_command(position_file, played, played_file, top, samples, rng_seed, max_samples, commitments, max_nodes,
                 time_limit, memory_mb, as_json, **kw):
    """The best next action: in the game of SEED after --played moves, or in a typed-in --position.

    With every card known (a deal, or a position without ??), "best" is the highest score under a
    scoring ruleset (stopping now is a candidate too), otherwise a win in the fewest actions, then
    the most cards on the foundations: "wins in 87 actions", "best score 71,350", "no win: best is
    to stop now at 12,400". With unknown cards, deals consistent with what is seen are sampled
    (--samples, --rng-seed) and the actions are ranked by win probability, or mean score under scoring,
    with a 95% interval and the sample count; with --max-samples, the candidates the leader has not
    clearly beaten yet (a sign test on the shared samples) are judged in more deals. With --commitments
    (no points) the candidates are commitments instead of single actions: an action that cannot be taken
    back (one that turns a card over, a card taken from the waste), shown after the reversible actions
    that lead to it ("D D 7h:W>3": draw twice, then play 7h); the hint is its first action. A typed-in
    position starts with the clock at 0 and no points.

    Exit code: 0 a hint, 1 nothing to hint (the game is over), 2 bad input (an illegal move played,
    an impossible position).
    """
    from solver import hint as hint_lib

    rules = make_rules(kw)
    if position_file is not None:
        if any(kw.pop(name) is not None for name in ("seed", "deal_codes", "deal_file")):
            raise KlondikeError("give either a deal (SEED, --deal, --deal-file) or --position, not both")
        if played is not None or played_file is not None:
            raise KlondikeError("--played and --played-file go with a deal, not with --position")
        if kw["source"] != "native":
            raise KlondikeError(f"--source {kw['source']} says where a SEED's deal comes from, not a --position")
        position = hint_lib.load_position(position_file)
        where = f"position {position_file}"
    else:
        if played is not None and played_file is not None:
            raise KlondikeError("give the moves played either with --played or with --played-file, not both")
        if all(kw[name] is None for name in ("seed", "deal_codes", "deal_file")):
            raise KlondikeError("give a deal (SEED, --deal CODES or --deal-file FILE) or --position FILE")
        the_deal = make_deal(kw)
        tokens = load_line((played,) if played is not None else (), played_file)
        where = deal_origin(the_deal)
    # The sampling options act only where cards are unknown, and two of them only without points:
    # given elsewhere they would be ignored, which a user should hear of.
    if position_file is None or hint_lib.unknown_count(position) == 0:
        refuse_unused(("samples", "rng_seed", "max_samples", "commitments"),
                      "every card is known here (they act on a --position with ?? cards)")
    elif rules.scoring is not None:
        refuse_unused(("max_samples", "commitments"), f"{rules.name} scores points (they act where a hint ranks by wins)")
    update, bar = count_progress("hint")
    try:
        if position_file is not None:
            result = hint_lib.hint_position(position, rules, samples=samples, rng_seed=rng_seed, top=top,
                                            time_limit=time_limit, max_nodes=max_nodes, memory_mb=memory_mb,
                                            progress=update, commitments=commitments, max_samples=max_samples)
        else:
            result = hint_lib.hint(the_deal, rules, tokens, top=top, time_limit=time_limit, max_nodes=max_nodes,
                                   memory_mb=memory_mb, progress=update)
    finally:
        bar.close()
    if as_json:
        click.echo(json.dumps({"from": where, **result.to_json()}))
    else:
        click.echo(f"{where}, {rules.describe()}")
        click.echo(hint_lib.format_hint(result))
    sys.exit(0 if result.best is not None and result.over is None else 1)


@main.command(name="play")
@deal_options
@rules_options
@click.option("--peek", is_flag=True,
              help="Hints know every card of the deal. Default: honest hints, from what you have seen only "
                   "(face-down tableau cards and stock cards not drawn yet are sampled).")
@click.option("--samples", type=click.IntRange(min=1), default=20, show_default=True, metavar="N",
              help="Honest hints: deals sampled consistent with what you have seen.")
@click.option("--rng-seed", type=int, default=0, show_default=True, metavar="S", help="Seed of the sampling.")
@click.option("--time-limit", type=SECONDS, default=5.0, show_default=True,
              metavar="S", help="Time budget of one hint in seconds.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, metavar="N",
              help="Node budget of one hint (default: none).")
@click.option("--memory", "memory_mb", type=MEGABYTES, default=256, show_default=True, metavar="MB",
              help="Memory of each search of a hint.")
@friendly_errors
def play_command(peek, samples, rng_seed, time_limit, max_nodes, memory_mb, **kw):
    """Play a deal (SEED, or --deal / --deal-file) in the terminal.

    Shows the board, the score and the clock, and a numbered menu of the legal actions. Type an
    action in RULES.md 7 notation (D, R, 9h:W>3, Qd:4>6, Kd:F>5) or its number; h for a hint (honest:
    only from what you have seen, unless --peek), u to undo (costs 1,000 points under scoring), q to
    quit, ? for help. Reads lines from stdin, so it can be scripted: `printf 'D\\nh\\nq\\n' | klondike play 7`.

    Exit code: 0 the game was won, 1 it ended otherwise (quit, end of input, no legal action), 2 bad input.
    """
    from solver.play import HELP, PROMPT, HintSettings, PlaySession

    if peek:
        refuse_unused(("samples", "rng_seed"), "with --peek the hints know every card")
    the_deal = make_deal(kw)
    rules = make_rules(kw)
    update, bar = count_progress("hint")
    settings = HintSettings(peek=peek, samples=samples, rng_seed=rng_seed, time_limit=time_limit,
                            max_nodes=max_nodes, memory_mb=memory_mb)
    session = PlaySession(the_deal, rules, settings, render=picture, progress=update)
    click.echo(f"{deal_heading(the_deal, rules)}\n{HELP}\n{session.board()}")
    stdin = sys.stdin  # (CliRunner swaps it in tests)
    try:
        while not session.over:
            click.echo(PROMPT, nl=False)
            line = stdin.readline()
            if not line:
                click.echo()
                break
            click.echo(cut_long_words(session.handle(line)))  # it may quote a huge line typed
    finally:
        bar.close()
    click.echo(session.end())
    sys.exit(0 if session.game.won else 1)


@main.command()
@click.option("--seeds", default="1-20", show_default=True, metavar="A-B", help="Seed range A-B of the fixed set.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=200_000, show_default=True, metavar="N",
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


@main.command(name="batch")
@click.argument("seeds")
@rules_options
@click.option("--source", default="native", show_default=True, type=click.Choice(list(DEAL_SOURCES)),
              help="Where each seed's deal comes from (as for solve).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Worker processes (default: the cores this process may use); not with --cluster, whose "
                   "workers run the deals.")
@click.option("--out", default=None, metavar="FILE",
              help="Write the rows to FILE.csv or FILE.jsonl (format from the extension); "
                   "default: JSON lines on stdout.")
@click.option("--resume", is_flag=True,
              help="Finish the batch in --out: keep its rows (a partial last line is dropped), solve the rest.")
@click.option("--force", is_flag=True, help="Overwrite an --out file that already holds rows.")
@click.option("--time-limit", type=SECONDS, default=60.0, show_default=True,
              metavar="S", help="Time budget per deal (unknown when it runs out; a deal with no answer "
                                "after 2 S + 30 s is stopped and recorded as error).")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, metavar="N",
              help="Node budget per deal (default: none).")
@click.option("--memory", "memory_mb", type=MEGABYTES, default=512, show_default=True, metavar="MB",
              help="Memory per deal for the transposition table and the search stack; a worker may grow "
                   "256 MB beyond that, a deal that needs more is recorded as error.")
@click.option("--best", is_flag=True, help="Also record the best score and its bound (columns score, bound).")
@click.option("--lines", is_flag=True,
              help="Also record the winning line (column line); with --best, also the line of the best score "
                   "or fewest actions found (column best_line).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Solve on a Dask distributed cluster (scheduler address, e.g. tcp://host:8786) instead of "
                   "local processes; same rows, same --resume. Needs the extra `cluster`.")
@friendly_errors
def batch_command(seeds, source, jobs, out, resume, force, time_limit, max_nodes, memory_mb, best, lines, cluster,
                  **kw):
    """Solve many deals: one row per deal with seed, source, rules, result (win, loss, unknown or
    error), actions, nodes, seconds and reason.

    SEEDS: seeds and inclusive ranges, comma separated, and @FILE (seeds or ranges one per line or
    comma separated, # comments): `1-100000`, `5,17,99`, `1-10,20,@more.txt`. Duplicates count once.

    Rows are written as the deals finish (completion order), one complete line at a time, so an
    interrupted batch loses nothing it finished: --resume drops a partial last line, skips the seeds
    done and solves the rest. When every seed is done, the --out file is rewritten sorted by seed, so a
    resumed batch ends with the same rows as an uninterrupted one (times aside). Rows on stdout stay
    in completion order. A file that already holds rows needs --resume (finish it) or --force
    (start again). A deal that crashes its worker, exceeds its memory or hangs is recorded as error
    with the reason, and the batch goes on. A progress bar (deals/s, wins, ETA) and a summary line go
    to stderr.

    Exit code: 0 every seed has its row (error rows included), 2 bad input or a file that needs
    --resume/--force, 130 interrupted (the rows so far are kept), 141 the reader of standard output went
    away (the batch stops).
    """
    from solver import batch as batch_lib

    rules = make_rules(kw)
    if cluster is not None:
        refuse_unused(("jobs",), "with --cluster the deals run on the cluster's workers")
    seed_list = batch_lib.parse_seeds(seeds)
    config = batch_lib.BatchConfig(rules, source=source, max_nodes=max_nodes, time_limit=time_limit,
                                   memory_mb=memory_mb, best=best, lines=lines)
    progress = batch_lib.ProgressBar(disable=not sys.stderr.isatty())
    try:
        summary = batch_lib.run_batch(seed_list, config, out=out, resume=resume, force=force, jobs=jobs,
                                      cluster=cluster, progress=progress)
    except KeyboardInterrupt:
        fail("interrupted" + (f": the rows so far are in {out}, add --resume to finish" if out else ""), 130)
    click.echo(batch_lib.format_summary(summary), err=True)


@main.command(name="stats")
@click.argument("file")
@click.option("--plot", "plot_path", default=None, metavar="OUT.png",
              help="Also draw histograms of the time and (when present) the scores; needs the extra `plot`.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@friendly_errors
def stats_command(file, plot_path, as_json):
    """Statistics of a batch file (.csv or .jsonl; - reads stdin): counts, win rate, times, nodes,
    scores, hardest seeds.

    The win rate counts undecided deals (unknown and error) both ways: as losses for the low end, as
    wins for the high end; the 95% interval is the Wilson lower bound of the low end to the Wilson upper
    bound of the high end. Time and node percentiles interpolate linearly. A partial last line (a
    batch still running) is left out, with a note on stderr.
    """
    from solver import stats as stats_lib

    rows = stats_lib.load_rows(file)
    if stats_lib.ends_in_a_partial_line(file):
        click.echo(f"klondike: note: the last line of {file} has no newline (a batch still writing it?): "
                   f"left out", err=True)
    summary = stats_lib.summarize(rows, file=file)
    if plot_path is not None:
        from solver.plot import plot_rows

        plot_rows(rows, plot_path)
    click.echo(json.dumps(summary) if as_json else stats_lib.format_summary(summary))


def run():
    """Console entry point: like `main`, but a usage error is one line on stderr (exit 2)."""
    keep_freed_memory()
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
