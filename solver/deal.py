"""Deals: a deck order of 52 cards, from a `native` seed (RULES.md section 3) or given explicitly.

The deck order ``d[0..51]`` is dealt row by row: for row r = 0..6, pile p = r+1..7 gets the next
card, so pile 1 is ``[d0]``, pile 2 is ``[d1, d7]``; the stock is ``d[28..51]``, ``d28`` drawn first.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .cards import format_card, is_whole_number, parse_cards, string_items
from .errors import CardError, DealError

MASK64 = (1 << 64) - 1
MAX_SEED = 1 << 64
PILES = 7
TABLEAU_CARDS = 28


def splitmix64(state: int) -> tuple[int, int]:
    """One step of splitmix64: returns (new_state, output), all modulo 2^64."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def native_deck(seed: int) -> list[int]:
    """The deck order of a `native` seed: Fisher-Yates driven by splitmix64 (RULES.md 3)."""
    if not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
        raise DealError(f"seed {seed!r} out of range: a native seed is an integer 0 <= seed < 2^64")
    deck = list(range(52))
    state = seed
    for i in range(51, 0, -1):
        state, x = splitmix64(state)
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@functools.lru_cache(maxsize=64)
def _native_cards(seed: int) -> tuple[int, ...]:
    """`native_deck` as a tuple, kept for the few seeds met last: `Deal.from_seed` deals it and the
    Deal it makes checks its cards against it, from one computation."""
    return tuple(native_deck(seed))


def deal_order_to_piles(deck) -> tuple[list[list[int]], list[int]]:
    """Split a deck order into the 7 tableau piles (bottom to top) and the stock (first drawn first)."""
    piles: list[list[int]] = [[] for _ in range(PILES)]
    index = 0
    for row in range(PILES):
        for pile in range(row, PILES):
            piles[pile].append(deck[index])
            index += 1
    return piles, list(deck[TABLEAU_CARDS:])


def piles_to_deal_order(piles, stock) -> list[int]:
    """Inverse of `deal_order_to_piles`: the deck order that deals these piles and stock."""
    if [len(p) for p in piles] != list(range(1, PILES + 1)) or len(stock) != 52 - TABLEAU_CARDS:
        raise DealError("a dealt layout has piles of 1..7 cards and a stock of 24 cards")
    deck = []
    for row in range(PILES):
        for pile in range(row, PILES):
            deck.append(piles[pile][row])
    return deck + list(stock)


@dataclass(frozen=True)
class Deal:
    """A deal: the deck order and where it came from (a seed and its source, or explicit cards)."""

    cards: tuple[int, ...]
    seed: int | None = None
    source: str = "explicit"

    def __post_init__(self):
        try:
            cards = tuple(self.cards)
        except TypeError:
            raise DealError(f"a deal's cards are a sequence of 52 card indices, "
                            f"got {type(self.cards).__name__}") from None
        if not all(is_whole_number(card) for card in cards):
            raise DealError("a deal's cards are whole numbers, card indices 0..51 (Deal.from_codes reads codes)")
        # a tuple of plain ints whatever was given (a list, numpy integers): hashable, and equal
        # to the same deal built any other way
        object.__setattr__(self, "cards", tuple(int(card) for card in cards))
        check_deck(self.cards)
        if self.seed is not None and not is_whole_number(self.seed):
            raise DealError(f"a deal's seed is a whole number or None, got {self.seed!r}")
        if self.source == "native" and self.seed is not None and _native_cards(self.seed) != self.cards:
            # output would name the seed: the cards must be its deal (Deal.from_seed makes it so)
            raise DealError(f"these cards are not the deal of native seed {self.seed} (Deal.from_seed deals it)")

    @classmethod
    def from_seed(cls, seed: int, source: str = "native") -> "Deal":
        """The deal of a seed; `native` is RULES.md section 3 (other sources in `sources`)."""
        if is_whole_number(seed):
            seed = int(seed)  # a numpy integer too
        else:
            raise DealError(f"a seed is a whole number, got {seed!r}")
        if source != "native":
            from .sources import deck_from_source  # other sources need optional packages

            return cls(tuple(deck_from_source(seed, source)), seed, source)
        return cls(_native_cards(seed), seed, "native")

    @classmethod
    def from_codes(cls, text) -> "Deal":
        """A deal from 52 card codes in deal order: one string (whitespace or comma separated) or
        a list of codes (`deal.codes`)."""
        codes = string_items(text, "card codes (Ah, Tc, 10d, Ks)", DealError)
        if codes is not None:
            text = " ".join(codes)
        try:
            cards = parse_cards(text)
        except CardError as err:
            raise DealError(f"bad deal: {err}") from None
        return cls(tuple(cards))

    @classmethod
    def from_file(cls, path: str | Path) -> "Deal":
        """A deal read from a file of 52 card codes in deal order."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise DealError(f"cannot read deal file {str(path)!r}: {err}") from None
        return cls.from_codes(text)

    @property
    def codes(self) -> list[str]:
        """The 52 card codes in deal order."""
        return [format_card(c) for c in self.cards]

    def __repr__(self) -> str:
        if self.seed is not None:
            return f"<Deal seed {self.seed} ({self.source})>"
        return f"<Deal {' '.join(self.codes[:5])} ... (explicit)>"

    @property
    def tableau(self) -> list[list[int]]:
        """The 7 dealt piles, bottom to top (the last card is the face-up top)."""
        return deal_order_to_piles(self.cards)[0]

    @property
    def stock(self) -> list[int]:
        """The 24 stock cards, the first drawn first."""
        return list(self.cards[TABLEAU_CARDS:])

    def to_json(self) -> dict:
        """The JSON form used by `klondike deal --json`."""
        return {
            "seed": self.seed,
            "source": self.source,
            "deal": self.codes,
            "tableau": [[format_card(c) for c in pile] for pile in self.tableau],
            "stock": [format_card(c) for c in self.stock],
        }


def check_deck(cards) -> None:
    """Raise DealError unless `cards` is 52 distinct card indices."""
    if len(cards) != 52:
        raise DealError(f"a deal has 52 cards, got {len(cards)}")
    seen: set[int] = set()
    for card in cards:
        if not 0 <= card < 52:
            raise DealError(f"card index {card} out of range")
        if card in seen:
            raise DealError(f"duplicate card {format_card(card)} in the deal")
        seen.add(card)
