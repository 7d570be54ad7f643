"""Cards (RULES.md section 1): codes, indices, colours, the terminal picture."""

import pytest

from solver.cards import (fits_on_tableau, format_card, format_cards, is_red, make_card, parse_card, parse_cards,
                          pretty_card, suit_of, value_of)
from solver.errors import CardError, KlondikeError


@pytest.mark.parametrize("code, index", [("Ac", 0), ("Kc", 12), ("Ad", 13), ("Ks", 51), ("Ah", 26), ("Th", 35),
                                         ("2c", 1), ("Qs", 50), ("9d", 21)])
def test_index_formula(code, index):
    assert parse_card(code) == index
    assert format_card(index) == code


def test_index_formula_all_cards():
    # suit * 13 + (value - 1), suits c d h s, ranks A..K
    for s, suit in enumerate("cdhs"):
        for v, rank in enumerate("A23456789TJQK", start=1):
            card = parse_card(rank + suit)
            assert card == s * 13 + v - 1
            assert (suit_of(card), value_of(card)) == (s, v)
            assert make_card(s, v) == card
    assert sorted(parse_card(format_card(c)) for c in range(52)) == list(range(52))


@pytest.mark.parametrize("text", ["Th", "10h", "TH", "th", "10H", " Th ", "T\u2665", "10\u2665", "t\u2665"])
def test_parse_ten_of_hearts_spellings(text):
    assert parse_card(text) == 2 * 13 + 9
    assert format_card(parse_card(text)) == "Th"


@pytest.mark.parametrize("text, code", [("A\u2663", "Ac"), ("Q\u2666", "Qd"), ("7\u2665", "7h"), ("K\u2660", "Ks"),
                                        ("aS", "As"), ("jd", "Jd")])
def test_parse_symbols_and_case(text, code):
    assert format_card(parse_card(text)) == code


def test_format_always_uses_T():
    for suit in "cdhs":
        assert format_card(parse_card("10" + suit)) == "T" + suit
    assert "10" not in format_cards(range(52))


@pytest.mark.parametrize("bad", ["", "h", "X", "1h", "11h", "0h", "Tx", "Zh", "Thh", "hT", "\u2665", "A", "1o",
                                 "Ace", "T h"])
def test_bad_codes_raise_card_error(bad):
    with pytest.raises(CardError):
        parse_card(bad)


def test_card_error_is_a_klondike_error_with_the_code():
    with pytest.raises(KlondikeError, match="Zq"):
        parse_card("Zq")


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_format_out_of_range(index):
    with pytest.raises(CardError):
        format_card(index)


def test_colours():
    assert [is_red(parse_card(c)) for c in ("Ac", "Ad", "Ah", "As")] == [False, True, True, False]


@pytest.mark.parametrize("card, base, fits", [
    ("9h", "Ts", True), ("9d", "Tc", True), ("9s", "Th", True), ("9h", "Td", False), ("9c", "Ts", False),
    ("Ah", "2s", True), ("Ah", "2d", False), ("8h", "Ts", False), ("Th", "9s", False), ("Qd", "Kc", True),
])
def test_fits_on_tableau(card, base, fits):
    assert fits_on_tableau(parse_card(card), parse_card(base)) is fits


def test_pretty_card():
    assert pretty_card(parse_card("Th"), colour=False) == "T\u2665"
    assert pretty_card(parse_card("Ks"), colour=True) == "K\u2660"  # black: no colour
    red = pretty_card(parse_card("Qd"), colour=True)
    assert red.startswith("\x1b[31m") and "Q\u2666" in red and red.endswith("\x1b[0m")


def test_parse_and_format_lists():
    assert parse_cards("Ah, 10c  Ks,2d") == [26, 9, 51, 14]
    assert format_cards([26, 9, 51, 14]) == "Ah Tc Ks 2d"
    with pytest.raises(CardError):
        parse_cards("Ah Xx")
