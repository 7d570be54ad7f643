"""`klondike batch` and solver.batch: seed lists, rows, resume after a kill, refusals, error rows, Dask.

Tiny budgets (--max-nodes 20000, a few seeds, 2 workers) keep every batch under a couple of seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cli import main
from solver import batch
from solver.batch import BatchConfig, parse_seeds, read_rows, run_batch
from solver.deal import Deal
from solver.game import replay
from solver.errors import KlondikeError
from solver.rules import PRESETS
from solver.solve import solve

ROOT = Path(__file__).resolve().parents[1]
NODES = 20_000
CONFIG = BatchConfig(PRESETS["classic"], max_nodes=NODES)
BUDGET = ["--max-nodes", str(NODES), "--jobs", "2"]


def run_cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    return result


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("klondike: error: ")
    return lines[0]


def timeless(rows):
    """Rows without the `seconds` column, in file order."""
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


def rows_of(path):
    return read_rows(str(path))[0]


# --------------------------------------------------------------------------- seed lists


def test_seed_ranges_lists_and_mixtures():
    assert list(parse_seeds("5,17,99")) == [5, 17, 99]
    assert list(parse_seeds("1-10,20")) == list(range(1, 11)) + [20]
    assert list(parse_seeds(" 3 , 1-2 ")) == [1, 2, 3]  # ascending order, spaces ignored
    assert list(parse_seeds("4-6,5,1-4,6")) == [1, 2, 3, 4, 5, 6]  # duplicates merged
    assert list(parse_seeds("7-7")) == [7]
    assert list(parse_seeds("0x10,1_000")) == [16, 1000]
    seeds = parse_seeds("1-100000")
    assert seeds.count == 100_000 and 1 in seeds and 100_000 in seeds and 0 not in seeds and 100_001 not in seeds
    everything = parse_seeds(f"0-{2**64 - 1}")  # ranges stay ranges: no list of 2^64 seeds is built
    assert everything.count == 2**64 and 2**64 - 1 in everything


def test_seed_file(tmp_path, monkeypatch):
    (tmp_path / "lines.txt").write_text("12\n3\n\n# a comment\n40-42  # the end\n", encoding="utf-8")
    (tmp_path / "commas.txt").write_text("8, 9,10\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert list(parse_seeds("@lines.txt")) == [3, 12, 40, 41, 42]
    assert list(parse_seeds("1-2,@commas.txt,100")) == [1, 2, 8, 9, 10, 100]
    assert list(parse_seeds(f"@{tmp_path / 'commas.txt'}")) == [8, 9, 10]


@pytest.mark.parametrize("text, message", [
    ("", "no seeds given"),
    (" , ", "no seeds given"),
    ("abc", "bad seed 'abc'"),
    ("1,x-3", "bad seed 'x'"),
    ("10-5", "the first seed is after the last"),
    ("1-", "expected A-B"),
    ("-5", "expected A-B"),
    ("1-2-3", "bad seed '2-3'"),
    (str(10**20 + 1), "out of range"),
    ("@", "give a file name after @"),
    ("@no-such-file.txt", "cannot read seed file 'no-such-file.txt'"),
])
def test_bad_seeds(text, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KlondikeError, match=message):
        parse_seeds(text)


def test_seeds_past_the_source_range_are_refused_before_any_deal():
    # the lowest seed deals, the highest does not: refused up front, not an error row at the end
    with pytest.raises(KlondikeError, match=f"seed {2**64} \\(native\\)"):
        run_batch(parse_seeds(f"{2**64 - 2}-{2**64}"), CONFIG)


def test_resume_refuses_other_overrides_of_the_same_preset(tmp_path):
    path = tmp_path / "rows.csv"
    assert run_cli("batch", "1-2", "--out", path, "--passes", "3", *BUDGET).exit_code == 0
    before = path.read_bytes()
    result = run_cli("batch", "1-4", "--out", path, "--resume", "--draw", "3", *BUDGET)
    assert result.exit_code == 2 and "classic+passes=3" in result.stderr and "classic+draw=3" in result.stderr
    assert path.read_bytes() == before


def test_a_refused_resume_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "rows.csv"
    assert run_cli("batch", "1-2", "--out", path, *BUDGET).exit_code == 0
    torn = path.read_bytes() + b"3,native,classic,wi"  # a write cut short
    path.write_bytes(torn)
    result = run_cli("batch", "1-4", "--out", path, "--resume", "--rules", "duel", *BUDGET)
    assert result.exit_code == 2 and "holds rows for rules classic" in result.stderr
    assert path.read_bytes() == torn
    assert run_cli("batch", "1-4", "--out", path, "--resume", *BUDGET).exit_code == 0  # its own rules: finished
    assert [row["seed"] for row in read_rows(str(path))[0]] == [1, 2, 3, 4]


def test_a_directory_is_no_batch_file(tmp_path):
    (tmp_path / "rows.csv").mkdir()
    result = run_cli("batch", "1", "--out", tmp_path / "rows.csv", *BUDGET)
    assert result.exit_code == 2 and "it is a directory" in result.stderr


def test_resume_refuses_a_file_with_two_rows_for_a_deal(tmp_path):
    path = tmp_path / "rows.jsonl"
    row = {"seed": 1, "source": "native", "rules": "classic", "result": "win", "actions": 90, "nodes": 5,
           "seconds": 0.1, "reason": None}
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "result": "loss"}) + "\n", encoding="utf-8")
    with pytest.raises(KlondikeError, match="line 2: seed 1 has a row already"):
        read_rows(str(path))


def test_bad_seed_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.txt").write_text("# nothing\n", encoding="utf-8")
    (tmp_path / "nested.txt").write_text("1\n@empty.txt\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_text("1\n2\nthree\n", encoding="utf-8")
    with pytest.raises(KlondikeError, match="has no seeds"):
        parse_seeds("@empty.txt")
    with pytest.raises(KlondikeError, match="line 2: @file is not allowed"):
        parse_seeds("@nested.txt")
    with pytest.raises(KlondikeError, match="'bad.txt' line 3: bad seed 'three'"):
        parse_seeds("@bad.txt")


def test_cli_bad_seeds_one_line():
    result = run_cli("batch", "5-1")
    assert result.exit_code == 2
    assert "the first seed is after the last" in one_error_line(result)


# --------------------------------------------------------------------------- rows


def test_rows_match_direct_solves(tmp_path):
    out = tmp_path / "rows.csv"
    summary = run_batch(parse_seeds("1-8,16,18"), BatchConfig(PRESETS["classic"], max_nodes=NODES, lines=True),
                        out=str(out), jobs=2)
    assert out.read_text(encoding="utf-8").splitlines()[0] == \
        "seed,source,rules,result,actions,nodes,seconds,reason,line"
    rows = rows_of(out)
    assert [row["seed"] for row in rows] == [1, 2, 3, 4, 5, 6, 7, 8, 16, 18]  # sorted by seed at the end
    for row in rows:
        direct = solve(Deal.from_seed(row["seed"]), PRESETS["classic"], max_nodes=NODES)
        assert (row["result"], row["actions"], row["nodes"], row["reason"], row["line"]) == \
            (direct.result, direct.actions, direct.nodes, direct.reason, direct.line)
        assert row["rules"] == "classic" and row["source"] == "native" and row["seconds"] >= 0
    assert {r["result"] for r in rows} >= {"win", "loss", "unknown"}  # seeds 5/18 win, 4/16 lose
    assert summary["solved"] == 10 and summary["resumed"] == 0 and sum(summary["counts"].values()) == 10
    assert summary["counts"]["win"] == sum(r["result"] == "win" for r in rows)
    assert len(summary["worker_peak_rss_mb"]) == 2 and all(mb > 10 for mb in summary["worker_peak_rss_mb"])


def test_cli_jsonl_on_stdout_with_rules_overrides():
    result = run_cli("batch", "2,3,4", "--rules", "harmony", "--draw", "3", *BUDGET)
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(row["seed"] for row in rows) == [2, 3, 4]
    assert {row["rules"] for row in rows} == {"harmony+draw=3"}  # an override is named after the preset
    assert list(rows[0]) == ["seed", "source", "rules", "result", "actions", "nodes", "seconds", "reason"]
    rules = PRESETS["harmony"].with_overrides(draw=3)
    for row in rows:
        assert row["result"] == solve(Deal.from_seed(row["seed"]), rules, max_nodes=NODES).result
    assert "batch: 3 deals" in result.stderr  # the summary line; no progress bar off a terminal


# --------------------------------------------------------------------------- resume, refusals


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_resume_after_a_torn_write_equals_a_clean_run(tmp_path, suffix):
    seeds = parse_seeds("1-16")
    clean = tmp_path / f"clean.{suffix}"
    run_batch(seeds, CONFIG, out=str(clean), jobs=2)
    lines = clean.read_bytes().splitlines(keepends=True)
    head = 1 if suffix == "csv" else 0
    broken = tmp_path / f"broken.{suffix}"
    # the first 6 rows and half of the 7th, as a kill in the middle of a write would leave them
    broken.write_bytes(b"".join(lines[:head + 6]) + lines[head + 6][:15])
    summary = run_batch(seeds, CONFIG, out=str(broken), jobs=2, resume=True)
    assert summary["resumed"] == 6 and summary["solved"] == 10
    assert timeless(rows_of(broken)) == timeless(rows_of(clean))
    assert broken.read_bytes().endswith(b"\n")


def test_resume_after_kill_9_of_a_real_batch(tmp_path):
    out = tmp_path / "killed.jsonl"
    command = [sys.executable, str(ROOT / "cli.py"), "batch", "1-60", *BUDGET, "--out", str(out)]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)  # the whole batch: parent, forkserver and workers
    process.wait(timeout=10)
    with process.stderr:
        assert process.returncode == -signal.SIGKILL, process.stderr.read()
    done = out.read_bytes().count(b"\n")
    assert 10 <= done < 60
    with out.open("ab") as handle:  # and a torn last line, as a kill during a write leaves it
        handle.write(b'{"seed":59,"source":"nat')
    resumed = run_cli("batch", "1-60", *BUDGET, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"({done} already in the file)" in resumed.stderr
    clean = tmp_path / "clean.jsonl"
    assert run_cli("batch", "1-60", *BUDGET, "--out", clean).exit_code == 0
    assert timeless(rows_of(out)) == timeless(rows_of(clean))
    assert [row["seed"] for row in rows_of(out)] == list(range(1, 61))


def test_existing_file_needs_resume_or_force(tmp_path):
    out = tmp_path / "rows.jsonl"
    assert run_cli("batch", "1-3", *BUDGET, "--out", out).exit_code == 0
    before = out.read_bytes()
    again = run_cli("batch", "4-5", *BUDGET, "--out", out)
    assert again.exit_code == 2
    line = one_error_line(again)
    assert "already holds rows" in line and "--resume" in line and "--force" in line
    assert out.read_bytes() == before
    forced = run_cli("batch", "4-5", *BUDGET, "--out", out, "--force")
    assert forced.exit_code == 0
    assert [row["seed"] for row in rows_of(out)] == [4, 5]
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")  # an empty file holds nothing to lose: no flag needed
    assert run_cli("batch", "1", *BUDGET, "--out", empty).exit_code == 0 and len(rows_of(empty)) == 1


@pytest.mark.parametrize("args, message", [
    (["--resume", "--force"], "contradict"),
    (["--rules", "harmony", "--resume"], "holds rows for rules classic"),
    (["--lines", "--resume"], "has the columns"),
])
def test_resume_refusals(tmp_path, args, message):
    out = tmp_path / "rows.csv"
    assert run_cli("batch", "1-2", *BUDGET, "--out", out).exit_code == 0
    before = out.read_bytes()
    result = run_cli("batch", "1-4", *BUDGET, "--out", out, *args)
    assert result.exit_code == 2
    assert message in one_error_line(result)
    assert out.read_bytes() == before


@pytest.mark.parametrize("args, message", [
    (["--resume"], "--resume needs --out FILE"),
    (["--out", "rows.txt"], "name it .csv or .jsonl"),
    (["--source", "nosuch"], "Invalid value for '--source'"),
])
def test_bad_batch_options(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run_cli("batch", "1-2", *BUDGET, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not (tmp_path / "rows.txt").exists()


def test_resume_of_a_finished_file_solves_nothing(tmp_path):
    out = tmp_path / "rows.jsonl"
    run_batch(parse_seeds("1-4"), CONFIG, out=str(out), jobs=2)
    before = out.read_bytes()
    summary = run_batch(parse_seeds("1-4"), CONFIG, out=str(out), jobs=2, resume=True)
    assert summary["solved"] == 0 and summary["resumed"] == 4 and out.read_bytes() == before


# --------------------------------------------------------------------------- deals that fail


def failing_solve(deal, rules, **budgets):
    """A stand-in for solve(): seed 3 crashes its process, 5 raises, 7 allocates too much, 9 hangs."""
    if deal.seed == 3:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash, but no core file
        os.kill(os.getpid(), signal.SIGSEGV)
    if deal.seed == 5:
        raise RuntimeError("boom,\nin two lines")
    if deal.seed == 7:
        # virtual size only (never touched): over the per-deal cap of --memory + 256 MB, yet no real RAM
        np.empty((budgets["memory_mb"] + 1024) << 20, dtype=np.uint8)
    if deal.seed == 9:
        time.sleep(120)
    return solve(deal, rules, **budgets)


def test_failing_deals_become_error_rows_and_the_batch_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "HANG_GRACE", 1.0)  # the parent's watchdog: 2 x 0.5 + 1 s
    config = BatchConfig(PRESETS["classic"], max_nodes=NODES, time_limit=0.5, memory_mb=64, solve_fn=failing_solve)
    out = tmp_path / "rows.csv"
    summary = run_batch(parse_seeds("1-12"), config, out=str(out), jobs=2)
    rows = {row["seed"]: row for row in rows_of(out)}
    assert sorted(rows) == list(range(1, 13))
    errors = {seed: row["reason"] for seed, row in rows.items() if row["result"] == "error"}
    assert sorted(errors) == [3, 5, 7, 9]
    assert "died while solving this deal" in errors[3] and "SIGSEGV" in errors[3]
    assert errors[5] == "RuntimeError: boom, in two lines"  # one line, commas quoted in the CSV
    assert errors[7].startswith("out of memory")
    assert errors[9].startswith("no answer within 2 s")
    for seed in set(rows) - set(errors):  # the other deals, even those queued behind a crash, are right
        assert rows[seed]["result"] == solve(Deal.from_seed(seed), PRESETS["classic"], max_nodes=NODES).result
    assert summary["counts"]["error"] == 4 and summary["workers_replaced"] >= 1  # (none once the work is done)
    assert rows[7]["seconds"] is not None and rows[3]["nodes"] is None


def test_memory_cap_is_lifted_after_the_deal():
    config = BatchConfig(PRESETS["classic"], max_nodes=NODES, memory_mb=64, solve_fn=failing_solve)
    import resource

    batch.ensure_warm()  # load the kernels before the cap (a worker does it at start-up)
    before = resource.getrlimit(resource.RLIMIT_AS)
    row = batch.solve_row(7, config, cap_memory=True)
    assert row["result"] == "error" and "out of memory" in row["reason"]
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert batch.solve_row(7, config)["result"] != "error"  # without the cap the same deal goes through


# --------------------------------------------------------------------------- --best


def test_best_without_the_optimal_search_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "solver.optimal", None)  # as if the module did not exist
    result = run_cli("batch", "1-3", *BUDGET, "--best")
    assert result.exit_code == 2
    assert "--best needs the optimal-score search (solver.optimal)" in one_error_line(result)


def test_best_records_score_and_bound(monkeypatch):
    import types

    calls = []

    def best(deal, rules, time_limit=None):  # no max_nodes/memory_mb: only what it takes is passed
        calls.append((deal.seed, rules.name, time_limit))
        return types.SimpleNamespace(score=1000 + deal.seed, bound=2000 + deal.seed, line=["D", "R"])

    batch.ensure_warm()  # with the real searches: compiling them imports solver.optimal
    monkeypatch.setitem(sys.modules, "solver.optimal", types.SimpleNamespace(best=best))
    batch.check_best_available()  # the fake module passes the check
    config = BatchConfig(PRESETS["harmony"], max_nodes=NODES, time_limit=7.0, best=True, lines=True)
    row = batch.solve_row(3, config)
    assert list(row) == ["seed", "source", "rules", "result", "actions", "nodes", "seconds", "reason",
                         "score", "bound", "line", "best_line"]
    assert (row["score"], row["bound"]) == (1003, 2003) and calls == [(3, "harmony", 7.0)]
    assert row["result"] == "win" and row["line"] and row["best_line"] == ["D", "R"]
    without_lines = batch.solve_row(3, BatchConfig(PRESETS["harmony"], max_nodes=NODES, best=True))
    assert "best_line" not in without_lines and without_lines["score"] == 1003


def test_best_lines_replay_to_their_scores(tmp_path):
    """With --best and --lines each row carries the line of its score, and the reference engine,
    replaying it, reaches that score: through the real search, workers and a CSV file."""
    out = tmp_path / "best.csv"
    result = run_cli("batch", "1-4", "--rules", "harmony", "--best", "--lines", "--max-nodes", NODES, "--jobs", 2,
                     "--out", out)
    assert result.exit_code == 0, result.stderr
    rows = rows_of(out)
    assert [row["seed"] for row in rows] == [1, 2, 3, 4]
    for row in rows:
        assert row["best_line"], row
        replayed = replay(Deal.from_seed(row["seed"]), PRESETS["harmony"], row["best_line"])
        assert replayed.legal, (row["seed"], replayed.error)
        assert replayed.game.score().total == row["score"] <= row["bound"]


def test_best_gets_the_cores_the_workers_leave(monkeypatch):
    """Each deal's best-first search gets the cores divided among the workers, not a thread for
    every core in every worker (more threads than cores)."""
    import types

    seen = []

    class RecordingPool:
        def __init__(self, config, jobs):
            seen.append((jobs, config.best_threads))

        def rows(self, seeds):
            return iter(())

        all_ready_at, rows_before_ready, warmup_seconds, peak_rss_mb, replaced, cpu_seconds = None, 0, [], [], 0, []

    monkeypatch.setattr(batch, "LocalPool", RecordingPool)
    monkeypatch.setattr(batch, "free_cores", lambda: 8)
    config = BatchConfig(PRESETS["duel"], max_nodes=NODES, best=True)
    for jobs in (1, 2, 3, 8, 16, None):  # None: a worker for each core this process may use
        run_batch(parse_seeds("1-20"), config, jobs=jobs)
    assert seen == [(1, 8), (2, 4), (3, 2), (8, 1), (16, 1), (8, 1)]

    calls = []

    def best(deal, rules, threads=1, verdict=None):
        calls.append((threads, verdict))
        return types.SimpleNamespace(score=0, bound=0)

    monkeypatch.setitem(sys.modules, "solver.optimal", types.SimpleNamespace(best=best))
    config = BatchConfig(PRESETS["duel"], max_nodes=NODES, best=True, best_threads=4)
    batch.best_fields(Deal.from_seed(3), config, "solve's answer")
    assert calls == [(4, "solve's answer")]  # and best does not search for it again


# --------------------------------------------------------------------------- Dask


def test_dask_cluster_gives_the_same_rows_and_resumes(tmp_path):
    distributed = pytest.importorskip("distributed")
    local = tmp_path / "local.jsonl"
    run_batch(parse_seeds("1-12"), CONFIG, out=str(local), jobs=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        out = tmp_path / "dask.jsonl"
        result = run_cli("batch", "1-12", "--max-nodes", NODES, "--out", out, "--cluster", cluster.scheduler_address)
        assert result.exit_code == 0, result.stderr
        assert timeless(rows_of(out)) == timeless(rows_of(local))
        lines = out.read_bytes().splitlines(keepends=True)
        out.write_bytes(b"".join(lines[:5]) + lines[5][:10])  # a torn write after 5 rows
        summary = run_batch(parse_seeds("1-12"), CONFIG, out=str(out), cluster=cluster.scheduler_address,
                            resume=True)
    assert summary["resumed"] == 5 and summary["solved"] == 7
    assert timeless(rows_of(out)) == timeless(rows_of(local))


@pytest.mark.parametrize("address", ["garbage", "", "tcp://x y:1"])
def test_a_malformed_cluster_address_is_refused_at_once(address):
    pytest.importorskip("distributed")
    # refused before a Client is made: one made with such an address hangs 30 s while it closes
    result = run_cli("batch", "1", "--cluster", address, "--max-nodes", NODES)
    assert result.exit_code == 2 and "is not a Dask scheduler address" in one_error_line(result)


def test_jobs_with_a_cluster_is_refused():
    # the cluster's workers run the deals: --jobs would be ignored without a word
    result = run_cli("batch", "1", "--cluster", "tcp://127.0.0.1:8786", *BUDGET)
    assert result.exit_code == 2 and "--jobs would change nothing" in one_error_line(result)


def test_cluster_without_dask_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = run_cli("batch", "1-2", "--cluster", "tcp://127.0.0.1:8786")
    assert result.exit_code == 2
    assert "--cluster needs dask" in one_error_line(result)


@pytest.mark.parametrize("data", [b"", b"abc", b"a\n", b"a\nbc", b"x" * 70_000 + b"\n" + b"y" * 70_000, b"\n\n"])
def test_complete_length_is_up_to_the_last_newline(tmp_path, data):
    path = tmp_path / "rows.csv"
    path.write_bytes(data)
    for chunk in (3, 1 << 16):  # read from the end a chunk at a time: the newline may lie chunks back
        assert batch.complete_length(str(path), chunk) == data.rfind(b"\n") + 1


def test_worker_pools_say_they_compile_where_the_cache_has_not_got_the_kernels(tmp_path, monkeypatch):
    """The forkserver compiles before any worker starts (a minute after an install, with the
    progress bar at 0): the pool announces it first, from the main process."""
    from solver import jitcache
    monkeypatch.setattr(jitcache, "CACHE_DIR", tmp_path)  # a cache that holds nothing
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    told = []
    jitcache.set_compile_notice(told.append)
    try:
        summary = run_batch(parse_seeds("1-2"), CONFIG, out=str(tmp_path / "rows.csv"), jobs=2)
    finally:
        jitcache.set_compile_notice(None)
    assert told == ["winnability"] and summary["solved"] == 2
