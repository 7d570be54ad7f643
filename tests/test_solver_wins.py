"""Every `win` the solver reports is a real win: its line replays through the reference engine.

For a handful of seeds under the four presets and under single-parameter overrides (draw 1/3,
passes 1/3/unlimited, foundation->tableau on/off, auto-play on/off), and from mid-game positions,
with small budgets: the line is legal, ends won, its action count is the engine's, and the
auto-play tokens (`*`) are exactly the moves the engine made by itself, where it made them.
"""

from __future__ import annotations

import random

import pytest

from solver.deal import Deal
from solver.game import Game, Position, replay
from solver.positions import to_text
from solver.rules import PRESETS
from solver.search import RUNNING
from solver.line import first_token
from solver.solve import SLICE_NODES, SOLO_NODES, Search, solve

MAX_NODES = 200_000
TIME_LIMIT = 5.0

PRESET_SEEDS = range(10)
OVERRIDES = {
    "d1-p1-f2t": dict(draw=1, passes=1, foundation_to_tableau=True),
    "d1-p3": dict(draw=1, passes=3),
    "d1-inf-auto": dict(draw=1, passes=None, auto_play=True),
    "d3-p1": dict(draw=3, passes=1),
    "d3-inf": dict(draw=3, passes=None),
    "d3-inf-f2t-auto": dict(draw=3, passes=None, foundation_to_tableau=True, auto_play=True),
    "harmony-d3-p3": dict(draw=3, passes=3),
    "harmony-noauto": dict(auto_play=False),
    "harmony-nof2t": dict(foundation_to_tableau=False),
    "duel-d1-p1": dict(draw=1, passes=1),
    "duel-noauto-nof2t": dict(auto_play=False, foundation_to_tableau=False),
}
OVERRIDE_SEEDS = {name: [0, 1, 2, 3, 4] for name in OVERRIDES}
OVERRIDE_SEEDS["d3-p1"] += [15, 22]  # draw 3 with one pass is rarely won; these two are (seeds 0-4 are not)


def _base(name: str):
    if name.startswith("harmony"):
        return PRESETS["harmony"]
    if name.startswith("duel"):
        return PRESETS["duel"]
    return PRESETS["classic"]


def rules_of(name: str):
    """A preset, or a ruleset built from one with overrides."""
    if name in PRESETS:
        return PRESETS[name]
    return _base(name).with_overrides(**OVERRIDES[name])


def check_win(deal, rules, result, start=None):
    """The line of a `win` replays from `start` (or the deal) legally to a won game, token for token."""
    where = f"{rules.describe()}, seed {deal.seed}" + (f", from\n{to_text(start)}" if start is not None else "")
    assert result.result == "win"
    played = replay(deal, rules, result.line, start)
    assert played.legal, f"{where}: token {played.error_index} {result.line[played.error_index]!r}: {played.error}"
    game = played.game
    assert game.won, f"{where}: the line does not end won"
    actions = [t for t in result.line if not t.endswith("*")]
    assert result.actions == game.actions == len(actions), where
    # every auto-play move of the engine is in the line, in its place, and nothing else is starred
    assert [a.token for a in game.line] == list(result.line), where
    stars = [t for t in result.line if t.endswith("*")]
    if rules.auto_play:
        assert stars, f"{where}: a won game under auto-play without a single auto-play move"
    else:
        assert not stars, where
    return game


# ----- whole deals ------------------------------------------------------------------------------

_verdicts: dict[tuple[str, int], str] = {}


def _solve_deal(name: str, seed: int):
    deal = Deal.from_seed(seed)
    rules = rules_of(name)
    result = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT)
    assert result.result in ("win", "loss", "unknown")
    _verdicts[(name, seed)] = result.result
    if result.result == "win":
        check_win(deal, rules, result)
    else:
        assert result.line == [] and result.actions is None
    return result


@pytest.mark.parametrize("seed", PRESET_SEEDS)
@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_wins_replay(name, seed):
    _solve_deal(name, seed)


@pytest.mark.parametrize("name,seed", [(n, s) for n in OVERRIDES for s in OVERRIDE_SEEDS[n]])
def test_override_wins_replay(name, seed):
    _solve_deal(name, seed)


def test_wins_were_checked():
    """The tests above are not vacuous: every ruleset won some deals. Their verdicts are reused
    where they ran first; run alone (or in another order), the deals are solved here."""
    seeds_of = {name: list(PRESET_SEEDS) for name in PRESETS} | OVERRIDE_SEEDS
    for name, seeds in seeds_of.items():
        won = any((_verdicts.get((name, seed)) or _solve_deal(name, seed).result) == "win" for seed in seeds)
        assert won, f"{name}: no deal won within the budget"


def test_auto_play_tokens_sit_where_the_engine_made_them():
    """A harmony win: after each action, exactly the engine's auto-play moves follow, in order."""
    deal = Deal.from_seed(2)
    rules = PRESETS["harmony"]
    result = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT)
    assert result.result == "win"
    game = Game(deal, rules)
    tokens = list(result.line)
    i = 0
    while i < len(tokens):
        assert not tokens[i].endswith("*"), f"auto-play token {tokens[i]} where no action preceded it"
        made = [a.token for a in game.play(tokens[i])]
        i += 1
        following = []
        while i < len(tokens) and tokens[i].endswith("*"):
            following.append(tokens[i])
            i += 1
        assert following == made, f"after action {tokens[i - len(following) - 1]}"
    assert game.won


# ----- mid-game starts ----------------------------------------------------------------------------

def _random_playout(deal, rules, rng, actions):
    """Play random legal actions (moves preferred) from the deal; return the game."""
    game = Game(deal, rules)
    for _ in range(actions):
        legal = game.legal_actions()
        if not legal:
            break
        moves = [a for a in legal if a.kind == "move" and a.source != "F"]
        game.apply(rng.choice(moves) if moves and rng.random() < 0.7 else rng.choice(legal))
    return game


MID_CASES = [(name, seed, steps) for name in ("classic", "classic-draw3", "harmony", "duel", "d3-inf")
             for seed, steps in ((2, 15), (3, 40), (5, 25), (7, 60))]


@pytest.mark.parametrize("name,seed,steps", MID_CASES)
def test_wins_from_mid_game_positions(name, seed, steps):
    """From a position reached by random play: a win replays from that position; and a deal whose
    mid-game position is won cannot be a proven loss (nor the other way round)."""
    rules = rules_of(name)
    deal = Deal.from_seed(seed)
    rng = random.Random(seed * 1000 + steps)
    game = _random_playout(deal, rules, rng, steps)
    start = game.position.copy()
    result = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT, start=start)
    if result.result == "win":
        check_win(deal, rules, result, start)
    whole = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT)
    if result.result == "win":
        assert whole.result != "loss", f"{rules.describe()} seed {seed}: the deal is a 'loss' but this " \
                                        f"position reached from it is won:\n{to_text(start)}"
    if whole.result == "loss":
        assert result.result != "win"


@pytest.mark.parametrize("name", ["classic", "classic-draw3", "harmony", "duel"])
def test_wins_from_positions_along_a_winning_line(name):
    """Every 10th position of a winning line is itself won, and its own line replays."""
    rules = rules_of(name)
    for seed in range(2, 12):
        deal = Deal.from_seed(seed)
        first = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT)
        if first.result == "win":
            break
    else:
        pytest.fail(f"{name}: no win among seeds 2..11")
    game = Game(deal, rules)
    actions = [t for t in first.line if not t.endswith("*")]
    checked = 0
    for index, token in enumerate(actions):
        game.play(token)
        if index % 10 == 9 and not game.won:
            start = game.position.copy()
            result = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT, start=start)
            assert result.result == "win", f"{rules.describe()} seed {seed}: a position of the solver's " \
                                           f"own winning line is not won:\n{to_text(start)}"
            check_win(deal, rules, result, start)
            checked += 1
    assert checked >= 5


def test_start_with_pending_auto_play():
    """A start position where auto-play would act (reached without auto-play) under harmony rules:
    the engine does not auto-play it (RULES 4), and the solver's line must replay from it."""
    deal = Deal.from_seed(3)
    plain = PRESETS["harmony"].with_overrides(auto_play=False)
    rules = PRESETS["harmony"]
    rng = random.Random(7)
    found = 0
    for attempt in range(40):
        game = _random_playout(deal, plain, rng, 5 + attempt)
        pos = game.position
        tops = [pos.waste_top] + [pos.pile_top(p) for p in range(1, 8) if len(pos.piles[p - 1]) > pos.face_down[p - 1]]
        if not any(c is not None and c % 13 == 0 and pos.foundations[c // 13] == 0 for c in tops):
            continue  # no ace showing: nothing pending
        start = pos.copy()
        result = solve(deal, rules, max_nodes=MAX_NODES, time_limit=TIME_LIMIT, start=start)
        if result.result == "win":
            check_win(deal, rules, result, start)
            found += 1
        if found >= 3:
            break
    assert found >= 1


def test_a_deal_the_first_move_order_leaves_open_is_won_by_another():
    """Seed 213 (draw 3, unlimited passes): the first move order is still searching after its
    solo nodes and more, another order of the portfolio wins soon after; the line is checked
    like any other, and the tables together stay within the memory budget."""
    deal = Deal.from_seed(213)
    rules = PRESETS["classic"].with_overrides(draw=3, passes=None)
    first = Search(Position.initial(deal), rules, memory_mb=64)
    assert first.run(SOLO_NODES + SLICE_NODES) == RUNNING
    result = solve(deal, rules, max_nodes=SOLO_NODES + 3 * SLICE_NODES, memory_mb=64)
    assert result.result == "win" and result.nodes > SOLO_NODES
    check_win(deal, rules, result)
    assert result.peak_table_bytes <= 64 * (1 << 20)


@pytest.mark.parametrize("name", ["classic", "harmony", "duel"])
def test_unexpanded_wins_give_the_same_verdict_length_and_first_action(name):
    """`solve(expand=False)` (for the hints' sampling) keeps the macro-moves only: the same
    verdict, `actions` as the expanded line counts them, and `first_token` its first action."""
    rules = rules_of(name)
    for seed in (3, 5, 8):
        deal = Deal.from_seed(seed)
        full = solve(deal, rules, max_nodes=MAX_NODES)
        bare = solve(deal, rules, max_nodes=MAX_NODES, expand=False)
        assert bare.result == full.result == "win" and bare.line == [] and bare.path == full.path
        assert bare.actions == full.actions
        assert first_token(Game(deal, rules), bare.path) == full.line[0]
