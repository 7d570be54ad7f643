"""The benchmark scripts' command lines (`benchmarks/*.py`): bad arguments are refused at once with
one argparse line (exit 2), before any warm-up or search; the reports say what they cannot measure.

Every search entry point of the scripts is replaced by one that fails the test (`no_search`), so a
check that is missing makes a test fail at once instead of starting a long run.
"""

from __future__ import annotations

import json
import math
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks import batch, honest_play, optimal, stats_util, winnability
from solver.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
BIG = "99999999999999999999"  # above 2^64
LAST_NATIVE = str(2**64 - 1)


class SearchStarted(AssertionError):
    """A benchmark got past its argument checks."""


def _started(*args, **kwargs):
    raise SearchStarted("the benchmark started work: an argument was not refused")


@pytest.fixture
def no_search(monkeypatch):
    """Every way the scripts start work raises SearchStarted."""
    for module, names in ((winnability, ("measure_first_run", "warm_up", "solve_seeds", "run_pyksolve")),
                          (optimal, ("warm_up", "run_ours", "run_peer")),
                          (batch, ("run_batch", "measure")),
                          (honest_play, ("run", "play_game"))):
        for name in names:
            monkeypatch.setattr(module, name, _started)
    for module in (winnability, optimal):
        monkeypatch.setattr(module, "keep_freed_memory", lambda: True)
        monkeypatch.setattr(module.signal, "signal", lambda *args: None)


def refused(main, argv, capsys) -> str:
    """Run a script's main on argv; it must exit 2 with an argparse error; returns that line."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert ": error: " in last and "Traceback" not in err
    return last


# --- shared helpers ---------------------------------------------------------------------------------

def capped(limit_gb: int = 1):
    """preexec_fn: cap a child's address space, so that a seed list built by mistake fails fast
    (MemoryError) instead of filling the machine."""
    limit = limit_gb << 30
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_parse_seeds_refuses_huge_ranges_without_building_them():
    # in a child process with 1 GB of address space: a list of the seeds would not fit
    code = ("import sys\n"
            "from benchmarks.stats_util import parse_seeds\n"
            "for text in sys.argv[1:]:\n"
            "    try:\n"
            "        parse_seeds(text)\n"
            "    except Exception as error:\n"
            "        print(type(error).__name__, error)\n")
    texts = [f"1-{BIG}", f"1-5,{2**63}-{2**64 - 1}", f"1-{stats_util.MAX_SEEDS + 1}"]
    completed = subprocess.run([sys.executable, "-c", code, *texts], cwd=ROOT, capture_output=True, text=True,
                               timeout=60, preexec_fn=capped())
    assert completed.stdout.splitlines() == [
        f"ArgumentTypeError seed {BIG} out of range: a native seed is below 2^64",
        f"ArgumentTypeError {2**63 + 5:,} seeds: at most 10,000,000 in one run",
        "ArgumentTypeError 10,000,001 seeds: at most 10,000,000 in one run",
    ], completed.stderr


def test_parse_seeds_checks_the_native_range():
    with pytest.raises(Exception, match="out of range: a native seed is below 2\\^64"):
        stats_util.parse_seeds(BIG)
    assert stats_util.parse_seeds(LAST_NATIVE) == [2**64 - 1]
    assert stats_util.parse_seeds("3-5,1,4") == [3, 4, 5, 1]


@pytest.mark.parametrize("text", ["", "-1", "5-1", "abc", "1,,2"])
def test_parse_seeds_refuses_bad_text(text):
    with pytest.raises(Exception, match="bad seed range"):
        stats_util.parse_seeds(text)


@pytest.mark.parametrize("parse, good, bad", [
    (stats_util.positive_int, {"1": 1, "12": 12}, ["0", "-5", "abc", "1.5", ""]),
    (stats_util.non_negative_int, {"0": 0, "7": 7}, ["-1", "x", ""]),
    (stats_util.int_between(1, 8), {"1": 1, "8": 8}, ["0", "-2", "9", "1000", "two"]),
    (stats_util.positive_seconds, {"0.5": 0.5, "60": 60.0}, ["0", "-1", "nan", "inf", "-inf", "x"]),
    (stats_util.seconds_or_zero, {"0": 0.0, "1.5": 1.5}, ["-1", "-0.1", "nan", "NaN", "inf", "x"]),
])
def test_number_types(parse, good, bad):
    for text, value in good.items():
        assert parse(text) == value
    for text in bad:
        with pytest.raises(Exception, match="expected"):
            parse(text)


def test_writable_file(tmp_path):
    with pytest.raises(Exception, match="No such file or directory"):
        stats_util.writable_file(str(tmp_path / "missing" / "out.json"))
    with pytest.raises(Exception, match="is a directory"):
        stats_util.writable_file(str(tmp_path))
    new = tmp_path / "new.json"
    assert stats_util.writable_file(str(new)) == new
    assert not new.exists()  # checked, not left behind
    old = tmp_path / "old.json"
    old.write_text("keep me")
    assert stats_util.writable_file(str(old)) == old
    assert old.read_text() == "keep me"


# --- refused on the command line, before any work -----------------------------------------------

@pytest.mark.parametrize("argv, option", [
    (["--seeds", BIG], "--seeds"),
    (["--seeds", "5-1"], "--seeds"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "inf"], "--time-limit"),
    (["--peer-timeout", "-1"], "--peer-timeout"),
    (["--peer-timeout", "nan"], "--peer-timeout"),
    (["--peer-max-states", "0"], "--peer-max-states"),
    (["--memory", "0"], "--memory"),
    (["--jobs", "0"], "--jobs"),
    (["--slowest", "-1"], "--slowest"),
    (["--json", "/nonexistent-dir/out.json"], "--json"),
])
def test_winnability_refuses(argv, option, no_search, capsys):
    assert f"argument {option}" in refused(winnability.main, argv, capsys)


@pytest.mark.parametrize("argv, option", [
    (["--seeds", BIG], "--seeds"),
    (["--threads", "0"], "--threads"),
    (["--threads", "-2"], "--threads"),
    (["--threads", "1000"], "--threads"),
    (["--memory", "0"], "--memory"),
    (["--memory", "-5"], "--memory"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "inf"], "--time-limit"),
    (["--peer-timeout", "-1"], "--peer-timeout"),
    (["--peer-max-states", "0"], "--peer-max-states"),
    (["--json", "/nonexistent-dir/out.json"], "--json"),
])
def test_optimal_refuses(argv, option, no_search, capsys):
    assert f"argument {option}" in refused(optimal.main, argv, capsys)


@pytest.mark.parametrize("argv, option", [
    (["--first-seed", "-5"], "--first-seed"),
    (["--first-seed", BIG], "--first-seed"),
    (["--first-seed", LAST_NATIVE, "--games", "2"], "--first-seed/--games"),
    (["--games", str(stats_util.MAX_SEEDS + 1)], "--first-seed/--games"),
    (["--games", "0"], "--games"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "0"], "--time-limit"),
    (["--max-nodes", "-1"], "--max-nodes"),
    (["--samples", "8", "--max-samples", "4"], "--max-samples"),
    (["--jobs", "0"], "--jobs"),
    (["--json", "/nonexistent-dir/out.json"], "--json"),
])
def test_honest_play_refuses(argv, option, no_search, capsys):
    assert f"argument {option}" in refused(honest_play.main, argv, capsys)


@pytest.mark.parametrize("argv, option", [
    (["--seeds", "5-1"], "--seeds"),
    (["--seeds", "abc"], "--seeds"),
    (["--seeds", ""], "--seeds"),
    (["--seeds", "-1"], "--seeds"),
    (["--seeds", BIG], "--seeds"),
    (["--seeds", f"0-{stats_util.MAX_SEEDS}"], "--seeds"),
    (["--jobs", "abc"], "--jobs"),
    (["--jobs", "0"], "--jobs"),
    (["--jobs", "-1"], "--jobs"),
    (["--jobs", "1,0"], "--jobs"),
    (["--repeat", "0"], "--repeat"),
    (["--max-nodes", "0"], "--max-nodes"),
    (["--max-nodes", "-5"], "--max-nodes"),
    (["--json", "/nonexistent-dir/out.json"], "--json"),
])
def test_batch_refuses(argv, option, no_search, capsys):
    assert f"argument {option}" in refused(batch.main, argv, capsys)


@pytest.mark.parametrize("module", [winnability, optimal, honest_play])
def test_json_to_a_directory_is_refused(module, no_search, capsys, tmp_path):
    assert "is a directory" in refused(module.main, ["--json", str(tmp_path)], capsys)


def run_benchmark_script(script: str, *args: str) -> subprocess.CompletedProcess:
    """The script run on its own, its address space capped (`capped`)."""
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, preexec_fn=capped())


@pytest.mark.parametrize("script, args", [
    ("winnability.py", ["--seeds", f"1-{BIG}"]),
    ("optimal.py", ["--seeds", f"1-{BIG}"]),
    ("batch.py", ["--seeds", "5-1"]),
    ("batch.py", ["--jobs", "abc"]),
    ("honest_play.py", ["--first-seed", "-5"]),
    ("honest_play.py", ["--games", BIG]),
])
def test_scripts_refuse_in_one_line(script, args):
    completed = run_benchmark_script(script, *args)
    assert completed.returncode == 2, completed.stderr
    assert "Traceback" not in completed.stderr
    assert completed.stderr.strip().splitlines()[-1].startswith(f"{script}: error: argument ")


@pytest.mark.parametrize("script", ["winnability.py", "optimal.py", "batch.py", "honest_play.py"])
def test_help_states_every_default(script):
    completed = run_benchmark_script(script, "--help")
    assert completed.returncode == 0, completed.stderr
    options = completed.stdout.split("options:", 1)[1]
    entries = [entry for entry in options.split("\n  -")[1:] if not entry.startswith("h, --help")]
    assert entries
    for entry in entries:
        assert "default" in entry, f"{script}: no default in --help for -{entry.strip()}"


def test_batch_ctrl_c_prints_interrupted_and_exits_130():
    code = ("import runpy, solver.batch\n"
            "def interrupted(*args, **kwargs):\n"
            "    raise KeyboardInterrupt\n"
            "solver.batch.run_batch = interrupted\n"
            f"runpy.run_path({str(ROOT / 'benchmarks' / 'batch.py')!r}, run_name='__main__')\n")
    completed = subprocess.run([sys.executable, "-c", code, "--seeds", "1-2"], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
    assert completed.returncode == 130
    assert completed.stderr.strip() == "interrupted"


# --- progress bars only on a terminal ------------------------------------------------------------------

@pytest.mark.parametrize("module", [winnability, optimal, honest_play])
def test_progress_only_on_a_terminal(module, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert module.build_parser().parse_args([]).progress is False
    assert module.build_parser().parse_args(["--progress"]).progress is True
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert module.build_parser().parse_args([]).progress is True
    assert module.build_parser().parse_args(["--no-progress"]).progress is False


# --- batch: rates it cannot measure -----------------------------------------------------------------

def fake_summary(steady, dps=10.0):
    return {"seconds": 2.0, "deals_per_second": dps, "steady_deals_per_second": steady, "workers": 1,
            "worker_peak_rss_mb": [80.0], "counts": {"win": 2, "loss": 0, "unknown": 0, "error": 0},
            "worker_cpu_seconds": [1.0], "parent_cpu_seconds": 0.1}


def test_batch_reports_an_unmeasured_steady_rate_as_n_a_and_null(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(batch, "run_batch", lambda *args, **kwargs: None)  # the warm-up batch
    steady = {1: None, 2: 30.0}
    monkeypatch.setattr(batch, "measure", lambda seeds, config, jobs, directory, tag: (fake_summary(steady[jobs]), []))
    out = tmp_path / "batch.json"
    assert batch.main(["--seeds", "1-2", "--jobs", "1,2", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    rows = {line.split()[0]: line for line in text.splitlines() if line[:4].strip() in ("1", "2")}
    assert rows["1"].split()[3] == "n/a"  # steady deals/s
    assert "nan" not in text and " 0.00x" not in text
    assert "--jobs 1: steady deals per second n/a: every deal finished before all workers were ready" in text
    assert "--jobs 2: scaling n/a: no steady rate with --jobs 1" in text
    report = json.loads(out.read_text())
    assert report["runs"][0]["steady_deals_per_second"] is None
    assert report["runs"][1]["scaling"] is None and report["runs"][1]["wall_scaling"] == 1.0
    assert report["runs"][1]["not_measured"] == {"scaling": "no steady rate with --jobs 1"}


def test_batch_scaling_without_a_jobs_1_run_is_n_a():
    runs = [{"jobs": 2, "steady_deals_per_second": 20.0, "wall_deals_per_second": 15.0, "not_measured": {}}]
    batch.add_scaling(runs)
    assert runs[0]["scaling"] is None and runs[0]["wall_scaling"] is None
    assert runs[0]["not_measured"]["scaling"] == "no --jobs 1 run to compare with"
    runs = [{"jobs": 1, "steady_deals_per_second": 10.0, "wall_deals_per_second": 8.0, "not_measured": {}},
            {"jobs": 2, "steady_deals_per_second": 19.0, "wall_deals_per_second": 12.0, "not_measured": {}}]
    batch.add_scaling(runs)
    assert (runs[1]["scaling"], runs[1]["wall_scaling"]) == (1.9, 1.5)
    assert runs[1]["not_measured"] == {}


# --- optimal: the summary line, the per-deal table, the JSON -------------------------------------------

def deal(seed, won, proved, bound=None, gap=None):
    return optimal.OurDeal(seed, won, proved, 100 if won else 40, None, bound, gap, 0.5, 1000,
                           None if proved else "time limit")


def test_optimal_summary_says_how_many_proved_are_wins_and_losses(capsys):
    rules = PRESETS["classic"]
    deals = [deal(1, True, True, 100), deal(2, False, True), deal(3, False, True), deal(4, True, False, 95, 5)]
    optimal.print_section("classic", rules, optimal.summarize(rules, deals))
    out = capsys.readouterr().out
    assert "proved optimal 3/4 = 75.0%  (1 win, 2 losses: their best stop; 1 more win not proved optimal)" in out
    assert "mean gap (actions - bound) 5.0 actions, max 5 actions over 1 deal " in out


def test_optimal_gap_of_a_scoring_ruleset_is_in_points(capsys):
    rules = PRESETS["harmony"]
    deals = [deal(1, True, False, 900, 12), deal(2, True, False, 900, 8)]
    optimal.print_section("harmony", rules, optimal.summarize(rules, deals))
    assert "mean gap (bound - score) 10.0 points, max 12 points over 2 deals" in capsys.readouterr().out


def test_optimal_per_deal_table_prints_a_dash_for_no_bound(capsys):
    ours = [deal(7, False, True)]
    peer = [optimal.PeerDeal(7, "Impossible", 0.001)]
    optimal.print_peer(ours, peer, optimal.compare(ours, peer), per_deal=True)
    row = capsys.readouterr().out.strip().splitlines()[-1].split()
    assert row[:4] == ["7", "-", "yes", "-"]
    assert "None" not in row


def test_optimal_json_records_the_peer_settings(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(optimal, "keep_freed_memory", lambda: True)
    monkeypatch.setattr(optimal.signal, "signal", lambda *args: None)
    monkeypatch.setattr(optimal, "warm_up", lambda: 0.0)
    monkeypatch.setattr(optimal, "pyksolve_available", lambda: False)  # no worker process
    monkeypatch.setattr(optimal, "run_ours", lambda seed, *args: deal(seed, True, True, 100))
    out = tmp_path / "optimal.json"
    assert optimal.main(["--seeds", "1-2", "--rules", "classic", "--peer", "--peer-timeout", "7",
                         "--peer-max-states", "1234", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert (report["peer_timeout"], report["peer_max_states"]) == (7.0, 1234)
    assert [section["name"] for section in report["rulesets"]] == ["classic", "ksolve-draw1", "ksolve-draw3"]
    assert report["rulesets"][0]["summary"]["proved_wins"] == 2
    assert "(2 wins, 0 losses)" in capsys.readouterr().out


def test_optimal_percent_of_no_deal_is_n_a():
    assert optimal.percent(math.nan) == "n/a"


def test_optimal_summary_when_none_is_proved():
    rules = PRESETS["classic"]
    assert optimal.proved_kinds(optimal.summarize(rules, [deal(1, True, False, 95, 5), deal(2, True, False)])) \
        == "2 wins found, not proved optimal"
    assert optimal.proved_kinds(optimal.summarize(rules, [deal(1, False, False)])) == "no win found"


# --- Ctrl-C (or SIGTERM) in a long run: the figures of the deals finished, marked partial, exit 130 ------

def interrupted_after(count: int, answer):
    """A per-deal function that answers `count` deals (answer(*args)) and then raises KeyboardInterrupt."""
    calls = []

    def per_deal(*args, **kwargs):
        calls.append(args)
        if len(calls) > count:
            raise KeyboardInterrupt
        return answer(*args)
    return per_deal


@pytest.fixture
def quiet_main(monkeypatch):
    """The scripts' mains without their process-wide settings (signal handler, allocator)."""
    for module in (winnability, optimal):
        monkeypatch.setattr(module, "keep_freed_memory", lambda: True)
    monkeypatch.setattr(optimal.signal, "signal", lambda *args: None)


def test_interruption_catches_ctrl_c_and_sigterm():
    stopped = stats_util.Interruption()
    assert not stopped and stopped.exit_code == 0
    with stopped:
        raise KeyboardInterrupt
    assert stopped and stopped.exit_code == 130
    with stopped:
        raise stats_util.Terminated
    assert stopped.exit_code == 143
    with pytest.raises(ValueError), stats_util.Interruption():
        raise ValueError("not an interrupt")


def test_optimal_ctrl_c_reports_the_deals_done(monkeypatch, capsys, tmp_path, quiet_main):
    monkeypatch.setattr(optimal, "warm_up", lambda: 0.0)
    monkeypatch.setattr(optimal, "run_ours", interrupted_after(1, lambda seed, *args: deal(seed, True, True, 100)))
    out = tmp_path / "optimal.json"
    assert optimal.main(["--seeds", "1-3", "--rules", "classic,harmony", "--json", str(out)]) == 130
    text = capsys.readouterr().out
    assert "interrupted: 1 of 3 deals done on classic; harmony not run; the figures below are for those" in text
    assert "proved optimal 1/1 = 100.0%" in text and "== harmony" not in text
    report = json.loads(out.read_text())
    assert (report["interrupted"], report["done"], report["asked"]) == (True, 1, 3)
    assert (report["interrupted_ruleset"], report["interrupted_stage"], report["rulesets_not_run"]) \
        == ("classic", "ours", ["harmony"])
    [section] = report["rulesets"]
    assert (section["interrupted"], section["done"], section["asked"]) == (True, 1, 3)
    assert section["summary"]["deals"] == 1 and [d["seed"] for d in section["deals"]] == [1]


class FakeWorker:
    """Stands for the pyksolve worker process: records how it was closed."""

    closed: list = []

    def close(self, kill: bool = False) -> None:
        FakeWorker.closed.append(kill)


def test_optimal_ctrl_c_during_pyksolve_compares_only_the_deals_both_finished(monkeypatch, capsys, tmp_path,
                                                                              quiet_main):
    monkeypatch.setattr(optimal, "warm_up", lambda: 0.0)
    monkeypatch.setattr(optimal, "pyksolve_available", lambda: True)
    monkeypatch.setattr(FakeWorker, "closed", [])
    monkeypatch.setattr(optimal, "MinimalWorker", FakeWorker)
    monkeypatch.setattr(optimal, "run_ours", lambda seed, *args: deal(seed, True, True, 100))
    monkeypatch.setattr(optimal, "run_peer", interrupted_after(
        1, lambda worker, seed, *args: optimal.PeerDeal(seed, "SolvedMinimal", 2.0, 100, 120, "ok")))
    out = tmp_path / "optimal.json"
    assert optimal.main(["--seeds", "1-3", "--rules", "ksolve-draw1", "--peer", "--per-deal", "--json",
                         str(out)]) == 130
    text = capsys.readouterr().out
    assert ("interrupted: 1 of 3 deals done by pyksolve on ksolve-draw1 (ours: all 3; ksolve-draw3 not run);"
            " the figures below are for those, and only the 1 both finished are compared") in text
    assert "proved optimal 3/3" in text and "both won 1: ours shorter 0, equal 1" in text
    assert FakeWorker.closed == [True]  # killed at once, its deal in progress not waited for
    report = json.loads(out.read_text())
    assert (report["interrupted"], report["done"], report["asked"], report["interrupted_stage"]) \
        == (True, 1, 3, "pyksolve")
    [section] = report["rulesets"]
    assert section["stage"] == "pyksolve" and len(section["deals"]) == 3 and len(section["pyksolve_deals"]) == 1
    assert section["pyksolve"]["both_won"] == 1 and section["pyksolve"]["speed"]["seeds"] == [1]


def test_optimal_json_of_a_whole_run_says_it_is_not_partial(monkeypatch, tmp_path, quiet_main):
    monkeypatch.setattr(optimal, "warm_up", lambda: 0.0)
    monkeypatch.setattr(optimal, "run_ours", lambda seed, *args: deal(seed, True, True, 100))
    out = tmp_path / "optimal.json"
    assert optimal.main(["--seeds", "1-2", "--rules", "classic", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["interrupted"] is False and "done" not in report


def outcome(seed: int) -> winnability.DealOutcome:
    return winnability.DealOutcome(seed, "win", 0.25, 1000, 1 << 20, None, 90, 100.0)


def quiet_winnability(monkeypatch):
    monkeypatch.setattr(winnability, "measure_first_run", lambda: {"error": "not measured in the tests"})
    monkeypatch.setattr(winnability, "warm_up", lambda: 0.0)


def test_winnability_ctrl_c_reports_the_deals_done(monkeypatch, capsys, tmp_path, quiet_main):
    quiet_winnability(monkeypatch)

    def solve_seeds(seeds, settings, jobs):
        yield outcome(seeds[0])
        raise KeyboardInterrupt
    monkeypatch.setattr(winnability, "solve_seeds", solve_seeds)
    out = tmp_path / "winnability.json"
    assert winnability.main(["--seeds", "1-3", "--rules", "ksolve-draw1,ksolve-draw3", "--no-peer",
                             "--json", str(out)]) == 130
    text = capsys.readouterr().out
    assert "interrupted: 1 of 3 deals done on ksolve-draw1; ksolve-draw3 not run; the figures below are for those" \
        in text
    assert "decided 1/1 = 100.00%" in text and "== ksolve-draw3" not in text
    report = json.loads(out.read_text())
    assert (report["interrupted"], report["done"], report["asked"], report["interrupted_stage"],
            report["rulesets_not_run"]) == (True, 1, 3, "ours", ["ksolve-draw3"])
    [section] = report["rulesets"]
    assert section["ours"]["verdicts"]["deals"] == 1 and section["done"] == 1


class FakePool:
    """Stands for PyksolvePool: answers one deal, then Ctrl-C; records how it was closed."""

    exits: list = []

    def __init__(self, *args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        FakePool.exits.append(exc_type)

    def solve_deals(self, deals, draw):
        seed, _ = deals[0]
        yield winnability.PeerOutcome(seed, "win", "SolvedMayNotBeMinimal", 0.5, 80, 50.0)
        raise KeyboardInterrupt


def test_winnability_ctrl_c_during_pyksolve_compares_only_the_deals_both_finished(monkeypatch, capsys, tmp_path,
                                                                                  quiet_main):
    quiet_winnability(monkeypatch)
    monkeypatch.setattr(winnability, "solve_seeds", lambda seeds, settings, jobs: (outcome(s) for s in seeds))
    monkeypatch.setattr(winnability, "pyksolve_available", lambda: True)
    monkeypatch.setattr(FakePool, "exits", [])
    monkeypatch.setattr(winnability, "PyksolvePool", FakePool)
    out = tmp_path / "winnability.json"
    assert winnability.main(["--seeds", "1-3", "--rules", "ksolve-draw3", "--json", str(out)]) == 130
    text = capsys.readouterr().out
    assert ("interrupted: 1 of 3 deals done by pyksolve on ksolve-draw3 (ours: all 3); the figures below are for"
            " those, and only the 1 both finished are compared") in text
    assert "1 deals decided by both" in text
    assert FakePool.exits == [KeyboardInterrupt]  # the pool saw the interrupt: its workers are killed
    report = json.loads(out.read_text())
    assert (report["interrupted"], report["done"], report["asked"], report["interrupted_stage"]) \
        == (True, 1, 3, "pyksolve")
    [section] = report["rulesets"]
    assert section["ours"]["verdicts"]["deals"] == 3 and section["pyksolve"]["verdicts"]["deals"] == 1
    assert section["comparison"]["both_decided"] == 1


def game(seed, *args) -> dict:
    return {"seed": seed, "won": seed % 2 == 1, "end": "won" if seed % 2 else "resigned: every action loops",
            "actions": 120, "decisions": 40, "foundation_cards": 52 if seed % 2 else 10, "seconds": 1.5, "line": []}


@pytest.mark.parametrize("finished", [0, 2])
def test_honest_play_ctrl_c_reports_the_games_done(finished, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(honest_play.signal, "signal", lambda *args: None)
    monkeypatch.setattr(honest_play, "play_game", interrupted_after(finished, game))
    out = tmp_path / "honest.json"
    assert honest_play.main(["--games", "5", "--json", str(out)]) == 130
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert (report["interrupted"], report["done"], report["asked"]) == (True, finished, 5)
    if finished:
        assert "interrupted: 2 of 5 games done; the figures below are for those" in text
        assert "won 1 of 2 = 50.0%" in text
        assert report["summary"]["games"] == 2 and [g["seed"] for g in report["games"]] == [1, 2]
    else:
        assert "interrupted: 0 of 5 games done; no figures" in text and "won " not in text
        assert report["summary"] is None and report["games"] == []


def child_pids(pid: int) -> set[int]:
    """The child processes of `pid` (Linux)."""
    children = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        children.update(int(child) for child in (task / "children").read_text().split())
    return children


def alive(pid: int) -> bool:
    """True if the process runs (neither gone nor a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.skipif(not optimal.pyksolve_available(), reason="needs pyksolve")
def test_optimal_sigint_in_a_real_run_stops_the_peer_worker_and_reports(tmp_path):
    """The script on its own, with its pyksolve worker: SIGINT once pyksolve finished a deal."""
    out = tmp_path / "optimal.json"
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "optimal.py"), "--seeds", "1-3", "--rules", "ksolve-draw1",
         "--peer", "--time-limit", "0.3", "--peer-timeout", "1", "--threads", "1", "--memory", "128",
         "--progress", "--json", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        progress = b""
        while not re.search(rb"ksolve-draw1 pyksolve:[^\r\n]*\| *[123]/3", progress):  # its progress bar
            chunk = process.stderr.read1(4096)
            assert chunk, f"the run ended early: {progress.decode(errors='replace')}"
            progress += chunk
        workers: set[int] = set()
        for _ in range(100):  # the worker of the next deal (one is started again after a timeout)
            workers = child_pids(process.pid)
            if workers:
                break
            time.sleep(0.05)
        assert workers
        time.sleep(0.3)  # past the fork: Python drops a Ctrl-C that lands in its at-fork handlers
        process.send_signal(subprocess.signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in stderr
    text = stdout.decode()
    assert "deals done by pyksolve on ksolve-draw1 (ours: all 3; ksolve-draw3 not run)" in text
    assert not [pid for pid in workers if alive(pid)]
    report = json.loads(out.read_text())
    assert report["interrupted"] is True and report["interrupted_stage"] == "pyksolve"
    assert report["done"] >= 1 and report["asked"] == 3
    assert len(report["rulesets"][0]["pyksolve_deals"]) == report["done"]
