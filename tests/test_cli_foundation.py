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
    (["replay", "0", "D", "--rules", "harmony", "--seconds-per-action", "1e308"], ["seconds", "300"]),
    (["replay", "0", "D", "--passes", "128"], ["passes", "127"]),
    (["solve", "0", "--passes", "2147483648"], ["passes", "127"]),
    (["replay", "0", "--line-file", "DEEPJSON"], ["JSON"]),
    (["deal", "--deal-file", "DEEPJSON"], ["JSON"]),
    (["deal", "0", "--format", "pysol", "--json"], ["choose one"]),
    (["solve", "0", "--json", "--show"], ["--show", "choose one"]),
    (["best", "0", "--json", "--show"], ["--show", "choose one"]),
    (["deal", "--deal-file", "LINEFILE", "--source", "pysol"], ["--source pysol", "--deal-file"]),
    (["deal", "0", "--json", "--rules", "duel"], ["--rules", "change nothing"]),
    (["deal", "0", "--format", "ksolve", "--no-auto-play"], ["--no-auto-play", "change nothing"]),
    # digits other than ASCII: isdigit() takes them, int() refuses `²` and reads `٣` as 3
    (["deal", "\u0663"], ["bad seed"]),
    (["deal", "\uff13"], ["bad seed"]),
    (["replay", "0", "Ah:\u00b2>F"], ["place"]),
    (["replay", "0", "Ah:\u0663>F"], ["place"]),
    (["replay", "0", "D", "--passes", "\u0663"], ["passes"]),
])
def test_bad_input_one_line_no_traceback(tmp_path, args, words):
    line_file = tmp_path / "line.txt"
    line_file.write_text("D", encoding="utf-8")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('["D", 3', encoding="utf-8")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")  # deeper than Python's recursion limit
    files = {"LINEFILE": line_file, "BADJSON": bad_json, "DEEPJSON": deep_json}
    args = [str(files.get(a, a)) for a in args]
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


def test_huge_input_is_cut_in_the_error_line():
    result = run("deal", "--deal", "A" * 100_000)
    assert result.exit_code == 2
    line = one_error_line(result)
    assert len(line) < 1_000 and "(100,000 characters)" in line and "unknown card" in line


def test_replay_takes_tokens_after_an_explicit_deal(tmp_path):
    codes = " ".join(DEAL0.codes)
    result = run("replay", "--deal", codes, *LEGAL, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["line"] == LEGAL and data["actions"] == 3
    deal_file = tmp_path / "deal.txt"
    deal_file.write_text(codes, encoding="utf-8")
    assert json.loads(run("replay", "--deal-file", str(deal_file), *LEGAL, "--json").stdout) == data
    # a seed as well is still one deal too many
    assert "exactly one" in one_error_line(run("replay", "0", "--deal", codes, "D"))


def test_klondike_alone_prints_the_help():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "cli"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert "Commands:" in done.stdout and "replay" in done.stdout


def test_a_closed_output_pipe_has_an_exit_code_of_its_own():
    # `klondike solve 3 | head -1` under pipefail: not 1, which says "unwinnable" for solve
    import os
    import subprocess
    import sys

    from cli import EXIT_OUTPUT_CLOSED

    reader, writer = os.pipe()
    os.close(reader)  # nobody reads: the first write fails with a broken pipe
    try:
        done = subprocess.run([sys.executable, "-m", "cli", "deal", "0"], stdout=writer, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    finally:
        os.close(writer)
    assert done.returncode == EXIT_OUTPUT_CLOSED == 141
    assert "Traceback" not in done.stderr


def test_seed_with_leading_zeros():
    result = run("deal", "007", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["seed"] == 7


def test_a_win_past_the_time_limit_says_the_score_counts_it_cut():
    from cli import format_summary

    summary = {"actions": 97, "foundation_cards": 52, "passes": 3, "won": True, "seconds": 970,
               "cut_at_action": 30, "score": 7_900, "breakdown": {"cards": 7_000, "turns": 900, "total": 7_900}}
    text = format_summary(summary)
    assert "won: yes (but past the 300 s limit" in text and "cut at 300 s after action 30" in text
    assert "score: 7,900  (cards +7,000, turns +900)" in text
    assert "won: yes\n" in format_summary({**summary, "cut_at_action": None})


def test_input_up_to_sixty_characters_is_shown_whole():
    from cli import WORD_SHOWN, shorten_message

    assert WORD_SHOWN == 60
    whole = f"unknown card '{'Q' * 60}', expected"
    assert shorten_message(whole) == whole
    assert shorten_message(f"unknown card '{'Q' * 61}', expected") == \
        f"unknown card '{'Q' * 40}...' (61 characters), expected"


def test_ctrl_c_while_numba_imports_says_interrupted():
    """The console script imports cli, and so numba (most of a second), before `run` can catch
    anything: a real SIGINT sent while numba is being imported is one line and exit 130."""
    import subprocess
    import sys

    console_script = (
        "import os, signal, sys\n"
        "class InterruptNumba:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'numba':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, InterruptNumba())\n"
        "from cli import run\n"  # what the generated `klondike` script does
        "sys.exit(run())\n"
    )
    done = subprocess.run([sys.executable, "-c", console_script, "deal", "0"], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (130, "klondike: error: interrupted\n", "")
