"""Scoring and the clock (RULES.md section 6) for `harmony` and `duel`."""

import math
import random
from fractions import Fraction

import pytest

from solver.errors import IllegalAction

from helpers import DEAL0, game_at, random_playout, tokens
from solver.cards import RANKS, parse_card
from solver.deal import Deal
from solver.game import Game, replay
from solver.rules import PRESETS
from solver.score import actions_within_limit, card_points, recycle_penalty, time_bonus

HARMONY = PRESETS["harmony"]
DUEL = PRESETS["duel"]
NO_CLOCK = {"seconds_per_action": None}

DUEL_VALUES = {"A": 100, "2": 200, "3": 300, "4": 400, "5": 500, "6": 600, "7": 700, "8": 800, "9": 900,
               "T": 1000, "J": 1000, "Q": 1000, "K": 1000}


def test_card_points_tables():
    for suit in "cdhs":
        for rank in RANKS:
            card = parse_card(rank + suit)
            assert card_points("harmony", card) == 1000
            assert card_points("duel", card) == DUEL_VALUES[rank]
            assert card_points(None, card) == 0


@pytest.mark.parametrize("rank", list(RANKS))
@pytest.mark.parametrize("rules, table", [(HARMONY, None), (DUEL, DUEL_VALUES)])
def test_points_for_a_card_played_up(rank, rules, table):
    value = RANKS.index(rank) + 1
    game = game_at(f"foundations: s={value - 1}\nwaste: {rank}s\n7: Kh", rules, fill=7)
    game.play(f"{rank}s:W>F")
    expected = 1000 if table is None else table[rank]
    assert game.score().cards == expected
    assert game.score().total == expected + 99  # 299 s left, not won: floor(299 / 3)


@pytest.mark.parametrize("rules, points", [(HARMONY, 1000), (DUEL, 200)])
def test_points_on_first_placement_only(rules, points):
    game = game_at("foundations: c=1\nwaste: 2c\n1: 3h\n7: Kd", rules, fill=7)
    game.play("2c:W>F")
    assert game.score().cards == points
    game.play("2c:F>1")  # back to the tableau (no auto-play: not all aces are up)
    assert game.position.piles[0][-1] == parse_card("2c")
    game.play("2c:1>F")
    assert game.score().cards == points  # no second points
    game.play("2c:F>1")
    game.play("2c:1>F")
    assert game.score().cards == points


def test_cards_already_up_at_the_start_earn_nothing_again():
    game = game_at("foundations: c=1\n1: 2h\n7: Kd", HARMONY, fill=7)
    made = game.play("Ac:F>1")
    assert [a.token for a in made] == ["Ac:1>F*"]  # auto-play takes the ace straight back
    assert game.score().cards == 0


def test_auto_played_cards_score():
    game = Game(DEAL0, DUEL)
    game.play("D")  # the Ad goes up by auto-play
    assert game.score().cards == 100


KINGS_LEFT = "foundations: c=12 d=12 h=12 s=12\n1: Kc\n2: Kd\n3: Kh\n4: Ks"


@pytest.mark.parametrize("rules, completion", [(HARMONY, 10000), (DUEL, 30000)])
def test_completion_and_won_bonus(rules, completion):
    game = game_at(KINGS_LEFT, rules)
    game.play("Kc:1>5")  # auto-play finishes the game
    score = game.score()
    assert game.won
    assert (score.cards, score.completion, score.turns, score.recycles) == (4000, completion, 0, 0)
    assert score.clock == 150 * 299
    assert score.total == 4000 + completion + 150 * 299


def test_won_bonus_counts_whole_seconds_left():
    rules = HARMONY.with_overrides(auto_play=False, seconds_per_action=0.7)
    game = game_at(KINGS_LEFT, rules)
    for token in ["Kc:1>F", "Kd:2>F", "Kh:3>F", "Ks:4>F"]:
        game.play(token)
    assert game.won
    assert game.score().clock == 150 * 297  # 2.8 s used, 297.2 s left
    assert game.score().total == 4000 + 10000 + 150 * 297


def test_won_with_the_clock_off():
    game = game_at(KINGS_LEFT, HARMONY.with_overrides(**NO_CLOCK))
    game.play("Kc:1>5")
    assert game.won and game.score().clock == 0 and game.score().total == 14000


@pytest.mark.parametrize("rules", [HARMONY, DUEL])
def test_turned_cards(rules):
    game = game_at("1: [5d] [9s] Kd Qs\n3: -\n7: Kc", rules, fill=7)
    game.play("Kd:1>3")
    assert game.score().turns == 100
    assert game.position.face_down[0] == 1


STOCK5 = "stock: 2c 3c 4c 5c 6c\n1: 2h\nfoundations: h=1\n7: Kd"


def _cycle(game, cycles):
    for _ in range(cycles):
        for _ in range(5):
            game.play("D")
        game.play("R")


def test_recycle_penalty_from_pass_three():
    game = game_at(STOCK5, HARMONY, fill=7)
    seen = []
    for _ in range(4):
        _cycle(game, 1)
        seen.append((game.position.pass_number, game.score().recycles))
    assert seen == [(2, 0), (3, -400), (4, -800), (5, -1200)]
    assert game.score().total == -1200 + (300 - 24) // 3
    assert [recycle_penalty(p) for p in (2, 3, 4, 10)] == [0, 400, 400, 400]


@pytest.mark.parametrize("actions, bonus", [(0, 100), (1, 99), (2, 99), (3, 99), (4, 98), (299, 0), (300, 0)])
def test_stop_bonus(actions, bonus):
    game = game_at(STOCK5, DUEL.with_overrides(draw=1), fill=7)
    while game.actions < actions:
        game.play("D" if game.position.stock else "R")
    assert game.score().clock == bonus
    assert time_bonus(HARMONY, actions, won=False) == bonus


@pytest.mark.parametrize("rules", [HARMONY, DUEL])
def test_the_empty_line_scores_the_stop_bonus(rules):
    assert Game(DEAL0, rules).score().total == 100
    assert replay(DEAL0, rules, []).game.score().total == 100
    assert Game(DEAL0, rules.with_overrides(**NO_CLOCK)).score().total == 0
    assert Game(DEAL0, rules.with_overrides(seconds_per_action=2.5)).score().total == 100


def test_custom_seconds_per_action():
    rules = HARMONY.with_overrides(seconds_per_action=2.5)
    game = game_at(STOCK5, rules, fill=7)
    for _ in range(3):
        game.play("D")
    assert game.seconds == Fraction(15, 2)
    assert game.score().clock == 292 // 3  # 292.5 s left: 292 whole seconds
    assert time_bonus(HARMONY.with_overrides(seconds_per_action=0.1), 3, won=True) == 150 * 299


@pytest.mark.parametrize("last_counts", [True, False])
def test_the_300_second_cut(last_counts):
    game = game_at(STOCK5, HARMONY, fill=7)
    _cycle(game, 49)  # 294 actions
    for _ in range(5 if last_counts else 6):
        game.play("D" if game.position.stock else "R")
    game.play("2h:1>F")  # action 300 (counts) or 301 (after the cut)
    score = game.score()
    if last_counts:
        assert game.actions == 300
        assert (score.cards, score.recycles, score.clock) == (1000, -48 * 400, 0)
        assert game.summary()["cut_at_action"] is None
    else:
        assert game.actions == 301
        assert (score.cards, score.recycles, score.clock) == (0, -49 * 400, 0)
        assert game.summary()["cut_at_action"] == 300
    assert score.total == score.cards + score.recycles


def test_the_cut_with_a_slow_clock_and_with_the_clock_off():
    slow = game_at(STOCK5, HARMONY.with_overrides(seconds_per_action=10), fill=7)
    _cycle(slow, 5)  # 30 actions = 300 s
    slow.play("2h:1>F")
    assert slow.score().cards == 0 and slow.score().recycles == -4 * 400
    assert actions_within_limit(slow.rules, 31) == 30
    off = game_at(STOCK5, HARMONY.with_overrides(**NO_CLOCK), fill=7)
    _cycle(off, 60)
    off.play("2h:1>F")  # action 361 still counts: no time limit
    assert off.score().cards == 1000 and off.score().recycles == -59 * 400 and off.score().clock == 0


def test_undo_costs_1000():
    game = game_at(STOCK5, DUEL, fill=7)
    game.play("2h:1>F")
    assert game.score().cards == 200
    game.undo()
    score = game.score()
    assert (score.cards, score.undos) == (0, -1000)
    assert score.total == -1000 + 100
    game.play("2h:1>F")
    game.undo()
    assert game.score().undos == -2000


def test_no_points_without_scoring():
    game = Game(DEAL0, PRESETS["classic"])
    game.play("Ad:7>F")
    assert game.score().total == 0 and game.summary()["score"] is None


# ----- an independent scorer for random lines --------------------------------------------------

def oracle(rules, line, position):
    """RULES.md 6 computed from a line's tokens and its final position (lines within the time limit)."""
    per_action = Fraction(str(rules.seconds_per_action))
    actions = [t for t in line if not t.endswith("*")]
    assert per_action * len(actions) <= 300
    arrived = {t.split(":")[0] for t in line if ">F" in t}
    cards = sum(1000 if rules.scoring == "harmony" else DUEL_VALUES[c[0]] for c in arrived)
    turns = 100 * (21 - sum(position.face_down))
    recycles = -400 * max(0, actions.count("R") - 1)
    won = all(f == 13 for f in position.foundations)
    completion = (10000 if rules.scoring == "harmony" else 30000) if won else 0
    left = math.floor(300 - per_action * len(actions))
    clock = 150 * left if won else left // 3
    return cards + turns + recycles + completion + clock


@pytest.mark.parametrize("rules", [HARMONY, DUEL, HARMONY.with_overrides(seconds_per_action=0.7),
                                   DUEL.with_overrides(seconds_per_action=1.5)])
def test_random_lines_against_an_independent_scorer(rules):
    rng = random.Random(11)
    limit = actions_within_limit(rules, 10**6)
    for seed in rng.sample(range(10**6), 10):
        bias = rng.choice([0.2, 0.5, 0.9])
        game = random_playout(Game(Deal.from_seed(seed), rules), rng, rng.randrange(0, min(limit, 250)),
                              move_bias=bias)
        assert game.score().total == oracle(rules, tokens(game), game.position)


def test_long_random_line_is_scored_at_the_cut():
    rng = random.Random(5)
    rules = DUEL
    game = random_playout(Game(Deal.from_seed(2024), rules), rng, 330, move_bias=0.3)
    assert game.actions > 300
    line = tokens(game)
    # the part done by 300 s: the first 300 actions and the auto-play right after the 300th
    cut, count = len(line), 0
    for index, token in enumerate(line):
        if not token.endswith("*"):
            count += 1
            if count == 301:
                cut = index
                break
    prefix = replay(game.deal, rules, line[:cut])
    assert prefix.legal
    assert game.score().total == oracle(rules, line[:cut], prefix.game.position)
    assert game.score().clock == 0


def test_the_game_ends_at_the_win():
    # 100 s per action: won by action 1 with 200 s left. The game is over: no more actions (a king
    # taken down could be auto-played straight back, but the clock has stopped), and the score
    # keeps the won bonus.
    game = game_at(KINGS_LEFT, HARMONY.with_overrides(seconds_per_action=100))
    game.play("Kc:1>5")
    assert game.won
    assert game.legal_actions() == []
    with pytest.raises(IllegalAction, match="already won"):
        game.play("Kc:F>1")
    score = game.score()
    assert (score.cards, score.completion, score.clock) == (4000, 10000, 150 * 200)
