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
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit

KERNEL_MODULES = ("jitcache", "prefetch", "atomics", "state", "cardsets", "movegen", "canon", "deadends", "tt", "search",
                  "objective", "bnb", "bestfirst")
_MARKER = "kernels.fingerprint"


def kernel(function):
    """Compile `function` as a cached numba kernel without reference counting (module docstring);
    it must allocate nothing, nor call a kernel that does. It runs without Python's lock, so that
    the threads of a best-first search (`optimal.BestFirst`) run their kernels side by side."""
    return njit(cache=True, _nrt=False, nogil=True)(function)


def kernel_fingerprint(package_dir: Path) -> str:
    """A hash of the source of every module that holds numba kernels."""
    digest = hashlib.sha256()
    for name in KERNEL_MODULES:
        digest.update((package_dir / f"{name}.py").read_bytes())
    return digest.hexdigest()


def refresh_cache(package_dir: Path) -> bool:
    """Delete the package's cached kernels if the kernel sources changed; True if it did."""
    cache_dir = package_dir / "__pycache__"
    try:
        fingerprint = kernel_fingerprint(package_dir)
        marker = cache_dir / _MARKER
        if marker.exists() and marker.read_text() == fingerprint:
            return False
        cache_dir.mkdir(exist_ok=True)
        for stale in list(cache_dir.glob("*.nbi")) + list(cache_dir.glob("*.nbc")):
            stale.unlink()
        marker.write_text(fingerprint)
        return True
    except OSError:
        return False
