"""Commitments (solver.commitments): which actions can be taken back, and the decisions a sampled
hint weighs. Every "reversible" is checked on the reference engine: the position before the action
comes back by legal play."""

import json
import random

import pytest

from solver import commitments
from solver import hint as hint_lib
from solver.cards import value_of
from solver.deal import Deal
from solver.errors import KlondikeError
from solver.game import Game
from solver.notation import DRAW, RECYCLE
from solver.rules import PRESETS
from solver.solve import solve

DRAW3 = PRESETS["classic"].with_overrides(draw=3, passes=None, foundation_to_tableau=True)
DRAW1 = PRESETS["classic"].with_overrides(draw=1, passes=None)
LIMITED = PRESETS["classic-draw3"]
NODES = dict(time_limit=None, max_nodes=5_000)


def key(game: Game) -> tuple:
    """The position; without its pass number under unlimited passes (it changes nothing then)."""
    return commitments.state_key(game.position, unlimited=game.rules.passes is None)


def comes_back(game: Game, action) -> bool:
    """The engine's answer: after `action`, does legal play bring back the position before it? Talon
    actions are undone by going round the stock (three rounds at most), moves by one move back."""
    before = key(game)
    after = game.copy()
    after.apply(action)
    if action.kind in ("draw", "recycle"):
        for _ in range(3 * (len(after.position.stock) + len(after.position.waste)) + 3):
            talon = [a for a in after.legal_actions() if a.kind in ("draw", "recycle")]
            if not talon:
                return False
            after.apply(talon[0])
            if key(after) == before:
                return True
        return False
    for back in after.legal_actions():
        again = after.copy()
        again.apply(back)
        if key(again) == before:
            return True
    return False


def why_not(game: Game, action) -> bool:
    """A reason from the rules why `action` can never be taken back."""
    position, rules = game.position, game.rules
    if action.kind in ("draw", "recycle"):
        return rules.passes is not None or len(position.waste) % rules.draw != 0
    if action.source == "W":
        return True  # nothing goes back to the waste
    pile = position.piles[action.source - 1]
    index = pile.index(action.card)
    down = position.face_down[action.source - 1]
    if index == down and down > 0:
        return True  # a card is turned
    if action.target == "F" and not rules.foundation_to_tableau:
        return True  # the foundations never give back
    return index == 0 and value_of(action.card) != 13  # only a king goes to an empty pile


@pytest.mark.parametrize("rules", [DRAW3, DRAW1, LIMITED], ids=["draw3", "draw1", "limited"])
@pytest.mark.parametrize("seed", [3, 11])
def test_reversible_agrees_with_the_engine(rules, seed):
    # random games: every legal action at every step, both answers checked
    rng = random.Random(seed)
    game = Game(Deal.from_seed(seed), rules)
    kinds = set()
    for _ in range(120):
        actions = game.legal_actions()
        if not actions:
            break
        for action in actions:
            if commitments.reversible(game, action):
                assert comes_back(game, action), (action.token, game.position)
                kinds.add(("reversible", action.kind))
            else:
                assert why_not(game, action), (action.token, game.position)
                if action.kind == "draw":
                    assert not comes_back(game, action), (action.token, game.position)
                kinds.add(("commitment", action.kind))
        game.apply(rng.choice(actions))
    assert ("commitment", "move") in kinds
    assert (("commitment", "draw") in kinds) == (rules.draw > 1 or rules.passes is not None)  # draw 1: never
    if rules.passes is None:
        assert ("reversible", "draw") in kinds and ("reversible", "move") in kinds


def test_talon_actions_are_commitments_with_a_pass_limit_or_an_unseen_card():
    game = Game(Deal.from_seed(3), LIMITED)
    assert not commitments.reversible(game, DRAW)
    masked = hint_lib.fork(game, hint_lib.visible_position(game.position), deal=hint_lib.label_deal())
    unlimited = Game(masked.deal, DRAW3, masked.position)
    assert not commitments.reversible(unlimited, DRAW)  # the draw shows unseen stock cards
    known = Game(Deal.from_seed(3), DRAW3)
    assert commitments.reversible(known, DRAW)
    for _ in range(8):
        known.play("D")
    assert commitments.reversible(known, RECYCLE)


def looked(seed: int) -> Game:
    """The game of `seed` (draw 3, unlimited) after drawing the stock through once, as the player
    knows it: every stock card seen, the face-down cards unknown."""
    game = Game(Deal.from_seed(seed), DRAW3)
    observer = hint_lib.Observer(game.position)
    hint_lib.look_through_stock(game, observer)
    assert game.actions == 9 and game.position.stock == Game(Deal.from_seed(seed), DRAW3).position.stock
    assert hint_lib.visible_position(game.position, observer.seen).stock == game.position.stock  # all seen
    return game, observer


def test_commitments_are_reversible_play_then_one_decision():
    game, observer = looked(3)
    masked = hint_lib.fork(game, hint_lib.visible_position(game.position, observer.seen), deal=hint_lib.label_deal())
    found = commitments.commitments(masked)
    assert len(found) >= 3 and any(c.prefix for c in found)
    decisions = []
    for commitment in found:
        replay = game.copy()  # the true game: the plan is legal there, and shows a card only at its end
        for action in commitment.prefix:
            assert commitments.reversible(replay, action)
            replay.apply(action)
        assert not commitments.reversible(replay, commitment.action)
        decisions.append(commitments.decision(replay, commitment.action))
        replay.apply(commitment.action)
    assert len(set(decisions)) == len(decisions)
    # every commitment open at the start is among them, with no reversible action before it
    for action in masked.legal_actions():
        if not commitments.reversible(masked, action):
            assert commitments.Commitment((), action) in found


def test_a_game_where_nothing_makes_progress_has_no_commitment():
    # seed 2, stock seen: no stock card and no pile card has anywhere to go, only draws round the stock
    game, observer = looked(2)
    masked = hint_lib.fork(game, hint_lib.visible_position(game.position, observer.seen), deal=hint_lib.label_deal())
    assert [a.kind for a in masked.legal_actions()] == ["draw"]
    assert commitments.commitments(masked) == []
    result = hint_lib.honest_hint(game, observer.seen, samples=2, commitments=True, **NODES)
    assert result.candidates == [] and result.over == "no action makes progress"
    assert "no action makes progress: the game is over" in result.headline()


def test_the_sampled_hint_ranks_commitments_and_their_plans_replay():
    game, observer = looked(3)
    result = hint_lib.honest_hint(game, observer.seen, samples=3, rng_seed=4, top=None, commitments=True, **NODES)
    assert result.mode == "sampled" and len(result.candidates) >= 3
    for candidate in result.candidates:
        assert candidate.plan and candidate.plan[0] == candidate.action
        replay = game.copy()
        for action in candidate.plan:
            replay.apply(action)
        data = candidate.to_json()
        assert data["plan"] == [a.token for a in candidate.plan] and data["action"] == candidate.plan[0].token
        assert candidate.label.split() == data["plan"]
    text = hint_lib.format_hint(result)
    assert f"hint: {result.best.label}: win probability" in text
    assert text.count("win probability") == 1 + len(result.candidates)  # the headline, then one row each
    # by default, and under scoring, every distinct legal action is a candidate on its own
    plain = hint_lib.honest_hint(game, observer.seen, samples=3, rng_seed=4, top=None, **NODES)
    assert sorted(c.token for c in plain.candidates) == sorted(a.token for a, _ in hint_lib.distinct_actions(game))
    assert all(not c.plan and "plan" not in c.to_json() for c in plain.candidates)
    scored = hint_lib.honest_hint(Game(Deal.from_seed(3), PRESETS["duel"]), samples=1, top=None, commitments=True,
                                  **NODES)
    assert scored.candidates and all(not c.plan and "plan" not in c.to_json() for c in scored.candidates)


def test_the_first_commitment_of_a_solver_line():
    game, observer = looked(3)
    masked = hint_lib.fork(game, hint_lib.visible_position(game.position, observer.seen), deal=hint_lib.label_deal())
    result = solve(game.deal, DRAW3, start=game.position, max_nodes=200_000)
    assert result.result == "win"
    commitment = commitments.first_commitment(masked, result.path)
    plan = [a.token for a in commitment.actions]
    assert plan == result.line[:len(plan)]  # the line's own first actions
    replay = game.copy()
    for action in commitment.prefix:
        assert commitments.reversible(replay, action)
        replay.apply(action)
    assert not commitments.reversible(replay, commitment.action)
    assert commitments.decision_of(masked, commitment) == commitments.decision(replay, commitment.action)


def test_too_many_reversible_positions_take_the_commitments_from_the_samples(monkeypatch):
    game, observer = looked(3)
    masked = hint_lib.fork(game, hint_lib.visible_position(game.position, observer.seen), deal=hint_lib.label_deal())
    walked = commitments.commitments(masked)
    monkeypatch.setattr(commitments, "MAX_POSITIONS", 1)
    assert commitments.commitments(masked) is None
    result = hint_lib.honest_hint(game, observer.seen, samples=4, rng_seed=2, top=None,
                                  time_limit=None, max_nodes=400_000, commitments=True)
    assert result.samples == 4 and result.candidates
    found = {commitments.decision_of(masked, commitments.Commitment(c.plan[:-1], c.plan[-1]))
             for c in result.candidates}
    assert len(found) == len(result.candidates)  # one candidate per decision
    assert found <= {commitments.decision_of(masked, c) for c in walked}  # each one the walk finds too
    assert result.best.outcome.wins > 0  # taken from a sample's win, so won there at least


def test_looking_through_the_stock_is_only_free_with_unlimited_passes_and_no_points():
    for rules in (LIMITED, PRESETS["duel"]):
        game = Game(Deal.from_seed(3), rules)
        with pytest.raises(KlondikeError, match="only with unlimited passes and no points"):
            hint_lib.look_through_stock(game, hint_lib.Observer(game.position))
        assert game.actions == 0


def test_cli_hint_with_commitments(tmp_path):
    from click.testing import CliRunner

    from cli import main
    from solver.positions import to_text

    game, observer = looked(3)
    path = tmp_path / "position.txt"
    path.write_text(to_text(hint_lib.visible_position(game.position, observer.seen)), encoding="utf-8")
    args = ["hint", "--position", str(path), "--draw", "3", "--passes", "unlimited", "--foundation-to-tableau",
            "--samples", "2", "--max-nodes", "20000", "--top", "3", "--json"]
    result = CliRunner().invoke(main, args + ["--commitments"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert all(c["plan"][0] == c["action"] for c in data["candidates"])
    assert data["best"] == data["candidates"][0]["action"]
    assert any(len(c["plan"]) > 1 for c in data["candidates"])
    plain = json.loads(CliRunner().invoke(main, args).stdout)
    assert all("plan" not in c for c in plain["candidates"])
