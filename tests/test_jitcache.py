"""How kernels are compiled (`solver.jitcache`): one compilation for the calls other kernels make
with constants and small integers, the first-compile notice, and the cache locked against processes
compiling side by side."""

import subprocess
import sys
from pathlib import Path

import numpy as np
from numba.core import types

from solver import jitcache
from solver.jitcache import kernel, kernel_argument_type


def test_a_kernel_is_compiled_for_plain_argument_types():
    assert kernel_argument_type(types.IntegerLiteral(7)) == types.int64
    assert kernel_argument_type(types.int8) == types.int64
    assert kernel_argument_type(types.int32) == types.int64
    assert kernel_argument_type(types.uint64) == types.uint64  # uint64 with int64 would be float64
    assert kernel_argument_type(types.BooleanLiteral(False)) == types.boolean
    array = types.Array(types.int8, 1, "C")
    assert kernel_argument_type(array) == array


def _doubled(value):
    return 2 * value


def _caller(small, medium):
    return _doubled_kernel(3) + _doubled_kernel(small) + _doubled_kernel(medium) + _doubled_kernel(np.int16(5))


_doubled_kernel = kernel(_doubled, cache=False)
_caller_kernel = kernel(_caller, cache=False)


def test_calls_with_constants_and_small_integers_share_one_compilation():
    """numba compiles a kernel once per argument type, a constant being a type of its own: four
    calls (a constant, int8, int32, int16) would be four compilations."""
    assert _caller_kernel(np.int8(-4), np.int32(10)) == 2 * (3 - 4 + 10 + 5)
    assert _doubled_kernel.signatures == [(types.int64,)]


def test_the_compile_notice_comes_once_per_search_until_its_kernels_are_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(jitcache, "CACHE_DIR", tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    told = []
    jitcache.set_compile_notice(told.append)
    try:
        jitcache.announce_compiling("winnability")
        jitcache.mark_compiled("winnability")
        jitcache.announce_compiling("winnability")
        jitcache.announce_compiling("optimal")
    finally:
        jitcache.set_compile_notice(None)
    assert told == ["winnability", "optimal"]


def test_new_kernel_sources_forget_what_was_compiled(tmp_path):
    """After an update the cache is dropped, and with it the notes of what it held."""
    package = tmp_path / "package"
    package.mkdir()
    for name in jitcache.KERNEL_MODULES:
        (package / f"{name}.py").write_text(f"# {name}\n")
    assert jitcache.refresh_cache(package)
    compiled = package / "__pycache__" / "kernels.compiled-winnability"
    compiled.touch()
    assert not jitcache.refresh_cache(package) and compiled.exists()
    (package / "movegen.py").write_text("# changed\n")
    assert jitcache.refresh_cache(package) and not compiled.exists()


def test_best_compiles_the_open_positions_bound_before_its_budget_counts():
    """`bnb.open_bound` runs only when a depth-first search stops unproved; compiled then, its
    seconds came out of the search's time limit. A fresh process whose search is proved at once
    must have it compiled (or loaded) all the same."""
    code = ("from solver.deal import Deal; from solver.rules import get_ruleset; from solver.optimal import best; "
            "from solver.bnb import open_bound; "
            "result = best(Deal.from_seed(3), get_ruleset('classic'), time_limit=60); "
            "print(result.optimal, len(open_bound.signatures))")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parent.parent).stdout.split()
    assert output == ["True", "1"]


def test_the_command_line_tells_of_compiling_once_a_run(tmp_path, monkeypatch, capsys):
    from cli import notice_compiling
    monkeypatch.setattr(jitcache, "CACHE_DIR", tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    jitcache.set_compile_notice(notice_compiling)
    try:
        for name in ("winnability", "optimal", "best-first"):
            jitcache.announce_compiling(name)
    finally:
        jitcache.set_compile_notice(None)
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "compiling the solver core (once after an install or update" in error


_SAVE_MANY = """
import sys
from solver.jitcache import LockedCacheFile
cache_file = LockedCacheFile(cache_path=sys.argv[1], filename_base="kernel", source_stamp="stamp")
for number in range(200):
    cache_file.save((sys.argv[2], number), (sys.argv[2], number))
"""


def test_processes_compiling_one_kernel_side_by_side_keep_its_cache_whole(tmp_path):
    """Two processes add compilations of one kernel at once (a batch's workers; a search compiled in
    a second process). Unlocked, numba's read-index, pick-a-file, write-back loses entries and
    can leave the index naming the other process's code (tried: 363 of 600 entries kept, 46 wrong)."""
    processes = [subprocess.Popen([sys.executable, "-c", _SAVE_MANY, str(tmp_path), writer],
                                  cwd=Path(__file__).resolve().parent.parent) for writer in "ab"]
    assert [process.wait() for process in processes] == [0, 0]
    cache_file = jitcache.LockedCacheFile(cache_path=str(tmp_path), filename_base="kernel", source_stamp="stamp")
    index = cache_file._load_index()
    assert sorted(index) == sorted((writer, number) for writer in "ab" for number in range(200))
    assert all(cache_file.load(key) == key for key in index)


def test_every_kernel_reads_and_writes_its_cache_under_the_lock():
    from solver import deadends, search
    for dispatcher in (search.search_chunk, deadends.relaxed_unwinnable):
        assert type(dispatcher._cache._cache_file) is jitcache.LockedCacheFile
