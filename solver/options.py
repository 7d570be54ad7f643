"""Turning command-line option values into library objects (deals, rulesets, lines).

Shared by every command so each parses its input the same way; errors are KlondikeError.
"""

from __future__ import annotations

from pathlib import Path

from .cards import is_plain_number
from .deal import MAX_SEED, Deal
from .errors import DealError, KlondikeError, RulesError
from .notation import parse_line
from .rules import UNSET, Ruleset, get_ruleset, parse_passes, parse_scoring
from .sources import PYSOL_MAX_GAME

DEAL_SOURCES = ("native", "pysol", "ksolve")
# The largest seed any source deals (PySol FC's game numbers go past 2^64); each source checks its own range.
LARGEST_SEED = max(MAX_SEED - 1, PYSOL_MAX_GAME)


def parse_seed(text: str) -> int:
    """A seed given on the command line: a whole number from 0 to LARGEST_SEED (the deal source
    checks its own range: native seeds are below 2^64)."""
    raw = str(text).strip().replace("_", "")
    try:
        if not raw.isascii():  # int() reads `٣` as 3
            raise ValueError
        # decimal first (so `007` is 7), then 0x / 0o / 0b prefixes
        seed = int(raw, 10) if is_plain_number(raw.lstrip("+-")) else int(raw, 0)
    except ValueError:
        raise DealError(f"bad seed {text!r}: a seed is a whole number >= 0") from None
    if not 0 <= seed <= LARGEST_SEED:
        raise DealError(f"seed {seed} out of range: a native seed is below 2^64, a PySol FC game number at most 10^20")
    return seed


def load_deal(seed: str | None, source: str = "native", deal_codes: str | None = None,
              deal_file: str | None = None) -> Deal:
    """The deal named by exactly one of: a seed (with its source), deal codes, a deal file."""
    given = [x is not None for x in (seed, deal_codes, deal_file)]
    if sum(given) != 1:
        raise DealError("give exactly one of: SEED, --deal CODES, --deal-file FILE")
    if seed is None and source != "native":
        raise DealError(f"--source {source} says where a SEED's deal comes from; --deal and --deal-file give "
                        f"the deal itself (its format is detected)")
    if deal_codes is not None:
        return _deal_from_text(deal_codes)
    if deal_file is not None:
        try:
            text = Path(deal_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise DealError(f"cannot read deal file {deal_file!r}: {err.strerror if isinstance(err, OSError) else err}") from None
        return _deal_from_text(text)
    if source not in DEAL_SOURCES:
        raise DealError(f"unknown deal source {source!r} (choose {', '.join(DEAL_SOURCES)})")
    return Deal.from_seed(parse_seed(seed), source)


def _deal_from_text(text: str) -> Deal:
    """A deal from text in any supported format (52 codes; other formats via `formats`)."""
    try:
        from .formats import parse_deal_text
    except ImportError:  # pragma: no cover - formats is part of the package
        return Deal.from_codes(text)
    return parse_deal_text(text)


def build_ruleset(name: str, draw=UNSET, passes=UNSET, foundation_to_tableau=UNSET, auto_play=UNSET,
                  scoring=UNSET, seconds_per_action=UNSET, no_clock: bool = False) -> Ruleset:
    """A preset with command-line overrides applied (UNSET or None means 'not given')."""
    base = get_ruleset(name)
    overrides = {}
    if draw not in (UNSET, None):
        overrides["draw"] = int(draw)
    if passes not in (UNSET, None):
        overrides["passes"] = parse_passes(passes)
    if foundation_to_tableau not in (UNSET, None):
        overrides["foundation_to_tableau"] = bool(foundation_to_tableau)
    if auto_play not in (UNSET, None):
        overrides["auto_play"] = bool(auto_play)
    if scoring not in (UNSET, None):
        overrides["scoring"] = parse_scoring(scoring)
    if seconds_per_action not in (UNSET, None):
        if no_clock:
            raise RulesError("--seconds-per-action and --no-clock contradict each other")
        overrides["seconds_per_action"] = float(seconds_per_action)
    if no_clock:
        overrides["seconds_per_action"] = None
    return base.with_overrides(**overrides)


def load_line(tokens: tuple[str, ...] | list[str], line_file: str | None) -> list[str]:
    """The tokens of a line: from the arguments, or from a file (text or JSON list), not both."""
    if line_file is not None:
        if tokens:
            raise KlondikeError("give the line either as tokens or with --line-file, not both")
        try:
            text = Path(line_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise KlondikeError(f"cannot read line file {line_file!r}: {err.strerror if isinstance(err, OSError) else err}") from None
        return parse_line(text)
    return [t for tok in tokens for t in parse_line(tok)]
