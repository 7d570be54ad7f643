"""The `klondike deal` and `klondike replay` commands (cli.main through click's CliRunner)."""

import json

import pytest
from click.testing import CliRunner

from cli import main
from helpers import DEAL0

LEGAL = ["Ad:7>F", "3h:4>5", "D"]  # seed 0, classic


def run(*args):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    return result


def one_error_line(result):
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_deal_text():
    result = run("deal", "0")
    assert result.exit_code == 0
    out = result.stdout
    assert "seed 0" in out and "classic" in out
    assert "stock: " + " ".join(DEAL0.codes[28:]) in out
    assert "1: 8s\n" in out and "2: [Jh] Tc\n" in out
    assert "\x1b[" not in out  # not a terminal: no colour


def test_deal_json():
    result = run("deal", "0", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["seed"] == 0 and data["source"] == "native"
    assert data["deal"][:10] == "8s Jh 9c 2s 2d Qd 6s Tc 3d Ac".split()
    assert len(data["deal"]) == 52 and len(set(data["deal"])) == 52
    assert [len(p) for p in data["tableau"]] == [1, 2, 3, 4, 5, 6, 7]
    assert data["tableau"][1] == [data["deal"][1], data["deal"][7]]
    assert data["tableau"][6][-1] == data["deal"][27]
    assert data["stock"] == data["deal"][28:]


def test_deal_explicit_codes_and_file(tmp_path):
    result = run("deal", "--deal", " ".join(DEAL0.codes), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["deal"] == DEAL0.codes and data["seed"] is None
    path = tmp_path / "deal.txt"
    path.write_text(" ".join(DEAL0.codes), encoding="utf-8")
    assert json.loads(run("deal", "--deal-file", str(path), "--json").stdout)["deal"] == DEAL0.codes


def test_replay_legal():
    result = run("replay", "0", *LEGAL)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert "actions: 3" in result.stdout and "foundation cards: 1/52" in result.stdout


def test_replay_json():
    result = run("replay", "0", *LEGAL, "--rules", "harmony", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["legal"] is True and data["actions"] == 3 and data["line"] == LEGAL
    # harmony: Ad 1000, two turned cards 200, 297 s left -> 99
    assert data["score"] == 1000 + 200 + 99
    assert data["position"]["foundations"]["d"] == 1


def test_replay_illegal():
    result = run("replay", "0", "Ad:7>F", "8s:1>3", "D")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "8s:1>3" in line and "index 1" in line and "does not fit" in line


def test_replay_illegal_json():
    result = run("replay", "0", "D", "Qh:W>F", "--json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["legal"] is False
    assert data["error"]["index"] == 1 and data["error"]["token"] == "Qh:W>F" and data["error"]["reason"]
    assert "Qh:W>F" in one_error_line(result)


def test_replay_bad_token():
    result = run("replay", "0", "D", "Zz:9>1")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "Zz:9>1" in line and "index 1" in line


@pytest.mark.parametrize("content", [" ".join(LEGAL), "\n".join(LEGAL) + "\n", ",".join(LEGAL), json.dumps(LEGAL)])
def test_replay_line_file(tmp_path, content):
    path = tmp_path / "line.txt"
    path.write_text(content, encoding="utf-8")
    result = run("replay", "0", "--line-file", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["line"] == LEGAL


def test_replay_line_file_illegal(tmp_path):
    path = tmp_path / "line.json"
    path.write_text(json.dumps(["D", "D", "R"]), encoding="utf-8")
    result = run("replay", "0", "--line-file", str(path))
    assert result.exit_code == 2
    assert "index 2" in one_error_line(result)


@pytest.mark.parametrize("args, words", [
    (["deal", "abc"], ["abc"]),
    (["deal", "--", "-1"], ["seed"]),
    (["deal", str(2**64)], ["seed"]),
    (["deal"], ["SEED"]),
    (["deal", "--deal", "Ah Kd"], ["52"]),
    (["replay", "0", "--line-file", "/nonexistent/line.txt"], ["/nonexistent/line.txt"]),
    (["replay", "0", "--line-file", "LINEFILE", "D"], ["not both"]),
    (["replay", "0", "--line-file", "BADJSON"], ["JSON"]),
    (["deal", "--deal-file", "/nonexistent/deal.txt"], ["/nonexistent/deal.txt"]),
    (["replay", "0", "D", "--passes", "0"], ["passes"]),
    (["replay", "0", "D", "--seconds-per-action", "0"], ["seconds"]),
    (["replay", "0", "D", "--seconds-per-action", "inf"], ["seconds"]),
])
def test_bad_input_one_line_no_traceback(tmp_path, args, words):
    line_file = tmp_path / "line.txt"
    line_file.write_text("D", encoding="utf-8")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('["D", 3', encoding="utf-8")
    args = [str(line_file) if a == "LINEFILE" else str(bad_json) if a == "BADJSON" else a for a in args]
    result = run(*args)
    assert result.exit_code == 2
    line = one_error_line(result)
    assert line.startswith("klondike: error:")
    for word in words:
        assert word in line


def test_unknown_ruleset_rejected():
    result = run("deal", "0", "--rules", "bogus")
    assert result.exit_code != 0
    assert "bogus" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("args", [["deal", "0", "--rules", "bogus"], ["deal", "--nope"], ["replay"],
                                  ["solve", "1", "--max-nodes", "-5"]])
def test_usage_errors_are_one_line_through_the_console_entry(args):
    # The `klondike` console script is cli.run, which folds click's usage errors into one line.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("klondike: error: "), done.stderr


def test_seed_with_leading_zeros():
    result = run("deal", "007", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["seed"] == 7
