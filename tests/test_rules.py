"""Rulesets (RULES.md section 5): the four presets, overrides, invalid values."""

import pytest

from solver.errors import RulesError
from solver.options import build_ruleset
from solver.rules import MAX_PASSES, PRESETS, Ruleset, get_ruleset, parse_passes, parse_scoring

# name: (draw, passes, foundation -> tableau, auto-play, scoring) straight from the RULES.md 5 table
TABLE = {
    "classic": (1, 1, False, False, None),
    "classic-draw3": (3, 3, False, False, None),
    "harmony": (1, None, True, True, "harmony"),
    "duel": (3, None, True, True, "duel"),
}


def test_exactly_four_presets():
    assert sorted(PRESETS) == sorted(TABLE)


@pytest.mark.parametrize("name", list(TABLE))
def test_preset_matches_table(name):
    rules = get_ruleset(name)
    assert rules.name == name
    assert (rules.draw, rules.passes, rules.foundation_to_tableau, rules.auto_play, rules.scoring) == TABLE[name]
    assert rules.seconds_per_action == 1 and rules.clock_on  # default clock: 1 s per action


def test_unknown_ruleset():
    with pytest.raises(RulesError, match="bogus.*classic"):
        get_ruleset("bogus")
    with pytest.raises(RulesError):
        build_ruleset("Classic")


def test_pass_limit():
    assert [PRESETS["classic"].recycles_allowed(p) for p in (1, 2)] == [False, False]
    assert [PRESETS["classic-draw3"].recycles_allowed(p) for p in (1, 2, 3, 4)] == [True, True, False, False]
    assert all(PRESETS["harmony"].recycles_allowed(p) for p in (1, 2, 3, 50))


def test_overrides_change_one_parameter():
    base = PRESETS["classic"]
    changed = base.with_overrides(draw=3)
    assert changed.draw == 3
    assert (changed.passes, changed.foundation_to_tableau, changed.auto_play, changed.scoring) == (1, False, False, None)
    assert changed.name != "classic" and changed.name.startswith("classic")
    assert base.draw == 1  # the preset is not modified
    assert base.with_overrides(draw=1) == base  # no real change: still the preset


def test_build_ruleset_overrides():
    rules = build_ruleset("harmony", draw="3", passes="3", foundation_to_tableau=False, auto_play=False,
                          scoring="duel", seconds_per_action=2.5)
    assert (rules.draw, rules.passes, rules.foundation_to_tableau, rules.auto_play, rules.scoring,
            rules.seconds_per_action) == (3, 3, False, False, "duel", 2.5)
    assert build_ruleset("classic", passes="unlimited").passes is None
    assert build_ruleset("duel", scoring="none").scoring is None
    off = build_ruleset("harmony", no_clock=True)
    assert off.seconds_per_action is None and not off.clock_on
    assert build_ruleset("duel") == PRESETS["duel"]  # nothing given: the preset itself
    assert build_ruleset("duel", draw=None, passes=None) == PRESETS["duel"]


@pytest.mark.parametrize("kwargs", [
    {"draw": 2}, {"draw": 0}, {"passes": 0}, {"passes": -1}, {"passes": 1.5}, {"scoring": "bogus"},
    {"scoring": "Harmony"}, {"seconds_per_action": 0}, {"seconds_per_action": -1},
    {"seconds_per_action": float("nan")}, {"seconds_per_action": float("inf")},
    {"passes": 128}, {"passes": 2**31}, {"seconds_per_action": 300.5}, {"seconds_per_action": 1e308},
])
def test_invalid_parameters(kwargs):
    with pytest.raises(RulesError):
        Ruleset(**kwargs)
    with pytest.raises(RulesError):
        PRESETS["harmony"].with_overrides(**kwargs)


@pytest.mark.parametrize("kwargs", [
    {"draw": "2"}, {"passes": "0"}, {"passes": "many"}, {"scoring": "golf"}, {"seconds_per_action": -2},
    {"seconds_per_action": 0}, {"seconds_per_action": 1, "no_clock": True}, {"passes": "128"},
    {"seconds_per_action": 1e308},
])
def test_build_ruleset_rejects(kwargs):
    with pytest.raises(RulesError):
        build_ruleset("classic", **kwargs)


def test_an_overridden_preset_is_named_by_what_differs():
    classic = PRESETS["classic"]
    assert classic.with_overrides(draw=3, passes=None, foundation_to_tableau=True).name == \
        "classic+draw=3+passes=unlimited+foundation-to-tableau"
    assert classic.with_overrides(draw=3).with_overrides(draw=1).name == "classic"  # back to the preset
    assert classic.with_overrides(draw=3).with_overrides(passes=2).name == "classic+draw=3+passes=2"
    harmony = PRESETS["harmony"]
    assert harmony.with_overrides(seconds_per_action=0.7).name == "harmony+seconds-per-action=0.7"
    assert harmony.with_overrides(seconds_per_action=None, auto_play=False, scoring=None).name == \
        "harmony+no-auto-play+scoring=none+no-clock"
    # different rules never share a name: a batch file is resumed only under its own rules
    assert harmony.with_overrides(seconds_per_action=1 / 3).name != harmony.with_overrides(seconds_per_action=0.333333).name
    assert Ruleset("t", draw=3).with_overrides(passes=2).name == "t"  # not a preset: the name stays


def test_parse_passes_and_scoring():
    assert parse_passes("3") == 3 and parse_passes("unlimited") is None and parse_passes("UNLIMITED") is None
    assert parse_passes(str(MAX_PASSES)) == MAX_PASSES
    for bad in ("0", "-2", "x", "2.5", str(MAX_PASSES + 1), "2147483648"):
        with pytest.raises(RulesError):
            parse_passes(bad)
    assert parse_scoring("none") is None and parse_scoring("Duel") == "duel"
    with pytest.raises(RulesError):
        parse_scoring("klondike")


def test_json_and_describe():
    data = PRESETS["harmony"].to_json()
    assert data["passes"] == "unlimited" and data["clock"] is True and data["draw"] == 1
    assert build_ruleset("classic", no_clock=True).to_json()["clock"] is False
    text = PRESETS["classic-draw3"].describe()
    assert text.startswith("classic-draw3:") and "draw 3" in text and "3 passes" in text
