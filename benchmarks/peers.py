"""pyksolve (Klondike-Solver) as a peer solver for the benchmarks.

Klondike-Solver has no time limit of its own, so each deal runs in a persistent worker process
with a timeout: on timeout the worker is killed (and started again for the next deal). The worker
is a plain `python -m benchmarks.peers` process that loads only pyksolve (not numba or our
solver), so its memory figures are its own; it reads one JSON request per line on stdin and
writes one JSON answer per line on stdout.

How its `solve_fast` answers map to verdicts (see SOLVER-NOTES.md, "Traps", and Klondike-Solver's
Solitaire::SolveFast):
- `SolvedMinimal` / `SolvedMayNotBeMinimal`: a win;
- `Impossible`: a loss, but `solve_fast` returns it only when, after its own automatic moves, the
  start position has no move at all. A search that ends without a win, whether its state budget
  ran out or its search (which keeps only the best three children of a state) ran dry, answers
  `CouldNotComplete`. So pyksolve's losses are only those trivial ones;
- `CouldNotComplete`: undecided, as is a timeout or a crash of the worker.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.memory import vm_hwm_mb, worker_peak_rss_mb
from solver.rules import Ruleset
from solver.runner import keep_freed_memory

PR_SET_PDEATHSIG = 1  # prctl option (Linux)
DEFAULT_MAX_STATES = 5_000_000  # Klondike-Solver's own default for max_closed_count
REPOSITORY_ROOT = Path(__file__).resolve().parent.parent

PYKSOLVE_VERDICTS = {
    "SolvedMinimal": "win",
    "SolvedMayNotBeMinimal": "win",
    "Impossible": "loss",
    "CouldNotComplete": "unknown",
}
TIMEOUT = "timeout"
CRASHED = "crashed"
BAD_DEAL = "bad deal"
READY = "ready"


def pyksolve_available() -> bool:
    """True if the pyksolve package can be imported."""
    try:
        import pyksolve.solver  # noqa: F401
    except ImportError:
        return False
    return True


def pyksolve_supports(rules: Ruleset) -> bool:
    """True if Klondike-Solver plays these rules: draw 1 or 3, unlimited passes, foundation->tableau
    allowed, no auto-play (scoring and the clock do not change winnability)."""
    return (rules.draw in (1, 3) and rules.passes is None and rules.foundation_to_tableau
            and not rules.auto_play)


@dataclass
class PeerOutcome:
    """pyksolve's answer on one deal.

    status: the SolveResult name, or `timeout` / `crashed` / `bad deal`.
    seconds: load + solve time measured inside the worker; the timeout for a timeout; NaN for a crash.
    moves: the length of its winning line in its own move list (`moves_made_count`), on a win.
    peak_rss_mb: the worker process's peak resident memory so far (for a timeout, read just before the kill).
    """

    seed: int
    result: str
    status: str
    seconds: float
    moves: int | None = None
    peak_rss_mb: float | None = None


def solve_one(deal_string: str, draw: int, max_states: int) -> dict:
    """Run pyksolve's solve_fast on one deal (Klondike-Solver's 156-digit string), in this process."""
    from pyksolve.solver import Solitaire

    began = time.perf_counter()
    game = Solitaire()
    if not game.load_solitaire(deal_string):
        return {"status": BAD_DEAL, "seconds": time.perf_counter() - began, "moves": None}
    game.reset_game(draw)  # required before any solve
    status = game.solve_fast(max_closed_count=max_states).name
    seconds = time.perf_counter() - began
    moves = game.moves_made_count if PYKSOLVE_VERDICTS.get(status) == "win" else None
    return {"status": status, "seconds": seconds, "moves": moves}


def serve() -> None:
    """Worker main loop: a `ready` line once pyksolve is loaded, then one JSON request per stdin
    line -> one JSON answer per stdout line."""
    # Ctrl-C is the benchmark's to handle (it kills this worker); SIGTERM ends it at once
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    import pyksolve.solver  # noqa: F401  (loaded before the first deal's clock starts)

    keep_freed_memory()  # as our own searches do, deal after deal
    sys.stdout.write(READY + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        request = json.loads(line)
        answer = solve_one(request["deal"], request["draw"], request["max_states"])
        answer["peak_rss_mb"] = worker_peak_rss_mb()
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def _die_with_parent() -> None:
    """preexec_fn: have Linux kill the worker when the thread that started it ends (the benchmark
    killed, or its feeder thread done), so no solve outlives the benchmark; a no-op elsewhere."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def start_worker_process(*arguments: str) -> subprocess.Popen:
    """`python -m ARGUMENTS` as a worker process (line-buffered text pipes on stdin and stdout),
    with the repository importable and, on Linux, killed when the thread that started it ends."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPOSITORY_ROOT)] + [p for p in environment.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.Popen([sys.executable, "-m", *arguments], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1, env=environment,
                            preexec_fn=_die_with_parent if sys.platform == "linux" else None)


def kill_worker_process(process: subprocess.Popen) -> None:
    """Kill a worker process, wait for it and close its pipes."""
    process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        try:
            stream.close()
        except OSError:
            pass


class WorkerProcess:
    """One persistent worker process that answers one JSON request per line with one JSON line
    (it greets with READY); `ask` enforces a timeout by killing it, and the next request starts
    a new one."""

    def __init__(self, module: str, *args: str):
        self._command = (module, *args)
        self._process: subprocess.Popen | None = None
        self.timed_out_peak_rss_mb = math.nan  # the peak memory of the last worker killed by a timeout

    def _start(self) -> None:
        self._process = start_worker_process(*self._command)
        greeting = self._process.stdout.readline().strip()
        if greeting != READY:
            self._kill()
            raise RuntimeError(f"the pyksolve worker did not start (it said {greeting!r})")

    def _kill(self) -> None:
        # Take the process first: the caller's thread may kill it (close(kill=True)) while the
        # feeding thread is still talking to it.
        process, self._process = self._process, None
        if process is not None:
            kill_worker_process(process)

    def ask(self, request: dict, timeout: float) -> dict | str:
        """The worker's answer to `request`, or TIMEOUT when none came within `timeout` seconds,
        or CRASHED when the worker died or was killed (broken pipe, closed, garbled)."""
        if self._process is None or self._process.poll() is not None:
            self._kill()
            self._start()
        process = self._process
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], timeout)
            if not ready:
                self.timed_out_peak_rss_mb = vm_hwm_mb(process.pid)
                self._kill()
                return TIMEOUT
            return json.loads(process.stdout.readline())
        except (OSError, ValueError):
            self._kill()
            return CRASHED

    def close(self, kill: bool = False) -> None:
        """Stop the worker process: let it exit when idle (end of its input), or kill it at once if `kill`."""
        if not kill and self._process is not None and self._process.poll() is None:
            try:
                self._process.stdin.close()
                self._process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()


class PyksolveWorker(WorkerProcess):
    """A worker running pyksolve's `solve_fast`."""

    def __init__(self):
        super().__init__("benchmarks.peers")

    def solve(self, seed: int, deal_string: str, draw: int, max_states: int, timeout: float) -> PeerOutcome:
        """Solve one deal with `solve_fast`, waiting at most `timeout` seconds for the answer."""
        answer = self.ask({"deal": deal_string, "draw": draw, "max_states": max_states}, timeout)
        if answer == TIMEOUT:
            return PeerOutcome(seed, "unknown", TIMEOUT, timeout, peak_rss_mb=self.timed_out_peak_rss_mb)
        if answer == CRASHED:
            return PeerOutcome(seed, "unknown", CRASHED, float("nan"))
        status = answer["status"]
        return PeerOutcome(seed, PYKSOLVE_VERDICTS.get(status, "unknown"), status, answer["seconds"],
                           answer["moves"], answer["peak_rss_mb"])


class PyksolvePool:
    """`workers` persistent pyksolve processes solving deals in parallel, each deal with a timeout.

    Use as a context manager so that the worker processes are stopped at the end.
    """

    def __init__(self, workers: int = 1, timeout: float = 60.0, max_states: int = DEFAULT_MAX_STATES):
        if workers < 1:
            raise ValueError("at least one worker is needed")
        self.timeout = timeout
        self.max_states = max_states
        self._workers = [PyksolveWorker() for _ in range(workers)]

    def __enter__(self) -> "PyksolvePool":
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.close(kill=exc_type is not None)

    def close(self, kill: bool = False) -> None:
        """Stop every worker process (killing them at once if `kill`, e.g. after an interrupt)."""
        for worker in self._workers:
            worker.close(kill)

    def solve_deals(self, deals: Iterable[tuple[int, str]], draw: int) -> Iterator[PeerOutcome]:
        """Solve (seed, deal string) pairs under draw `draw`; yields outcomes as they finish (in
        seed order with one worker)."""
        deals = list(deals)
        if len(self._workers) == 1:
            worker = self._workers[0]
            for seed, deal_string in deals:
                yield worker.solve(seed, deal_string, draw, self.max_states, self.timeout)
            return
        pending: queue.Queue = queue.Queue()
        for item in deals:
            pending.put(item)
        finished: queue.Queue = queue.Queue()
        stop = threading.Event()

        def feed(worker: PyksolveWorker) -> None:
            """Thread body: give this worker deals until none is left (or the caller stopped)."""
            try:
                while not stop.is_set():
                    try:
                        seed, deal_string = pending.get_nowait()
                    except queue.Empty:
                        return
                    finished.put(worker.solve(seed, deal_string, draw, self.max_states, self.timeout))
            except BaseException as error:  # hand it to the caller's thread
                finished.put(error)

        threads = [threading.Thread(target=feed, args=(worker,), daemon=True) for worker in self._workers]
        for thread in threads:
            thread.start()
        try:
            for _ in deals:
                item = finished.get()
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            # After a normal end the threads have run out of deals; after an error or an early
            # stop they quit after their current deal (close(kill=True) cuts that short).
            stop.set()
        for thread in threads:
            thread.join()


if __name__ == "__main__":
    serve()
