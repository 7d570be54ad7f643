"""The fixed benchmark behind `klondike bench`: a set of seeds under each ruleset, a node total
that is a signature of the search, and nodes per second (warm, compile time reported apart)."""

from __future__ import annotations

import time

from .deal import Deal
from .errors import KlondikeError
from .rules import PRESETS, Ruleset
from .solve import solve

BENCH_RULESETS: dict[str, Ruleset] = {
    **PRESETS,
    "ksolve-draw1": PRESETS["classic"].with_overrides(passes=None, foundation_to_tableau=True),
    "ksolve-draw3": PRESETS["classic"].with_overrides(draw=3, passes=None, foundation_to_tableau=True),
}


def parse_range(text: str) -> range:
    """`A-B` (inclusive) or a single seed, as a range."""
    first, _, last = text.partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        raise KlondikeError(f"bad seed range {text!r}: expected A-B") from None
    if low < 0 or high < low:
        raise KlondikeError(f"bad seed range {text!r}: expected 0 <= A <= B")
    return range(low, high + 1)


def warm_up() -> float:
    """Compile (or load from the cache) the numba kernels; returns the seconds it took."""
    began = time.perf_counter()
    solve(Deal.from_seed(0), PRESETS["harmony"], max_nodes=1000)
    return time.perf_counter() - began


def run_bench(seeds: str = "1-20", max_nodes: int = 200_000) -> dict:
    """Solve every seed under every benchmark ruleset with a fixed node budget; return the figures."""
    compile_seconds = warm_up()
    rows = []
    for name, rules in BENCH_RULESETS.items():
        counts = {"win": 0, "loss": 0, "unknown": 0}
        nodes = 0
        seconds = 0.0
        for seed in parse_range(seeds):
            result = solve(Deal.from_seed(seed), rules, max_nodes=max_nodes)
            counts[result.result] += 1
            nodes += result.nodes
            seconds += result.seconds
        rows.append({"rules": name, **counts, "nodes": nodes, "seconds": seconds,
                     "nodes_per_second": nodes / seconds if seconds else 0.0})
    total_nodes = sum(r["nodes"] for r in rows)
    total_seconds = sum(r["seconds"] for r in rows)
    return {"compile_seconds": compile_seconds, "seeds": seeds, "max_nodes": max_nodes, "rulesets": rows,
            "total_nodes": total_nodes, "nodes_per_second": total_nodes / total_seconds if total_seconds else 0.0}
