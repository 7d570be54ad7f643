"""Scoring and the clock (RULES.md section 6), shared by the reference engine and the searches."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction

from .cards import value_of
from .rules import TIME_LIMIT_SECONDS, Ruleset

TURN_POINTS = 100
RECYCLE_PENALTY = 400
UNDO_PENALTY = 1000
FREE_PASSES = 2
COMPLETION = {"harmony": 10000, "duel": 30000}
WON_BONUS_PER_SECOND = 150
STOP_BONUS_DIVISOR = 3


def card_points(scoring: str | None, card: int) -> int:
    """Points for a card's first arrival on a foundation."""
    if scoring == "harmony":
        return 1000
    if scoring == "duel":
        return 100 * value_of(card) if value_of(card) <= 9 else 1000
    return 0


def recycle_penalty(pass_started: int) -> int:
    """The penalty of a recycle that starts pass `pass_started` (passes 1 and 2 are free)."""
    return RECYCLE_PENALTY if pass_started > FREE_PASSES else 0


def clock_per_action(rules: Ruleset) -> Fraction:
    """The clock model's seconds per action, exactly as written (0.7 is 7/10, not the nearest
    binary fraction); the clock must be on."""
    return Fraction(str(rules.seconds_per_action))


def clock_seconds(rules: Ruleset, actions: int) -> Fraction | None:
    """Exact time of `actions` actions under the clock model, or None with the clock off."""
    if not rules.clock_on:
        return None
    return clock_per_action(rules) * actions


def actions_within_limit(rules: Ruleset, actions: int) -> int:
    """How many of `actions` actions are done by the 300 s limit (all of them with the clock off)."""
    if not rules.clock_on or rules.scoring is None:
        return actions
    return min(actions, math.floor(Fraction(TIME_LIMIT_SECONDS) / clock_per_action(rules)))


def time_bonus(rules: Ruleset, actions: int, won: bool) -> int:
    """The clock bonus: 150 per whole second left when won, else 1 per whole 3 seconds left."""
    if not rules.clock_on or rules.scoring is None:
        return 0
    left = TIME_LIMIT_SECONDS - clock_seconds(rules, actions)
    whole_seconds = max(0, math.floor(left))
    if won:
        return WON_BONUS_PER_SECOND * whole_seconds
    return whole_seconds // STOP_BONUS_DIVISOR


@dataclass(frozen=True)
class Breakdown:
    """A line's score, event by event (RULES.md section 6)."""

    cards: int = 0
    turns: int = 0
    completion: int = 0
    recycles: int = 0
    undos: int = 0
    clock: int = 0

    @property
    def total(self) -> int:
        """The score: the sum of the events plus the time bonus."""
        return self.cards + self.turns + self.completion + self.recycles + self.undos + self.clock

    def to_json(self) -> dict:
        """The breakdown as a dict, with the total."""
        data = asdict(self)
        data["total"] = self.total
        return data


def breakdown(rules: Ruleset, card_total: int, turned: int, won: bool, penalised_recycles: int,
              undos: int, actions: int, out_of_time: bool = False) -> Breakdown:
    """Build the breakdown from counters taken at the end of the line (or at the 300 s cut).

    `out_of_time`: the line went past 300 s and was cut, so no whole second was left.
    """
    if rules.scoring is None:
        return Breakdown()
    return Breakdown(
        cards=card_total,
        turns=TURN_POINTS * turned,
        completion=COMPLETION[rules.scoring] if won else 0,
        recycles=-RECYCLE_PENALTY * penalised_recycles,
        undos=-UNDO_PENALTY * undos,
        clock=0 if out_of_time else time_bonus(rules, actions, won),
    )
