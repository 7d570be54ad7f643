"""Actions and their tokens (RULES.md section 7): `D`, `R`, `CARD:FROM>TO`, auto-play with `*`."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import format_card, is_plain_number, is_whole_number, parse_card, string_items
from .errors import CardError, KlondikeError

WASTE = "W"
FOUNDATION = "F"


class TokenError(KlondikeError):
    """A token that is not in the notation of RULES.md section 7."""


@dataclass(frozen=True)
class Action:
    """One action: kind is "draw", "recycle" or "move".

    For a move, `card` is the moved card (the lowest of a run), `source` is "W", "F" or a pile
    number 1..7 and `target` is "F" or a pile number. `auto` marks a move made by auto-play.
    """

    kind: str
    card: int | None = None
    source: str | int | None = None
    target: str | int | None = None
    auto: bool = False

    def __post_init__(self):
        # Built by hand a pile counts from 1, as in the tokens: 0 or -1 would index another pile.
        if self.kind in ("draw", "recycle"):
            return
        if self.kind != "move":
            raise TokenError(f"an action's kind is draw, recycle or move, got {self.kind!r}")
        if not (is_whole_number(self.card) and 0 <= self.card < 52):
            raise TokenError(f"a move's card is an index 0..51 (cards.parse_card), got {self.card!r}")
        if not (self.source in (WASTE, FOUNDATION) or _is_pile(self.source)):
            raise TokenError(f"a move's source is 'W', 'F' or a pile 1..7, got {self.source!r}")
        if not (self.target == FOUNDATION or _is_pile(self.target)):
            raise TokenError(f"a move's target is 'F' or a pile 1..7, got {self.target!r}")

    def __repr__(self) -> str:
        return f"<Action {self.token}>"

    @property
    def token(self) -> str:
        """The RULES.md section 7 token of this action."""
        if self.kind == "draw":
            return "D"
        if self.kind == "recycle":
            return "R"
        star = "*" if self.auto else ""
        return f"{format_card(self.card)}:{self.source}>{self.target}{star}"

    def __str__(self) -> str:
        return self.token


def _is_pile(place) -> bool:
    return is_whole_number(place) and 1 <= place <= 7


DRAW = Action("draw")
RECYCLE = Action("recycle")


def move(card: int, source, target, auto: bool = False) -> Action:
    """A move action."""
    return Action("move", card, source, target, auto)


def _parse_place(text: str, allowed: str, token: str):
    if text in allowed:
        return text
    if is_plain_number(text) and 1 <= int(text) <= 7:
        return int(text)
    raise TokenError(f"bad token {token!r}: place {text!r} is not one of {', '.join(allowed)} or 1..7")


def parse_token(token: str) -> Action:
    """Parse one token; raises TokenError with the reason."""
    text = token.strip()
    if text.upper() == "D":
        return DRAW
    if text.upper() == "R":
        return RECYCLE
    auto = text.endswith("*")
    body = text[:-1] if auto else text
    if ":" not in body or ">" not in body:
        raise TokenError(f"bad token {token!r}: expected D, R or CARD:FROM>TO (e.g. 9h:W>3)")
    card_text, _, places = body.partition(":")
    source_text, _, target_text = places.partition(">")
    try:
        card = parse_card(card_text)
    except CardError as err:
        raise TokenError(f"bad token {token!r}: {err}") from None
    source = _parse_place(source_text.upper(), "WF", token)
    target = _parse_place(target_text.upper(), "F", token)
    if source == target:
        raise TokenError(f"bad token {token!r}: source and target are the same")
    return Action("move", card, source, target, auto)


def line_tokens(line) -> list[str]:
    """The tokens of a line given as a list (or any sequence) of tokens, or as one string of them
    (`"Ad:1>F D"`; as `parse_line` reads text); TypeError for anything else."""
    tokens = string_items(line, "a line's tokens (RULES.md 7: `D`, `R`, `Ad:1>F`)")
    return parse_line(line) if tokens is None else tokens


def parse_line(text: str) -> list[str]:
    """Split a line given as text (whitespace, commas, or a JSON list) into tokens."""
    stripped = text.strip()
    if stripped.startswith("["):
        import json

        try:
            tokens = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as err:  # RecursionError: nested too deeply
            raise TokenError(f"bad line: not a JSON list of tokens ({err})") from None
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise TokenError("bad line: a JSON line is a list of token strings")
        return tokens
    return stripped.replace(",", " ").split()
