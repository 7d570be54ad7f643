"""Rulesets (RULES.md section 5): four presets, every parameter overridable."""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass, replace

from .cards import is_whole_number
from .errors import RulesError

SCORINGS = ("harmony", "duel")
TIME_LIMIT_SECONDS = 300
# The solver core keeps the pass number in a signed byte (`state.PASS`); a limit of more passes
# would need a wider field, and plays no differently from unlimited in any line worth finding.
MAX_PASSES = 127




@dataclass(frozen=True)
class Ruleset:
    """One set of rules.

    passes: the number of passes through the stock (1 = no recycle), or None for unlimited.
    scoring: "harmony", "duel" or None (no points: the objective is the fewest actions).
    seconds_per_action: the clock model; None switches the clock off.
    """

    name: str = "classic"
    draw: int = 1
    passes: int | None = 1
    foundation_to_tableau: bool = False
    auto_play: bool = False
    scoring: str | None = None
    seconds_per_action: float | None = 1.0

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise RulesError(f"a ruleset's name is a string, got {self.name!r}")
        if not is_whole_number(self.draw) or self.draw not in (1, 3):
            raise RulesError(f"draw must be 1 or 3, got {self.draw!r}")
        object.__setattr__(self, "draw", int(self.draw))  # a numpy integer too, as a plain int
        if self.passes is not None and (not is_whole_number(self.passes) or not 1 <= self.passes <= MAX_PASSES):
            raise RulesError(f"passes must be a whole number from 1 to {MAX_PASSES}, or unlimited, got {self.passes!r}")
        if self.passes is not None:
            object.__setattr__(self, "passes", int(self.passes))
        for flag in ("foundation_to_tableau", "auto_play"):
            value = getattr(self, flag)
            if not (isinstance(value, bool) or type(value).__name__ == "bool_"):  # numpy's bool too
                raise RulesError(f"{flag} must be True or False, got {value!r}")
            object.__setattr__(self, flag, bool(value))
        if self.scoring is not None and self.scoring not in SCORINGS:
            raise RulesError(f"unknown scoring {self.scoring!r} (choose harmony, duel or none)")
        if self.seconds_per_action is not None and not (
                isinstance(self.seconds_per_action, numbers.Real) and not isinstance(self.seconds_per_action, bool)
                and 0 < self.seconds_per_action <= TIME_LIMIT_SECONDS):
            # past the 300 s limit no action would count at all
            raise RulesError(f"seconds per action must be a number > 0 and at most {TIME_LIMIT_SECONDS}, "
                             f"got {self.seconds_per_action!r}")
        preset = globals().get("PRESETS", {}).get(self.name)
        if preset is not None and preset.parameters() != self.parameters():
            # a preset's name on other rules would say what they are not: name the differences
            object.__setattr__(self, "name", _overrides_name(preset, self))

    def parameters(self) -> tuple:
        """Every parameter but the name: two rulesets with the same parameters play the same game."""
        return (self.draw, self.passes, self.foundation_to_tableau, self.auto_play, self.scoring,
                self.seconds_per_action)

    @property
    def clock_on(self) -> bool:
        """True when the clock counts (time bonus and the 300 s limit apply to scoring)."""
        return self.seconds_per_action is not None

    def recycles_allowed(self, passes_started: int) -> bool:
        """True if a recycle is allowed after `passes_started` passes have begun."""
        return self.passes is None or passes_started < self.passes

    def with_overrides(self, **overrides) -> "Ruleset":
        """A copy with the given parameters changed; a parameter given as UNSET is left as it is
        (None is a value: unlimited passes, no scoring, no clock).

        A preset's name gets each parameter that differs from the preset, as its command-line option
        says it (`classic+draw=3+passes=unlimited+foundation-to-tableau`), so that two rulesets of
        the same name are the same rules (a batch file is resumed only under its own).
        """
        changes = {k: v for k, v in overrides.items() if v is not _UNSET}
        if not changes:
            return self
        changed = replace(self, **changes)
        preset = PRESETS.get(self.name.split("+", 1)[0])
        if preset is not None:
            changed = replace(changed, name=_overrides_name(preset, changed))
        return changed

    def to_json(self) -> dict:
        """The JSON form used in command output."""
        data = asdict(self)
        data["passes"] = "unlimited" if self.passes is None else self.passes
        data["clock"] = self.clock_on
        return data

    def describe(self) -> str:
        """One line for people: `classic: draw 1, 1 pass, ...`."""
        passes = "unlimited passes" if self.passes is None else f"{self.passes} pass" + ("es" if self.passes > 1 else "")
        parts = [f"draw {self.draw}", passes,
                 "foundation->tableau" if self.foundation_to_tableau else "no foundation->tableau",
                 "auto-play" if self.auto_play else "no auto-play",
                 f"scoring {self.scoring}" if self.scoring else "no scoring"]
        if self.clock_on:
            parts.append(f"clock {self.seconds_per_action:g} s/action")
        else:
            parts.append("no clock")
        return f"{self.name}: " + ", ".join(parts)


class _Unset:
    def __repr__(self):
        return "UNSET"


_UNSET = _Unset()
UNSET = _UNSET  # marker: "option not given"

PRESETS: dict[str, Ruleset] = {
    "classic": Ruleset("classic", draw=1, passes=1),
    "classic-draw3": Ruleset("classic-draw3", draw=3, passes=3),
    "harmony": Ruleset("harmony", draw=1, passes=None, foundation_to_tableau=True, auto_play=True,
                       scoring="harmony"),
    "duel": Ruleset("duel", draw=3, passes=None, foundation_to_tableau=True, auto_play=True,
                    scoring="duel"),
}


def _overrides_name(preset: Ruleset, rules: Ruleset) -> str:
    """The preset's name and, after a `+` each, the parameters of `rules` that differ from it."""
    parts = [preset.name]
    if rules.draw != preset.draw:
        parts.append(f"draw={rules.draw}")
    if rules.passes != preset.passes:
        parts.append("passes=" + ("unlimited" if rules.passes is None else str(rules.passes)))
    if rules.foundation_to_tableau != preset.foundation_to_tableau:
        parts.append(("" if rules.foundation_to_tableau else "no-") + "foundation-to-tableau")
    if rules.auto_play != preset.auto_play:
        parts.append(("" if rules.auto_play else "no-") + "auto-play")
    if rules.scoring != preset.scoring:
        parts.append(f"scoring={rules.scoring or 'none'}")
    if rules.seconds_per_action != preset.seconds_per_action:
        seconds = rules.seconds_per_action
        parts.append("no-clock" if seconds is None else
                     f"seconds-per-action={seconds:g}" if float(f"{seconds:g}") == seconds else
                     f"seconds-per-action={seconds!r}")
    return "+".join(parts)


def get_ruleset(name: str) -> Ruleset:
    """The preset of that name, or RulesError naming the known presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown ruleset {name!r} (choose {', '.join(PRESETS)})") from None


def parse_passes(text: str) -> int | None:
    """`3` -> 3, `unlimited` -> None."""
    if str(text).lower() in ("unlimited", "inf", "none"):
        return None
    try:
        if isinstance(text, str) and not text.isascii():  # int() reads `٣` as 3
            raise ValueError
        value = int(text)
    except ValueError:
        raise RulesError(f"passes must be a whole number from 1 to {MAX_PASSES}, or 'unlimited', got {text!r}") from None
    if not 1 <= value <= MAX_PASSES:
        raise RulesError(f"passes must be from 1 to {MAX_PASSES} (or unlimited), got {value}")
    return value


def parse_scoring(text: str) -> str | None:
    """`harmony`, `duel` or `none` -> the scoring name or None."""
    if text.lower() == "none":
        return None
    if text.lower() not in SCORINGS:
        raise RulesError(f"unknown scoring {text!r} (choose harmony, duel or none)")
    return text.lower()
