"""Cards: indices, codes (`Th`, `10h`, `TH`), colours and the terminal picture.

A card is an int 0..51: ``suit * 13 + (value - 1)`` with suits in the order c, d, h, s
(RULES.md section 1), so ``Ac`` is 0 and ``Ks`` is 51.
"""

from __future__ import annotations

import numbers

from .errors import CardError

SUITS = "cdhs"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
RED_SUITS = (1, 2)  # diamonds, hearts

_ANSI_RED = "\x1b[31m"
_ANSI_RESET = "\x1b[0m"


def is_plain_number(text: str) -> bool:
    """True if `text` is one or more ASCII digits. Every number this tool reads (seeds, pile numbers,
    counts) is written so; `str.isdigit` also takes `²` and `٣`, which int() refuses or reads as 3."""
    return text.isascii() and text.isdigit()


def is_whole_number(value) -> bool:
    """True for a whole number: an int or a numpy integer, not a bool (JSON's true is one to Python)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def string_items(value, what: str, error: type[Exception] = TypeError) -> list[str] | None:
    """The items of `value`, a list (or any sequence) of strings, or None if it is one string;
    `error` saying `what` it should be otherwise. Card codes and lines come either way."""
    if isinstance(value, str):
        return None
    try:
        items = list(value)
    except TypeError:
        raise error(f"{what} are a string or a list of strings, got {type(value).__name__}") from None
    if not all(isinstance(item, str) for item in items):
        raise error(f"{what} are strings")
    return items


def make_card(suit: int, value: int) -> int:
    """The card index of a suit (0..3, c d h s) and a value (1..13)."""
    return suit * 13 + (value - 1)


def suit_of(card: int) -> int:
    """Suit 0..3 (c, d, h, s) of a card index."""
    return card // 13


def value_of(card: int) -> int:
    """Value 1..13 (A..K) of a card index."""
    return card % 13 + 1


def is_red(card: int) -> bool:
    """True for diamonds and hearts."""
    return suit_of(card) in RED_SUITS


def fits_on_tableau(card: int, base: int) -> bool:
    """True if `card` may be placed on `base` in the tableau: one lower, other colour."""
    return value_of(card) + 1 == value_of(base) and is_red(card) != is_red(base)


def parse_card(text: str) -> int:
    """Parse a card code: `Th`, `10h`, `TH`, `th`; also accepts suit symbols (`T♥`)."""
    raw = text.strip()
    code = raw
    for letter, symbol in SUIT_SYMBOLS.items():
        code = code.replace(symbol, letter)
    if len(code) < 2:
        raise CardError(f"unknown card {raw!r} (expected a code such as Ah, Tc, 10d, Ks)")
    rank_text, suit_text = code[:-1].upper(), code[-1].lower()
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or suit_text not in SUITS:
        raise CardError(f"unknown card {raw!r} (expected a code such as Ah, Tc, 10d, Ks)")
    return make_card(SUITS.index(suit_text), RANKS.index(rank_text) + 1)


def format_card(card: int) -> str:
    """The canonical code of a card: rank then lower-case suit, `T` for ten (`Th`)."""
    if not 0 <= card < 52:
        raise CardError(f"card index {card} out of range 0..51")
    return RANKS[value_of(card) - 1] + SUITS[suit_of(card)]


def pretty_card(card: int, colour: bool) -> str:
    """A card with its suit symbol (`T♥`), red in ANSI colour when `colour` is true."""
    text = RANKS[value_of(card) - 1] + SUIT_SYMBOLS[SUITS[suit_of(card)]]
    if colour and is_red(card):
        return _ANSI_RED + text + _ANSI_RESET
    return text


def parse_cards(text: str) -> list[int]:
    """Parse a whitespace- or comma-separated list of card codes."""
    return [parse_card(tok) for tok in text.replace(",", " ").split()]


def format_cards(cards) -> str:
    """Card codes joined by single spaces."""
    return " ".join(format_card(c) for c in cards)
