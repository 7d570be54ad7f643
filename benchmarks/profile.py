"""Where a search's time goes, function by function: Linux perf samples one `best` or `solve` of
one deal, with the numba kernels named.

    python benchmarks/profile.py --rules ksolve-draw1 --seed 8 [--command best] [--time-limit 60] \\
        [--threads 1] [--sample 15] [--top 30] [--json out.json]

numba's kernels have no symbols perf can see: the JIT linker maps their code into anonymous memory.
So the script keeps the object code numba loads for each kernel (from its cache, or as it compiles
it), reads the object's function symbols, places them from where numba loaded the kernel, and writes them
in perf's map format (/tmp/perf-PID.map), which `perf report` reads. LLVM inlines small kernels
into their callers, whose share then holds theirs. A kernel compiled for two sets of argument
types appears once, its copies added up. Time the kernel (the operating system) spends for the
process, such as clearing fresh pages, is listed under its own names, marked `[k]`, where
`kernel.kptr_restrict` lets perf name it.

A warm-up search of another deal loads the kernels first, so the samples are of the search alone;
they stop after `--sample` seconds or when the search ends. Needs Linux, `perf`, and leave to
sample this process (`kernel.perf_event_paranoid` at most 2, or root).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the `benchmarks` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from numba.core.codegen import CPUCodeLibrary
from numba.core.registry import CPUDispatcher

from benchmarks.stats_util import int_between, positive_seconds, run_script, secs, writable_file, write_report
from solver.benchmark import BENCH_RULESETS
from solver.deal import Deal
from solver.optimal import MAX_THREADS, best
from solver.solve import solve

SAMPLES_PER_SECOND = 999
COMMANDS = ("best", "solve")


# --- the kernels' symbols --------------------------------------------------------------------------

def keep_object_code() -> None:
    """From now on, keep the object code numba hands each kernel's library as it loads it from its
    cache (numba drops it once linked): `kernel_symbols` reads it. Kernels compiled in this process
    keep theirs anyway."""
    original = CPUCodeLibrary._set_compiled_object
    if getattr(original, "keeps_object_code", False):
        return

    def set_compiled_object(library, value):
        library.profiled_object_code = value
        original(library, value)

    set_compiled_object.keeps_object_code = True
    CPUCodeLibrary._set_compiled_object = set_compiled_object


def elf_functions(image: bytes) -> list[tuple[str, int, int, int]]:
    """The defined function symbols of a 64-bit little-endian ELF object: (name, section index,
    offset in the section, size); [] for anything else."""
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        return []
    section_table = struct.unpack_from("<Q", image, 0x28)[0]
    entry_size, count = struct.unpack_from("<HH", image, 0x3A)
    # (name, type, flags, address, offset, size, link, info, alignment, entry size)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, section_table + index * entry_size) for index in range(count)]
    functions = []
    for section in sections:
        if section[1] != 2:  # SHT_SYMTAB
            continue
        names_at = sections[section[6]][4]
        for offset in range(section[4], section[4] + section[5], 24):
            name_at, info, _, section_index, value, size = struct.unpack_from("<IBBHQQ", image, offset)
            if info & 0xF != 2 or section_index == 0:  # STT_FUNC, defined here
                continue
            start = names_at + name_at
            name = image[start:image.index(b"\0", start)].decode("ascii", "replace")
            functions.append((name, section_index, value, size))
    return functions


def readable_name(symbol: str) -> str:
    """A numba symbol without its argument types: `_ZN6solver9bestfirst16best_first_chunkB3v49...`
    -> `bestfirst.best_first_chunk`; its wrappers keep their prefix (`cpython.bestfirst...`)."""
    rest = symbol[3:] if symbol.startswith("_ZN") else ""
    parts = []
    while rest[:1].isdigit():
        digits = re.match(r"\d+", rest).group()
        length = int(digits)
        parts.append(rest[len(digits):len(digits) + length])
        rest = rest[len(digits) + length:]
    parts = [part for part in parts if part != "solver"]
    return ".".join(parts) if parts else symbol


def kernel_symbols() -> dict[int, tuple[int, str]]:
    """Every function of the solver's loaded kernels: address -> (size, readable name)."""
    symbols: dict[int, tuple[int, str]] = {}
    dispatchers = {id(value): value for name, module in list(sys.modules.items())
                   if name == "solver" or name.startswith("solver.")
                   for value in vars(module).values() if isinstance(value, CPUDispatcher)}
    for dispatcher in dispatchers.values():
        for compiled in dispatcher.overloads.values():
            library = compiled.library
            image = getattr(library, "profiled_object_code", None) or getattr(library, "_compiled_object", None)
            if not image:
                continue
            # Placed from the kernel's own entry point: the object also holds copies of the kernels
            # it calls, and their names lead to whichever copy the JIT linked first.
            functions = elf_functions(image)
            entry = compiled.fndesc.llvm_func_name
            placed = [(section, offset) for name, section, offset, _ in functions if name == entry]
            if not placed:
                continue
            entry_section, entry_offset = placed[0]
            base = library.get_pointer_to_function(entry) - entry_offset
            for name, section, offset, size in functions:
                if section == entry_section and size > 0:
                    symbols[base + offset] = (size, readable_name(name))
    return symbols


def write_perf_map(symbols: dict[int, tuple[int, str]], pid: int) -> Path:
    """Write perf's map of JIT code for process `pid` (/tmp/perf-PID.map); returns its path."""
    path = Path(f"/tmp/perf-{pid}.map")
    with open(path, "w", encoding="ascii", errors="replace") as out:
        for address in sorted(symbols):
            size, name = symbols[address]
            out.write(f"{address:x} {size:x} {name}\n")
    return path


# --- sampling --------------------------------------------------------------------------------------

@dataclass
class Share:
    """One function's share of the samples."""

    function: str
    percent: float
    where: str  # "kernel" (the operating system), "numba" (a solver kernel) or "other"


def parse_report(text: str, kernel_names: set[str]) -> list[Share]:
    """The shares of `perf report --no-children --sort symbol --stdio` output, one a function
    (copies of one kernel added up), largest first."""
    totals: dict[str, float] = {}
    kinds: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(\S+)", line)  # perf may add columns after the name
        if not match:
            continue
        percent, mark, function = float(match.group(1)), match.group(2), match.group(3)
        totals[function] = totals.get(function, 0.0) + percent
        kinds[function] = "kernel" if mark == "k" else "numba" if function in kernel_names else "other"
    return sorted((Share(name, round(total, 2), kinds[name]) for name, total in totals.items()),
                  key=lambda share: -share.percent)


def perf_problem() -> str | None:
    """Why perf cannot sample this process here, or None."""
    if not sys.platform.startswith("linux"):
        return "perf runs on Linux only"
    if shutil.which("perf") is None:
        return "perf is not installed (linux-tools / linux-perf)"
    try:
        paranoid = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    except (OSError, ValueError):
        return None
    if paranoid > 2 and os.geteuid() != 0:
        return f"kernel.perf_event_paranoid is {paranoid}: set it to 2 or less, or run as root"
    return None


def run_search(command: str, seed: int, rules_name: str, time_limit: float, threads: int):
    """`best` or `solve` of the native deal `seed`."""
    rules = BENCH_RULESETS[rules_name]
    if command == "best":
        return best(Deal.from_seed(seed), rules, time_limit=time_limit, threads=threads)
    return solve(Deal.from_seed(seed), rules, time_limit=time_limit)


class ProfileError(Exception):
    """perf could not sample or report the search (said in one line, exit 1)."""


def sampled_search(args, data: Path) -> tuple[object, float]:
    """Run the search while perf samples this process into `data`, for at most `args.sample`
    seconds; returns (result, seconds)."""
    recorder = subprocess.Popen(["perf", "record", "-q", "-F", str(SAMPLES_PER_SECOND), "-p", str(os.getpid()),
                                 "-o", str(data)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def stop() -> None:
        if recorder.poll() is None:
            recorder.send_signal(signal.SIGINT)  # perf writes what it has sampled and ends

    timer = threading.Timer(args.sample, stop)
    time.sleep(0.5)  # perf attaches
    if recorder.poll() is not None:
        raise ProfileError(f"perf record failed: {recorder.communicate()[1].strip() or recorder.returncode}")
    timer.start()
    began = time.perf_counter()
    try:
        result = run_search(args.command, args.seed, args.rules, args.time_limit, args.threads)
    finally:
        seconds = time.perf_counter() - began
        timer.cancel()
        stop()
        _, errors = recorder.communicate()
    if not data.exists() or data.stat().st_size == 0:
        raise ProfileError(f"perf record wrote no samples: {errors.strip() or recorder.returncode}")
    return result, seconds


def search_figures(command: str, result, seconds: float) -> dict:
    """What the sampled search found and how far it went."""
    figures = {"seconds": round(seconds, 3), "nodes": result.nodes,
               "nodes_per_second": round(result.nodes / seconds) if seconds > 0 else None}
    if command == "best":
        figures.update(score=result.score, actions=result.actions, bound=result.bound, optimal=result.optimal)
    else:
        figures.update(result=result.result, actions=result.actions)
    return figures


# --- the command line ------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The command line of this script."""
    parser = argparse.ArgumentParser(description="Where a search's time goes: perf samples one best or solve,"
                                                 " the numba kernels named.")
    parser.add_argument("--rules", choices=list(BENCH_RULESETS), default="ksolve-draw1",
                        help="the ruleset (default ksolve-draw1)")
    parser.add_argument("--seed", type=int_between(0, 2**64 - 1), default=8, help="native seed (default 8)")
    parser.add_argument("--command", choices=COMMANDS, default="best", help="the search (default best)")
    parser.add_argument("--time-limit", type=positive_seconds, default=60.0,
                        help="seconds for the search (default 60)")
    parser.add_argument("--threads", type=int_between(1, MAX_THREADS), default=1,
                        help=f"best-first threads for best, 1 to {MAX_THREADS} (default 1: one thread's profile)")
    parser.add_argument("--sample", type=positive_seconds, default=15.0,
                        help="seconds of sampling from the search's start (default 15)")
    parser.add_argument("--top", type=int_between(1), default=30, help="functions listed (default 30)")
    parser.add_argument("--json", type=writable_file, default=None,
                        help="also write the figures to this file (checked at start; default none)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Profile one search; returns the exit code (2 where perf cannot sample here)."""
    args = build_parser().parse_args(argv)
    problem = perf_problem()
    if problem is not None:
        print(f"profile.py: error: {problem}", file=sys.stderr)
        return 2
    keep_object_code()
    began = time.perf_counter()
    # another deal first: it loads (or compiles) the kernels, so that the samples are of the search alone
    run_search(args.command, (args.seed + 1) % 2**64, args.rules, 0.5, args.threads)
    load_seconds = time.perf_counter() - began
    symbols = kernel_symbols()
    perf_map = write_perf_map(symbols, os.getpid())
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "perf.data"
        try:
            result, seconds = sampled_search(args, data)
            report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio"],
                                    capture_output=True, text=True, check=False)
        except ProfileError as error:
            print(f"profile.py: error: {error}", file=sys.stderr)
            return 1
        finally:
            perf_map.unlink(missing_ok=True)
    shares = parse_report(report.stdout, {name for _, name in symbols.values()})
    if not shares:
        print(f"profile.py: error: perf report gave no samples: {report.stderr.strip()[:300]}", file=sys.stderr)
        return 1
    figures = search_figures(args.command, result, seconds)
    print(f"{args.command} {args.seed} under {args.rules}, {args.threads} thread{'s' if args.threads > 1 else ''}:"
          f" {secs(seconds)}, {figures['nodes']:,} nodes ({figures['nodes_per_second'] or 0:,}/s);"
          f" kernels loaded in {secs(load_seconds)}, {len(symbols)} functions mapped")
    print(f"sampled the first {secs(min(seconds, args.sample))} at {SAMPLES_PER_SECOND} Hz; by where:")
    for where in ("numba", "kernel", "other"):
        print(f"  {where:7} {sum(share.percent for share in shares if share.where == where):6.2f}%")
    print(f"the top {min(args.top, len(shares))} functions (self time; inlined kernels count in their callers):")
    for share in shares[:args.top]:
        print(f"  {share.percent:6.2f}%  {share.where:6}  {share.function}")
    write_report(args.json, {"rules": args.rules, "seed": args.seed, "command": args.command, "threads": args.threads,
                             "search": figures, "sample_seconds": min(seconds, args.sample),
                             "functions": [asdict(share) for share in shares]})
    return 0


if __name__ == "__main__":
    run_script(main)
