"""`klondike stats` and solver.stats: Wilson bounds, percentiles, the summary of a known file, plots."""

from __future__ import annotations

import csv
import json
import math
import statistics
import struct
import sys

import pytest
from click.testing import CliRunner

from cli import main
from solver.batch import BatchConfig, parse_seeds, run_batch
from solver.rules import PRESETS
from solver.stats import percentile, summarize, wilson_interval

Z = 1.959963984540054

HEADER = "seed,source,rules,result,actions,nodes,seconds,reason,score,bound"
# 10 deals: 4 wins, 3 losses, 2 unknown, 1 error; 5 with a score
CSV_ROWS = """\
1,native,harmony,win,100,500,0.010,,5000,5000
2,native,harmony,win,120,1500,0.030,,4800,5200
3,native,harmony,loss,,800,0.020,,300,300
4,native,harmony,unknown,,20000,0.500,node budget,,
5,native,harmony,win,90,200,0.005,,5100,5100
6,native,harmony,loss,,300,0.001,,,
7,native,harmony,error,,,2.0,"the worker process died while solving this deal (killed by SIGSEGV)",,
8,native,harmony,win,110,9000,0.200,,4000,4500
9,native,harmony,unknown,,20000,0.400,time limit,,
10,native,harmony,loss,,100,0.002,,,
"""
SECONDS = [0.010, 0.030, 0.020, 0.500, 0.005, 0.001, 2.0, 0.200, 0.400, 0.002]


def jsonl_text() -> str:
    names = HEADER.split(",")
    lines = []
    for line in CSV_ROWS.splitlines():
        values = next(csv.reader([line]))
        row = {}
        for name, value in zip(names, values):
            if value == "":
                row[name] = None
            elif name in ("seed", "actions", "nodes", "score", "bound"):
                row[name] = int(value)
            elif name == "seconds":
                row[name] = float(value)
            else:
                row[name] = value
        lines.append(json.dumps(row))
    return "\n".join(lines) + "\n"


@pytest.fixture(params=["csv", "jsonl"])
def known_file(request, tmp_path):
    path = tmp_path / f"known.{request.param}"
    path.write_text(HEADER + "\n" + CSV_ROWS if request.param == "csv" else jsonl_text(), encoding="utf-8")
    return path


def run_cli(*args, **kwargs):
    result = CliRunner().invoke(main, [str(a) for a in args], **kwargs)
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    return result


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def wilson_by_quadratic(k: int, n: int) -> tuple[float, float]:
    """The Wilson bounds as the two roots p of (k/n - p)^2 = z^2 p (1 - p) / n."""
    phat = k / n
    a = 1 + Z * Z / n
    b = -(2 * phat + Z * Z / n)
    c = phat * phat
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize("k, n", [(0, 10), (4, 10), (7, 10), (10, 10), (1, 1), (812, 1000), (3, 100_000)])
def test_wilson_interval(k, n):
    low, high = wilson_interval(k, n)
    expected = wilson_by_quadratic(k, n)
    assert low == pytest.approx(max(0.0, expected[0]), abs=1e-12)
    assert high == pytest.approx(min(1.0, expected[1]), abs=1e-12)
    assert low <= k / n <= high


def test_wilson_published_values():
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(1, 0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_percentiles_interpolate_like_statistics_inclusive():
    values = sorted([3.5, 0.25, 9.0, 1.0, 7.75, 2.0, 0.5])
    cuts = statistics.quantiles(values, n=100, method="inclusive")  # cuts[q - 1] is the q-th percentile
    for q in (1, 10, 25, 50, 90, 99):
        assert percentile(values, q) == pytest.approx(cuts[q - 1])
    assert percentile(values, 0) == 0.25 and percentile(values, 100) == 9.0
    assert percentile([4.0], 90) == 4.0


def test_summary_of_a_known_file(known_file):
    result = run_cli("stats", known_file, "--json")
    assert result.exit_code == 0, result.stderr
    s = json.loads(result.stdout)
    assert s["rows"] == 10 and s["rules"] == {"harmony": 10} and s["sources"] == {"native": 10}
    assert s["counts"] == {"win": 4, "loss": 3, "unknown": 2, "error": 1}
    rate = s["win_rate"]
    assert (rate["wins"], rate["undecided"], rate["n"]) == (4, 3, 10)
    assert rate["low"] == pytest.approx(0.4) and rate["high"] == pytest.approx(0.7)
    # unknowns (and the error) counted as losses for the lower bound, as wins for the upper one
    assert rate["ci95"][0] == pytest.approx(wilson_by_quadratic(4, 10)[0], abs=1e-12)
    assert rate["ci95"][1] == pytest.approx(wilson_by_quadratic(7, 10)[1], abs=1e-12)
    assert rate["ci95"] == pytest.approx([0.1682, 0.8922], abs=1e-4)

    seconds = s["seconds"]
    cuts = statistics.quantiles(SECONDS, n=100, method="inclusive")
    assert seconds["count"] == 10 and seconds["max"] == 2.0 and seconds["min"] == 0.001
    assert seconds["median"] == pytest.approx(0.025)
    assert seconds["mean"] == pytest.approx(statistics.mean(SECONDS))
    assert seconds["p90"] == pytest.approx(cuts[89]) and seconds["p90"] == pytest.approx(0.65)
    assert seconds["p99"] == pytest.approx(cuts[98]) and seconds["p99"] == pytest.approx(1.865)

    nodes = s["nodes"]  # the error row has no node count
    assert nodes["count"] == 9 and nodes["total"] == 52_400 and nodes["median"] == 800 and nodes["max"] == 20_000
    assert s["actions"]["count"] == 4 and s["actions"]["median"] == 105

    score = s["score"]
    assert score["count"] == 5 and score["min"] == 300 and score["max"] == 5100
    assert score["median"] == 4800 and score["mean"] == pytest.approx(3840)
    assert score["score_equals_bound"] == 3  # seeds 1, 3 and 5
    assert sum(b["count"] for b in score["histogram"]) == 5

    assert [r["seed"] for r in s["hardest"]["slowest"]] == [7, 4, 9, 8, 2]
    assert [r["seed"] for r in s["hardest"]["most_nodes"]] == [4, 9, 8, 2, 3]  # a tie goes to the lower seed


def test_text_output(known_file):
    result = run_cli("stats", known_file)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "10 deals (rules harmony 10; source native 10)" in out
    assert "win 4 (40.0%), loss 3 (30.0%), unknown 2 (20.0%), error 1 (10.0%)" in out
    assert "win rate: 40.0% to 70.0%" in out and "95% Wilson interval 16.8% to 89.2%" in out
    assert "median 0.025, mean 0.3168, p90 0.65, p99 1.865, max 2" in out
    assert "score (5 deals): min 300" in out and "score = bound in 3" in out
    assert "slowest: 7 (2 s, error), 4 (0.5 s, unknown)" in out


def test_stats_from_stdin_and_summary_without_scores():
    no_scores = "\n".join(json.dumps({k: v for k, v in json.loads(line).items() if k not in ("score", "bound")})
                          for line in jsonl_text().splitlines()) + "\n"
    result = run_cli("stats", "-", "--json", input=no_scores)
    assert result.exit_code == 0, result.stderr
    s = json.loads(result.stdout)
    assert s["counts"]["win"] == 4 and s["score"] is None


def test_a_partial_last_line_is_ignored(tmp_path):
    path = tmp_path / "running.jsonl"
    path.write_text(jsonl_text() + '{"seed":11,"source":"nat', encoding="utf-8")
    result = run_cli("stats", path, "--json")
    assert json.loads(result.stdout)["rows"] == 10
    assert "has no newline" in result.stderr and "left out" in result.stderr  # said, not silent
    assert path.read_text(encoding="utf-8").endswith('"nat')  # stats never changes the file
    complete = tmp_path / "complete.jsonl"
    complete.write_text(jsonl_text(), encoding="utf-8")
    assert run_cli("stats", complete).stderr == ""


@pytest.mark.parametrize("content, message", [
    (HEADER + "\n1,native,classic,win,1,2,0.1,,,\nnot,a,row\n2,native,classic,loss,,2,0.1,,,\n",
     "line 3: 3 fields, the header has 10"),
    ('{"seed": 1, "result": "win"}\n[1, 2]\n', "line 2: not a JSON object"),
    ('{"seed": 1, "result": "won"}\n', "line 1: not a batch row"),
    ('{"seed": 1, "result": "win"}\n{oops\n', "line 2: not a JSON row"),
    ("", "has no rows"),
    (HEADER + "\n", "has no rows"),
    (HEADER + "\n1,native,classic,win,1,2,abc,,,\n", "line 2: not a batch row (could not convert"),
    (HEADER + "\nx,native,classic,win,1,2,0.1,,,\n", "line 2: not a batch row"),
    (HEADER + "\n\u0663,native,classic,win,1,2,0.1,,,\n", "line 2: not a batch row"),  # int() reads it as 3
    (HEADER + "\n1,native,classic,win,1,2," + "9" * 200_000 + ",,,\n", "line 2: not a batch row"),
    ('{"seed": 1, "result": "win", "seconds": NaN}\n', "seconds must be a number >= 0"),
    ('{"seed": 1, "result": "win", "nodes": 1e400}\n', "nodes must be a whole number >= 0"),
    ('{"seed": 1, "result": "win", "seconds": -1.5}\n', "seconds must be a number >= 0"),
    ('{"seed": 1, "result": "win", "seconds": "NaN"}\n', "seconds must be a number >= 0"),
    ('{"seed": true, "result": "win"}\n', "line 1: not a batch row"),
    ('{"seed": 1, "result": "win", "score": Infinity}\n', "score must be a number"),
    ('{"seed": 1, "result": "win"}\n{"seed": 2, "result": "win"}\n{"seed": 1, "result": "loss"}\n',
     "line 3: seed 1 has a row already (line 1)"),
    ("[" * 5000 + "\n", "line 1: not a JSON row"),
])
def test_bad_files_are_one_clear_line(tmp_path, content, message):
    path = tmp_path / ("bad.csv" if content.startswith("seed,") else "bad.jsonl")
    path.write_text(content, encoding="utf-8")
    result = run_cli("stats", path)
    assert result.exit_code == 2
    assert message in one_error_line(result)


def test_missing_file(tmp_path):
    result = run_cli("stats", tmp_path / "nowhere.csv")
    assert result.exit_code == 2
    assert "cannot read" in one_error_line(result)


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_plot(known_file, tmp_path):
    pytest.importorskip("matplotlib")
    with_scores = tmp_path / "with.png"
    result = run_cli("stats", known_file, "--plot", with_scores)
    assert result.exit_code == 0, result.stderr
    assert png_size(with_scores) == (1200, 400)  # two panels: time and score
    only_time = tmp_path / "time.jsonl"
    only_time.write_text("\n".join(json.dumps({"seed": i, "result": "loss", "seconds": 0.001 * 3 ** i})
                                   for i in range(8)) + "\n", encoding="utf-8")
    picture = tmp_path / "time.png"
    assert run_cli("stats", only_time, "--plot", picture).exit_code == 0
    assert png_size(picture) == (600, 400)  # one panel: no scores


@pytest.mark.parametrize("name, message", [("picture", "give the image file's extension"),
                                           ("", "give the image file's extension"),
                                           ("DIR.png", "it is a directory"),
                                           ("picture.bogus", "not supported")])
def test_plot_paths_it_cannot_write_as_asked(known_file, tmp_path, name, message):
    pytest.importorskip("matplotlib")
    (tmp_path / "DIR.png").mkdir()
    path = tmp_path / name if name else ""
    result = run_cli("stats", known_file, "--plot", path)
    assert result.exit_code == 2 and message in one_error_line(result)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["DIR.png", known_file.name])  # nothing written


def test_plot_without_matplotlib(known_file, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    result = run_cli("stats", known_file, "--plot", tmp_path / "x.png")
    assert result.exit_code == 2
    assert "--plot needs matplotlib" in one_error_line(result)
    assert not (tmp_path / "x.png").exists()


def test_stats_of_a_real_batch(tmp_path):
    out = tmp_path / "real.csv"
    summary = run_batch(parse_seeds("1-6,16,18"), BatchConfig(PRESETS["classic"], max_nodes=20_000), out=str(out),
                        jobs=2)
    from solver.batch import read_rows

    s = summarize(read_rows(str(out))[0])
    assert s["counts"] == summary["counts"] and s["rows"] == 8
    assert s["nodes"]["total"] == sum(row["nodes"] for row in read_rows(str(out))[0])
    assert s["win_rate"]["low"] == summary["counts"]["win"] / 8 and s["score"] is None
