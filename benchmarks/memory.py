"""Peak resident memory of a process, for the benchmark reports."""

from __future__ import annotations

import resource


def own_peak_rss_mb() -> float:
    """This process's peak resident set size in MB, from resource.getrusage (Linux reports KB).

    On Linux ru_maxrss survives fork + exec: a worker started by a large parent reports the
    parent's peak until it exceeds it. Worker processes should use `worker_peak_rss_mb`.
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def vm_hwm_mb(pid: int | str = "self") -> float | None:
    """A process's peak resident set size (VmHWM, its own since its last exec) in MB; None where
    /proc cannot tell (not Linux, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def worker_peak_rss_mb() -> float:
    """The peak resident set size in MB of this (worker) process alone: VmHWM where available,
    else getrusage."""
    peak = vm_hwm_mb()
    return own_peak_rss_mb() if peak is None else peak
