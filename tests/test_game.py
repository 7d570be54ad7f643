"""The reference engine (RULES.md section 4) on hand-built positions, replay(), random playouts."""

import random

import pytest

from helpers import DEAL0, all_cards, build, game_at, random_playout, tokens
from solver.cards import parse_card
from solver.deal import Deal
from solver.errors import IllegalAction
from solver.game import Game, replay
from solver.notation import Action, TokenError, parse_token
from solver.positions import check_position
from solver.rules import PRESETS, Ruleset

CLASSIC = PRESETS["classic"]
DRAW3 = PRESETS["classic-draw3"]
HARMONY = PRESETS["harmony"]
DUEL = PRESETS["duel"]
UNLIMITED1 = Ruleset("t", draw=1, passes=None)
UNLIMITED3 = Ruleset("t", draw=3, passes=None)


def cards(text):
    return [parse_card(c) for c in text.split()]


STOCK5 = "stock: 2c 3c 4c 5c 6c\n1: 4h\n7: Kh"


# ----- draw and recycle -------------------------------------------------------------------------

def test_draw_one():
    game = game_at(STOCK5, CLASSIC, fill=7)
    game.play("D")
    assert game.position.waste == cards("2c") and game.position.stock == cards("3c 4c 5c 6c")
    game.play("D")
    assert game.position.waste == cards("2c 3c") and game.position.waste_top == parse_card("3c")
    assert game.actions == 2


def test_draw_three_and_fewer_than_three_left():
    game = game_at(STOCK5, DRAW3, fill=7)
    game.play("D")
    assert game.position.waste == cards("2c 3c 4c") and game.position.waste_top == parse_card("4c")
    assert game.position.stock == cards("5c 6c")
    game.play("D")  # only two left: both taken
    assert game.position.waste == cards("2c 3c 4c 5c 6c") and game.position.stock == []
    with pytest.raises(IllegalAction, match="stock is empty"):
        game.play("D")


@pytest.mark.parametrize("rules", [UNLIMITED1, UNLIMITED3])
def test_recycle_keeps_the_order(rules):
    game = game_at(STOCK5, rules, fill=7)
    while game.position.stock:
        game.play("D")
    game.play("R")
    assert game.position.stock == cards("2c 3c 4c 5c 6c") and game.position.waste == []
    assert game.position.pass_number == 2
    game.play("D")
    assert game.position.waste[0] == parse_card("2c")  # the card first drawn in the last pass comes first


def test_recycle_order_after_a_card_left_the_waste():
    game = game_at(STOCK5, UNLIMITED1, fill=7)
    game.play("D")
    game.play("D")
    game.play("3c:W>1")  # black 3 on the red 4
    game.play("D")
    game.play("D")
    game.play("D")
    assert game.position.waste == cards("2c 4c 5c 6c")
    game.play("R")
    assert game.position.stock == cards("2c 4c 5c 6c")
    game.play("D")
    assert game.position.waste == cards("2c")


def test_one_pass_means_no_recycle():
    game = game_at(STOCK5, CLASSIC, fill=7)
    for _ in range(5):
        game.play("D")
    assert all(a.kind != "recycle" for a in game.legal_actions())
    with pytest.raises(IllegalAction, match="pass limit"):
        game.play("R")


def test_three_passes_means_two_recycles():
    game = game_at(STOCK5, DRAW3, fill=7)
    for expected_pass in (1, 2, 3):
        assert game.position.pass_number == expected_pass
        game.play("D")
        game.play("D")
        if expected_pass < 3:
            assert any(a.kind == "recycle" for a in game.legal_actions())
            game.play("R")
    assert not any(a.kind == "recycle" for a in game.legal_actions())
    with pytest.raises(IllegalAction, match="pass limit"):
        game.play("R")


def test_unlimited_passes():
    game = game_at(STOCK5, UNLIMITED3, fill=7)
    for _ in range(10):
        game.play("D")
        game.play("D")
        game.play("R")
    assert game.position.pass_number == 11


def test_recycle_needs_empty_stock_and_nonempty_waste():
    game = game_at(STOCK5, UNLIMITED1, fill=7)
    with pytest.raises(IllegalAction, match="stock is not empty"):
        game.play("R")
    empty = game_at("1: 4h\n7: Kh", UNLIMITED1, fill=7)
    with pytest.raises(IllegalAction, match="waste is empty"):
        empty.play("R")
    with pytest.raises(IllegalAction):
        empty.play("D")
    assert all(a.kind == "move" for a in empty.legal_actions())


# ----- moves ------------------------------------------------------------------------------------

KINGS = "waste: Kh\n1: Qd\n5: [2h] Kd Qs Jh\n7: Kc"


def test_king_from_waste_to_empty_pile():
    game = game_at(KINGS, CLASSIC, fill=7)
    game.play("Kh:W>3")
    assert game.position.piles[2] == cards("Kh") and game.position.waste == []


def test_king_with_run_to_empty_pile_turns_the_card_below():
    game = game_at(KINGS, CLASSIC, fill=7)
    game.play("Kd:5>3")
    assert game.position.piles[2] == cards("Kd Qs Jh")
    assert game.position.piles[4] == cards("2h") and game.position.face_down[4] == 0  # turned face up
    assert game.actions == 1 and game.counters.turned == 1  # turning is not an action


@pytest.mark.parametrize("token", ["Qd:1>3", "Qs:5>3", "Jh:5>2"])
def test_only_a_king_to_an_empty_pile(token):
    game = game_at(KINGS, CLASSIC, fill=7)
    with pytest.raises(IllegalAction, match="king"):
        game.play(token)


RUNS = "1: 9c\n2: [5d] Td 9s 8h\n3: Jc\n4: Th\n7: Kc"


def test_run_moves():
    game = game_at(RUNS, CLASSIC, fill=7)
    game.play("9s:2>4")  # 9s with the 8h on it
    assert game.position.piles[3] == cards("Th 9s 8h")
    assert game.position.piles[1] == cards("5d Td") and game.position.face_down[1] == 1
    game.play("8h:4>1")  # part of a run
    assert game.position.piles[0] == cards("9c 8h") and game.position.piles[3] == cards("Th 9s")
    game.play("Td:2>3")  # the whole face-up part; the 5d is turned
    assert game.position.piles[2] == cards("Jc Td")
    assert game.position.piles[1] == cards("5d") and game.position.face_down[1] == 0
    assert game.counters.turned == 1 and game.actions == 3


@pytest.mark.parametrize("token, reason", [
    ("5d:2>1", "face down"), ("9c:2>4", "not in pile 2"), ("9s:2>1", "does not fit"),
    ("8h:2>4", "does not fit"), ("Td:2>4", "does not fit"), ("9c:1>F", "foundation"),
])
def test_illegal_tableau_moves(token, reason):
    game = game_at(RUNS, CLASSIC, fill=7)
    before = game.position.key()
    with pytest.raises(IllegalAction, match=reason):
        game.play(token)
    assert game.position.key() == before and game.actions == 0


def test_building_on_the_tableau_from_the_waste():
    text = "waste: Ah 9h\n1: Ts\n2: Td\n3: 2s\n4: 2d\n7: Kc"
    game = game_at(text, CLASSIC, fill=7)
    with pytest.raises(IllegalAction):
        game.play("9h:W>2")  # red on red
    with pytest.raises(IllegalAction, match="waste top"):
        game.play("Ah:W>3")  # not the waste top
    game.play("9h:W>1")
    with pytest.raises(IllegalAction):
        game.play("Ah:W>4")  # ace on a red 2
    game.play("Ah:W>3")  # an ace on a 2 of the other colour
    assert game.position.piles[0] == cards("Ts 9h") and game.position.piles[2] == cards("2s Ah")


def test_building_on_foundations():
    text = "foundations: c=1\nwaste: 3c 2d 2c\n1: Ad\n7: Kh"
    game = game_at(text, CLASSIC, fill=7)
    game.play("2c:W>F")
    with pytest.raises(IllegalAction, match="foundation"):
        game.play("2d:W>F")  # the Ad is not up yet
    game.play("Ad:1>F")
    game.play("2d:W>F")
    game.play("3c:W>F")
    assert game.position.foundations == [3, 2, 0, 0]


def test_only_the_top_card_to_a_foundation():
    game = game_at("foundations: c=13 d=13 h=8 s=7\n1: 9h 8s\n2: Kh", CLASSIC, fill=2)
    with pytest.raises(IllegalAction, match="only the top card"):
        game.play("9h:1>F")
    assert "9h:1>F" not in [a.token for a in game.legal_actions()]
    game.play("8s:1>F")
    game.play("9h:1>F")
    assert game.position.foundations == [13, 13, 9, 8]


F2T = "foundations: d=13 h=5\n2: 6s\n4: 6h\n7: Kc"


def test_foundation_to_tableau_refused_when_not_allowed():
    game = game_at(F2T, CLASSIC, fill=7)
    with pytest.raises(IllegalAction, match="not allowed"):
        game.play("Kd:F>3")
    assert not any(a.source == "F" for a in game.legal_actions())


def test_foundation_to_tableau_where_allowed():
    game = game_at(F2T, HARMONY, fill=7)
    legal = {a.token for a in game.legal_actions() if a.source == "F"}
    assert legal == {"Kd:F>1", "Kd:F>3", "Kd:F>5", "Kd:F>6", "5h:F>2"}
    with pytest.raises(IllegalAction, match="not the top"):
        game.play("Qd:F>3")
    with pytest.raises(IllegalAction):
        game.play("5h:F>4")  # red on red
    game.play("5h:F>2")
    assert game.position.piles[1] == cards("6s 5h") and game.position.foundations[2] == 4
    game.play("Kd:F>3")
    assert game.position.piles[2] == cards("Kd") and game.position.foundations[1] == 12


def test_illegal_action_leaves_the_game_unchanged():
    game = Game(DEAL0, CLASSIC)
    before = game.position.key()
    for token in ["R", "8s:1>3", "Qh:W>F", "Ad:7>3", "Jh:2>F"]:
        with pytest.raises(IllegalAction):
            game.play(token)
    assert game.position.key() == before and game.actions == 0 and game.line == []


# ----- auto-play --------------------------------------------------------------------------------

def test_no_auto_play_on_the_deal_then_after_the_first_action():
    game = Game(DEAL0, HARMONY)  # seed 0 has the Ad face up on pile 7
    assert game.position.foundations == [0, 0, 0, 0]
    made = game.play("D")
    assert [a.token for a in made] == ["Ad:7>F*"]
    assert tokens(game) == ["D", "Ad:7>F*"]
    assert game.position.foundations == [0, 1, 0, 0] and game.actions == 1
    assert game.position.face_down[6] == 5  # the card under the Ad is turned
    classic = Game(DEAL0, CLASSIC)
    assert classic.play("D") == [] and classic.position.foundations == [0, 0, 0, 0]


def test_a_five_goes_up_only_after_all_four_fours():
    text = "foundations: c=4 d=4 h=4 s=3\nstock: Qh 4s\n1: 5c\n7: Kh"
    game = game_at(text, HARMONY, fill=7)
    assert game.play("D") == []  # the 4s is not up: the 5c stays although it could go
    assert game.position.foundations == [4, 4, 4, 3]
    made = game.play("D")  # draws the 4s: it goes up, then the 5c
    assert [a.token for a in made] == ["4s:W>F*", "5c:1>F*"]
    assert game.position.foundations == [5, 4, 4, 4]


def test_a_two_waits_for_all_aces():
    text = "foundations: c=1 d=1 h=1\nstock: Qh\n1: 2c\n2: As\n7: Kh"
    game = game_at(text, HARMONY, fill=7)
    # after the draw: pile 1's 2c does not qualify yet, pile 2's As does; then the 2c does (rescan)
    assert [a.token for a in game.play("D")] == ["As:2>F*", "2c:1>F*"]


def test_the_player_may_still_play_a_card_auto_play_leaves():
    text = "foundations: c=4 d=4 h=4 s=3\nstock: Qh 4s\n1: 5c\n7: Kh"
    game = game_at(text, HARMONY, fill=7)
    game.play("5c:1>F")
    assert game.position.foundations == [5, 4, 4, 3]


def test_auto_play_order_waste_first_then_piles():
    text = "waste: As Ah\n1: Ad\n3: Ac\n5: Kh\n6: Qs\n7: Kc"
    game = game_at(text, HARMONY, fill=7)
    made = game.play("Qs:6>5")
    # the waste first (and again after each card: the As is the new waste top), then piles 1..7
    assert [a.token for a in made] == ["Ah:W>F*", "As:W>F*", "Ad:1>F*", "Ac:3>F*"]
    assert game.position.foundations == [1, 1, 1, 1]
    assert tokens(game) == ["Qs:6>5", "Ah:W>F*", "As:W>F*", "Ad:1>F*", "Ac:3>F*"]


def test_auto_play_cascades_and_turns_cards():
    text = "foundations: c=4 d=4 h=4 s=3\nstock: Qh\n1: [5h] 4s\n2: [5d] 5c\n7: Kh"
    game = game_at(text, HARMONY, fill=7)
    made = game.play("D")
    assert [a.token for a in made] == ["4s:1>F*", "5h:1>F*", "5c:2>F*", "5d:2>F*"]
    assert game.position.foundations == [5, 5, 5, 4]
    assert game.actions == 1 and game.counters.turned == 2
    assert game.score().turns == 200


def test_auto_play_off_leaves_cards():
    text = "foundations: c=4 d=4 h=4 s=3\nstock: Qh\n1: [5h] 4s\n2: [5d] 5c\n7: Kh"
    rules = HARMONY.with_overrides(auto_play=False)
    game = game_at(text, rules, fill=7)
    assert game.play("D") == []
    assert game.position.foundations == [4, 4, 4, 3]


# ----- winning ----------------------------------------------------------------------------------

KINGS_LEFT = "foundations: c=12 d=12 h=12 s=12\n1: Kc\n2: Kd\n3: Kh\n4: Ks"


def test_win_by_hand():
    game = game_at(KINGS_LEFT, CLASSIC)
    for token in ["Kc:1>F", "Kd:2>F", "Kh:3>F"]:
        game.play(token)
        assert not game.won
    game.play("Ks:4>F")
    assert game.won and game.position.won and game.legal_actions() == []
    assert game.summary()["won"] is True and game.summary()["foundation_cards"] == 52


def test_win_by_auto_play():
    game = game_at(KINGS_LEFT, HARMONY)
    made = game.play("Kc:1>5")
    assert [a.token for a in made] == ["Kd:2>F*", "Kh:3>F*", "Ks:4>F*", "Kc:5>F*"]
    assert game.won and game.actions == 1


# ----- undo -------------------------------------------------------------------------------------

def test_undo_restores_position_and_line():
    game = Game(DEAL0, HARMONY)
    start = game.position.key()
    game.play("D")  # with auto-play of the Ad
    game.undo()
    assert game.position.key() == start and game.line == [] and game.actions == 0
    assert game.score().undos == -1000
    with pytest.raises(IllegalAction):
        Game(DEAL0, HARMONY).undo()


def test_a_copy_is_independent_of_its_game_undo_included():
    game = Game(DEAL0, HARMONY)
    game.play("D")
    game.play("D")
    twin = game.copy()
    assert twin.position.key() == game.position.key() and twin.line == game.line
    assert twin.score() == game.score()
    twin.undo()  # takes back a draw on the copy only
    twin.play("D")
    twin.play("D")
    assert game.actions == 2 and twin.actions == 3 and twin.score().undos == -1000
    game.undo()
    game.undo()
    assert game.position.key() == Game(DEAL0, HARMONY).position.key() and game.line == []
    assert twin.actions == 3 and len(twin.position.stock) == len(Game(DEAL0, HARMONY).position.stock) - 3


# ----- replay -----------------------------------------------------------------------------------
# seed 0: piles 8s | Jh Tc | .. 8c | .. 3h | .. 4s | .. 8h | .. Ad; the stock starts Qh Ts Qc

def test_replay_legal_line():
    result = replay(DEAL0, CLASSIC, ["Ad:7>F", "3h:4>5", "D", "D"])
    assert result.legal and result.error_index is None and result.error is None
    pos = result.game.position
    assert pos.foundations == [0, 1, 0, 0] and pos.waste == cards("Qh Ts")
    assert pos.piles[4][-2:] == cards("4s 3h") and pos.face_down[3] == 2 and pos.face_down[6] == 5


@pytest.mark.parametrize("line, index, reason", [
    (["Ad:7>F", "8s:1>3", "D"], 1, "does not fit"),
    (["D", "Qh:W>F"], 1, "foundation"),
    (["Ad:7>F", "Ad:7>F"], 1, "not in pile 7"),
    (["Xy:1>2"], 0, "Xy"),
    (["D", "Ad:7>9"], 1, "place"),
    (["D", "D", "bogus"], 2, "bogus"),
    (["R"], 0, "recycle"),
    (["Ad:7>F*"], 0, "auto-play"),  # classic: no auto-play
])
def test_replay_reports_the_first_bad_token(line, index, reason):
    result = replay(DEAL0, CLASSIC, line)
    assert not result.legal
    assert result.error_index == index
    assert reason in result.error
    assert result.game.actions == sum(1 for t in line[:index])  # stopped right there


def test_replay_auto_play_tokens():
    assert replay(DEAL0, HARMONY, ["D", "Ad:7>F*", "D"]).legal
    assert replay(DEAL0, HARMONY, ["D", "D"]).legal  # auto-play tokens may be left out
    wrong = replay(DEAL0, HARMONY, ["D", "Ac:7>F*"])
    assert not wrong.legal and wrong.error_index == 1
    early = replay(DEAL0, HARMONY, ["Ad:7>F*", "D"])  # nothing was auto-played before any action
    assert not early.legal and early.error_index == 0
    twice = replay(DEAL0, HARMONY, ["D", "Ad:7>F*", "Ad:7>F*"])
    assert not twice.legal and twice.error_index == 2
    as_action = replay(DEAL0, HARMONY, ["D", "Ad:7>F"])  # already up: not a legal action
    assert not as_action.legal and as_action.error_index == 1


def test_replay_auto_tokens_in_order():
    text = "waste: As Ah\n1: Ad\n3: Ac\n5: Kh\n6: Qs\n7: Kc"
    position = build(text, fill=7)
    good = ["Qs:6>5", "Ah:W>F*", "As:W>F*", "Ad:1>F*", "Ac:3>F*"]
    assert replay(DEAL0, HARMONY, good, position=position).legal
    swapped = ["Qs:6>5", "Ah:W>F*", "Ad:1>F*"]
    result = replay(DEAL0, HARMONY, swapped, position=position)
    assert not result.legal and result.error_index == 2


def test_parse_token():
    assert parse_token("9h:W>3") == Action("move", parse_card("9h"), "W", 3)
    assert parse_token("Kd:f>5") == Action("move", parse_card("Kd"), "F", 5)
    assert parse_token("10c:4>F*") == Action("move", parse_card("Tc"), 4, "F", auto=True)
    assert parse_token("d").kind == "draw" and parse_token("R").kind == "recycle"
    assert parse_token("Qd:4>6").token == "Qd:4>6"
    for bad in ["", "X", "D*", "9h:W>W", "9h:3>3", "9h:F>F", "9h:8>1", "9h:W", "Zz:W>1", "9h:W>0", "9h>W:1"]:
        with pytest.raises(TokenError):
            parse_token(bad)


# ----- legal_actions agrees with check() ---------------------------------------------------------

def _every_move(game):
    places = ["W", "F"] + list(range(1, 8))
    for card in range(52):
        for src in places:
            for dst in ["F"] + list(range(1, 8)):
                if src != dst:
                    yield Action("move", card, src, dst)


@pytest.mark.parametrize("rules", [CLASSIC, HARMONY])
def test_legal_actions_agree_with_check(rules):
    rng = random.Random(7)
    for seed in range(4):
        game = Game(Deal.from_seed(seed), rules)
        for _ in range(6):
            legal = {a.token for a in game.legal_actions()}
            checked = set()
            for action in list(_every_move(game)) + [Action("draw"), Action("recycle")]:
                try:
                    game.check(action)
                except IllegalAction:
                    continue
                checked.add(action.token)
            assert checked == legal
            random_playout(game, rng, 12)


# ----- random playouts --------------------------------------------------------------------------

def _invariants(game):
    position = game.position
    everything = all_cards(position)
    assert len(everything) == 52 and sorted(everything) == list(range(52))
    assert position.card_count() == 52
    check_position(position)
    assert all(0 <= d < max(1, len(p)) or (d == 0 and not p) for p, d in zip(position.piles, position.face_down))
    assert game.counters.turned == 21 - sum(position.face_down)


@pytest.mark.parametrize("name", list(PRESETS))
def test_random_playouts_conserve_cards_and_replay(name):
    rules = PRESETS[name]
    rng = random.Random(list(PRESETS).index(name))
    for seed in rng.sample(range(10**6), 12):
        game = random_playout(Game(Deal.from_seed(seed), rules), rng, rng.randrange(0, 160), _invariants,
                              move_bias=rng.choice([0.3, 0.6, 0.9]))
        line = tokens(game)
        result = replay(game.deal, rules, line)
        assert result.legal, (seed, result.error_index, result.error)
        assert result.game.position.key() == game.position.key()
        assert result.game.score() == game.score()
        assert result.game.actions == game.actions
        assert tokens(result.game) == line
        bare = replay(game.deal, rules, tokens(game, with_auto=False))
        assert bare.legal and bare.game.position.key() == game.position.key()


def test_long_random_playout_past_the_clock():
    rng = random.Random(3)
    game = random_playout(Game(Deal.from_seed(99), HARMONY), rng, 340, _invariants)
    assert game.actions > 300
    result = replay(game.deal, HARMONY, tokens(game))
    assert result.legal and result.game.position.key() == game.position.key()
    assert result.game.score() == game.score()
