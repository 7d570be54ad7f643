"""Statistics of a batch file: counts, the win rate with a 95% Wilson interval, time and node
percentiles, the score distribution and the hardest seeds.

Win rate (as the Solvitaire paper reports it): deals that were not decided (`unknown`, and `error`
rows too) are counted both ways. The low end counts them as losses (wins / n), the high end as
wins ((wins + undecided) / n); the 95% interval runs from the Wilson lower bound of the low end to
the Wilson upper bound of the high end.

Percentiles interpolate linearly between the sorted values (numpy's default, `statistics.quantiles`
with method="inclusive").
"""

from __future__ import annotations

import math
import os
from collections import Counter

from .batch import RESULTS, complete_length, read_rows
from .errors import KlondikeError

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal distribution
TOP = 5


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion `successes / n` (95% by default)."""
    if n <= 0:
        raise ValueError("the Wilson interval needs n > 0")
    if not 0 <= successes <= n:
        raise ValueError("successes must be between 0 and n")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # the ends are exact, not 1 - 1e-16
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-th percentile (0..100) of already sorted values, by linear interpolation."""
    if not sorted_values:
        raise ValueError("no values")
    position = (len(sorted_values) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


def distribution(values: list[float]) -> dict | None:
    """count, total, mean, min, median, p90, p99, max of some numbers (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    return {"count": len(ordered), "total": sum(ordered), "mean": sum(ordered) / len(ordered), "min": ordered[0],
            "median": percentile(ordered, 50), "p90": percentile(ordered, 90), "p99": percentile(ordered, 99),
            "max": ordered[-1]}


def histogram(values: list[float], bins: int = 10) -> list[dict]:
    """Equal-width bins over [min, max]: a list of {"from", "to", "count"} (the last bin is closed)."""
    if not values:
        return []
    low, high = min(values), max(values)
    if low == high:
        return [{"from": low, "to": high, "count": len(values)}]
    width = (high - low) / bins
    counts = [0] * bins
    for value in values:
        counts[min(int((value - low) / width), bins - 1)] += 1
    return [{"from": low + i * width, "to": low + (i + 1) * width, "count": c} for i, c in enumerate(counts)]


def win_rate(wins: int, undecided: int, n: int) -> dict:
    """The win rate with undecided deals counted as losses (low) and as wins (high), and its 95%
    interval (`undecided_interval`)."""
    return {"n": n, "wins": wins, "undecided": undecided, "low": wins / n, "high": (wins + undecided) / n,
            "ci95": list(undecided_interval(wins, undecided, n))}


def undecided_interval(wins: int, undecided: int, n: int) -> tuple[float, float]:
    """The 95% interval of a win rate with `undecided` of the `n` unknown: the Wilson lower bound
    with them lost, to the upper bound with them won."""
    return wilson_interval(wins, n)[0], wilson_interval(wins + undecided, n)[1]


def summarize(rows: list[dict], top: int = TOP, file: str | None = None) -> dict:
    """The statistics of batch rows (see the module doc); raises KlondikeError when there are none."""
    if not rows:
        raise KlondikeError("no rows to summarize")
    counts = dict.fromkeys(RESULTS, 0)
    counts.update(Counter(row["result"] for row in rows))
    n = len(rows)
    timed = [row for row in rows if isinstance(row.get("seconds"), (int, float))]
    counted = [row for row in rows if isinstance(row.get("nodes"), int)]
    scores = [row["score"] for row in rows if isinstance(row.get("score"), (int, float))]
    summary = {
        "file": file,
        "rows": n,
        "rules": dict(Counter(str(row.get("rules")) for row in rows)),
        "sources": dict(Counter(str(row.get("source")) for row in rows)),
        "counts": counts,
        "win_rate": win_rate(counts["win"], counts["unknown"] + counts["error"], n),
        "seconds": distribution([row["seconds"] for row in timed]),
        "nodes": distribution([row["nodes"] for row in counted]),
        "actions": distribution([row["actions"] for row in rows
                                 if row["result"] == "win" and isinstance(row.get("actions"), int)]),
        "score": None,
        "hardest": {
            "slowest": [_brief(row) for row in sorted(timed, key=lambda r: (-r["seconds"], r["seed"]))[:top]],
            "most_nodes": [_brief(row) for row in sorted(counted, key=lambda r: (-r["nodes"], r["seed"]))[:top]],
        },
    }
    if scores:
        bounded = [row for row in rows if isinstance(row.get("score"), (int, float))
                   and isinstance(row.get("bound"), (int, float))]
        summary["score"] = {**distribution(scores), "p10": percentile(sorted(scores), 10),
                            "score_equals_bound": sum(row["score"] == row["bound"] for row in bounded),
                            "histogram": histogram(scores)}
    return summary


def _brief(row: dict) -> dict:
    return {key: row.get(key) for key in ("seed", "result", "seconds", "nodes")}


def load_rows(path: str) -> list[dict]:
    """The rows of a batch file (`-`: standard input); a partial last line, from a batch still running
    or killed, is ignored. Raises KlondikeError for a file that is missing, malformed or empty."""
    rows, _ = read_rows(path)
    if not rows:
        raise KlondikeError(f"{path!r} has no rows")
    return rows


def ends_in_a_partial_line(path: str) -> bool:
    """True if the file's last line has no newline (a batch still writing it, or a file cut short):
    `load_rows` leaves that line out. False for standard input, which cannot be read again."""
    if path == "-":
        return False
    try:
        return complete_length(path) != os.path.getsize(path)
    except OSError:
        return False


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _figures(d: dict, fmt) -> str:
    return ", ".join(f"{key} {fmt(d[key])}" for key in ("median", "mean", "p90", "p99", "max"))


def format_summary(summary: dict) -> str:
    """The statistics for people."""
    n = summary["rows"]
    groups = "; ".join(f"rules {k} {v}" for k, v in summary["rules"].items())
    groups += "; " + "; ".join(f"source {k} {v}" for k, v in summary["sources"].items())
    lines = [f"{summary['file'] or 'rows'}: {n} deals ({groups})"]
    lines.append("results: " + ", ".join(f"{k} {v} ({_pct(v / n)})" for k, v in summary["counts"].items()))
    rate = summary["win_rate"]
    lines.append(f"win rate: {_pct(rate['low'])} to {_pct(rate['high'])} (the {rate['undecided']} undecided deals "
                 f"counted as losses / as wins); 95% Wilson interval {_pct(rate['ci95'][0])} to "
                 f"{_pct(rate['ci95'][1])}")
    if summary["seconds"]:
        s = summary["seconds"]
        lines.append(f"time (s): {_figures(s, lambda x: f'{x:.4g}')}, total {s['total']:.4g}")
    if summary["nodes"]:
        s = summary["nodes"]
        lines.append(f"nodes: {_figures(s, lambda x: f'{x:,.0f}')}, total {s['total']:,}")
    if summary["actions"]:
        lines.append(f"actions (wins): {_figures(summary['actions'], lambda x: f'{x:.4g}')}")
    if summary["score"]:
        s = summary["score"]
        lines.append(f"score ({s['count']} deals): min {s['min']:,}, p10 {s['p10']:,.0f}, "
                     f"{_figures(s, lambda x: f'{x:,.0f}')}; score = bound in {s['score_equals_bound']}")
        widest = max(b["count"] for b in s["histogram"])
        for b in s["histogram"]:
            lines.append(f"  {b['from']:>9,.0f} .. {b['to']:>9,.0f}  {b['count']:>6}  "
                         + "#" * round(30 * b["count"] / widest))
    hardest = summary["hardest"]
    if hardest["slowest"]:
        lines.append("slowest: " + ", ".join(f"{r['seed']} ({r['seconds']:.3g} s, {r['result']})"
                                             for r in hardest["slowest"]))
    if hardest["most_nodes"]:
        lines.append("most nodes: " + ", ".join(f"{r['seed']} ({r['nodes']:,}, {r['result']})"
                                                for r in hardest["most_nodes"]))
    return "\n".join(lines)
