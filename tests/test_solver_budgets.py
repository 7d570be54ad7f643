"""Verdicts do not depend on how the work is shared out: a transposition table too small for the
search (which must then evict entries) and any schedule of the portfolio's searches give the same
answer, and every win still replays through the reference engine."""

from __future__ import annotations

import pytest

import solver.solve as solve_module
from solver.deal import Deal
from solver.rules import PRESETS
from solver.runner import ChunkedSearch
from solver.solve import FULL, RELAXED, RESTRICTED, Member, portfolio_members, relaxation, solve
from solver.tt import evict
from tests.test_solver_exhaustive import hand_made
from tests.test_solver_wins import check_win

DRAW3_UNLIMITED = PRESETS["classic"].with_overrides(draw=3, passes=None, foundation_to_tableau=True)

# (rules, seed, verdict, slots): deals whose search stores more positions than a table of that
# many slots holds. Under `classic` (draw 1, one pass) the table stores talon orders as well;
# with unlimited passes keys alone.
CASES = [
    (PRESETS["classic"], 14, "loss", 1 << 14),
    (PRESETS["classic"], 8, "win", 1 << 14),
    (DRAW3_UNLIMITED, 40, "loss", 1 << 11),
    (DRAW3_UNLIMITED, 7, "win", 1 << 13),
]


@pytest.mark.parametrize("rules, seed, verdict, slots", CASES, ids=lambda value: getattr(value, "name", value))
def test_a_table_too_small_for_the_search_evicts_and_keeps_the_verdict(rules, seed, verdict, slots, monkeypatch):
    deal = Deal.from_seed(seed)
    roomy = solve(deal, rules, max_nodes=3_000_000)
    assert roomy.result == verdict
    evictions = []

    def counted_evict(*args):
        evictions.append(args[2])
        return evict(*args)

    monkeypatch.setattr(ChunkedSearch, "_entries_within", lambda self, table_bytes: slots)
    monkeypatch.setattr(solve_module, "evict", counted_evict)
    cramped = solve(deal, rules, max_nodes=10_000_000, time_limit=60)
    assert cramped.result == verdict
    assert evictions and cramped.peak_table_bytes <= len(portfolio_members(rules)) * slots * 12
    if verdict == "loss":
        # Evicted positions were searched again: the proof took more nodes, it did not skip any.
        assert cramped.nodes > roomy.nodes
    else:
        check_win(deal, rules, cramped)


@pytest.mark.parametrize("seed", [40, 7, 20, 42])
def test_the_portfolio_schedule_does_not_change_the_verdict(seed, monkeypatch):
    """Short turns and an early hand-over to the one search under the full rules (which alone
    proves losses) decide as the default schedule does."""
    deal = Deal.from_seed(seed)
    default = solve(deal, DRAW3_UNLIMITED, max_nodes=3_000_000)
    monkeypatch.setattr(solve_module, "SOLO_NODES", 7)
    monkeypatch.setattr(solve_module, "SLICE_NODES", 5)
    monkeypatch.setattr(solve_module, "TURNS_NODES", 400)
    rescheduled = solve(deal, DRAW3_UNLIMITED, max_nodes=3_000_000)
    assert rescheduled.result == default.result != "unknown"
    if rescheduled.result == "win":
        check_win(deal, DRAW3_UNLIMITED, rescheduled)


def test_members_under_foundation_to_tableau_end_with_the_full_rules_then_the_relaxation():
    members = portfolio_members(DRAW3_UNLIMITED)
    assert [member.role for member in members] == [RESTRICTED] * 3 + [FULL, RELAXED]
    assert all(not member.rules.foundation_to_tableau for member in members[:3])
    assert members[3].rules == DRAW3_UNLIMITED
    relaxed = members[4].rules
    assert (relaxed.draw, relaxed.passes, relaxed.foundation_to_tableau) == (1, None, True)
    assert [(member.order, member.role) for member in portfolio_members(PRESETS["classic"])] == [(0, FULL), (0, RELAXED)]


def test_no_relaxation_under_draw_one_with_unlimited_passes_and_no_auto_play():
    rules = PRESETS["classic"].with_overrides(passes=None)
    assert relaxation(rules) is None
    assert RELAXED not in [member.role for member in portfolio_members(rules)]


@pytest.mark.parametrize("name", ["harmony", "duel"])
def test_the_relaxation_of_auto_play_rules_plays_by_hand(name):
    relaxed = relaxation(PRESETS[name])
    assert (relaxed.draw, relaxed.passes, relaxed.foundation_to_tableau, relaxed.auto_play) == (1, None, True, False)
    assert portfolio_members(PRESETS[name])[-1].rules == relaxed


@pytest.mark.parametrize("name, proved_relaxed", [("blocked-on-its-bases", True), ("draw-three-grouping", False)])
def test_a_loss_under_the_relaxation_decides_and_a_win_there_does_not(name, proved_relaxed, monkeypatch):
    """With the relaxed search first: where it proves a loss (a card lies on every card it could
    go on), that is the answer; where it wins (draw 1 takes the talon cards in the order they go
    up, draw 3 cannot), it stops and the search under the rules proves the loss."""
    rules = PRESETS["classic-draw3"]
    position = {case: position for case, position, _ in hand_made()}[f"hand:{name}"]
    monkeypatch.setattr(solve_module, "portfolio_members",
                        lambda rules: [Member(relaxation(rules), 0, RELAXED), Member(rules, 0, FULL)])
    result = solve(Deal.from_seed(0), rules, start=position, max_nodes=100_000)
    assert result.result == "loss"
    assert result.proved_under == (relaxation(rules) if proved_relaxed else rules)
