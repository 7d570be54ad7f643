"""Compiling the searches before their budgets count (`solver.precompile`), partly in a second
process on a cold cache."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numba
import pytest

from solver import jitcache, optimal, precompile
from solver.bestfirst import NODE_COUNT

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cold_cache(monkeypatch, tmp_path):
    """A package cache that has compiled nothing, and second processes allowed."""
    monkeypatch.setattr(jitcache, "CACHE_DIR", tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(precompile, "_second_process_allowed", True)
    monkeypatch.setattr(precompile, "_compiled", set())
    monkeypatch.setattr(precompile, "free_cores", lambda: 2)
    return tmp_path


def test_a_second_process_compiles_only_where_allowed_cold_and_a_core_is_free(cold_cache, monkeypatch):
    started = []
    monkeypatch.setattr(precompile.subprocess, "Popen", lambda command, **options: started.append(command))
    monkeypatch.setattr(precompile, "_second_processes", {})
    precompile.allow_second_process(False)
    assert not precompile.compile_in_second_process("optimal")  # a library caller gets no process
    precompile.allow_second_process(True)
    jitcache.mark_compiled("optimal")
    assert not precompile.compile_in_second_process("optimal")  # cached already
    monkeypatch.setattr(precompile, "free_cores", lambda: 1)
    assert not precompile.compile_in_second_process("best-first")  # no core for it
    monkeypatch.setattr(precompile, "free_cores", lambda: 2)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cold_cache))
    assert not precompile.compile_in_second_process("best-first")  # numba's cache elsewhere: we cannot tell
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert precompile.compile_in_second_process("best-first")
    assert not precompile.compile_in_second_process("best-first")  # one at a time
    assert started == [[sys.executable, "-m", "solver.precompile", "best-first"]]
    with pytest.raises(ValueError):
        precompile.compile_in_second_process("fastest")


def test_a_search_is_compiled_after_its_second_process_is_done(cold_cache, monkeypatch):
    """The second process really runs (`python -m solver.precompile`), notes the search as compiled
    in the cache, and this process waits for it before loading that search."""
    monkeypatch.setattr(precompile, "_second_processes", {})
    monkeypatch.setattr(jitcache, "CACHE_DIR", jitcache.cache_dir_of(jitcache.PACKAGE_DIR))
    monkeypatch.setattr(jitcache, "known_uncompiled", lambda name: True)  # the tests' cache is warm
    marker = jitcache.CACHE_DIR / "kernels.compiled-best-first"
    marker.unlink(missing_ok=True)
    assert precompile.compile_in_second_process("best-first")
    process = precompile._second_processes["best-first"]
    precompile.compile_search("best-first")
    assert process.returncode == 0 and marker.exists()
    assert "best-first" in precompile._compiled and not precompile._second_processes


def test_compile_rest_compiles_the_talon_growth_for_the_arrays_a_growth_passes(monkeypatch):
    """`compile_rest` once compiled the talon table's growth for a one-entry table, which numpy
    calls contiguous: the first growth of the table compiled it again inside the search's budget."""
    search = precompile._tiny_search("best-first")
    calls = []
    monkeypatch.setattr(optimal, "grow_talon_in_place", lambda *arrays: calls.append(tuple(map(numba.typeof, arrays))))
    search.compile_rest()
    search.max_talon_entries = 2 * search.talon_keys.shape[0]
    search.counter[NODE_COUNT] = search.max_talon_entries  # as many nodes stored as need the table doubled
    search._grow_talon_table()
    assert len(calls) == 2 and calls[0] == calls[1]


def test_compile_growth_compiles_what_a_growth_of_the_table_runs(monkeypatch):
    """The kernels a growth of best-first's table runs are compiled before any budget counts, for
    the argument types of a real growth: in place, or (its first slots not fitting the spare)
    rehashed from a copy."""
    calls = {"grow_scored_in_place": [], "rehash_scored_part": []}
    set_aside_fails = []

    def recorded(name):
        real = getattr(optimal, name)

        def call(*arrays):
            calls[name].append(tuple(map(numba.typeof, arrays)))
            return -1 if name == "grow_scored_in_place" and set_aside_fails else real(*arrays)
        return call

    for name in calls:
        monkeypatch.setattr(optimal, name, recorded(name))
    search = precompile._tiny_search("best-first")
    search.compile_growth()
    assert len(calls["grow_scored_in_place"]) == 1 and len(calls["rehash_scored_part"]) == 1
    search._grow_table(2 * search.table_entries)
    set_aside_fails.append(True)
    search._grow_table(2 * search.table_entries)
    assert len(calls["grow_scored_in_place"]) == 3 and len(set(calls["grow_scored_in_place"])) == 1
    assert len(calls["rehash_scored_part"]) == 2 and len(set(calls["rehash_scored_part"])) == 1


# In a fresh cache: compile the three searches, run `best` (which runs all three), then list the
# kernels numba compiled for more than one set of argument types, and how many `apply_move` has.
KERNEL_TYPES_SCRIPT = """
import importlib, pkgutil
import solver
from solver import Deal, get_ruleset, precompile
from solver.movegen import apply_move
from solver.optimal import best
for name in precompile.SEARCHES:
    precompile.compile_search(name)
assert best(Deal.from_seed(3), get_ruleset("duel"), time_limit=60).optimal
twice = []
for module_info in pkgutil.iter_modules(solver.__path__):
    module = importlib.import_module("solver." + module_info.name)
    for name, value in vars(module).items():
        signatures = getattr(value, "signatures", None)
        if isinstance(signatures, list) and value.__module__ == module.__name__ and len(signatures) > 1:
            twice.append(module_info.name + "." + name)
print(twice, len(apply_move.signatures))
"""


def test_no_kernel_is_compiled_twice(tmp_path):
    """numba compiles a kernel once for each set of argument types it is called with: a strided
    array where another caller passes a contiguous one, or a bool where another passes an int,
    cost a first `best` about 1.5 s more (apply_move and _play_child, given a node record's move;
    tt.home_slot, given a field of records; safe_to_foundation; new_node). From an empty cache,
    every kernel the searches use is compiled for one set of types."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # an empty cache: it compiles
    output = subprocess.run([sys.executable, "-c", KERNEL_TYPES_SCRIPT], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=600, check=True).stdout
    assert output.strip() == "[] 1"


def test_the_command_line_allows_a_second_process(monkeypatch):
    from click.testing import CliRunner

    import cli
    monkeypatch.setattr(precompile, "_second_process_allowed", False)
    assert CliRunner().invoke(cli.main, ["deal", "1"]).exit_code == 0
    assert precompile._second_process_allowed


def _unraisable(exc_type):
    """What Python hands `sys.unraisablehook` for an exception it cannot raise (in a callback)."""
    return SimpleNamespace(exc_type=exc_type, exc_value=exc_type(), exc_traceback=None, err_msg=None, object=None)


def test_an_interrupt_dropped_in_a_compile_callback_still_stops_the_compile(monkeypatch):
    """LLVM calls back into Python while numba compiles; Ctrl-C there is dropped and numba fails
    with "no compiled object yet", which the command line called an internal error."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    with pytest.raises(KeyboardInterrupt):
        with precompile._interrupts_kept():
            sys.unraisablehook(_unraisable(KeyboardInterrupt))
            raise RuntimeError("no compiled object yet")
    after_one_interrupt = sys.unraisablehook
    with pytest.raises(KeyboardInterrupt):
        with precompile._interrupts_kept():
            sys.unraisablehook(_unraisable(KeyboardInterrupt))  # and the compile went on
    assert sys.unraisablehook is after_one_interrupt  # not wrapped again
    with pytest.raises(RuntimeError):
        with precompile._interrupts_kept():
            sys.unraisablehook(_unraisable(ValueError))
            raise RuntimeError("a real failure")
    assert [unraisable.exc_type for unraisable in seen] == [ValueError]  # others go where they went
    sys.unraisablehook(_unraisable(AttributeError))  # not from llvmlite: still passed on
    assert [unraisable.exc_type for unraisable in seen] == [ValueError, AttributeError]


def test_a_compile_not_interrupted_leaves_the_hook_as_it_was(monkeypatch):
    """Whether the compile ends well or fails, without an interrupt `sys.unraisablehook` is the one
    it found."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    with precompile._interrupts_kept():
        pass
    with pytest.raises(RuntimeError):
        with precompile._interrupts_kept():
            raise RuntimeError("a real failure")
    assert sys.unraisablehook == seen.append


# An llvmlite object as an interrupt inside `ObjectRef.detach` leaves it (the pointer removed, the
# object not yet marked closed), then freed; `--interrupt` stops a compile first.
HALF_DETACHED_SCRIPT = """
import ctypes, sys
from llvmlite.binding.ffi import ObjectRef
from solver import precompile
half_detached = ObjectRef(ctypes.c_void_p(1))
del half_detached._as_parameter_
if "--interrupt" in sys.argv:
    try:
        with precompile._interrupts_kept():
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\\n")
del half_detached  # freed with the interrupt's frames, before Python's exit tells llvmlite it is ending
sys.exit(130)
"""


@pytest.mark.parametrize("interrupted", [True, False])
def test_llvmlite_objects_an_interrupt_cut_short_end_quietly(interrupted):
    """After an interrupted compile, the process ends with one line: not with the traceback of an
    llvmlite object's finalizer that the interrupt left half done (seen once in CI). Without an
    interrupt the hook is as it was, and Python reports the same failure as before."""
    process = subprocess.run([sys.executable, "-c", HALF_DETACHED_SCRIPT] + (["--interrupt"] if interrupted else []),
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert process.returncode == 130
    if interrupted:
        assert process.stderr == "interrupted\n"
    else:
        assert "AttributeError" in process.stderr and "ObjectRef.__del__" in process.stderr


def test_ctrl_c_during_a_first_compile_says_interrupted(tmp_path):
    """Whatever the interrupt lands in while the kernels compile: one line and exit 130."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # an empty cache: it compiles
    process = subprocess.Popen([sys.executable, "cli.py", "solve", "3"], cwd=ROOT, env=environment,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not any(tmp_path.rglob("*.nbi")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # until the compile has saved its first kernel
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    error = process.communicate(timeout=120)[1]
    assert (process.returncode, error) == (130, "klondike: error: interrupted\n")
