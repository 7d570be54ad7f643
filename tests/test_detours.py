"""Cutting detours out of lines (`solver.detours`): every cut line is replayed by the reference
engine, is worth more than the line it came from, and never more than a proved optimum."""

from __future__ import annotations

import pytest

from solver import optimal as optimal_module
from solver.benchmark import BENCH_RULESETS
from solver.deal import Deal
from solver.detours import cut_detours, played
from solver.game import Game, replay
from solver.notation import DRAW, RECYCLE, move
from solver.optimal import best, line_value
from solver.rules import PRESETS

HARMONY = PRESETS["harmony"]
KSOLVE_DRAW1 = BENCH_RULESETS["ksolve-draw1"]  # unlimited passes, foundation->tableau, fewest actions


def own_actions(game: Game) -> list:
    return [action for action in game.line if not action.auto]


def foundation_detours(game: Game):
    """Each detour of a card taken down from its foundation onto a pile and put back after the
    line's next action (so that no position repeats; the line's own moves stay between): (index,
    the actions from there on that replace the line's next one)."""
    actions = own_actions(game)
    before = Game(game.deal, game.rules)
    for index, action in enumerate(actions):
        for down in before.legal_actions():
            if down.kind == "move" and down.source == "F" and index + 1 < len(actions):
                yield index, [down, actions[index], move(down.card, down.target, "F")]
        before.apply(action)


def talon_loops(game: Game):
    """Each round of the talon (draws to the end of the stock, a recycle, draws back to where the
    waste was) put before an action: (index, the actions from there on that replace it)."""
    actions = own_actions(game)
    before = Game(game.deal, game.rules)
    draw = game.rules.draw
    for index, action in enumerate(actions):
        position = before.position
        if position.stock and position.waste and len(position.waste) % draw == 0:
            stock_draws = -(-len(position.stock) // draw)
            yield index, [DRAW] * stock_draws + [RECYCLE] + [DRAW] * (len(position.waste) // draw) + [action]
        before.apply(action)


def detoured(game: Game, detours) -> Game:
    """The line of `game` with the first detour that leaves it legal (and worth less)."""
    origin = Game(game.deal, game.rules)
    actions = own_actions(game)
    for index, replacing in detours:
        longer = played(origin, actions[:index] + replacing + actions[index + 1:])
        if longer is not None and longer.won == game.won and line_value(longer) < line_value(game):
            return longer
    raise AssertionError("no detour fits this line")


@pytest.fixture(scope="module")
def proved_lines() -> dict:
    """Lines `best` proves the best: `harmony` seed 5, `ksolve-draw1` seed 3."""
    lines = {}
    for name, rules, seed in (("harmony", HARMONY, 5), ("ksolve-draw1", KSOLVE_DRAW1, 3)):
        result = best(Deal.from_seed(seed), rules, max_nodes=3_000_000)
        assert result.optimal
        lines[name] = result.game
    return lines


@pytest.mark.parametrize("name", ["harmony", "ksolve-draw1"])
@pytest.mark.parametrize("kind", [foundation_detours, talon_loops])
def test_a_detour_put_into_a_best_line_is_cut_out_again(proved_lines, name, kind):
    """A card taken down from its foundation and put back, or a round of the talon, put into a
    line proved best: cutting detours gives a legal line worth the optimum again (no more, as
    nothing beats it), with as many actions as the best line."""
    optimum = proved_lines[name]
    longer = detoured(optimum, kind(optimum))
    origin = Game(optimum.deal, optimum.rules)
    cut = cut_detours(origin, longer, line_value)
    again = replay(optimum.deal, optimum.rules, [action.token for action in cut.line])
    assert again.legal and line_value(again.game) == line_value(cut)
    assert line_value(cut) == line_value(optimum) and cut.actions == optimum.actions and cut.won


@pytest.mark.parametrize("name", ["harmony", "ksolve-draw1"])
def test_a_line_without_detours_is_left_as_it_is(proved_lines, name):
    optimum = proved_lines[name]
    cut = cut_detours(Game(optimum.deal, optimum.rules), optimum, line_value)
    assert cut is optimum


def test_past_its_deadline_nothing_is_cut(proved_lines):
    optimum = proved_lines["harmony"]
    longer = detoured(optimum, foundation_detours(optimum))
    assert cut_detours(Game(optimum.deal, optimum.rules), longer, line_value, deadline=0.0) is longer


def test_a_line_from_a_game_in_progress_keeps_what_was_played(proved_lines):
    """From a game in progress only the continuation is cut: the actions played before stay."""
    optimum = proved_lines["harmony"]
    longer = detoured(optimum, foundation_detours(optimum))
    played_before = 10
    origin = played(Game(optimum.deal, optimum.rules), own_actions(longer)[:played_before])
    cut = cut_detours(origin, longer, line_value)
    assert cut.line[:len(origin.line)] == origin.line
    assert line_value(cut) > line_value(longer)


def test_best_cuts_detours_only_from_lines_it_did_not_prove(monkeypatch):
    """`best` hands a line it did not prove to `cut_detours` and reports what comes back; a proved
    line it does not touch."""
    calls = []
    real = optimal_module.cut_detours

    def logged(origin, line, value, deadline):
        calls.append(line)
        cut = real(origin, line, value, deadline)
        calls.append(cut)
        return cut

    monkeypatch.setattr(optimal_module, "cut_detours", logged)
    deal = Deal.from_seed(5)
    assert best(deal, HARMONY, max_nodes=3_000_000).optimal and calls == []
    result = best(deal, HARMONY, max_nodes=20_000)
    assert not result.optimal and len(calls) == 2
    assert result.game is calls[1] and line_value(calls[1]) >= line_value(calls[0])
