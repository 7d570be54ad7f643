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

# Allocates and frees 32 MB of written memory; prints whether the allocator agreed to keep freed
# memory, and how many kB the resident set shrank by when the array was freed.
FREE_AND_MEASURE = textwrap.dedent("""
    import sys
    import numpy as np
    from solver.runner import keep_freed_memory

    def resident_kb():
        with open("/proc/self/status") as status:
            return int(next(line for line in status if line.startswith("VmRSS")).split()[1])

    kept = keep_freed_memory() if sys.argv[1] == "keep" else None
    array = np.ones(1 << 22)
    before = resident_kb()
    del array
    print(kept, before - resident_kb())
""")


def shrink_on_free(mode: str) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", FREE_AND_MEASURE, mode], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=60)
    kept, shrunk_kb = done.stdout.split()
    return kept, int(shrunk_kb)


@pytest.mark.skipif(sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_freed_arrays_stay_with_the_process_once_asked():
    kept, shrunk_kb = shrink_on_free("keep")
    assert kept == "True"
    assert shrunk_kb < 4 * 1024, f"the resident set shrank by {shrunk_kb} kB: the memory went back to the system"
    # without asking, the same array goes back to the system when freed
    kept, shrunk_kb = shrink_on_free("default")
    assert kept == "None" and shrunk_kb > 24 * 1024, shrunk_kb
