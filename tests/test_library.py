"""The library as a Python program uses it: the README's example runs as written, and bad
arguments raise KlondikeError or TypeError at once, never a wrong answer or an error from deep
inside (a numba kernel, an index past a list)."""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest

import solver
from solver.deal import Deal
from solver.errors import DealError, IllegalAction, KlondikeError, PositionError, RulesError
from solver.game import Game, Position, replay
from solver.hint import hint
from solver.notation import DRAW, Action, move
from solver.optimal import best
from solver.positions import UNKNOWN
from solver.rules import PRESETS, Ruleset
from solver.solve import solve

CLASSIC, DUEL = PRESETS["classic"], PRESETS["duel"]
DEAL = Deal.from_seed(3)
README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_library_example_runs_as_written():
    section = README.read_text(encoding="utf-8").split("### As a library", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README example", "exec"), {})
    printed = out.getvalue()
    assert printed.startswith("win ") and "<Game seed 3 (native), classic, 1 action," in printed


def test_the_package_names_its_objects():
    for name in solver.__all__:
        assert getattr(solver, name) is not None
    assert solver.Deal is Deal and solver.best is best
    with pytest.raises(AttributeError):
        solver.no_such_name  # noqa: B018


@pytest.mark.parametrize("change, words", [
    (lambda p: p.stock.__setitem__(0, p.stock[1]), "duplicate"),
    (lambda p: p.stock.pop(), "52 cards"),
    (lambda p: p.face_down.__setitem__(0, 1), "face up"),
    (lambda p: p.stock.__setitem__(0, 200), "0..51"),
    (lambda p: p.stock.__setitem__(0, 1.0), "whole numbers"),
    (lambda p: p.piles.pop(), "7 piles"),
    (lambda p: setattr(p, "pass_number", 0), "pass number starts at 1"),
])
def test_a_start_that_cannot_occur_is_refused_before_any_search(change, words):
    position = Position.initial(DEAL)
    change(position)
    for call in (lambda: solve(DEAL, CLASSIC, start=position, max_nodes=1000),
                 lambda: best(DEAL, CLASSIC, start=position, max_nodes=1000),
                 lambda: Game(DEAL, CLASSIC, position)):
        with pytest.raises(PositionError, match=words):
            call()


def test_unknown_cards_are_for_hints_only():
    position = Position.initial(DEAL)
    position.piles[6][0] = UNKNOWN
    Game(DEAL, CLASSIC, position)  # a hint's game holds them until it samples
    for search in (solve, best):
        with pytest.raises(PositionError, match="unknown cards"):
            search(DEAL, CLASSIC, start=position, max_nodes=1000)


def test_the_solver_core_refuses_what_its_arrays_cannot_hold():
    # the reference engine plays a pile of 25 cards (its tests build such piles); the core holds 20
    position = Position.initial(DEAL)
    position.piles[0] = position.stock + position.piles[0]
    position.face_down[0] = 24
    position.stock = []
    Game(DEAL, CLASSIC, position).play("Ad:1>F")
    with pytest.raises(PositionError, match="at most 20"):
        solve(DEAL, CLASSIC, start=position, max_nodes=1000)


@pytest.mark.parametrize("build", [
    lambda: move(46, 1, 0), lambda: move(46, 1, -1), lambda: move(13, 9, "F"), lambda: move(13, "1", "F"),
    lambda: move(13, True, "F"), lambda: move(52, 1, "F"), lambda: Action("jump"),
])
def test_actions_name_real_places(build):
    # a pile counts from 1, as in the tokens: 0 or -1 once indexed pile 7
    with pytest.raises(KlondikeError):
        build()


def test_apply_takes_actions_and_no_auto_play_moves():
    game = Game(DEAL, DUEL)
    with pytest.raises(TypeError, match="play\\(\\) takes a token"):
        game.apply("D")
    with pytest.raises(IllegalAction, match="auto-play"):
        game.play("Ah:2>F*")
    assert game.actions == 0
    game.apply(DRAW)
    assert game.actions == 1


@pytest.mark.parametrize("fields, words", [
    (dict(draw=3.0), "draw"), (dict(draw=True), "draw"), (dict(passes=True), "passes"),
    (dict(auto_play="no"), "auto_play"), (dict(auto_play=None), "auto_play"),
    (dict(foundation_to_tableau=1), "foundation_to_tableau"), (dict(name=3), "name"),
])
def test_rulesets_refuse_values_of_the_wrong_type(fields, words):
    with pytest.raises(RulesError, match=words):
        Ruleset(**fields)


def test_a_preset_name_on_other_rules_names_the_differences():
    assert Ruleset(draw=3, passes=None).name == "classic+draw=3+passes=unlimited"
    assert Ruleset("classic-draw3", draw=np.int64(3), passes=np.int64(3)) == PRESETS["classic-draw3"]
    assert CLASSIC.with_overrides(draw=3) == Ruleset(draw=3)
    assert Ruleset("mine", draw=3).name == "mine"


def test_deals_take_any_sequence_of_card_indices_and_refuse_the_rest():
    same = Deal(list(DEAL.cards), 3, "native")
    assert same == DEAL and hash(same) == hash(DEAL)
    assert Deal(np.array(DEAL.cards), 3, "native") == DEAL
    assert Deal.from_seed(np.int64(3)) == DEAL
    assert Deal.from_codes(DEAL.codes).cards == DEAL.cards
    for bad in (lambda: Deal(range(52), 3, "native"), lambda: Deal.from_seed(True), lambda: Deal.from_seed("3"), lambda: Deal(tuple(map(float, DEAL.cards))),
                lambda: Deal(5), lambda: Deal.from_codes(None)):
        with pytest.raises(DealError):
            bad()


@pytest.mark.parametrize("budget", [
    dict(max_nodes=0), dict(max_nodes=-5), dict(max_nodes=1.5), dict(max_nodes="1000"),
    dict(time_limit=0), dict(time_limit=-1), dict(time_limit=math.nan), dict(time_limit="2"),
    dict(memory_mb=0), dict(memory_mb=None), dict(memory_mb=math.nan),
])
def test_budgets_are_checked_before_a_search(budget):
    for search in (solve, best):
        with pytest.raises(KlondikeError):
            search(DEAL, CLASSIC, **budget)
    with pytest.raises(KlondikeError):
        hint(DEAL, CLASSIC, **budget)


def test_wrong_objects_are_type_errors():
    with pytest.raises(TypeError, match="Ruleset"):
        solve(DEAL, "classic", max_nodes=1000)
    with pytest.raises(TypeError, match="Deal"):
        best(None, CLASSIC, max_nodes=1000)


def test_best_refuses_a_game_of_another_deal_or_rules_and_a_start_beside_it():
    game = Game(DEAL, CLASSIC)
    for call in (lambda: best(DEAL, DUEL, game=game, max_nodes=1000),
                 lambda: best(Deal.from_seed(4), CLASSIC, game=game, max_nodes=1000),
                 lambda: best(DEAL, CLASSIC, game=game, start=Position.initial(DEAL), max_nodes=1000),
                 lambda: best(DEAL, CLASSIC, threads=True, max_nodes=1000)):
        with pytest.raises(KlondikeError):
            call()


def test_a_line_may_be_one_string_of_tokens():
    assert replay(DEAL, CLASSIC, "Ad:1>F Ah:2>F").game.actions == 2
    as_text = hint(DEAL, CLASSIC, "Ad:1>F D", top=None, max_nodes=2000)
    as_list = hint(DEAL, CLASSIC, ["Ad:1>F", "D"], top=None, max_nodes=2000)
    assert [c.token for c in as_text.candidates] == [c.token for c in as_list.candidates]
    with pytest.raises(TypeError):
        replay(DEAL, CLASSIC, 5)


@pytest.mark.parametrize("top", [0, -1, 1.5, True])
def test_a_hint_ranks_at_least_one_candidate(top):
    with pytest.raises(KlondikeError, match="top"):
        hint(DEAL, CLASSIC, top=top, max_nodes=1000)


def test_objects_show_what_they_are():
    game = Game(DEAL, CLASSIC)
    game.play("Ad:1>F")
    assert repr(DEAL) == "<Deal seed 3 (native)>"
    assert repr(game) == "<Game seed 3 (native), classic, 1 action, 1 on the foundations>"
    assert repr(game.line[0]) == "<Action Ad:1>F>"
    assert str(game.position).startswith("foundations: c=0 d=1 h=0 s=0")
