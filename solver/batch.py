"""Batch analysis: solve many seeds in worker processes, one row per deal, safe to interrupt.

- `parse_seeds("1-100,250,@more.txt")` turns a SEEDS argument into a `SeedList`.
- `run_batch(seeds, config, out=...)` solves them (all cores, or a Dask cluster) and writes one row per
  deal: seed, source, rules, result, actions, nodes, seconds, reason (+ score, bound with `best`; + line
  with `lines`; + best_line, the line of that score, with both). `.csv` or `.jsonl` from the file
  name; JSON lines on stdout without a file.
- Rows are appended and flushed one complete line at a time (a single `write`), so a killed batch
  leaves at most a partial last line; `resume=True` drops it, skips the seeds already done and
  solves the rest. Rows arrive in completion order; when every seed is done the file is rewritten
  sorted by seed (atomically: a temporary file renamed over it), so a finished file is the same
  whether or not the batch was interrupted (the `seconds` column aside; and only when the budget
  that decides is --max-nodes: a time limit depends on the machine's load). Rows already in the
  file for seeds outside SEEDS are kept. Error rows count as done: --resume does not retry them.
- A deal that crashes its worker, exceeds its memory cap or hangs is recorded as result `error`
  with the reason, and the batch goes on: each worker is a process of its own, and the parent knows
  which deal every worker is on, so only that deal is blamed and only that worker is replaced.
"""

from __future__ import annotations

import bisect
import csv
import importlib
import inspect
import io
import json
import math
import multiprocessing
import os
import re
import resource
import signal
import sys
import threading
import time
from collections import deque
from contextlib import nullcontext
from dataclasses import dataclass, replace
from multiprocessing.connection import wait
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .errors import KlondikeError
from .options import DEAL_SOURCES, parse_seed
from .cards import is_whole_number
from .jitcache import announce_compiling
from .runner import free_cores, keep_freed_memory
from .rules import Ruleset

BASE_COLUMNS = ("seed", "source", "rules", "result", "actions", "nodes", "seconds", "reason")
BEST_COLUMNS = ("score", "bound")
LINE_COLUMNS = ("line",)
BEST_LINE_COLUMNS = ("best_line",)  # with both --best and --lines: the line the score is of
RESULTS = ("win", "loss", "unknown", "error")
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}

IN_FLIGHT = 2  # deals sent ahead to each worker, so it never waits for the parent between deals
MEMORY_SLACK_MB = 256  # the per-deal cap: the worker's size before the deal + --memory + this
START_FAILURES = 3  # a pool whose workers die this many times per job before they are ready gives up
HANG_GRACE = 30.0  # a deal with no answer after 2 x --time-limit + this many seconds is stopped


# --------------------------------------------------------------------------- seeds


class SeedList:
    """A set of seeds as sorted, disjoint, inclusive ranges; iterated in ascending order.

    Kept as ranges so that `0-99999999` costs nothing until it is iterated.
    """

    def __init__(self, ranges: Iterable[tuple[int, int]]):
        merged: list[list[int]] = []
        for low, high in sorted(ranges):
            if merged and low <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append([low, high])
        self.ranges = [(low, high) for low, high in merged]
        self._lows = [low for low, _ in self.ranges]

    @property
    def count(self) -> int:
        """How many seeds (may exceed sys.maxsize, so this is not `len`)."""
        return sum(high - low + 1 for low, high in self.ranges)

    def __iter__(self) -> Iterator[int]:
        for low, high in self.ranges:
            yield from range(low, high + 1)

    def __contains__(self, seed) -> bool:
        i = bisect.bisect_right(self._lows, seed) - 1
        return i >= 0 and self.ranges[i][0] <= seed <= self.ranges[i][1]

    def __repr__(self) -> str:
        return "SeedList(" + ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in self.ranges) + ")"


def parse_seeds(text: str) -> SeedList:
    """A SEEDS argument: comma-separated items, each a seed `17`, a range `1-100` (inclusive) or
    `@FILE` (seeds and ranges one per line or comma separated, `#` starts a comment).

    Duplicates are merged; the seeds are solved in ascending order. Raises KlondikeError.
    """
    ranges: list[tuple[int, int]] = []
    for item in _items(text):
        if item.startswith("@"):
            ranges.extend(_file_ranges(item[1:]))
        else:
            ranges.append(_parse_item(item, "SEEDS"))
    if not ranges:
        raise KlondikeError("no seeds given: SEEDS is a list like 1-100,250,@file.txt")
    return SeedList(ranges)


def _items(text: str) -> list[str]:
    return [item.strip() for item in re.split(r"[,\s]+", text) if item.strip()]


def _file_ranges(name: str) -> list[tuple[int, int]]:
    if not name:
        raise KlondikeError("bad seed item '@': give a file name after @")
    try:
        text = Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not a text file"
        raise KlondikeError(f"cannot read seed file {name!r}: {reason}") from None
    ranges = []
    for number, line in enumerate(text.splitlines(), 1):
        for item in _items(line.split("#", 1)[0]):
            if item.startswith("@"):
                raise KlondikeError(f"seed file {name!r} line {number}: @file is not allowed inside a seed file")
            ranges.append(_parse_item(item, f"seed file {name!r} line {number}"))
    if not ranges:
        raise KlondikeError(f"seed file {name!r} has no seeds")
    return ranges


def _parse_item(item: str, where: str) -> tuple[int, int]:
    first, dash, last = item.partition("-")
    try:
        if not dash:
            seed = parse_seed(item)
            return seed, seed
        if not first or not last:
            raise KlondikeError(f"bad seed range {item!r}: expected A-B")
        low, high = parse_seed(first), parse_seed(last)
    except KlondikeError as err:
        raise KlondikeError(f"{where}: {err}") from None
    if high < low:
        raise KlondikeError(f"{where}: bad seed range {item!r}: the first seed is after the last")
    return low, high


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True)
class BatchConfig:
    """What a worker needs to solve one deal (picklable: it is sent to every worker).

    `solve_fn` replaces `solver.solve.solve` (tests, experiments): a module-level function with the
    same signature, so that it can be pickled by reference.
    """

    rules: Ruleset
    source: str = "native"
    max_nodes: int | None = None
    time_limit: float | None = 60.0
    memory_mb: int = 512
    best: bool = False
    lines: bool = False
    solve_fn: Callable | None = None
    best_threads: int = 1  # of each deal's best-first search (`run_batch` sets it from the workers)

    def __post_init__(self):
        if self.source not in DEAL_SOURCES:
            raise KlondikeError(f"unknown deal source {self.source!r} (choose {', '.join(DEAL_SOURCES)})")

    @property
    def columns(self) -> tuple[str, ...]:
        """The row's columns, in order."""
        return (BASE_COLUMNS + (BEST_COLUMNS if self.best else ()) + (LINE_COLUMNS if self.lines else ())
                + (BEST_LINE_COLUMNS if self.best and self.lines else ()))


def make_row(seed: int, config: BatchConfig, result: str, actions=None, nodes=None, seconds=None, reason=None,
             score=None, bound=None, line=None, best_line=None) -> dict:
    """A row with exactly `config.columns` (reasons are kept on one line)."""
    if reason is not None:
        reason = " ".join(str(reason).split())
    values = {"seed": seed, "source": config.source, "rules": config.rules.name, "result": result,
              "actions": actions, "nodes": nodes, "seconds": None if seconds is None else round(seconds, 6),
              "reason": reason, "score": score, "bound": bound, "line": line, "best_line": best_line}
    return {column: values[column] for column in config.columns}


_warm_lock = threading.Lock()
_warm_seconds: float | None = None


def ensure_warm() -> float:
    """Compile (or load from numba's cache) the solver kernels, once per process; returns the seconds
    the first call took."""
    global _warm_seconds
    with _warm_lock:
        if _warm_seconds is None:
            from .benchmark import warm_up

            _warm_seconds = warm_up()
    return _warm_seconds


def solve_row(seed: int, config: BatchConfig, cap_memory: bool = False) -> dict:
    """Solve one deal and return its row; never raises for a deal (an exception becomes an `error` row).

    With `cap_memory`, the process's address space is capped (RLIMIT_AS) for the deal at its size
    before the deal + --memory + a slack; a deal that needs more gets MemoryError -> an error row.
    """
    began = time.perf_counter()
    try:
        with _memory_cap(config.memory_mb) if cap_memory else nullcontext():
            return _solve_row(seed, config)
    except MemoryError:
        return make_row(seed, config, "error", seconds=time.perf_counter() - began,
                        reason=f"out of memory (the cap is --memory {config.memory_mb} MB + {MEMORY_SLACK_MB} MB)")
    except Exception as err:  # noqa: BLE001 - any failure of one deal is that deal's result
        return make_row(seed, config, "error", seconds=time.perf_counter() - began,
                        reason=f"{type(err).__name__}: {err}")


def _solve_row(seed: int, config: BatchConfig) -> dict:
    from .deal import Deal

    ensure_warm()
    deal = Deal.from_seed(seed, config.source)
    solve = config.solve_fn
    if solve is None:
        from .solve import solve
    result = solve(deal, config.rules, max_nodes=config.max_nodes, time_limit=config.time_limit,
                   memory_mb=config.memory_mb)
    fields = dict(result=result.result, actions=result.actions, nodes=result.nodes, seconds=result.seconds,
                  reason=result.reason)
    if config.best:
        # solve's answer saves best its first search, unless a stand-in made it (tests, experiments)
        score, bound, best_line, seconds = best_fields(deal, config, result if config.solve_fn is None else None)
        fields.update(score=score, bound=bound, seconds=fields["seconds"] + seconds)
    if config.lines:
        fields["line"] = list(result.line)
        if config.best:
            fields["best_line"] = best_line
    return make_row(seed, config, **fields)


def _vm_bytes() -> int:
    """The process's current virtual size (what RLIMIT_AS limits)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


class _memory_cap:
    """Cap the address space at its current size + memory_mb + the slack, for the duration of a deal."""

    def __init__(self, memory_mb: int):
        self.extra = (memory_mb + MEMORY_SLACK_MB) << 20

    def __enter__(self):
        self.saved = resource.getrlimit(resource.RLIMIT_AS)
        try:
            limit = _vm_bytes() + self.extra
        except OSError:  # no /proc: no cap
            self.saved = None
            return self
        hard = self.saved[1]
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            resource.setrlimit(resource.RLIMIT_AS, self.saved)
        return False


# --------------------------------------------------------------------------- --best (isolated)


def check_best_available() -> None:
    """Raise a one-line KlondikeError unless the optimal-score search (`solver.optimal.best`) exists."""
    try:
        module = importlib.import_module("solver.optimal")
    except ModuleNotFoundError as err:
        if err.name != "solver.optimal":
            raise KlondikeError(f"--best: cannot load solver.optimal: {err}") from None
        raise KlondikeError("--best needs the optimal-score search (solver.optimal), "
                            "which this version does not have yet") from None
    except ImportError as err:
        raise KlondikeError(f"--best: cannot load solver.optimal: {err}") from None
    if not callable(getattr(module, "best", None)):
        raise KlondikeError("--best: solver.optimal has no best() function")


def best_fields(deal, config: BatchConfig, verdict=None) -> tuple:
    """(score, bound, line, seconds) from `solver.optimal.best(deal, rules, ...)`, given the deal's
    `solve` answer (`verdict`) so that it does not search for it again; the budgets and the verdict
    are passed only where its signature takes them."""
    from .optimal import best

    budgets = {"max_nodes": config.max_nodes, "time_limit": config.time_limit, "memory_mb": config.memory_mb,
               "threads": config.best_threads, "verdict": verdict}
    try:
        parameters = inspect.signature(best).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            budgets = {k: v for k, v in budgets.items() if k in parameters}
    except (TypeError, ValueError):
        pass
    began = time.perf_counter()
    found = best(deal, config.rules, **budgets)
    line = getattr(found, "line", None)
    return (getattr(found, "score", None), getattr(found, "bound", None), None if line is None else list(line),
            time.perf_counter() - began)


# --------------------------------------------------------------------------- reading and writing rows


def file_format(path: str) -> str:
    """`csv` or `jsonl`, from the file name."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise KlondikeError(f"cannot tell the output format of {path!r}: name it .csv or .jsonl")
    return fmt


def format_row(row: dict, fmt: str) -> str:
    """One row as one line (without the newline)."""
    if fmt == "jsonl":
        return json.dumps(row, separators=(",", ":"))
    values = []
    for value in row.values():
        if value is None:
            value = ""
        elif isinstance(value, list):
            value = " ".join(value)
        values.append(value)
    return _csv_line(values)


def _csv_line(values) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue().rstrip("\n")


def _number(text: str):
    """A csv number field: None if empty, an int or a float; ValueError if it holds no number."""
    if text == "":
        return None
    if not text.isascii():  # int() and float() read `٣` as 3
        raise ValueError(f"could not convert string to a number: {text!r}")
    try:
        return int(text)
    except ValueError:
        return float(text)


def _from_csv(values: list[str], header: list[str]) -> dict:
    row = dict(zip(header, values))
    for key in ("seed", "actions", "nodes", "seconds", "score", "bound"):
        if key in row:
            row[key] = _number(row[key])
    for key in ("reason", "source", "rules"):
        if row.get(key) == "":
            row[key] = None
    for key in ("line", "best_line"):
        if key in row:
            row[key] = row[key].split()
    return row


def read_rows(path: str, fmt: str | None = None) -> tuple[list[dict], list[str] | None]:
    """The rows of a batch file and, for CSV, its header.

    A last line without its newline is the trace of an interrupted write: it is ignored (a resumed
    batch cuts it off, `FileOutput`). Any other line that is not a row is an error. `path` `-` reads
    standard input (format sniffed).
    """
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise KlondikeError(f"cannot read {path!r}: {err.strerror}") from None
    if fmt is None:
        fmt = FORMATS.get(Path(path).suffix.lower()) or ("jsonl" if data.lstrip()[:1] == b"{" else "csv")
    complete = data.rfind(b"\n") + 1
    try:
        text = data[:complete].decode("utf-8")
    except UnicodeDecodeError:
        raise KlondikeError(f"{path!r} is not a batch file (not UTF-8 text)") from None
    lines = text.splitlines()
    rows: list[dict] = []
    first_line: dict[tuple, int] = {}  # (seed, source, rules) -> the line of its row

    def add(row: dict, number: int) -> None:
        row = _checked(row, path, number)
        key = (row["seed"], row.get("source"), row.get("rules"))
        if key in first_line:
            raise KlondikeError(f"{path!r} line {number}: seed {row['seed']} has a row already (line "
                                f"{first_line[key]}); a batch file holds one row a deal")
        first_line[key] = number
        rows.append(row)

    header = None
    if fmt == "csv":
        if lines:
            try:
                header = next(csv.reader([lines[0]]))
            except csv.Error:  # a field too long for csv
                header = []
            if "seed" not in header or "result" not in header:
                raise KlondikeError(f"{path!r} line 1: not a batch CSV header (no seed/result column)")
        for number, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            try:
                values = next(csv.reader([line]))
            except csv.Error as err:  # a field too long for csv
                raise KlondikeError(f"{path!r} line {number}: not a batch row ({err})") from None
            if len(values) != len(header):
                raise KlondikeError(f"{path!r} line {number}: {len(values)} fields, the header has {len(header)}")
            try:
                row = _from_csv(values, header)
            except ValueError as err:  # a number field that holds no number
                raise KlondikeError(f"{path!r} line {number}: not a batch row ({err})") from None
            add(row, number)
    else:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deeply
                raise KlondikeError(f"{path!r} line {number}: not a JSON row") from None
            if not isinstance(row, dict):
                raise KlondikeError(f"{path!r} line {number}: not a JSON object")
            add(row, number)
    return rows, header


def complete_length(path: str, chunk: int = 1 << 16) -> int:
    """The file's length up to and with its last newline: a last line without one (an interrupted
    write) lies past it. Only the end of the file is read."""
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        while end > 0:
            start = max(0, end - chunk)
            handle.seek(start)
            newline = handle.read(end - start).rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            end = start
    return 0


def _checked(row: dict, path: str, number: int) -> dict:
    """The row, if its fields hold what a batch writes; else KlondikeError naming the line."""
    if not is_whole_number(row.get("seed")) or row["seed"] < 0 or row.get("result") not in RESULTS:
        raise KlondikeError(f"{path!r} line {number}: not a batch row (needs a whole seed >= 0 and a result "
                            f"among {', '.join(RESULTS)})")
    for key in ("actions", "nodes", "seconds", "score", "bound"):
        value = row.get(key)
        if key in ("actions", "nodes"):
            fits, kind = value is None or (is_whole_number(value) and value >= 0), "a whole number >= 0"
        elif key == "seconds":
            fits, kind = value is None or (_finite_number(value) and value >= 0), "a number >= 0"
        else:
            fits, kind = value is None or _finite_number(value), "a number"
        if not fits:
            raise KlondikeError(f"{path!r} line {number}: not a batch row ({key} must be {kind} or empty, "
                                f"got {value!r})")
    return row


def _finite_number(value) -> bool:
    """A finite int or float that is not a bool."""
    return is_whole_number(value) or (isinstance(value, float) and math.isfinite(value))


class FileOutput:
    """Rows appended to a CSV or JSONL file, one complete line per write."""

    def __init__(self, path: str, config: BatchConfig, resume: bool = False, force: bool = False):
        self.path = path
        self.fmt = file_format(path)
        self.columns = list(config.columns)
        self.done: dict[int, dict] = {}
        if os.path.isdir(path):
            raise KlondikeError(f"cannot write {path!r}: it is a directory")
        exists = os.path.exists(path) and os.path.getsize(path) > 0
        if resume and force:
            raise KlondikeError("--resume and --force contradict each other: --resume finishes the batch in the "
                                "file, --force starts it again")
        if exists and not resume and not force:
            raise KlondikeError(f"{path} already holds rows: add --resume to finish that batch, "
                                f"or --force to overwrite it")
        try:
            self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as err:
            raise KlondikeError(f"cannot write {path!r}: {err.strerror}") from None
        # Nothing in the file changes before it is locked and, to resume, found to be this batch's.
        try:
            try:
                import fcntl

                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise KlondikeError(f"{path} is being written by another batch") from None
            except ImportError:  # pragma: no cover - not on POSIX
                pass
            if exists and resume:
                rows, header = read_rows(path, self.fmt)
                self._check_compatible(rows, header, config)
                for row in rows:
                    self.done.setdefault(row["seed"], row)
                # a last line without its newline, from an interrupted write, goes: appending goes on
                # from a line boundary
                os.ftruncate(self.fd, complete_length(path))
            if force:
                os.ftruncate(self.fd, 0)
        except BaseException:
            os.close(self.fd)
            raise
        if self.fmt == "csv" and os.fstat(self.fd).st_size == 0:
            self._write_line(_csv_line(self.columns))

    def _check_compatible(self, rows: list[dict], header, config: BatchConfig) -> None:
        found = header if header is not None else (list(rows[0]) if rows else self.columns)
        if list(found) != self.columns:
            raise KlondikeError(f"{self.path} has the columns {', '.join(found)} but this batch writes "
                                f"{', '.join(self.columns)}: resume with the same --best/--lines, or use another file")
        for row in rows:
            if list(row) != self.columns:
                raise KlondikeError(f"{self.path}: the row of seed {row['seed']} has other columns than this batch")
            if (row["rules"], row["source"]) != (config.rules.name, config.source):
                raise KlondikeError(f"{self.path} holds rows for rules {row['rules']} (source {row['source']}), "
                                    f"not {config.rules.name} (source {config.source}): resume with the same "
                                    f"rules, or use another file")

    def _write_line(self, text: str) -> None:
        data = (text + "\n").encode("utf-8")
        while data:  # one write for a line in practice; a partial one is what --resume cuts off
            written = os.write(self.fd, data)
            data = data[written:]

    def write(self, row: dict) -> None:
        """Append one row as one complete line."""
        self._write_line(format_row(row, self.fmt))

    def close(self) -> None:
        """Release the lock and close the file."""
        if self.fd is not None:
            os.fsync(self.fd)
            os.close(self.fd)
            self.fd = None

    def sort_by_seed(self) -> None:
        """Rewrite the (closed) file with its rows in seed order: a temporary file renamed over it."""
        rows, _ = read_rows(self.path, self.fmt)
        if all(a["seed"] <= b["seed"] for a, b in zip(rows, rows[1:])):
            return
        rows.sort(key=lambda row: row["seed"])
        temporary = f"{self.path}.sorting"
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            if self.fmt == "csv":
                handle.write(_csv_line(self.columns) + "\n")
            for row in rows:
                handle.write(format_row(row, self.fmt) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)


class StdoutOutput:
    """Rows as JSON lines on standard output, flushed one by one (completion order)."""

    def __init__(self):
        self.done: dict[int, dict] = {}

    def write(self, row: dict) -> None:
        """Write one row (a closed pipe raises BrokenPipeError: the batch stops, as the reader went away)."""
        sys.stdout.write(format_row(row, "jsonl") + "\n")
        sys.stdout.flush()

    def close(self) -> None:
        """Nothing to close: standard output stays open."""
        pass


# --------------------------------------------------------------------------- local worker pool


def _worker_main(conn, config: BatchConfig) -> None:
    """A worker process: warm up once, then solve the seeds it is sent, one row back per seed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    keep_freed_memory()
    try:
        conn.send(("ready", os.getpid(), ensure_warm()))
        while True:
            seed = conn.recv()
            if seed is None:
                usage = resource.getrusage(resource.RUSAGE_SELF)
                conn.send(("bye", usage.ru_maxrss, usage.ru_utime + usage.ru_stime))
                return
            conn.send(("row", seed, solve_row(seed, config, cap_memory=True)))
    except (EOFError, BrokenPipeError, ConnectionResetError):  # the parent is gone
        return


class _Worker:
    def __init__(self, ctx, config: BatchConfig):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child, config), name="klondike-batch-worker", daemon=True)
        self.proc.start()
        child.close()
        self.outstanding: deque[int] = deque()  # seeds sent, in the order the worker solves them
        self.ready = False
        self.dead = False
        self.since = time.monotonic()  # when the deal at the head of `outstanding` started
        self.stop_reason: str | None = None
        self.peak_rss_kb: int | None = None
        self.cpu_seconds: float | None = None


class _Feed:
    """The seeds still to hand out: those given back by a dead worker first, then the rest in order."""

    def __init__(self, seeds: Iterator[int]):
        self.seeds = iter(seeds)
        self.front: deque[int] = deque()
        self.peeked: int | None = None

    def take(self) -> int | None:
        if self.front:
            return self.front.popleft()
        if self.peeked is not None:
            seed, self.peeked = self.peeked, None
            return seed
        return next(self.seeds, None)

    def give_back(self, seeds) -> None:
        self.front.extendleft(reversed(list(seeds)))

    def empty(self) -> bool:
        if self.front or self.peeked is not None:
            return False
        self.peeked = next(self.seeds, None)
        return self.peeked is None


def _context():
    """forkserver: workers are forked from a clean server process (none of the parent's threads or
    state). The server preloads `solver.batch_warm`, which loads the numba kernels once, so every
    worker (and every replacement of a dead one) starts warm and shares the compiled code."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["solver.batch_warm"])
    return ctx


class _PoolFigures:
    """The figures every pool keeps for the benchmark: start-up, warm-up, memory, CPU, replaced workers."""

    def _reset_figures(self) -> None:
        self.started_at = self.all_ready_at = None
        self.rows_before_ready = 0
        self.warmup_seconds: list[float] = []
        self.peak_rss_mb: list[float] = []
        self.cpu_seconds: list[float] = []
        self.replaced = 0


class LocalPool(_PoolFigures):
    """`jobs` worker processes; `rows(seeds)` yields one row per seed, in completion order."""

    def __init__(self, config: BatchConfig, jobs: int):
        self.config = config
        self.jobs = max(1, jobs)
        self.hard_timeout = None if config.time_limit is None else 2 * config.time_limit + HANG_GRACE
        self._reset_figures()
        self._start_failures = 0

    def rows(self, seeds: Iterable[int]) -> Iterator[dict]:
        """The rows of `seeds`, solved by the worker processes, in completion order."""
        announce_compiling("winnability")  # the forkserver compiles, if need be, before any worker starts
        ctx = _context()
        feed = _Feed(iter(seeds))
        self.started_at = time.monotonic()
        workers = [_Worker(ctx, self.config) for _ in range(self.jobs)]
        finished = False
        try:
            while True:
                for w in workers:
                    while w.ready and not w.dead and len(w.outstanding) < IN_FLIGHT:
                        seed = feed.take()
                        if seed is None:
                            break
                        if not w.outstanding:
                            w.since = time.monotonic()
                        w.outstanding.append(seed)
                        try:
                            w.conn.send(seed)
                        except OSError:
                            w.dead = True
                if feed.empty() and not any(w.outstanding for w in workers):
                    break
                wait([w.conn for w in workers] + [w.proc.sentinel for w in workers], timeout=0.5)
                for i, w in enumerate(workers):
                    for row in self._drain(w):
                        yield row
                    if not w.dead and w.proc.exitcode is not None:
                        w.dead = True
                        yield from self._drain(w)
                    if not w.dead and self._overdue(w):
                        w.stop_reason = f"no answer within {self.hard_timeout:g} s (the time limit is " \
                                        f"{self.config.time_limit:g} s): the worker was stopped"
                        w.proc.kill()
                        w.dead = True
                    if w.dead:
                        yield from self._bury(w, feed)
                        workers[i] = None
                        if not feed.empty():
                            workers[i] = _Worker(ctx, self.config)
                            self.replaced += 1
                workers = [w for w in workers if w is not None]
            finished = True
        finally:
            self._shutdown(workers, graceful=finished)

    def _drain(self, w: _Worker) -> list[dict]:
        rows = []
        try:
            while w.conn.poll():
                message = w.conn.recv()
                if message[0] == "row":
                    w.outstanding.popleft()
                    w.since = time.monotonic()
                    rows.append(message[2])
                    if self.all_ready_at is None:
                        self.rows_before_ready += 1
                elif message[0] == "ready":
                    w.ready = True
                    w.since = time.monotonic()
                    self.warmup_seconds.append(message[2])
                    if len(self.warmup_seconds) == self.jobs and self.all_ready_at is None:
                        self.all_ready_at = time.monotonic()
                elif message[0] == "bye":
                    w.peak_rss_kb, w.cpu_seconds = message[1:]
        except (EOFError, OSError):
            w.dead = True
        return rows

    def _overdue(self, w: _Worker) -> bool:
        return (self.hard_timeout is not None and w.ready and bool(w.outstanding)
                and time.monotonic() - w.since > self.hard_timeout)

    def _bury(self, w: _Worker, feed: _Feed) -> Iterator[dict]:
        """A worker died: its current deal is an error row, the deals sent after it are handed out again."""
        w.proc.join(timeout=5)
        code = w.proc.exitcode
        w.conn.close()
        if not w.ready:
            self._start_failures += 1
            if self._start_failures >= START_FAILURES * self.jobs:
                raise KlondikeError(f"the batch workers die as they start ({_exit_text(code)})")
            return
        culprit = w.outstanding.popleft()
        feed.give_back(w.outstanding)
        reason = w.stop_reason or f"the worker process died while solving this deal ({_exit_text(code)})"
        yield make_row(culprit, self.config, "error", seconds=time.monotonic() - w.since, reason=reason)

    def _shutdown(self, workers: list[_Worker], graceful: bool) -> None:
        if graceful:
            for w in workers:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
            deadline = time.monotonic() + 5
            for w in workers:
                try:
                    while w.peak_rss_kb is None and w.conn.poll(max(0.0, deadline - time.monotonic())):
                        message = w.conn.recv()  # a worker still warming up says "ready" first
                        if message[0] == "bye":
                            w.peak_rss_kb, w.cpu_seconds = message[1:]
                except (EOFError, OSError):
                    pass
        for w in workers:
            if w.proc.is_alive():
                if graceful:
                    w.proc.join(timeout=max(0.0, 2.0))
                if w.proc.is_alive():
                    w.proc.kill()
                    w.proc.join(timeout=5)
            w.conn.close()
        self.peak_rss_mb = [w.peak_rss_kb / 1024 for w in workers if w.peak_rss_kb is not None]
        self.cpu_seconds = [w.cpu_seconds for w in workers if w.cpu_seconds is not None]


def _exit_text(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}" + (", perhaps by the kernel for want of memory" if -code == signal.SIGKILL else "")
    return f"exit code {code}"


# --------------------------------------------------------------------------- Dask cluster


# A Dask scheduler address: `protocol://...`, or `host:port` (IPv6 hosts in brackets).
_DASK_ADDRESS = re.compile(r"[a-z][a-z0-9+.-]*://\S+|(?:\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):\d{1,5}")


class DaskPool(_PoolFigures):
    """The same rows from a Dask distributed cluster (`address`: a scheduler address or a Cluster).

    A deal whose task keeps killing workers (dask's KilledWorker) becomes an error row; losing the
    cluster itself stops the batch (the rows so far are kept: --resume goes on).
    """

    def __init__(self, config: BatchConfig, address):
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise KlondikeError("--cluster needs dask: pip install 'klondike-solver[cluster]'") from None
        if isinstance(address, str) and not _DASK_ADDRESS.fullmatch(address.strip()):
            # checked here: a Client that fails on a malformed address hangs 30 s in its cleanup
            raise KlondikeError(f"--cluster {address!r} is not a Dask scheduler address "
                                f"(HOST:PORT or PROTOCOL://HOST:PORT, e.g. tcp://10.0.0.5:8786)")
        self.config = config
        self.address = address.strip() if isinstance(address, str) else address
        self._reset_figures()
        self.jobs = None

    def rows(self, seeds: Iterable[int]) -> Iterator[dict]:
        """The rows of `seeds`, solved by the cluster's workers, in completion order."""
        from distributed import Client, as_completed
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        self.started_at = time.monotonic()
        try:
            client = Client(self.address, timeout=15, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise KlondikeError(f"cannot connect to the Dask scheduler at {self.address}: {_one_line(err)}") \
                from None
        with client:
            self.jobs = sum(client.nthreads().values()) or 1
            self.all_ready_at = time.monotonic()
            seeds = iter(seeds)
            by_future = {}
            pending = as_completed(loop=client.loop)

            def submit() -> None:
                seed = next(seeds, None)
                if seed is not None:
                    future = client.submit(solve_row, seed, self.config, pure=False)
                    by_future[future] = seed
                    pending.add(future)

            for _ in range(4 * self.jobs):
                submit()
            for future in pending:
                seed = by_future.pop(future)
                try:
                    row = future.result()
                except KilledWorker as err:
                    row = make_row(seed, self.config, "error", reason=f"the deal killed Dask workers ({err})")
                except (FutureCancelledError, OSError, TimeoutError) as err:
                    raise KlondikeError(f"lost the Dask cluster at {self.address}: {type(err).__name__}: "
                                        f"{_one_line(err)}") from None
                future.release()
                yield row
                submit()


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


# --------------------------------------------------------------------------- the batch


class ProgressBar:
    """A tqdm bar on stderr: deals done (of all the seeds), deals/s, ETA and the wins so far."""

    def __init__(self, disable: bool = False):
        self.disable = disable
        self.bar = None
        self.wins = 0

    def start(self, total: int, done: int, wins: int) -> None:
        """Show the bar on stderr: `total` deals, `done` of them (with `wins`) already in the file."""
        from tqdm import tqdm

        self.wins = wins
        self.bar = tqdm(total=total, initial=done, desc="batch", unit=" deals", file=sys.stderr,
                        disable=self.disable, smoothing=0.1, mininterval=0.5, dynamic_ncols=True)
        self._postfix()

    def _postfix(self) -> None:
        if self.bar is not None and self.bar.n:
            self.bar.set_postfix_str(f"wins {self.wins} ({100 * self.wins / self.bar.n:.1f}%)", refresh=False)

    def update(self, row: dict) -> None:
        """Count one finished row."""
        self.wins += row["result"] == "win"
        self.bar.update(1)
        self._postfix()

    def close(self) -> None:
        """Take the bar off the terminal."""
        if self.bar is not None:
            self.bar.close()


def run_batch(seeds: SeedList, config: BatchConfig, out: str | None = None, resume: bool = False,
              force: bool = False, jobs: int | None = None, cluster=None, progress: ProgressBar | None = None,
              on_row: Callable[[dict], None] | None = None) -> dict:
    """Solve every seed under `config` and write one row per deal (see the module doc); return a summary.

    jobs: worker processes (default: the cores this process may use, `runner.free_cores`); cluster: a
    Dask scheduler address (or Cluster) instead of local workers. Raises KlondikeError for bad input; KeyboardInterrupt passes through
    after the workers are stopped (the rows written so far stay).
    """
    _check_source(seeds, config)
    if config.best:
        check_best_available()
    if resume and out is None:
        raise KlondikeError("--resume needs --out FILE (rows on standard output cannot be resumed)")
    output = FileOutput(out, config, resume=resume, force=force) if out is not None else StdoutOutput()
    began = time.monotonic()
    counts = dict.fromkeys(RESULTS, 0)
    done_here = [row for seed, row in output.done.items() if seed in seeds]
    for row in done_here:
        counts[row["result"]] += 1
    todo = (seed for seed in seeds if seed not in output.done)
    cores = free_cores()
    jobs = max(1, min(jobs or cores, seeds.count - len(done_here)))
    if cluster is None:
        # The workers already share the cores deal by deal: a best-first search with a thread for
        # every core in each of them would run more threads than cores, whose rounds then wait on
        # each other. A cluster's workers run a deal on each of their threads: one thread each.
        config = replace(config, best_threads=max(1, cores // jobs))
    pool = DaskPool(config, cluster) if cluster is not None else LocalPool(config, jobs)
    progress = progress or ProgressBar(disable=True)
    progress.start(seeds.count, len(done_here), counts["win"])
    new = 0
    rows = pool.rows(todo) if seeds.count > len(done_here) else iter(())
    try:
        for row in rows:
            output.write(row)
            counts[row["result"]] += 1
            new += 1
            progress.update(row)
            if on_row is not None:
                on_row(row)
    finally:
        if hasattr(rows, "close"):
            rows.close()
        progress.close()
        output.close()
    if isinstance(output, FileOutput):
        output.sort_by_seed()
    ended = time.monotonic()
    steady = None
    if pool.all_ready_at is not None and new > pool.rows_before_ready and ended > pool.all_ready_at:
        steady = (new - pool.rows_before_ready) / (ended - pool.all_ready_at)
    return {
        "seeds": seeds.count, "resumed": len(done_here), "solved": new, "counts": counts,
        "out": out, "workers": getattr(pool, "jobs", jobs), "cluster": None if cluster is None else str(cluster),
        "seconds": ended - began, "deals_per_second": new / (ended - began) if ended > began else 0.0,
        "steady_deals_per_second": steady,
        "warmup_seconds": max(pool.warmup_seconds) if pool.warmup_seconds else None,
        "worker_peak_rss_mb": [round(x, 1) for x in pool.peak_rss_mb], "workers_replaced": pool.replaced,
        "worker_cpu_seconds": [round(x, 3) for x in pool.cpu_seconds],
    }


def _check_source(seeds: SeedList, config: BatchConfig) -> None:
    """Fail early, with one line, if the deal source cannot deal at all (e.g. a missing package) or
    not every seed asked for (out of its range)."""
    from .deal import Deal

    for seed in (seeds.ranges[0][0], seeds.ranges[-1][1]):  # the lowest and highest: all between deal too
        try:
            Deal.from_seed(seed, config.source)
        except KlondikeError as err:
            raise KlondikeError(f"seed {seed} ({config.source}): {err}") from None
        except ImportError as err:
            raise KlondikeError(f"the {config.source} deal source is not available: {err}") from None


def format_summary(summary: dict) -> str:
    """One line for people (stderr) at the end of a batch."""
    counts = ", ".join(f"{k} {v}" for k, v in summary["counts"].items())
    resumed = f" ({summary['resumed']} already in the file)" if summary["resumed"] else ""
    where = f" -> {summary['out']}" if summary["out"] else ""
    rate = summary["deals_per_second"]
    return (f"batch: {summary['seeds']} deals{resumed}: {counts}; {summary['solved']} solved in "
            f"{summary['seconds']:.1f} s ({rate:.1f} deals/s){where}")

