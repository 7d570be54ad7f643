"""Compiling the searches' kernels before any budget counts, and on a cold cache partly in a second
process.

Each search (`SEARCHES`) has its own large kernels, compiled on the first use after an install or
an update (numba's cache keeps them for later runs). `compile_search` compiles (or loads) a
search's kernels once per process, on a tiny search, so that time budgets count searching only.

The first `best` after an install compiled all three searches one after the other, about 50 s on a
two-core machine. numba compiles in one thread, but nothing stops a second process from compiling
one search into the same cache while this one compiles the others (the cache is locked for it,
`jitcache.LockedCacheFile`); this process then loads that search from the cache. The second process
is started only when asked (`allow_second_process`: the command line does, a library caller gets no
unexpected process), only on a cold cache the package keeps itself, and only where a second core is
free. Run as ``python -m solver.precompile NAME``, it compiles the search NAME. Ctrl-C during a
compile stops it as anywhere else (`_interrupts_kept`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys

from .jitcache import PACKAGE_DIR, announce_compiling, known_uncompiled, mark_compiled
from .runner import free_cores

SEARCHES = ("winnability", "optimal", "best-first")
# The longest a process waits for the second one before it compiles the search itself (a second
# process that hangs must not hang this one; a normal compile takes well under a minute).
SECOND_PROCESS_WAIT_SECONDS = 300

_compiled: set[str] = set()
_second_processes: dict[str, subprocess.Popen] = {}
_second_process_allowed = False


def allow_second_process(allowed: bool = True) -> None:
    """Let `compile_in_second_process` start processes (the command line allows it)."""
    global _second_process_allowed
    _second_process_allowed = allowed


def compile_in_second_process(name: str) -> bool:
    """Start compiling the kernels of search `name` in a second process, if allowed, if the cache
    has not got them and if there is a core for it; True if started. `compile_search(name)` then
    waits for it and loads them from the cache."""
    if name not in SEARCHES:
        raise ValueError(f"unknown search {name!r}")
    if (not _second_process_allowed or name in _compiled or name in _second_processes
            or free_cores() < 2 or not known_uncompiled(name)):
        return False
    environment = dict(os.environ)
    # The package as this process imported it, wherever the second process starts.
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_DIR.parent), os.environ.get("PYTHONPATH")]))
    try:
        _second_processes[name] = subprocess.Popen(
            [sys.executable, "-m", f"{__package__}.precompile", name], env=environment,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return False
    return True


def _wait_for_second_process(name: str) -> None:
    """Wait for the second process compiling search `name`, if any (stopped if it takes too long)."""
    process = _second_processes.pop(name, None)
    if process is None:
        return
    try:
        process.wait(timeout=SECOND_PROCESS_WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@atexit.register
def _stop_second_processes() -> None:
    """A second process outliving this one would compile for nobody: stop it."""
    for process in _second_processes.values():
        process.kill()
        process.wait()
    _second_processes.clear()


def _tiny_search(name: str):
    """A search of kind `name` on deal 0 under `harmony`, to compile its kernels (their argument
    types are the same under every ruleset: README, "How the solver works")."""
    # Imported here: the searches' modules import this one.
    from .deal import Deal
    from .game import Game, Position
    from .optimal import BestFirst, BranchAndBound
    from .rules import PRESETS
    from .solve import Search

    rules = PRESETS["harmony"]
    deal = Deal.from_seed(0)
    position = Position.initial(deal)
    if name == "winnability":
        return Search(position, rules, 16)
    kind = BranchAndBound if name == "optimal" else BestFirst
    return kind(Game(deal, rules, position), rules, 0, False, 16)


@contextlib.contextmanager
def _interrupts_kept():
    """Let Ctrl-C during a compile stop it as a KeyboardInterrupt. LLVM calls back into Python
    while it compiles, and an interrupt raised in a callback is only printed (a traceback) and
    dropped; numba then fails with an error of its own ("no compiled object yet"), which the
    command line would report as an internal error. After an interrupt, the finalizers of llvmlite
    objects it cut short stay quiet (`_llvm_finalizers_quiet`)."""
    interrupted = False
    previous_hook = sys.unraisablehook

    def keep_interrupts(unraisable):
        nonlocal interrupted
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            interrupted = True
        else:
            previous_hook(unraisable)

    sys.unraisablehook = keep_interrupts
    try:
        yield
    except KeyboardInterrupt:
        interrupted = True
        raise
    except Exception:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        sys.unraisablehook = _llvm_finalizers_quiet(previous_hook) if interrupted else previous_hook
    if interrupted:  # the compile went on after it: the interrupt still stands
        raise KeyboardInterrupt


def _llvm_finalizers_quiet(hook):
    """`hook` (a `sys.unraisablehook`), but silent on AttributeErrors in llvmlite's finalizers.

    An interrupt can land inside llvmlite's `ObjectRef.detach`, between its removal of the pointer
    and its marking the object closed; the object's `__del__` then fails on the missing pointer
    when the object is freed (with the interrupt's frames, as the command line exits), and Python
    printed that traceback after "interrupted". The object is only being freed: nothing is lost by
    not saying so. Wrapped once only, however many compiles are interrupted."""
    if getattr(hook, "llvm_finalizers_quiet", False):
        return hook

    def quiet_hook(unraisable):
        if (unraisable.exc_type is not None and issubclass(unraisable.exc_type, AttributeError)
                and str(getattr(unraisable.object, "__module__", "")).startswith("llvmlite.")):
            return
        hook(unraisable)

    quiet_hook.llvm_finalizers_quiet = True
    return quiet_hook


def compile_search(name: str) -> None:
    """Compile (or load from the cache) the kernels of search `name` (`SEARCHES`) once per process,
    on a tiny search, so that time budgets count searching only."""
    if name not in SEARCHES:
        raise ValueError(f"unknown search {name!r}")
    if name in _compiled:
        return
    _wait_for_second_process(name)
    announce_compiling(name)
    with _interrupts_kept():
        search = _tiny_search(name)
        search.run(1)
        search.compile_growth()
        search._free_room(0)
        search.compile_rest()
    mark_compiled(name)
    _compiled.add(name)


if __name__ == "__main__":
    compile_search(sys.argv[1])
