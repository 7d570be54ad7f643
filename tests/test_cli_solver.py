"""The `solve`, `best` and `bench` commands: JSON fields, exit codes, lines that replay."""

import json

import pytest
from click.testing import CliRunner

from cli import main
from solver.deal import Deal
from solver.game import replay
from solver.optimal import BEST_MEMORY_MB, best_memory_mb, default_threads
from solver.runner import machine_memory_mb
from solver.rules import PRESETS
from solver.solve import DEFAULT_MEMORY_MB


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_solve_json_win_replays_and_exit_code_zero():
    result = run("solve", 3, "--json", "--max-nodes", 500_000)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) >= {"seed", "source", "deal", "rules", "result", "line", "actions", "nodes", "seconds"}
    assert data["result"] == "win" and data["rules"]["name"] == "classic" and data["rules"]["draw"] == 1
    game = replay(Deal.from_seed(3), PRESETS["classic"], data["line"]).game
    assert game.won and game.actions == data["actions"]


def test_solve_proved_loss_exits_one():
    # seed 4 under classic is lost: nothing but a few moves, then stuck
    result = run("solve", 4, "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["result"] == "loss" and data["proved_under"] == data["rules"]


def test_solve_loss_proved_under_the_relaxation_says_so():
    # Seed 465 (draw 3, unlimited passes) is lost even with draw 1: the search under that
    # relaxation finishes first (1.5 M nodes in all), and the answer names the rules it searched.
    args = ("solve", 465, "--draw", 3, "--passes", "unlimited", "--foundation-to-tableau")
    data = json.loads(run(*args, "--json").output)
    assert data["result"] == "loss" and data["rules"]["draw"] == 3
    assert data["proved_under"]["draw"] == 1 and data["proved_under"]["passes"] == "unlimited"
    assert data["proved_under"]["foundation_to_tableau"] is True
    result = run(*args)
    assert result.exit_code == 1
    assert "no line wins even with draw 1, unlimited passes and no auto-play" in result.output


def test_solve_budget_gives_unknown_exit_three():
    result = run("solve", 1, "--rules", "duel", "--max-nodes", 50, "--json")
    assert result.exit_code == 3
    data = json.loads(result.output)
    assert data["result"] == "unknown" and data["line"] == [] and data["reason"] == "node budget"


def test_solve_harmony_line_shows_auto_play():
    result = run("solve", 3, "--rules", "harmony", "--json")
    data = json.loads(result.output)
    assert data["result"] == "win"
    assert any(token.endswith("*") for token in data["line"])
    assert replay(Deal.from_seed(3), PRESETS["harmony"], data["line"]).game.won


def test_solve_text_output_numbers_actions_and_shows_boards():
    result = run("solve", 3, "--show", "--max-nodes", 500_000)
    assert result.exit_code == 0
    assert "result: win in" in result.output
    assert "   1. " in result.output
    assert result.output.count("foundations:") == 2  # before and after


def test_best_json_fields_and_engine_score():
    result = run("best", 3, "--rules", "harmony", "--max-nodes", 200_000, "--json")
    assert result.exit_code in (0, 3)
    data = json.loads(result.output)
    assert set(data) >= {"score", "bound", "optimal", "breakdown", "line", "actions"}
    game = replay(Deal.from_seed(3), PRESETS["harmony"], data["line"]).game
    assert game.score().total == data["score"] == data["breakdown"]["total"]
    assert data["bound"] >= data["score"]
    assert (result.exit_code == 0) == data["optimal"]


@pytest.mark.parametrize("command, function, default", [("best", "solver.optimal.best", BEST_MEMORY_MB),
                                                         ("solve", "solver.solve.solve", DEFAULT_MEMORY_MB)])
def test_each_search_gets_its_own_default_memory_or_the_one_asked_for(monkeypatch, command, function, default):
    asked = []

    def spy(*args, memory_mb, **kw):
        asked.append(memory_mb)
        raise KeyboardInterrupt  # stop there: only the budget handed on matters

    monkeypatch.setattr(function, spy)
    run(command, 3)
    run(command, 3, "--memory", 100)
    assert asked == [default, 100]
    assert BEST_MEMORY_MB > DEFAULT_MEMORY_MB  # best keeps every open position (README: 1-8 GB)


def test_best_runs_the_threads_asked_for_or_the_cores(monkeypatch):
    asked = []

    def spy(*args, threads, **kw):
        asked.append(threads)
        raise KeyboardInterrupt  # stop there: only the threads handed on matter

    monkeypatch.setattr("solver.optimal.best", spy)
    run("best", 3)
    run("best", 3, "--threads", 3)
    assert asked == [default_threads(), 3]


def test_best_takes_a_clock_in_fractions_of_a_millisecond():
    # a win in 66 actions of 0.5 ms: 0.033 s, 299 whole seconds left (it was an internal error once: the
    # search counted whole milliseconds)
    result = run("best", 3, "--rules", "duel", "--seconds-per-action", 0.0005, "--json", "--max-nodes", 300_000)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["optimal"] and data["breakdown"]["clock"] == 150 * 299


def test_best_without_scoring_reports_no_score():
    result = run("best", 4, "--json", "--max-nodes", 300_000)
    data = json.loads(result.output)
    assert data["score"] is None and data["breakdown"] is None
    assert data["result"] == "loss"


@pytest.mark.parametrize("args", [
    ["solve", "abc"],
    ["solve", 1, "--rules", "nope"],
    ["solve", 1, "--max-nodes", 0],
    ["solve", "--deal", "Ah Ah"],
    ["best", 1, "--passes", "zero"],
    ["best", 1, "--threads", 0],
    ["solve", 1, "--time-limit", "nan"],
    ["best", 1, "--rules", "duel", "--seconds-per-action", "nan"],
    ["best", 1, "--rules", "duel", "--seconds-per-action", "1e-13"],  # finer than the search's clock counts
    # more memory than any machine has: it was an internal error once, when the tables were allocated
    ["best", 1, "--memory", 1 << 40],
    ["solve", 1, "--memory", 1 << 40],
    ["hint", 1, "--memory", 1 << 40],
    ["batch", "1-2", "--memory", 1 << 40],
    ["play", 1, "--memory", 1 << 40],
])
def test_bad_input_is_one_line_and_exit_two(args):
    result = run(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_memory_the_machine_lacks_is_one_line_and_exit_two(monkeypatch):
    def out_of_memory(*args, **kw):
        raise MemoryError("Unable to allocate 1.00 TiB")

    monkeypatch.setattr("solver.optimal.best", out_of_memory)
    result = run("best", 3)
    assert result.exit_code == 2
    assert "out of memory" in result.output and "--memory" in result.output


def test_bench_prints_signature():
    result = run("bench", "--seeds", "1-2", "--max-nodes", 2000, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["total_nodes"] == sum(row["nodes"] for row in data["rulesets"]) > 0
    again = json.loads(run("bench", "--seeds", "1-2", "--max-nodes", 2000, "--json").output)
    assert again["total_nodes"] == data["total_nodes"]  # deterministic: a signature of the search


def test_best_takes_a_power_of_two_within_two_fifths_of_the_machines_memory_from_1_to_8_gb():
    assert [best_memory_mb(mb) for mb in (16384, 23_000, 65536, 4096, 8192, 600)] == [4096, 8192, 8192, 1024, 2048, 600]
    assert best_memory_mb(None) == 2048  # the machine's memory not known
    assert BEST_MEMORY_MB == best_memory_mb(machine_memory_mb())
