"""Deal sources `pysol` and `ksolve`: the same number gives the same layout as the real packages show.

pysol-cards and pyksolve are both in the project's test extra, so they are imported directly: a
missing package is a broken test environment, not a reason to skip.
"""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

import cli
from pyksolve.solver import Solitaire
from pysol_cards.cards import CardRenderer
from pysol_cards.deal_game import Game
from pysol_cards.random import RandomBase
from solver.cards import format_card, parse_card
from solver.deal import Deal
from solver.errors import DealError
from solver.formats import export_deal, parse_deal_text
from solver.sources import KSOLVE_MAX_SEED, PYSOL_MAX_GAME, deck_from_source

PYSOL_GAMES = [1, 2, 5, 617, 11982, 31999, 32000, 32001, 40000, 123456, 987654321, 2**40 + 3,
               10**19, 2**64 - 1, PYSOL_MAX_GAME] + list(range(100, 130))
KSOLVE_SEEDS = [0, 1, 5, 101, 1234, 65535, 10**9, KSOLVE_MAX_SEED] + list(range(200, 230))


def pysol_text(game_number: int, tens: bool = True, which=RandomBase.DEALS_PYSOLFC) -> str:
    """The board pysol-cards renders for a Klondike game number."""
    return Game("klondike", game_number, which).calc_layout_string(CardRenderer(tens))


def ksolve_game(seed: int) -> Solitaire:
    """A pyksolve game shuffled with Klondike-Solver's own shuffle, ready to show."""
    game = Solitaire()
    assert game.shuffle1(seed) == seed
    game.reset_game(1)
    return game


def parse_game_diagram(diagram: str) -> tuple[list[list[str]], list[str]]:
    """Piles (bottom to top) and stock (in printed order) from Klondike-Solver's GameDiagram.

    Line k (1..7) prints the face-up cards top first, then '-' and the face-down cards top first,
    so a pile bottom to top is the line's cards reversed; line 8 is the stock.
    """
    rows = {}
    for line in diagram.splitlines():
        head, sep, rest = line.partition(":")
        if sep and head.strip().isdigit():
            rows[int(head)] = rest.replace("-", " ").split()
    piles = [[c[0] + c[1].lower() for c in reversed(rows[k])] for k in range(1, 8)]
    stock = [c[0] + c[1].lower() for c in rows[8]]
    return piles, stock


def layout(deal: Deal) -> tuple[list[list[str]], list[str]]:
    """Our deal's piles (bottom to top) and stock (first drawn first) as card codes."""
    return ([[format_card(c) for c in pile] for pile in deal.tableau], [format_card(c) for c in deal.stock])


# --- pysol --------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_number", PYSOL_GAMES)
def test_pysol_source_matches_pysol_cards_board(game_number):
    """The same game number gives exactly the board pysol-cards prints (T and 10 renderings)."""
    deal = Deal.from_seed(game_number, "pysol")
    assert (deal.seed, deal.source) == (game_number, "pysol")
    assert export_deal(deal, "pysol") + "\n" == pysol_text(game_number)
    assert parse_deal_text(pysol_text(game_number, tens=False)).cards == deal.cards


def test_pysol_source_layout_semantics():
    """Columns are piles 1..7 bottom to top; the talon's first card is our first stock card (d28)."""
    game = Game("klondike", 5, RandomBase.DEALS_PYSOLFC)
    game.deal()
    game.klondike()
    columns = [[c.rank, c.suit_s()] for c in game.board.columns.cols[6]]
    deal = Deal.from_seed(5, "pysol")
    text = pysol_text(5).splitlines()
    assert text[0].split()[1] == format_card(deal.cards[28]).upper()          # first drawn
    assert text[0].split()[-1] == format_card(deal.cards[51]).upper()         # drawn last
    assert text[1] == format_card(deal.cards[0]).upper()                      # pile 1
    assert text[7].split()[-1] == format_card(deal.cards[27]).upper()         # pile 7's face-up top
    assert text[7].split()[0] == "<" + format_card(deal.cards[6]).upper() + ">"  # pile 7's bottom
    assert [parse_card("A23456789TJQK"[r - 1] + s) for r, s in columns] == deal.tableau[6]


def test_pysol_uses_modern_pysolfc_numbering():
    """Above 32000 PySol FC (Mersenne Twister) and old PySol (LCRandom64) deal differently: ours is PySol FC."""
    ours = export_deal(Deal.from_seed(40000, "pysol"), "pysol") + "\n"
    assert ours == pysol_text(40000, which=RandomBase.DEALS_PYSOLFC)
    assert ours != pysol_text(40000, which=RandomBase.DEALS_PYSOL)
    # Up to 32000 both numberings use the Microsoft-compatible generator.
    assert pysol_text(31999, which=RandomBase.DEALS_PYSOL) == pysol_text(31999)


@pytest.mark.parametrize("game_number", [0, PYSOL_MAX_GAME + 1, 10**30])
def test_pysol_game_number_out_of_range(game_number):
    """PySol FC games are numbered 1..10**20."""
    with pytest.raises(DealError, match="PySol game number"):
        deck_from_source(game_number, "pysol")


def test_pysol_cards_missing_gives_install_hint(monkeypatch):
    """Without pysol-cards the error says how to install it (a None entry makes import fail)."""
    monkeypatch.setitem(sys.modules, "pysol_cards.deal_game", None)
    with pytest.raises(DealError, match="pip install pysol-cards"):
        deck_from_source(5, "pysol")


# --- ksolve -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", KSOLVE_SEEDS)
def test_ksolve_source_matches_pyksolve_shuffle1(seed):
    """The same seed gives the layout pyksolve's shuffle1 shows, and the same deck and PySol strings."""
    deal = Deal.from_seed(seed, "ksolve")
    assert (deal.seed, deal.source) == (seed, "ksolve")
    game = ksolve_game(seed)
    assert layout(deal) == parse_game_diagram(game.game_diagram())
    assert export_deal(deal, "ksolve") == game.get_solitaire()
    # Klondike-Solver's own PySol rendering is the same board we export.
    assert export_deal(deal, "pysol") == game.get_pysol()


@pytest.mark.parametrize("seed", [0, 5, 77, KSOLVE_MAX_SEED])
def test_ksolve_export_loads_back_into_pyksolve(seed):
    """Our exported ksolve string, loaded with load_solitaire, shows the same game as shuffle1."""
    shuffled = ksolve_game(seed)
    loaded = Solitaire()
    assert loaded.load_solitaire(export_deal(Deal.from_seed(seed, "ksolve"), "ksolve")) is True
    loaded.reset_game(1)
    assert loaded.get_solitaire() == shuffled.get_solitaire()
    assert loaded.game_diagram() == shuffled.game_diagram()


def test_ksolve_draws_d28_first():
    """Klondike-Solver really draws our d28 first: with Ac there, its first move draws once and plays it."""
    cards = list(Deal.from_seed(5, "ksolve").cards)
    ace_clubs, ace_diamonds = parse_card("Ac"), parse_card("Ad")
    for card, where in ((ace_clubs, 28), (ace_diamonds, 51)):
        i = cards.index(card)
        cards[i], cards[where] = cards[where], cards[i]
    game = Solitaire()
    assert game.load_solitaire(export_deal(Deal(tuple(cards)), "ksolve"))
    game.reset_game(1)
    game.solve_fast(max_closed_count=20000)
    game.reset_game(1)  # get_move_info describes a move against the current (initial) position
    assert game.get_move_info(0) == "Draw 1 time and move AC from waste on to foundation"


@pytest.mark.parametrize("seed", [-1, KSOLVE_MAX_SEED + 1, 2**63])
def test_ksolve_seed_out_of_range(seed):
    """Klondike-Solver seeds are a non-negative C int."""
    with pytest.raises(DealError, match="Klondike-Solver seed"):
        deck_from_source(seed, "ksolve")


def test_pyksolve_missing_gives_install_hint(monkeypatch):
    """pyksolve is optional: without it the error says 'install pyksolve: pip install pyksolve'."""
    monkeypatch.setitem(sys.modules, "pyksolve.solver", None)
    with pytest.raises(DealError, match=r"install pyksolve: pip install pyksolve"):
        deck_from_source(5, "ksolve")


# --- shared -------------------------------------------------------------------------------------


def test_native_source_and_unknown_source():
    """`native` goes through the RULES.md generator; an unknown source is a DealError."""
    assert deck_from_source(5, "native") == list(Deal.from_seed(5).cards)
    with pytest.raises(DealError, match="unknown deal source"):
        deck_from_source(5, "freecell")
    with pytest.raises(DealError, match="whole number"):
        deck_from_source("5", "pysol")


def test_sources_give_different_deals_for_one_number():
    """The three sources are different deal generators (so the source must be stated)."""
    decks = {src: Deal.from_seed(5, src).cards for src in ("native", "pysol", "ksolve")}
    assert len(set(decks.values())) == 3


# --- CLI ----------------------------------------------------------------------------------------


def test_cli_deal_pysol_json():
    """`klondike deal 5 --source pysol --json` prints PySol FC game 5 as JSON."""
    result = CliRunner().invoke(cli.main, ["deal", "5", "--source", "pysol", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["seed"], data["source"]) == (5, "pysol")
    board = pysol_text(5).splitlines()
    assert [c.upper() for c in data["stock"]] == board[0].split()[1:]
    assert [[c.upper() for c in pile] for pile in data["tableau"]] == [
        [tok.strip("<>") for tok in line.split()] for line in board[1:]]


def test_cli_deal_ksolve_format_ksolve():
    """`klondike deal 5 --source ksolve --format ksolve` prints pyksolve's own deck string."""
    result = CliRunner().invoke(cli.main, ["deal", "5", "--source", "ksolve", "--format", "ksolve"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == ksolve_game(5).get_solitaire()


@pytest.mark.parametrize("args", [["deal", "0", "--source", "pysol"],
                                  ["deal", "2147483648", "--source", "ksolve"]])
def test_cli_source_errors_are_one_line_exit_2(args):
    """A seed outside a source's range exits 2 with one error line and no traceback."""
    result = CliRunner().invoke(cli.main, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("klondike: error:")
    assert "Traceback" not in result.stderr
