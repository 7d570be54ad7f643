"""Memory a process frees stays with it for its next search (`runner.keep_freed_memory`), where the
C library allows it: glibc on Linux, as on CI."""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Allocates an array of argv[2] bytes and writes a byte every argv[3] bytes, then frees it; prints
# whether the allocator agreed to keep freed memory, and how many kB the resident set shrank by when
# the array was freed.
FREE_AND_MEASURE = textwrap.dedent("""
    import sys
    import numpy as np
    from solver.runner import keep_freed_memory

    def resident_kb():
        with open("/proc/self/status") as status:
            return int(next(line for line in status if line.startswith("VmRSS")).split()[1])

    kept = keep_freed_memory() if sys.argv[1] == "keep" else None
    array = np.empty(int(sys.argv[2]), dtype=np.uint8)
    array[::int(sys.argv[3])] = 1
    before = resident_kb()
    del array
    print(kept, before - resident_kb())
""")


GLIBC_ONLY = pytest.mark.skipif(sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")


def shrink_on_free(mode: str, size: int = 32 << 20, stride: int = 1) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", FREE_AND_MEASURE, mode, str(size), str(stride)], cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=60)
    kept, shrunk_kb = done.stdout.split()
    return kept, int(shrunk_kb)


@GLIBC_ONLY
def test_freed_arrays_stay_with_the_process_once_asked():
    kept, shrunk_kb = shrink_on_free("keep")
    assert kept == "True"
    assert shrunk_kb < 4 * 1024, f"the resident set shrank by {shrunk_kb} kB: the memory went back to the system"
    # without asking, the same array goes back to the system when freed
    kept, shrunk_kb = shrink_on_free("default")
    assert kept == "None" and shrunk_kb > 24 * 1024, shrunk_kb


@GLIBC_ONLY
def test_freed_memory_beyond_2_gb_stays_too():
    # A search may take more than 2 GB (tables, nodes and the threads' heaps). A trim threshold of
    # 2 GB let glibc hand back the whole heap top once it passed it, so the next search took every
    # page afresh. Address space only, but for a byte every 16 MB: 129 pages.
    kept, shrunk_kb = shrink_on_free("keep", (2 << 30) + (16 << 20), 16 << 20)
    assert kept == "True"
    assert shrunk_kb < 256, f"the resident set shrank by {shrunk_kb} kB: the memory went back to the system"
