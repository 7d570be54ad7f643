"""Deal formats: reading a deal from text in any supported format, and exporting one.

Formats (all describe the same thing: a fresh Klondike deal, RULES.md sections 2-3):

``native``
    52 card codes in our deal order (``Ah Tc 9d ...``; RULES.md 3). Our own ``klondike deal --json``
    output (a JSON object with a ``"deal"`` list) is read as well.
``ksolve``
    Klondike-Solver's numeric deck string (``LoadSolitaire`` / ``GetSolitaire``; pyksolve's
    ``load_solitaire`` / ``get_solitaire``): 52 three-digit codes, 156 digits, no separators. Each
    code is the rank as two digits (``01`` = A .. ``13`` = K) then the suit as one digit, ``1`` = c,
    ``2`` = d, ``3`` = h, ``4`` = s (Klondike-Solver stores its suits as C D S H but swaps S and H
    when writing this string). The cards are in our deal order: Klondike-Solver deals them row by
    row exactly like RULES.md 3 and puts ``cards[28]`` on top of the stock, drawn first.
``pysol``
    A PySol FC board as ``pysol-cards`` prints it: a ``Talon:`` line listing the stock, first card
    drawn first, then the seven columns left to right, one line each, listed bottom to top with the
    face-down cards in ``<..>``. Cards are rank then upper-case suit letter (``TH`` or ``10H``).
    Klondike-Solver's PySol diagram (lines prefixed with ``:``, ``Talon: ==> ... <==`` and an empty
    ``Foundations:`` line) is read too.
``solvitaire``
    Solvitaire's JSON deal: ``{"tableau piles": [[...] x 7], "stock": [...]}``. Piles are listed
    bottom to top; a card is rank (``A``, ``2``..``10``, ``J``, ``Q``, ``K``) then suit letter, and
    a LOWER-case suit marks a face-down card (``"10h"`` face down, ``"10H"`` face up; all upper
    case would mean every card face up, an easier game). The stock's LAST element is drawn first.

Klondike-Solver's solutions (its move lists) are read too: `play_ksolve_moves`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .cards import RANKS, SUITS, format_card, is_plain_number, make_card, parse_cards, suit_of, value_of
from .deal import TABLEAU_CARDS, Deal, deal_order_to_piles, piles_to_deal_order
from .errors import CardError, DealError, KlondikeError
from .game import Game
from .rules import Ruleset

EXPORT_FORMATS = ("native", "ksolve", "pysol", "solvitaire")

ACCEPTED_FORMATS = ("52 card codes in deal order (Ah Tc 9d ...), a Klondike-Solver deck string "
                    "(156 digits, as pyksolve's get_solitaire gives), a PySol FC board (a 'Talon:' line "
                    "and 7 columns, face-down cards in <..>), or Solvitaire JSON "
                    "({\"tableau piles\": [...], \"stock\": [...]})")

PILES = 7
STOCK_CARDS = 52 - TABLEAU_CARDS

# Klondike-Solver's suit digits 1..4 in our suit order c, d, h, s (see the module docstring).
_KSOLVE_SUIT_DIGITS = "1234"
_PYSOL_CARD = re.compile(r"^(<)?(10|[A2-9TJQK])([CDHS])(>)?$", re.IGNORECASE)
_SOLVITAIRE_CARD = re.compile(r"^(1[0-3]|[1-9]|[ATJQK])([cdhsCDHS])$", re.IGNORECASE)


def parse_deal_text(text: str) -> Deal:
    """A deal from text in any supported format, detected from the text itself.

    Accepted: 52 card codes in deal order; our ``deal --json`` object; a Klondike-Solver numeric
    deck string; a PySol FC board; a Solvitaire JSON deal (see the module docstring). Anything else
    raises DealError naming the accepted formats.
    """
    fmt = detect_format(text)
    stripped = _clean(text)
    if fmt == "ksolve":
        return Deal(tuple(parse_ksolve_string(stripped)))
    if fmt == "pysol":
        return Deal(tuple(parse_pysol_board(stripped)))
    if fmt in ("solvitaire", "json"):
        data = _load_json(stripped)
        if fmt == "solvitaire":
            return Deal(tuple(parse_solvitaire(data)))
        return _seeded_if_named(data, Deal(tuple(_parse_native_json(data))))
    return Deal(tuple(_parse_native_codes(stripped)))


def detect_format(text: str) -> str:
    """The format a deal text is written in: ``native``, ``ksolve``, ``pysol``, ``solvitaire`` or ``json``.

    ``json`` is our own ``deal --json`` output. Detection looks only at the shape of the text (JSON
    object, digits only, a ``Talon:`` line); the chosen parser then checks the content. Raises
    DealError for empty text or JSON that is neither a Solvitaire deal nor ours.
    """
    stripped = _clean(text)
    if not stripped:
        raise DealError(f"empty deal text; accepted formats: {ACCEPTED_FORMATS}")
    if stripped[0] in "{[":
        data = _load_json(stripped)
        if isinstance(data, dict) and "tableau piles" in data:
            return "solvitaire"
        if (isinstance(data, dict) and "deal" in data) or isinstance(data, list):
            return "json"
        raise DealError(f"unrecognised JSON deal (no \"tableau piles\" or \"deal\" key); "
                        f"accepted formats: {ACCEPTED_FORMATS}")
    if re.fullmatch(r"[0-9\s]+", stripped):
        return "ksolve"
    if re.search(r"^\s*:?\s*talon\s*:", stripped, re.IGNORECASE | re.MULTILINE):
        return "pysol"
    return "native"


def export_deal(deal: Deal, fmt: str) -> str:
    """The deal written in format `fmt` (``native``, ``ksolve``, ``pysol``, ``solvitaire``), no final newline.

    Reading the result back with `parse_deal_text` gives the same deck order.
    """
    if fmt == "native":
        return " ".join(deal.codes)
    if fmt == "ksolve":
        return format_ksolve_string(deal.cards)
    if fmt == "pysol":
        return format_pysol_board(deal.cards)
    if fmt == "solvitaire":
        return format_solvitaire(deal.cards)
    raise DealError(f"unknown deal format {fmt!r} (choose {', '.join(EXPORT_FORMATS)})")


def _clean(text: str) -> str:
    """The text without surrounding blanks or a byte-order mark (files saved by some editors have one)."""
    return text.strip().lstrip("\ufeff").strip()


# --- native -------------------------------------------------------------------------------------


def _parse_native_codes(text: str) -> list[int]:
    """52 card codes in deal order; a text that is not card codes gets the accepted-formats message."""
    try:
        cards = parse_cards(text)
    except CardError as err:
        raise DealError(f"unrecognised deal text ({err}); accepted formats: {ACCEPTED_FORMATS}") from None
    if len(cards) != 52:
        raise DealError(f"a deal has 52 card codes, got {len(cards)}; accepted formats: {ACCEPTED_FORMATS}")
    return cards


def _parse_native_json(data) -> list[int]:
    """Our `deal --json` object (its ``"deal"`` list), or a bare JSON list of 52 card codes."""
    codes = data.get("deal") if isinstance(data, dict) else data
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise DealError("a JSON deal's \"deal\" must be a list of 52 card codes")
    return _parse_native_codes(" ".join(codes))


def _seeded_if_named(data, deal: Deal) -> Deal:
    """Our `deal --json` object names its seed and source: the deal with them, so that what is
    read back says `seed 3 (native)` as the deal it was written from. DealError if the cards are
    not that seed's (the label would be false); the explicit deal where the source cannot be dealt
    here (an optional package missing)."""
    if not isinstance(data, dict) or data.get("seed") is None:
        return deal
    seed, source = data["seed"], data.get("source", "native")
    if isinstance(seed, bool) or not isinstance(seed, int) or source not in ("native", "pysol", "ksolve"):
        raise DealError(f"a JSON deal's \"seed\" is a whole number and its \"source\" native, pysol or ksolve, "
                        f"got {seed!r} and {source!r}")
    try:
        named = Deal.from_seed(seed, source)
    except DealError:
        if source == "native":  # always dealt here: the seed itself is bad
            raise
        return deal
    if named.cards != deal.cards:
        raise DealError(f"the JSON deal's cards are not those of seed {seed} ({source}): leave out \"seed\" "
                        f"for an explicit deal")
    return named


def _load_json(text: str):
    """Parse JSON, turning a syntax error into a one-line DealError."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:  # RecursionError: nested too deeply
        raise DealError(f"the deal looks like JSON but is not valid JSON: {err}") from None


# --- Klondike-Solver ----------------------------------------------------------------------------


def parse_ksolve_string(text: str) -> list[int]:
    """The deck order of a Klondike-Solver numeric deck string (156 digits; whitespace ignored).

    Each card is ``RRS``: rank 01..13, then suit 1 = c, 2 = d, 3 = h, 4 = s. The string is in our
    deal order already (see the module docstring).
    """
    digits = "".join(text.split())
    if not is_plain_number(digits):
        raise DealError("a Klondike-Solver deck string has only digits")
    if len(digits) != 52 * 3:
        raise DealError(f"a Klondike-Solver deck string has 156 digits (52 cards x 3), got {len(digits)}")
    deck = []
    for i in range(52):
        code = digits[3 * i:3 * i + 3]
        rank, suit = int(code[:2]), code[2]
        if not 1 <= rank <= 13 or suit not in _KSOLVE_SUIT_DIGITS:
            raise DealError(f"bad Klondike-Solver card code {code!r} at card {i + 1} "
                            "(rank 01..13 then suit 1=c 2=d 3=h 4=s)")
        deck.append(make_card(_KSOLVE_SUIT_DIGITS.index(suit), rank))
    _check_distinct(deck, "Klondike-Solver deck string")
    return deck


def format_ksolve_string(deck) -> str:
    """The Klondike-Solver numeric deck string of a deck order (what pyksolve's load_solitaire takes)."""
    return "".join(f"{value_of(c):02d}{_KSOLVE_SUIT_DIGITS[suit_of(c)]}" for c in deck)


_KSOLVE_FOUNDATIONS = "CDHS"  # a foundation letter of its move lists, in our suit order c d h s


@dataclass
class KsolveLine:
    """A Klondike-Solver move list played on our engine: the game, our tokens for its actions (no
    auto-play tokens), and its count of flips (turned cards, not actions here) and recycles."""

    game: Game
    tokens: list[str]
    flips: int
    recycles: int


def play_ksolve_moves(deal: Deal, rules: Ruleset, moves: str) -> KsolveLine:
    """Play Klondike-Solver's move list (pyksolve's `moves_made()`) on our engine.

    `DR#`: # draws; `NEW`: a recycle; `F#`: a card of pile # turned (our engine turns it by
    itself, so the pile must show a face-up top); `XY` / `XY-n`: a move of 1 / n cards, X and Y
    in 1..7, `W` or a foundation letter (C D H S). Raises KlondikeError (IllegalAction included)
    when a move does not fit the position.
    """
    game = Game(deal, rules)
    tokens: list[str] = []
    flips = recycles = 0
    for item in moves.split():
        if item.startswith("DR") and is_plain_number(item[2:]):
            new = ["D"] * int(item[2:])
        elif item == "NEW":
            new = ["R"]
            recycles += 1
        elif re.fullmatch(r"F[1-7]", item):
            pile = int(item[1:]) - 1
            if game.position.face_down[pile] >= len(game.position.piles[pile]):
                raise KlondikeError(f"{item}: pile {pile + 1} has no face-up top after the turn")
            flips += 1
            continue
        else:
            match = re.fullmatch(r"([W1-7CDHS])([1-7CDHS])(?:-([0-9]+))?", item)
            if match is None:
                raise KlondikeError(f"unknown Klondike-Solver move {item!r}")
            source, target, count = match.group(1), match.group(2), int(match.group(3) or 1)
            position = game.position
            if source == "W":
                card, where = position.waste_top, "W"
            elif source.isdigit():
                pile = position.piles[int(source) - 1]
                card, where = (pile[-count] if count <= len(pile) else None), int(source)
            else:
                card, where = position.foundation_top(_KSOLVE_FOUNDATIONS.index(source)), "F"
            if card is None:
                raise KlondikeError(f"Klondike-Solver move {item!r} takes a card from an empty place")
            new = [f"{format_card(card)}:{where}>{target if target.isdigit() else 'F'}"]
        for token in new:
            game.play(token)
        tokens.extend(new)
    return KsolveLine(game, tokens, flips, recycles)


# --- PySol FC -----------------------------------------------------------------------------------


def parse_pysol_board(text: str) -> list[int]:
    """The deck order of a PySol FC Klondike board (a ``Talon:`` line and 7 column lines).

    Columns are piles 1..7, each bottom to top; every card but a column's last must be face down
    (``<..>``) and the last face up, as in any fresh Klondike deal. The talon lists the stock, first
    card drawn first. Klondike-Solver's variant (``:`` before each column, ``==>``/``<==`` around
    the talon, an empty ``Foundations:`` line) is accepted.
    """
    talon: list[str] | None = None
    columns: list[list[str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        label, _, rest = line.partition(":")
        key = label.strip().lower()
        if key == "talon":
            if talon is not None:
                raise DealError("PySol board: more than one 'Talon:' line")
            talon = _pysol_talon(rest)
        elif key == "foundations":
            # A fresh deal has empty foundations; Klondike-Solver writes them as 'H-0 C-0 ...'.
            if any(not re.fullmatch(r"([CDHS]-0?|-)", tok, re.IGNORECASE) for tok in rest.split()):
                raise DealError("PySol board: the foundations of a fresh deal are empty")
        elif key in ("freecells", "reserve", "waste"):
            raise DealError(f"PySol board: a Klondike deal has no {label.strip()!r} line")
        elif key == "" and line.startswith(":"):
            columns.append(rest.split())  # Klondike-Solver prefixes each column with ':'
        elif ":" in line:
            raise DealError(f"PySol board: unexpected line {line!r}")
        else:
            columns.append(line.split())
    if talon is None:
        raise DealError("PySol board: no 'Talon:' line")
    if len(columns) != PILES:
        raise DealError(f"PySol board: a Klondike board has 7 columns, got {len(columns)}")
    piles = []
    for number, tokens in enumerate(columns, start=1):
        if len(tokens) != number:
            raise DealError(f"PySol board: column {number} has {len(tokens)} cards, a fresh deal has {number}")
        pile = []
        for depth, token in enumerate(tokens):
            card, face_down = _pysol_card(token)
            top = depth == len(tokens) - 1
            if face_down == top:
                raise DealError(f"PySol board: column {number} card {token!r}: only the top (last) card of a "
                                "column is face up, the others are written face down as <..>")
            pile.append(card)
        piles.append(pile)
    if len(talon) != STOCK_CARDS:
        raise DealError(f"PySol board: the talon has {len(talon)} cards, a fresh deal has {STOCK_CARDS}")
    stock = []
    for token in talon:
        card, face_down = _pysol_card(token)
        if face_down:
            raise DealError(f"PySol board: talon card {token!r} should be written without <..>")
        stock.append(card)
    deck = piles_to_deal_order(piles, stock)
    _check_distinct(deck, "PySol board")
    return deck


def _pysol_talon(rest: str) -> list[str]:
    """The talon cards of a 'Talon:' line, dropping Klondike-Solver's '==>' / '<==' markers."""
    tokens = rest.split()
    if "==>" in tokens:
        # Klondike-Solver writes 'Talon: WASTE ==> STOCK <=='; a fresh deal has an empty waste.
        waste = tokens[:tokens.index("==>")]
        if waste:
            raise DealError("PySol board: the waste of a fresh deal is empty")
        tokens = tokens[tokens.index("==>") + 1:]
    return [t for t in tokens if t != "<=="]


def _pysol_card(token: str) -> tuple[int, bool]:
    """A PySol card token (``TH``, ``10H``, ``<QS>``): (card index, face down)."""
    match = _PYSOL_CARD.match(token)
    if not match or bool(match.group(1)) != bool(match.group(4)):
        raise DealError(f"PySol board: unknown card {token!r} (expected e.g. TH, 10H, <QS>)")
    rank = "T" if match.group(2) == "10" else match.group(2).upper()
    return make_card(SUITS.index(match.group(3).lower()), RANKS.index(rank) + 1), bool(match.group(1))


def format_pysol_board(deck, tens: str = "T") -> str:
    """The PySol FC board of a deck order, as pysol-cards prints it (``tens`` "T" or "10")."""
    piles, stock = deal_order_to_piles(deck)

    def code(card: int) -> str:
        rank = RANKS[value_of(card) - 1]
        return (tens if rank == "T" else rank) + SUITS[suit_of(card)].upper()

    lines = ["Talon: " + " ".join(code(c) for c in stock)]
    for pile in piles:
        lines.append(" ".join([f"<{code(c)}>" for c in pile[:-1]] + [code(pile[-1])]))
    return "\n".join(lines)


# --- Solvitaire ---------------------------------------------------------------------------------


def parse_solvitaire(data) -> list[int]:
    """The deck order of a Solvitaire JSON deal (already decoded from JSON).

    ``"tableau piles"``: 7 piles, bottom to top, of 1..7 cards; all but the top card face down
    (lower-case suit) and the top face up (upper-case suit). ``"stock"``: 24 cards, the LAST drawn
    first. An empty ``"waste"`` or ``"foundations"`` is allowed.
    """
    if not isinstance(data, dict):
        raise DealError("a Solvitaire deal is a JSON object")
    unknown = set(data) - {"tableau piles", "stock", "waste", "foundations"}
    if unknown:
        raise DealError(f"Solvitaire deal: unexpected key(s) {', '.join(sorted(map(repr, unknown)))} "
                        "for a Klondike deal")
    # Solvitaire also reads a waste and foundations; a fresh Klondike deal has both empty.
    if data.get("waste", []) != []:
        raise DealError("Solvitaire deal: the waste of a fresh deal is empty")
    foundations = data.get("foundations", [])
    if not isinstance(foundations, list) or any(f != [] for f in foundations):
        raise DealError("Solvitaire deal: the foundations of a fresh deal are empty")
    piles_data = data.get("tableau piles")
    if not isinstance(piles_data, list) or len(piles_data) != PILES:
        raise DealError("Solvitaire deal: \"tableau piles\" must be a list of 7 piles")
    piles = []
    for number, pile_data in enumerate(piles_data, start=1):
        if not isinstance(pile_data, list) or len(pile_data) != number:
            raise DealError(f"Solvitaire deal: pile {number} must have {number} cards (bottom to top)")
        pile = []
        for depth, text in enumerate(pile_data):
            card, face_down = _solvitaire_card(text)
            top = depth == number - 1
            if face_down == top:
                raise DealError(
                    f"Solvitaire deal: pile {number} card {text!r} is face {'down' if face_down else 'up'}; only "
                    "a pile's top (last) card is face up: write face-down cards with a lower-case suit "
                    "(\"10h\") and the top card with an upper-case suit (\"10H\")")
            pile.append(card)
        piles.append(pile)
    stock_data = data.get("stock")
    if not isinstance(stock_data, list) or len(stock_data) != STOCK_CARDS:
        raise DealError(f"Solvitaire deal: \"stock\" must be a list of {STOCK_CARDS} cards")
    # Solvitaire draws from the end of the stock list: reverse it into our first-drawn-first order.
    stock = [_solvitaire_card(text)[0] for text in reversed(stock_data)]
    deck = piles_to_deal_order(piles, stock)
    _check_distinct(deck, "Solvitaire deal")
    return deck


def _solvitaire_card(text) -> tuple[int, bool]:
    """A Solvitaire card string (``"10h"``, ``"AS"``, ``"1c"``): (card index, lower-case suit)."""
    match = _SOLVITAIRE_CARD.match(text) if isinstance(text, str) else None
    if not match:
        raise DealError(f"Solvitaire deal: unknown card {text!r} (expected e.g. \"AS\", \"10h\", \"QD\")")
    rank_text, suit_text = match.group(1).upper(), match.group(2)
    value = RANKS.index(rank_text) + 1 if not rank_text.isdigit() else int(rank_text)
    return make_card(SUITS.index(suit_text.lower()), value), suit_text.islower()


def format_solvitaire(deck) -> str:
    """The Solvitaire JSON deal of a deck order: face-down cards with a lower-case suit, stock reversed."""
    piles, stock = deal_order_to_piles(deck)

    def code(card: int, face_down: bool) -> str:
        value = value_of(card)
        rank = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(value, str(value))  # Solvitaire writes 10, not T
        suit = SUITS[suit_of(card)]
        return json.dumps(rank + (suit if face_down else suit.upper()))

    pile_lines = ["    [" + ", ".join(code(c, i < len(pile) - 1) for i, c in enumerate(pile)) + "]"
                  for pile in piles]
    stock_line = ", ".join(code(c, False) for c in reversed(stock))
    return ("{\n  \"tableau piles\": [\n" + ",\n".join(pile_lines) + "\n  ],\n"
            f"  \"stock\": [{stock_line}]\n}}")


# --- shared -------------------------------------------------------------------------------------


def _check_distinct(deck, what: str) -> None:
    """Raise DealError naming the format if a card appears twice (Deal would say it less clearly)."""
    seen = set()
    for card in deck:
        if card in seen:
            raise DealError(f"{what}: duplicate card {format_card(card)}")
        seen.add(card)
