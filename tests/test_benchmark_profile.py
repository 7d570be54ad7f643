"""The profiling script (`benchmarks/profile.py`): the kernels' symbols it hands perf, how it reads
perf's report, and its refusals. perf itself is not run here (CI machines may not have it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import profile

ROOT = Path(__file__).resolve().parent.parent


def test_readable_name_drops_the_argument_types():
    symbol = ("_ZN6solver9bestfirst16best_first_chunkB3v49B38c8tJTIeFIjxB2IKSgI4CrvQClUZKEGARTQA_3dE5ArrayIaLi2E1C7"
              "mutable7alignedE")
    assert profile.readable_name(symbol) == "bestfirst.best_first_chunk"
    assert profile.readable_name("_ZN7cpython6solver5state10state_hashB3v12E") == "cpython.state.state_hash"
    assert profile.readable_name("memmove") == "memmove"


@pytest.mark.parametrize("fresh_cache", [False, True])
def test_the_map_places_each_kernel_where_it_was_loaded(fresh_cache, tmp_path):
    # In a process of its own, so that the kernels load after the object code is kept (from the
    # cache the suite has filled, or compiled there from an empty one, where each object also holds
    # copies of the kernels it calls): every solver kernel a small solve runs is mapped, at the very
    # address numba calls it by, and no two overlap.
    code = """
import json
from benchmarks import profile
profile.keep_object_code()
from solver.deal import Deal
from solver.rules import PRESETS
from solver.solve import solve
from solver import search
solve(Deal.from_seed(3), PRESETS["classic"], max_nodes=1000)
symbols = profile.kernel_symbols()
entry = {}
for compiled in search.search_chunk.overloads.values():
    entry[compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)] = None
names = {name for _, name in symbols.values()}
addresses = sorted(symbols)
print(json.dumps({"entries": [symbols.get(address, [0, None])[1] for address in entry],
                  "entry_sizes": [symbols.get(address, [0, None])[0] for address in entry],
                  "apart": all(a + symbols[a][0] <= b for a, b in zip(addresses, addresses[1:])),
                  "sizes_positive": all(size > 0 for size, _ in symbols.values()),
                  "has": sorted(n for n in names if n in ("movegen.generate_moves", "state.layout_hashes"))}))
"""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)) if fresh_cache else None
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600,
                               env=environment)
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout.splitlines()[-1])
    assert found["entries"] and set(found["entries"]) == {"search.search_chunk"}
    assert found["sizes_positive"] and found["apart"]  # no two functions overlap
    assert min(found["entry_sizes"]) > 1000  # the search's main loop, with what it inlines
    assert found["has"] == ["movegen.generate_moves", "state.layout_hashes"]


def test_write_perf_map():
    path = profile.write_perf_map({0x7F0000001000: (0x40, "state.state_hash"), 0x7F0000000000: (0x1000, "b.c")}, 4242)
    try:
        assert path == Path("/tmp/perf-4242.map")
        assert path.read_text().splitlines() == ["7f0000000000 1000 b.c", "7f0000001000 40 state.state_hash"]
    finally:
        path.unlink(missing_ok=True)


def test_elf_functions_refuses_what_is_not_an_elf_object():
    assert profile.elf_functions(b"") == []
    assert profile.elf_functions(b"MZ\x90\x00" + bytes(60)) == []


def test_parse_report_adds_up_copies_and_marks_where():
    report = """
# Samples: 15K of event 'cpu-clock:ppp'
#
    16.83%  [.] bestfirst.best_first_chunk             -      -
    16.02%  [k] clear_page_erms                        -      -
     3.18%  [.] bnb._play_child                        -      -
     1.89%  [.] bnb._play_child                        -      -
     0.75%  [.] __memmove_avx512_unaligned_erms        -      -
"""
    shares = profile.parse_report(report, {"bestfirst.best_first_chunk", "bnb._play_child"})
    assert [(share.function, share.percent, share.where) for share in shares] == [
        ("bestfirst.best_first_chunk", 16.83, "numba"),
        ("clear_page_erms", 16.02, "kernel"),
        ("bnb._play_child", 5.07, "numba"),
        ("__memmove_avx512_unaligned_erms", 0.75, "other"),
    ]


def test_without_perf_it_says_so_and_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(profile.shutil, "which", lambda name: None)
    monkeypatch.setattr(profile, "run_search", lambda *args: pytest.fail("searched without perf"))
    assert profile.main(["--sample", "1"]) == 2
    err = capsys.readouterr().err
    assert "perf is not installed" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["--rules", "nope"], ["--seed", "-1"], ["--command", "play"], ["--sample", "0"],
                                  ["--threads", "0"], ["--top", "0"], ["--time-limit", "nan"]])
def test_bad_arguments_are_refused(argv, monkeypatch, capsys):
    monkeypatch.setattr(profile, "run_search", lambda *args: pytest.fail("searched after a bad argument"))
    with pytest.raises(SystemExit) as stopped:
        profile.main(argv)
    assert stopped.value.code == 2
    assert ": error: " in capsys.readouterr().err
