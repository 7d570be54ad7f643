"""How the numba kernels are compiled: the `kernel` decorator, and keeping numba's on-disk cache
honest.

`kernel` is `njit(cache=True)` without numba's reference counting, for the kernels that allocate
no array: in the search, numba counted references to every array handed to a kernel it did not
inline (an atomic increment and decrement, each a call), and that took about 40% of the run time
(sampled with perf and gdb on a hard draw-3 loss: 27.9 s became 19.5 s, the same nodes). `_nrt`
is numba's own option for this, used by numba for its allocation-free helpers. A kernel that
allocates (`np.empty`, `.copy()`) keeps `njit(cache=True)`, and so must every kernel that calls one.

numba checks a cached kernel only against the source file that defines it, not against the files
of the kernels it calls, so after an edit to `movegen.py` a cached `search_chunk` would still run
the old move generator. On import we fingerprint all the kernel sources together and drop the
package's cached kernels when the fingerprint changes. Best effort: a read-only install is left
alone (numba then caches elsewhere, per user).

Compile time: numba compiles a kernel once for every combination of argument types it is called
with from other kernels, and a constant argument counts as a type of its own (`Literal[int](7)`).
`movegen._add` was compiled 16 times, and every copy is optimised again inside each kernel that
calls it. A kernel called from another one is therefore compiled for plain argument types, signed
integers as int64 (`kernel_argument_type`): 140 compilations instead of 196 for `solve` and `best`,
a fifth less time, and the searches as fast as before (README, "How the solver works").

numba writes a kernel's cache index and data files each atomically, but a process adding a
compilation reads the index, picks the next free data file and writes both back, and two processes
doing so at once for two compilations of one kernel can leave the index naming the other's code
(`numba.core.caching.IndexDataCacheFile.save`). Processes do compile side by side: the workers of a
batch, and a search compiled in a second process (`precompile`). So the cache files are read and
written under a lock on the cache folder (`LockedCacheFile`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from numba import njit
from numba.core import types
from numba.core.caching import IndexDataCacheFile
from numba.core.registry import CPUDispatcher

try:
    import fcntl
except ImportError:  # not on Windows: there the cache is used unlocked, as numba does
    fcntl = None

KERNEL_MODULES = ("jitcache", "prefetch", "atomics", "state", "cardsets", "movegen", "canon", "deadends", "tt", "search",
                  "objective", "bnb", "bestfirst")
_MARKER = "kernels.fingerprint"
_COMPILED_MARKER = "kernels.compiled-{}"
_LOCK_FILE = "kernels.lock"
PACKAGE_DIR = Path(__file__).resolve().parent


def cache_dir_of(package_dir: Path) -> Path:
    """The folder where numba caches the kernels of the package in `package_dir` (when it may write there)."""
    return package_dir / "__pycache__"


CACHE_DIR = cache_dir_of(PACKAGE_DIR)
_compile_notice = None


def kernel_argument_type(argument_type):
    """The type a kernel is compiled for when another kernel passes it a value of `argument_type`:
    a constant as its plain type, a signed integer as int64 (numba's arithmetic widens small
    integers to int64 anyway). Unsigned integers stay as they are: uint64 mixed with int64 is
    float64 in numba."""
    plain = types.unliteral(argument_type)
    if isinstance(plain, types.Integer) and plain.signed:
        return types.int64
    return plain


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, compiling the calls other kernels make for plain argument types
    (module docstring)."""

    def get_call_template(self, args, kws):
        """The call template numba types a call from another kernel with (numba's own), after
        the arguments are made plain (`kernel_argument_type`)."""
        return super().get_call_template(tuple(kernel_argument_type(argument) for argument in args),
                                         {name: kernel_argument_type(value) for name, value in kws.items()})


@contextlib.contextmanager
def _locked(cache_path: str):
    """Hold the lock of the cache folder `cache_path` (best effort: without it if it cannot be had)."""
    try:
        lock = open(os.path.join(cache_path, _LOCK_FILE), "a") if fcntl is not None else None
    except OSError:  # a folder numba cannot write to either: it then neither saves nor races
        lock = None
    try:
        if lock is not None:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX)
            except OSError:  # a file system without locks
                pass
        yield
    finally:
        if lock is not None:
            lock.close()  # releases the lock


class LockedCacheFile(IndexDataCacheFile):
    """numba's index and data files of one kernel, read and written under the cache folder's lock
    (module docstring)."""

    def save(self, key, data):
        """Add or replace the compilation `key` (numba's own, under the lock)."""
        with _locked(self._cache_path):
            super().save(key, data)

    def load(self, key):
        """The cached compilation `key`, or None (numba's own, under the lock)."""
        with _locked(self._cache_path):
            return super().load(key)


def _lock_cache(dispatcher):
    """Have `dispatcher` read and write its cache under the lock (`LockedCacheFile`)."""
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if isinstance(cache_file, IndexDataCacheFile):
        cache_file.__class__ = LockedCacheFile
    return dispatcher


def kernel(function, cache: bool = True):
    """Compile `function` as a cached numba kernel without reference counting (module docstring);
    it must allocate nothing, nor call a kernel that does. It runs without Python's lock, so that
    the threads of a best-first search (`optimal.BestFirst`) run their kernels side by side.
    `cache=False` is for tests that must see the kernel compiled in their own process."""
    dispatcher = njit(cache=cache, _nrt=False, nogil=True)(function)
    # njit's own processing of the options, with our dispatch of calls from other kernels
    dispatcher.__class__ = KernelDispatcher
    return _lock_cache(dispatcher)


def allocating_kernel(function):
    """Compile `function` as a cached numba kernel that may allocate (plain `njit(cache=True)`,
    with reference counting), its cache locked as `kernel`'s."""
    return _lock_cache(njit(cache=True)(function))


def kernel_fingerprint(package_dir: Path) -> str:
    """A hash of the source of every module that holds numba kernels."""
    digest = hashlib.sha256()
    for name in KERNEL_MODULES:
        digest.update((package_dir / f"{name}.py").read_bytes())
    return digest.hexdigest()


def refresh_cache(package_dir: Path) -> bool:
    """Delete the package's cached kernels if the kernel sources changed; True if it did."""
    cache_dir = cache_dir_of(package_dir)
    try:
        fingerprint = kernel_fingerprint(package_dir)
        marker = cache_dir / _MARKER
        if marker.exists() and marker.read_text() == fingerprint:
            return False
        cache_dir.mkdir(exist_ok=True)
        stale_files = cache_dir.glob("*.nbi"), cache_dir.glob("*.nbc"), cache_dir.glob(_COMPILED_MARKER.format("*"))
        for stale in [path for files in stale_files for path in files]:
            stale.unlink()
        marker.write_text(fingerprint)
        return True
    except OSError:
        return False


def set_compile_notice(callback) -> None:
    """Have `callback(name)` called before the kernels of the search `name` are compiled for the
    first time after an install or an update (a minute or so); None for no notice. Only where the
    package keeps its own cache, as it then knows what the cache holds."""
    global _compile_notice
    _compile_notice = callback


def known_uncompiled(name: str) -> bool:
    """True if the package keeps its own cache and it has not got the kernels of search `name`
    (so the first use will compile them); False where numba caches elsewhere, as then we cannot tell."""
    if os.environ.get("NUMBA_CACHE_DIR") or not os.access(CACHE_DIR, os.W_OK):
        return False
    return not (CACHE_DIR / _COMPILED_MARKER.format(name)).exists()


def announce_compiling(name: str) -> None:
    """Call the compile notice if the package's cache has not got the kernels of search `name`."""
    if _compile_notice is not None and known_uncompiled(name):
        _compile_notice(name)


def mark_compiled(name: str) -> None:
    """Note in the package's cache that the kernels of search `name` are in it (best effort)."""
    try:
        (CACHE_DIR / _COMPILED_MARKER.format(name)).touch()
    except OSError:
        pass
