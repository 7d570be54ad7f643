"""Deal formats: detection, export and read-back, the real packages' readers, and bad inputs.

pyksolve is in the project's test extra, so it is imported directly (see test_sources.py).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import cli
from pyksolve.solver import Solitaire
from solver.cards import format_card, parse_card
from solver.deal import Deal
from solver.errors import DealError, KlondikeError
from solver.rules import PRESETS
from solver.formats import (EXPORT_FORMATS, detect_format, export_deal, format_pysol_board,
                            parse_deal_text, parse_ksolve_string, play_ksolve_moves)

NATIVE_SEEDS = range(150)
DEAL5 = Deal.from_seed(5)


def _case_id(value) -> str | None:
    """Test ids: the expected message (short) names each bad-input case, not the long input text."""
    return value if isinstance(value, str) and len(value) < 60 and "\n" not in value else "input"


def solvitaire(deal: Deal = DEAL5) -> dict:
    """The decoded Solvitaire JSON of a deal, for editing in tests."""
    return json.loads(export_deal(deal, "solvitaire"))


def pysol_lines(deal: Deal = DEAL5) -> list[str]:
    """The PySol board of a deal as a list of lines, for editing in tests."""
    return export_deal(deal, "pysol").splitlines()


# --- round trips and detection ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_every_format_round_trips_many_seeds(fmt):
    """Export then read back gives the same deck order, and the format is detected from the text."""
    expected_detect = {"native": "native", "ksolve": "ksolve", "pysol": "pysol", "solvitaire": "solvitaire"}[fmt]
    for seed in NATIVE_SEEDS:
        deal = Deal.from_seed(seed)
        text = export_deal(deal, fmt)
        assert detect_format(text) == expected_detect
        assert parse_deal_text(text).cards == deal.cards
        assert parse_deal_text("\n" + text + "\n\n").cards == deal.cards  # as read from a file


@pytest.mark.parametrize("source,seed", [("pysol", 5), ("pysol", 40000), ("ksolve", 5), ("ksolve", 99)])
@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_round_trip_other_sources(source, seed, fmt):
    """Deals from the other sources round-trip through every format too."""
    deal = Deal.from_seed(seed, source)
    assert parse_deal_text(export_deal(deal, fmt)).cards == deal.cards


def test_our_json_output_is_read_back():
    """`klondike deal --json` output (and a bare JSON list of codes) reads back as the same deal."""
    assert detect_format(json.dumps(DEAL5.to_json())) == "json"
    assert parse_deal_text(json.dumps(DEAL5.to_json())).cards == DEAL5.cards
    assert parse_deal_text(json.dumps(DEAL5.codes)).cards == DEAL5.cards


def test_native_export_is_52_codes_in_deal_order():
    """`native` is the 52 canonical codes in deal order; input may use 10, upper case, commas."""
    text = export_deal(DEAL5, "native")
    assert text.split() == DEAL5.codes
    loose = ", ".join(c.upper().replace("T", "10") for c in DEAL5.codes)
    assert parse_deal_text(loose).cards == DEAL5.cards
    assert parse_deal_text("\ufeff" + text + "\r\n").cards == DEAL5.cards  # BOM and CRLF from an editor


def test_parsed_deals_are_explicit():
    """A deal read from text has no seed: the text, not a generator, defines it."""
    deal = parse_deal_text(export_deal(Deal.from_seed(5, "pysol"), "pysol"))
    assert (deal.seed, deal.source) == (None, "explicit")
    assert parse_deal_text(json.dumps(DEAL5.codes)).seed is None


@pytest.mark.parametrize("source", ["native", "pysol", "ksolve"])
def test_our_json_keeps_the_seed_it_names_when_the_cards_are_that_seeds(source):
    deal = Deal.from_seed(5, source)
    assert parse_deal_text(json.dumps(deal.to_json())) == deal
    other = dict(deal.to_json(), seed=6)
    with pytest.raises(DealError, match="not those of seed 6"):
        parse_deal_text(json.dumps(other))
    explicit = dict(deal.to_json(), seed=None)
    assert parse_deal_text(json.dumps(explicit)) == Deal(deal.cards)


# --- Klondike-Solver numeric string -------------------------------------------------------------


def test_ksolve_encoding_details():
    """RRS codes: rank 01..13, suit 1=c 2=d 3=h 4=s; the string is our deal order."""
    deck = [parse_card(c) for c in ["Ac", "Kd", "Th", "2s"]] + [c for c in range(52) if c not in
                                                                 {parse_card(x) for x in ["Ac", "Kd", "Th", "2s"]}]
    text = export_deal(Deal(tuple(deck)), "ksolve")
    assert len(text) == 156 and text[:12] == "011132103024"
    assert parse_ksolve_string(" ".join(text[i:i + 3] for i in range(0, 156, 3))) == deck


@pytest.mark.parametrize("seed", list(range(40)) + [2**63 + 11])
def test_ksolve_export_matches_pyksolve_reader(seed):
    """pyksolve loads our ksolve export of any deal and shows the same layout and string back."""
    deal = Deal.from_seed(seed)
    text = export_deal(deal, "ksolve")
    game = Solitaire()
    assert game.load_solitaire(text) is True
    game.reset_game(1)
    assert game.get_solitaire() == text
    rows = {}
    for line in game.game_diagram().splitlines():
        head, sep, rest = line.partition(":")
        if sep and head.strip().isdigit():
            rows[int(head)] = [c[0] + c[1].lower() for c in rest.replace("-", " ").split()]
    # GameDiagram lists each pile top first (face-up, then '-' face-down) and the stock first drawn first.
    assert [list(reversed(rows[k])) for k in range(1, 8)] == [[format_card(c) for c in p] for p in deal.tableau]
    assert rows[8] == [format_card(c) for c in deal.stock]
    # And Klondike-Solver's own PySol rendering of the loaded deal is our PySol export.
    assert game.get_pysol() == export_deal(deal, "pysol")


@pytest.mark.parametrize("seed", [3, 8, 13])
def test_pysol_export_matches_pyksolve_pysol_reader(seed):
    """Klondike-Solver's PySol reader (load_pysol, padded to its 211-character minimum) reads our board."""
    deal = Deal.from_seed(seed)
    game = Solitaire()
    assert game.load_pysol(export_deal(deal, "pysol").ljust(211)) is True
    assert game.get_solitaire() == export_deal(deal, "ksolve")


def test_ksolve_pysol_diagram_is_read():
    """Klondike-Solver's game_diagram_pysol (':' columns, 'Talon: ==> .. <==', empty foundations) reads."""
    game = Solitaire()
    game.load_solitaire(export_deal(DEAL5, "ksolve"))
    game.reset_game(1)
    diagram = game.game_diagram_pysol()
    assert diagram.startswith("Foundations:") and "==>" in diagram
    assert detect_format(diagram) == "pysol"
    assert parse_deal_text(diagram).cards == DEAL5.cards


@pytest.mark.parametrize("text,message", [
    ("0" * 155, "156 digits"),
    ("011" * 52 + "0", "156 digits"),
    ("015" + "011" * 51, "bad Klondike-Solver card code '015'"),
    ("141" + "011" * 51, "bad Klondike-Solver card code '141'"),
    ("001" + "011" * 51, "bad Klondike-Solver card code '001'"),
    ("011" * 52, "duplicate card Ac"),
], ids=_case_id)
def test_bad_ksolve_strings(text, message):
    """Wrong length, bad rank or suit digit, duplicates: DealError saying what is wrong."""
    with pytest.raises(DealError, match=message):
        parse_deal_text(text)


# --- PySol board --------------------------------------------------------------------------------


def test_pysol_board_details():
    """Talon = stock first drawn first; columns = piles bottom to top; only tops face up; T or 10."""
    lines = pysol_lines()
    assert lines[0] == "Talon: " + " ".join(format_card(c).upper() for c in DEAL5.stock)
    assert lines[3] == " ".join(["<%s>" % format_card(c).upper() for c in DEAL5.tableau[2][:-1]]
                                + [format_card(DEAL5.tableau[2][-1]).upper()])
    tens = format_pysol_board(DEAL5.cards, tens="10")
    assert "T" not in tens.replace("Talon", "") and parse_deal_text(tens).cards == DEAL5.cards
    assert parse_deal_text(export_deal(DEAL5, "pysol").lower()).cards == DEAL5.cards


def _edit_pysol(index: int, new: str) -> str:
    lines = pysol_lines()
    lines[index] = new
    return "\n".join(lines)


@pytest.mark.parametrize("text,message", [
    ("\n".join(pysol_lines()[1:]), "unrecognised deal text"),   # no Talon line: not a PySol board
    ("\n".join(pysol_lines()[:-1]), "7 columns, got 6"),
    ("\n".join(pysol_lines() + ["KS"]), "7 columns, got 8"),
    ("\n".join(pysol_lines() + [pysol_lines()[0]]), "more than one 'Talon:' line"),
    (_edit_pysol(0, " ".join(pysol_lines()[0].split()[:-1])), "talon has 23 cards"),
    (_edit_pysol(2, pysol_lines()[2].split()[1]), "column 2 has 1 cards"),
    (_edit_pysol(2, pysol_lines()[2].replace("<", "").replace(">", "")), "only the top"),
    (_edit_pysol(1, "<" + pysol_lines()[1] + ">"), "only the top"),
    (_edit_pysol(1, "XZ"), "unknown card 'XZ'"),
    (_edit_pysol(1, "<7H"), "unknown card '<7H'"),
    (_edit_pysol(0, "Talon: " + " ".join(f"<{c}>" for c in pysol_lines()[0].split()[1:])), "without <..>"),
    (_edit_pysol(1, pysol_lines()[2].split()[-1]), "duplicate card"),
    ("Foundations: H-A\n" + export_deal(DEAL5, "pysol"), "foundations of a fresh deal are empty"),
    ("Freecells: -\n" + export_deal(DEAL5, "pysol"), "no 'Freecells' line"),
    (export_deal(DEAL5, "pysol").replace("Talon: ", "Talon: 2C ==> "), "waste of a fresh deal is empty"),
    (export_deal(DEAL5, "pysol") + "\nScore: 5", "unexpected line"),
], ids=_case_id)
def test_bad_pysol_boards(text, message):
    """Each malformed board raises DealError with a message naming the problem."""
    with pytest.raises(DealError, match=message):
        parse_deal_text(text)


# --- Solvitaire JSON ----------------------------------------------------------------------------


def test_solvitaire_conventions():
    """Piles bottom to top, lower-case suit = face down, 10 not T, stock LAST element drawn first."""
    data = solvitaire()
    assert list(data) == ["tableau piles", "stock"]
    piles, stock = data["tableau piles"], data["stock"]
    for pile, ours in zip(piles, DEAL5.tableau):
        assert [c[-1].islower() for c in pile] == [True] * (len(pile) - 1) + [False]
        assert [parse_card(c) for c in pile] == ours
    assert [parse_card(c) for c in stock] == list(reversed(DEAL5.stock))
    assert parse_card(stock[-1]) == DEAL5.cards[28]  # drawn first
    assert all(c == c.upper() for c in stock)
    assert not any("T" in c for pile in piles for c in pile) and any(c.startswith("10") for c in stock + sum(piles, []))


def test_solvitaire_lenient_inputs():
    """Solvitaire's own spellings read: '1' or 'a' for an ace, 11-13 for J-K, T; empty waste/foundations."""
    data = solvitaire()
    data["stock"] = [c.replace("A", "1").replace("K", "13").replace("10", "T").lower() for c in data["stock"]]
    data["tableau piles"][6] = [c.replace("A", "a") for c in data["tableau piles"][6]]
    data["waste"] = []
    data["foundations"] = [[], [], [], []]
    assert parse_deal_text(json.dumps(data)).cards == DEAL5.cards
    assert parse_deal_text(json.dumps(data, indent=None)).cards == DEAL5.cards


def _solvitaire_edit(**changes) -> str:
    data = solvitaire()
    for key, value in changes.items():
        data[key.replace("_", " ")] = value
    return json.dumps(data)


def _all_upper() -> str:
    data = solvitaire()
    data["tableau piles"] = [[c.upper() for c in pile] for pile in data["tableau piles"]]
    return json.dumps(data)


@pytest.mark.parametrize("text,message", [
    (_all_upper(), "lower-case suit"),                                    # the all-face-up trap
    (_solvitaire_edit(tableau_piles=solvitaire()["tableau piles"][:6]), "list of 7 piles"),
    (_solvitaire_edit(tableau_piles=[p[:1] for p in solvitaire()["tableau piles"]]), "pile 2 must have 2 cards"),
    (_solvitaire_edit(tableau_piles=[["3D"]] + solvitaire()["tableau piles"][1:]), "duplicate card"),
    (_solvitaire_edit(tableau_piles=[["3d"]] + solvitaire()["tableau piles"][1:]), "face down"),
    (_solvitaire_edit(tableau_piles=[["XX"]] + solvitaire()["tableau piles"][1:]), "unknown card 'XX'"),
    (_solvitaire_edit(tableau_piles=[[7]] + solvitaire()["tableau piles"][1:]), "unknown card 7"),
    (_solvitaire_edit(stock=solvitaire()["stock"][:-1]), "list of 24 cards"),
    (_solvitaire_edit(waste=["AS"]), "waste of a fresh deal is empty"),
    (_solvitaire_edit(foundations=[["AS"], [], [], []]), "foundations of a fresh deal are empty"),
    (_solvitaire_edit(reserve=[]), "unexpected key"),
    (json.dumps({"piles": []}), "unrecognised JSON deal"),
    ('{"tableau piles": [', "not valid JSON"),
    ("[1, 2]", "list of 52 card codes"),
], ids=_case_id)
def test_bad_solvitaire_deals(text, message):
    """Each malformed Solvitaire deal raises DealError with a message naming the problem."""
    with pytest.raises(DealError, match=message):
        parse_deal_text(text)


# --- unrecognised text, export errors -----------------------------------------------------------


@pytest.mark.parametrize("text,message", [
    ("", "empty deal text"),
    ("   \n ", "empty deal text"),
    ("hello world", "unrecognised deal text"),
    (" ".join(DEAL5.codes[:51]), "52 card codes, got 51"),
    (" ".join(DEAL5.codes[:51] + DEAL5.codes[:1]), "duplicate card"),
], ids=_case_id)
def test_unrecognised_text_lists_accepted_formats(text, message):
    """Text in no known format raises DealError; the message lists the accepted formats."""
    with pytest.raises(DealError, match=message) as info:
        parse_deal_text(text)
    if "duplicate" not in message:
        assert all(name in str(info.value) for name in ("card codes", "Klondike-Solver", "PySol", "Solvitaire"))
        assert "\n" not in str(info.value)


def test_export_unknown_format():
    """Only the four formats can be exported."""
    with pytest.raises(DealError, match="unknown deal format"):
        export_deal(DEAL5, "freecell")


# --- CLI ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["solvitaire", "ksolve", "pysol"])
def test_cli_format_round_trips_through_deal_file(tmp_path, fmt):
    """`deal 5 --format F > file` then `deal --deal-file file --json` gives deal 5 again."""
    runner = CliRunner()
    exported = runner.invoke(cli.main, ["deal", "5", "--format", fmt])
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == export_deal(DEAL5, fmt) + "\n"
    path = tmp_path / f"deal.{fmt}"
    path.write_text(exported.stdout, encoding="utf-8")
    back = runner.invoke(cli.main, ["deal", "--deal-file", str(path), "--json"])
    assert back.exit_code == 0, back.output
    assert json.loads(back.stdout)["deal"] == DEAL5.codes


def test_cli_deal_option_takes_any_format():
    """`--deal` accepts the other formats too (here a Klondike-Solver string)."""
    result = CliRunner().invoke(cli.main, ["deal", "--deal", export_deal(DEAL5, "ksolve"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deal"] == DEAL5.codes


@pytest.mark.parametrize("content", ["garbage here", _all_upper(), "011" * 52, "{"],
                         ids=["garbage", "solvitaire-all-face-up", "ksolve-duplicates", "bad-json"])
def test_cli_bad_deal_file_is_one_line_exit_2(tmp_path, content):
    """A deal file in no format, or a bad one, exits 2 with one error line and no traceback."""
    path = tmp_path / "bad.txt"
    path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(cli.main, ["deal", "--deal-file", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("klondike: error:")
    assert "Traceback" not in result.stderr


def test_ksolve_move_lists_that_do_not_fit_are_errors():
    """Klondike-Solver move lists are played on our engine; a move that is unknown, takes a card
    from an empty place, or that our rules refuse is an error naming the move."""
    deal = Deal.from_seed(1)
    # `DR²` and `12-٣`: digits isdigit() and the regex's \\d take, which int() refuses or misreads
    for moves in ("XY", "W1", "DR1 NEW", "DR\u00b2", "DR\u0663", "12-\u0663"):
        with pytest.raises(KlondikeError):
            play_ksolve_moves(deal, PRESETS["classic"], moves)
    line = play_ksolve_moves(deal, PRESETS["classic"], "DR2 F1")
    assert line.tokens == ["D", "D"] and line.flips == 1 and line.recycles == 0 and line.game.actions == 2
