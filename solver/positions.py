"""Positions as text (a readable picture that parses back) and as JSON; both round-trip.

Text form, one item per line::

    foundations: c=1 d=0 h=0 s=0
    stock: 8s Jh 9c          (the first card drawn first; `-` when empty)
    waste: 2d Qd             (the top last; `-` when empty)
    pass: 1
    1: [8s] [Jh] 9c 8h       (face-down cards in brackets, bottom to top; `-` when empty)
    ...
    7: [2s] ... Kd

An unknown card is written `??` (`[??]` face down): used by hints from what a player can see.
The terminal picture is the same text with suit symbols and red cards in colour; it parses too.
"""

from __future__ import annotations

import json
import re

from .cards import SUITS, format_card, is_plain_number, is_whole_number, parse_card, pretty_card, suit_of, value_of
from .errors import CardError, PositionError
from .game import PILES, Position

UNKNOWN = -1
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _code(card: int, colour: bool | None) -> str:
    if card == UNKNOWN:
        return "??"
    return format_card(card) if colour is None else pretty_card(card, colour)


def to_text(position: Position, symbols: bool = False, colour: bool = False) -> str:
    """The text picture of a position; `symbols` uses ♣♦♥♠, `colour` adds ANSI red."""
    style = colour if symbols else None

    def cards_text(cards):
        return " ".join(_code(c, style) for c in cards) if cards else "-"

    lines = ["foundations: " + " ".join(f"{s}={position.foundations[i]}" for i, s in enumerate(SUITS)),
             f"stock: {cards_text(position.stock)}",
             f"waste: {cards_text(position.waste)}",
             f"pass: {position.pass_number}"]
    for index, pile in enumerate(position.piles):
        down = position.face_down[index]
        parts = [f"[{_code(c, style)}]" for c in pile[:down]] + [_code(c, style) for c in pile[down:]]
        lines.append(f"{index + 1}: " + (" ".join(parts) if parts else "-"))
    return "\n".join(lines) + "\n"


def _parse_card_or_unknown(text: str, allow_unknown: bool) -> int:
    if text == "??":
        if not allow_unknown:
            raise PositionError("unknown cards (??) are not allowed here")
        return UNKNOWN
    try:
        return parse_card(text)
    except CardError as err:
        raise PositionError(str(err)) from None


TEXT_LINES = ("foundations", "stock", "waste", "pass") + tuple(str(i) for i in range(1, PILES + 1))


def from_text(text: str, allow_unknown: bool = False) -> Position:
    """Parse the text picture (plain or with symbols and colour) into a checked Position."""
    fields: dict[str, str] = {}
    for raw in _ANSI.sub("", text).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise PositionError(f"bad position line {raw.strip()!r}: expected 'name: value'")
        name = key.strip().lower()
        if name not in TEXT_LINES:
            raise PositionError(f"bad position line {raw.strip()!r}: a line is one of {', '.join(TEXT_LINES)}")
        if name in fields:
            raise PositionError(f"the position text has two {name!r} lines")
        fields[name] = value.strip()
    missing = [k for k in TEXT_LINES if k != "pass" and k not in fields]
    if missing:
        raise PositionError(f"position text lacks the line(s): {', '.join(missing)}")
    foundations = [0, 0, 0, 0]
    for item in fields["foundations"].split():
        suit, _, count = item.partition("=")
        if suit.lower() not in SUITS or not is_plain_number(count) or int(count) > 13:
            raise PositionError(f"bad foundation {item!r}: expected c=N d=N h=N s=N with N 0..13")
        foundations[SUITS.index(suit.lower())] = int(count)

    def card_list(value):
        return [] if value == "-" else [_parse_card_or_unknown(t, allow_unknown) for t in value.split()]

    piles, face_down = [], []
    for index in range(1, PILES + 1):
        pile, down, seen_up = [], 0, False
        value = fields[str(index)]
        for token in ([] if value == "-" else value.split()):
            if token.startswith("[") and token.endswith("]"):
                if seen_up:
                    raise PositionError(f"pile {index}: a face-down card above a face-up one")
                down += 1
                token = token[1:-1]
            else:
                seen_up = True
            pile.append(_parse_card_or_unknown(token, allow_unknown))
        piles.append(pile)
        face_down.append(down)
    pass_text = fields.get("pass", "1")
    if not is_plain_number(pass_text) or int(pass_text) < 1:
        raise PositionError(f"bad pass number {pass_text!r}")
    position = Position(piles, face_down, card_list(fields["stock"]), card_list(fields["waste"]),
                        foundations, int(pass_text))
    check_position(position, allow_unknown)
    return position


def to_json(position: Position) -> dict:
    """The JSON form of a position."""
    return {
        "foundations": {s: position.foundations[i] for i, s in enumerate(SUITS)},
        "stock": [_code(c, None) for c in position.stock],
        "waste": [_code(c, None) for c in position.waste],
        "pass": position.pass_number,
        "tableau": [{"face_down": [_code(c, None) for c in pile[:down]],
                     "face_up": [_code(c, None) for c in pile[down:]]}
                    for pile, down in zip(position.piles, position.face_down)],
    }


def from_json(data, allow_unknown: bool = False) -> Position:
    """Parse the JSON form (a dict or a JSON string) into a checked Position; each malformed field
    is named in the PositionError."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except (ValueError, RecursionError) as err:  # RecursionError: nested too deeply
            raise PositionError(f"bad position JSON: {err}") from None
    if not isinstance(data, dict):
        raise PositionError("a JSON position is an object with the fields foundations, stock, waste, pass and "
                            "tableau (as `klondike replay --json` prints under \"position\")")
    missing = [name for name in ("foundations", "stock", "waste", "tableau") if name not in data]
    if missing:
        raise PositionError(f"the JSON position lacks the field(s): {', '.join(missing)}")
    counts = data["foundations"]
    if not isinstance(counts, dict) or not all(is_whole_number(counts.get(s)) and 0 <= counts[s] <= 13 for s in SUITS):
        raise PositionError('"foundations" must be {"c": N, "d": N, "h": N, "s": N} with N 0..13')

    def card_list(value, name: str) -> list[int]:
        if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
            raise PositionError(f"{name} must be a list of card codes")
        return [_parse_card_or_unknown(code, allow_unknown) for code in value]

    tableau = data["tableau"]
    if not isinstance(tableau, list) or len(tableau) != PILES:
        raise PositionError(f'"tableau" must be a list of {PILES} piles')
    piles, face_down = [], []
    for number, pile in enumerate(tableau, 1):
        if not isinstance(pile, dict) or "face_down" not in pile or "face_up" not in pile:
            raise PositionError(f'pile {number} must be {{"face_down": [...], "face_up": [...]}}')
        down = card_list(pile["face_down"], f'pile {number}\'s "face_down"')
        up = card_list(pile["face_up"], f'pile {number}\'s "face_up"')
        piles.append(down + up)
        face_down.append(len(down))
    pass_number = data.get("pass", 1)
    if not is_whole_number(pass_number) or pass_number < 1:
        raise PositionError(f'"pass" must be a whole number >= 1, got {pass_number!r}')
    position = Position(piles, face_down, card_list(data["stock"], '"stock"'), card_list(data["waste"], '"waste"'),
                        [counts[s] for s in SUITS], pass_number)
    check_position(position, allow_unknown)
    return position


def check_position(position: Position, allow_unknown: bool = False) -> None:
    """Raise PositionError unless the position could occur: 7 piles, 52 cards (card indices
    0..51, or UNKNOWN where allowed), no duplicates, face-up runs that alternate colours downwards,
    a pass number from 1. (The solver core takes less: `state.encode`.)"""
    _check_shape(position)
    if any(not 0 <= f <= 13 for f in position.foundations):
        raise PositionError("a foundation holds 0..13 cards")
    on_foundations = {s * 13 + v for s in range(4) for v in range(position.foundations[s])}
    seen: dict[int, str] = {c: "a foundation" for c in on_foundations}
    unknown = 0
    places = [("the stock", position.stock), ("the waste", position.waste)]
    places += [(f"pile {i + 1}", pile) for i, pile in enumerate(position.piles)]
    for where, cards in places:
        for card in cards:
            if card == UNKNOWN:
                unknown += 1
                continue
            if card in seen:
                raise PositionError(f"duplicate card {format_card(card)} (in {where} and {seen[card]})")
            seen[card] = where
    if len(seen) + unknown != 52:
        raise PositionError(f"a position holds 52 cards, this one {len(seen) + unknown}")
    if unknown and not allow_unknown:
        raise PositionError("unknown cards (??) are for hints: here every card must be known")
    for index, (pile, down) in enumerate(zip(position.piles, position.face_down)):
        if down and down >= len(pile):
            raise PositionError(f"pile {index + 1}: the top card must be face up")
        if any(c == UNKNOWN for c in pile[down:]) or any(c == UNKNOWN for c in position.waste):
            raise PositionError("only face-down cards (tableau and stock) may be unknown")
        up = pile[down:]
        for lower, upper in zip(up, up[1:]):
            if not (value_of(upper) + 1 == value_of(lower) and (suit_of(upper) in (1, 2)) != (suit_of(lower) in (1, 2))):
                raise PositionError(f"pile {index + 1}: {format_card(upper)} cannot lie on {format_card(lower)}")
    if position.pass_number < 1:
        raise PositionError("the pass number starts at 1")


def check_position_under(position: Position, rules, allow_unknown: bool = False) -> None:
    """`check_position`, and PositionError if its pass number is past what `rules` allow."""
    check_position(position, allow_unknown)
    if rules.passes is not None and position.pass_number > rules.passes:
        raise PositionError(f"pass {position.pass_number} cannot occur under {rules.name}, which allows "
                            f"{rules.passes} pass{'es' if rules.passes > 1 else ''}")


def _check_shape(position: Position) -> None:
    """PositionError unless every field has the type and length a Position needs (a library user
    may build one by hand)."""
    lists = {"piles": position.piles, "face_down": position.face_down, "stock": position.stock,
             "waste": position.waste, "foundations": position.foundations}
    lists.update((f"pile {index}", pile) for index, pile in enumerate(position.piles, 1))
    for name, value in lists.items():
        if not isinstance(value, list):
            raise PositionError(f"a position's {name} is a list, got {type(value).__name__}")
    if len(position.piles) != PILES or len(position.face_down) != PILES:
        raise PositionError(f"a position has {PILES} piles and {PILES} face-down counts, got "
                            f"{len(position.piles)} and {len(position.face_down)}")
    if len(position.foundations) != 4:
        raise PositionError(f"a position has 4 foundation counts, got {len(position.foundations)}")
    cards = [card for pile in position.piles for card in pile] + position.stock + position.waste
    whole_numbers = cards + position.face_down + position.foundations + [position.pass_number]
    if not all(is_whole_number(value) for value in whole_numbers):
        raise PositionError("a position's cards, counts and pass number are whole numbers")
    if any(not (0 <= card < 52 or card == UNKNOWN) for card in cards):
        raise PositionError("a card is an index 0..51 (UNKNOWN for a card not seen)")
    if any(down < 0 for down in position.face_down):
        raise PositionError("a face-down count is at least 0")
