"""The `klondike stats --plot` picture: histograms of the solving time and, when the rows have
scores, of the scores. Needs matplotlib (the optional extra `plot`)."""

from __future__ import annotations

import math
from pathlib import Path

from .errors import KlondikeError


def plot_rows(rows: list[dict], path: str) -> None:
    """Draw the histograms of the rows into an image file (the format follows the extension)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise KlondikeError("--plot needs matplotlib: pip install 'klondike-solver[plot]'") from None
    image_format = Path(path).suffix[1:].lower()
    if not image_format:  # matplotlib would write PATH.png instead, unasked
        raise KlondikeError(f"--plot {path!r}: give the image file's extension (.png, .svg, .pdf)")
    if Path(path).is_dir():
        raise KlondikeError(f"cannot write {path!r}: it is a directory")
    seconds = [row["seconds"] for row in rows if isinstance(row.get("seconds"), (int, float))]
    scores = [row["score"] for row in rows if isinstance(row.get("score"), (int, float))]
    panels = 1 + bool(scores)
    figure = Figure(figsize=(6 * panels, 4), layout="constrained")
    axes = figure.subplots(1, panels, squeeze=False)[0]
    ax = axes[0]
    positive = [s for s in seconds if s > 0]
    if positive and max(positive) / min(positive) > 100:  # spread over decades: logarithmic bins
        low, high = math.log10(min(positive)), math.log10(max(positive))
        ax.hist(positive, bins=[10 ** (low + (high - low) * i / 40) for i in range(41)], color="tab:blue")
        ax.set_xscale("log")
    else:
        ax.hist(seconds, bins=40, color="tab:blue")
    ax.set_xlabel("seconds per deal")
    ax.set_ylabel("deals")
    ax.set_title(f"solving time ({len(seconds)} deals)")
    if scores:
        ax = axes[1]
        ax.hist(scores, bins=40, color="tab:green")
        ax.set_xlabel("score")
        ax.set_ylabel("deals")
        ax.set_title(f"scores ({len(scores)} deals)")
    try:
        figure.savefig(path, dpi=100, format=image_format)
    except OSError as err:
        raise KlondikeError(f"cannot write {path!r}: {err.strerror}") from None
    except ValueError as err:  # an unknown image format
        raise KlondikeError(f"cannot write {path!r}: {err}") from None
