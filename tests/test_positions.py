"""Positions as text and JSON (solver.positions): round trips, the terminal picture, bad positions."""

import json
import random

import pytest

from helpers import DEAL0, build, random_playout
from solver.deal import Deal
from solver.errors import PositionError
from solver.game import Game, Position
from solver.positions import UNKNOWN, check_position, from_json, from_text, to_json, to_text
from solver.rules import PRESETS


def reachable_positions(count=40):
    """Positions reached by random play from random seeds under all four presets."""
    rng = random.Random(2)
    names = list(PRESETS)
    found = [Position.initial(DEAL0)]
    for i in range(count):
        game = Game(Deal.from_seed(rng.randrange(2**64)), PRESETS[names[i % 4]])
        random_playout(game, rng, rng.randrange(0, 120))
        found.append(game.position)
    return found


POSITIONS = reachable_positions()


def test_initial_text_matches_the_deal():
    text = to_text(Position.initial(DEAL0))
    lines = text.splitlines()
    assert lines[0] == "foundations: c=0 d=0 h=0 s=0"
    assert lines[1] == "stock: " + " ".join(DEAL0.codes[28:])
    assert lines[2] == "waste: -" and lines[3] == "pass: 1"
    assert lines[4] == "1: " + DEAL0.codes[0]
    assert lines[5] == f"2: [{DEAL0.codes[1]}] {DEAL0.codes[7]}"
    assert lines[10].startswith("7: [") and lines[10].endswith(" " + DEAL0.codes[27])
    assert lines[10].count("[") == 6


def test_text_round_trip():
    for position in POSITIONS:
        assert from_text(to_text(position)).key() == position.key()


def test_json_round_trip():
    for position in POSITIONS:
        data = to_json(position)
        again = from_json(json.loads(json.dumps(data)))
        assert again.key() == position.key()
        assert from_json(json.dumps(data)).key() == position.key()


@pytest.mark.parametrize("colour", [False, True])
def test_terminal_picture_parses_back(colour):
    for position in POSITIONS[:15]:
        picture = to_text(position, symbols=True, colour=colour)
        assert "\u2660" in picture or "\u2663" in picture or "\u2665" in picture or "\u2666" in picture
        if colour and any(c in (1, 2) for c in [card // 13 for card in position.stock + position.waste]):
            assert "\x1b[31m" in picture
        assert from_text(picture).key() == position.key()


def test_json_shape():
    data = to_json(Position.initial(DEAL0))
    assert data["foundations"] == {"c": 0, "d": 0, "h": 0, "s": 0}
    assert data["pass"] == 1 and data["waste"] == [] and len(data["stock"]) == 24
    assert data["tableau"][1] == {"face_down": [DEAL0.codes[1]], "face_up": [DEAL0.codes[7]]}


def test_text_accepts_comments_and_spacing():
    text = to_text(Position.initial(DEAL0))
    noisy = "# a comment\n\n" + "\n".join("  " + line + "   # note" for line in text.splitlines()) + "\n"
    assert from_text(noisy).key() == Position.initial(DEAL0).key()


GOOD = "foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] Qs"


def test_hand_built_position():
    position = from_text(GOOD + "\n4: -\n5: -\n6: -\n7: -\nstock: -\nwaste: -")
    assert position.piles[2] == [51, 50] and position.face_down[2] == 1
    assert position.pass_number == 1 and position.foundations == [13, 13, 12, 10]


@pytest.mark.parametrize("text, reason", [
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks]", "52 cards"),  # 51 cards
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] Qs\n4: Qs", "duplicate"),
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] Qs\n4: Ac", "duplicate"),  # Ac is on a foundation
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: Qs [Ks]", "face-down"),
    ("foundations: c=13 d=13 h=12 s=10\n1: [Kh]\n2: Js\n3: [Ks] Qs", "face up"),  # a face-down top
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh Js\n3: [Ks] Qs", "cannot lie"),  # black on red, but J on K
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: Ks Qs", "cannot lie"),  # same colour
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] Xs", "unknown card"),
    ("foundations: c=14 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] Qs", "foundation"),
    ("foundations: c=13 d=13 h=12 x=10\n1: Kh\n2: Js\n3: [Ks] Qs", "foundation"),
    ("foundations: c=13 d=13 h=12 s=10\npass: 0\n1: Kh\n2: Js\n3: [Ks] Qs", "pass"),
    ("foundations: c=13 d=13 h=12 s=10\npass: \u0662\n1: Kh\n2: Js\n3: [Ks] Qs", "pass"),  # not 2
    ("foundations: c=\u0661\u0663 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] Qs", "foundation"),
    ("foundations: c=13 d=13 h=12 s=10\n1: Kh\n2: Js\n3: [Ks] ??", "unknown"),
])
def test_bad_positions(text, reason):
    with pytest.raises(PositionError, match=reason):
        build(text)


@pytest.mark.parametrize("extra, reason", [("8: -", "a line is one of"), ("1: -", "two '1' lines"),
                                           ("waste: -", "two 'waste' lines")])
def test_a_line_too_many_is_refused(extra, reason):
    # it was dropped without a word (an eighth pile), or it replaced the line before
    text = GOOD + "\n4: -\n5: -\n6: -\n7: -\nstock: -\nwaste: -\n"
    from_text(text)
    with pytest.raises(PositionError, match=reason):
        from_text(text + extra)


def test_missing_lines_and_garbage():
    with pytest.raises(PositionError, match="lacks"):
        from_text("foundations: c=0 d=0 h=0 s=0\nstock: -\n")
    with pytest.raises(PositionError):
        from_text(to_text(Position.initial(DEAL0)) + "no colon here\n")


def test_bad_json():
    data = to_json(Position.initial(DEAL0))
    short = dict(data, tableau=data["tableau"][:6])
    with pytest.raises(PositionError, match="7 piles"):
        from_json(short)
    with pytest.raises(PositionError):
        from_json("{not json")
    with pytest.raises(PositionError):
        from_json({"stock": []})
    dup = json.loads(json.dumps(data))
    dup["stock"][0] = dup["stock"][1]
    with pytest.raises(PositionError, match="duplicate"):
        from_json(dup)
    down_top = json.loads(json.dumps(data))
    down_top["tableau"][0] = {"face_down": down_top["tableau"][0]["face_up"], "face_up": []}
    with pytest.raises(PositionError, match="face up"):
        from_json(down_top)


def test_unknown_cards_only_where_allowed():
    text = to_text(Position.initial(DEAL0))
    hidden = text.replace(f"[{DEAL0.codes[1]}]", "[??]")
    with pytest.raises(PositionError):
        from_text(hidden)
    position = from_text(hidden, allow_unknown=True)
    assert position.piles[1][0] == UNKNOWN
    assert from_text(to_text(position), allow_unknown=True).key() == position.key()
    face_up = text.replace(f"1: {DEAL0.codes[0]}", "1: ??")
    with pytest.raises(PositionError, match="face-down"):
        from_text(face_up, allow_unknown=True)


def test_check_position_on_objects():
    position = Position.initial(DEAL0)
    check_position(position)
    broken = position.copy()
    broken.stock.pop()
    with pytest.raises(PositionError, match="52 cards"):
        check_position(broken)
    broken = position.copy()
    broken.face_down[0] = 1  # pile 1's only card face down
    with pytest.raises(PositionError, match="face up"):
        check_position(broken)
