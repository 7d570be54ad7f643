"""Deals from the tools people already use: PySol FC game numbers and Klondike-Solver seeds.

Every source gives a deck order in OUR deal order (RULES.md section 3): ``d[0..27]`` dealt row by
row (pile 1 gets ``d0``, pile 2 ``d1, d7``, ..., pile 7 ends with ``d27``, its face-up top) and the
stock ``d[28..51]`` with ``d28`` drawn first. The other tools' random generators are NOT rewritten
here: the packages that implement them are asked for the deal, and only their layout is converted.

- ``pysol``: PySol FC game numbers, dealt by the ``pysol-cards`` package with the modern PySol FC
  numbering (``DEALS_PYSOLFC``: games 1..32000 use the Microsoft-compatible LC generator, higher
  numbers the Mersenne Twister). Game numbers run from 1 to 10**20 (PySol FC's MAX_SEED).
- ``ksolve``: Klondike-Solver's own seeded shuffle (``Solitaire::Shuffle1``), as the optional
  ``pyksolve`` package deals it. Seeds run from 0 to 2**31 - 1 (a C ``int``; -1 means "random").
"""

from __future__ import annotations

from .deal import TABLEAU_CARDS, native_deck, piles_to_deal_order
from .errors import DealError

SOURCES = ("native", "pysol", "ksolve")

# PySol FC: game numbers start at 1 (the LC generator used for 1..32000 rejects 0) and PySol FC's
# generators declare 10**20 ("20 digits") as their largest seed.
PYSOL_MIN_GAME = 1
PYSOL_MAX_GAME = 10**20
# Klondike-Solver: the seed is a C int; -1 asks for a random seed, other negative numbers are not
# deal numbers anyone uses, so the accepted range is that of a non-negative int.
KSOLVE_MIN_SEED = 0
KSOLVE_MAX_SEED = 2**31 - 1


def deck_from_source(seed: int, source: str) -> list[int]:
    """The deck order (52 card indices, our deal order) of `seed` in the deal source `source`.

    `source` is ``native`` (RULES.md 3), ``pysol`` (PySol FC game number) or ``ksolve``
    (Klondike-Solver seed). Raises DealError for an unknown source, a seed outside the source's
    range, or a missing optional package.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise DealError(f"seed {seed!r} is not a whole number")
    if source == "native":
        return native_deck(seed)
    if source == "pysol":
        return pysol_deck(seed)
    if source == "ksolve":
        return ksolve_deck(seed)
    raise DealError(f"unknown deal source {source!r} (choose {', '.join(SOURCES)})")


def pysol_deck(game_number: int) -> list[int]:
    """The deck order of PySol FC Klondike game `game_number`, dealt by `pysol-cards`.

    pysol-cards builds the board exactly as PySol FC shows it: seven columns left to right, each
    listed bottom to top (face-down cards flagged), and the talon with the first card drawn first.
    Column c is our pile c+1 and the talon is our stock, so the layout maps over unchanged.
    """
    if not PYSOL_MIN_GAME <= game_number <= PYSOL_MAX_GAME:
        raise DealError(f"PySol game number {game_number} out of range: PySol FC games are "
                        f"numbered {PYSOL_MIN_GAME} to {PYSOL_MAX_GAME}")
    try:
        from pysol_cards.deal_game import Game
        from pysol_cards.random import RandomBase
    except ImportError:
        raise DealError("the pysol source needs the package pysol-cards "
                        "(install pysol-cards: pip install pysol-cards)") from None

    # DEALS_PYSOLFC is the numbering of modern PySol FC; DEALS_PYSOL (old PySol) gives other deals
    # above game 32000.
    game = Game("klondike", game_number, RandomBase.DEALS_PYSOLFC)
    # calc_layout_string() runs these two steps and then renders the board as text; the board
    # objects themselves are read here, so no text round trip is involved (the text form is
    # parsed by formats.parse_pysol_board and checked against this in the tests).
    game.deal()
    game.klondike()
    board = game.board
    columns = board.columns.cols
    if len(columns) != 7 or [len(c) for c in columns] != list(range(1, 8)) or len(board.talon) != 52 - TABLEAU_CARDS:
        raise DealError("pysol-cards returned an unexpected Klondike layout (unsupported version?)")
    for column in columns:
        # Only the top card of each column is face up in a fresh Klondike deal.
        if [card.flipped for card in column] != [True] * (len(column) - 1) + [False]:
            raise DealError("pysol-cards returned an unexpected Klondike layout (unsupported version?)")
    piles = [[_pysol_card_index(card) for card in column] for column in columns]
    stock = [_pysol_card_index(card) for card in board.talon]
    return piles_to_deal_order(piles, stock)


def _pysol_card_index(card) -> int:
    """Our card index of a pysol_cards Card (rank 1..13; suit letter from its 'CSHD' order)."""
    # pysol_cards numbers its suits C, S, H, D internally, so go through the suit letter.
    return "cdhs".index(card.suit_s().lower()) * 13 + card.rank - 1


def ksolve_deck(seed: int) -> list[int]:
    """The deck order of Klondike-Solver seed `seed`, as pyksolve's ``Solitaire().shuffle1(seed)`` deals it.

    Klondike-Solver keeps the deal as a card array that it deals exactly like RULES.md 3 (row by
    row; ``cards[28]`` ends on top of the stock, so it is drawn first), so its numeric deck string
    (``get_solitaire()``) is already our deal order; only the card encoding differs.
    """
    if not KSOLVE_MIN_SEED <= seed <= KSOLVE_MAX_SEED:
        raise DealError(f"Klondike-Solver seed {seed} out of range: seeds are {KSOLVE_MIN_SEED} to "
                        f"{KSOLVE_MAX_SEED} (a C int)")
    try:
        from pyksolve.solver import Solitaire
    except ImportError:
        raise DealError("the ksolve source needs the optional package pyksolve "
                        "(install pyksolve: pip install pyksolve)") from None
    from .formats import parse_ksolve_string  # formats imports deal; imported here to keep it lazy

    game = Solitaire()
    game.shuffle1(seed)
    return parse_ksolve_string(game.get_solitaire())
