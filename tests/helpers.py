"""Shared helpers for the foundation tests: building hand-made positions and random playouts."""

from __future__ import annotations

import random

from solver.cards import RANKS, SUITS, fits_on_tableau, parse_card
from solver.deal import Deal
from solver.game import Game, Position
from solver.positions import from_text

DEAL0 = Deal.from_seed(0)

ALL_CODES = [r + s for s in SUITS for r in RANKS]  # index order: Ac..Kc, Ad..Kd, Ah..Kh, As..Ks

_LINES = ["foundations", "stock", "waste", "pass"] + [str(i) for i in range(1, 8)]
_DEFAULTS = {"foundations": "c=0 d=0 h=0 s=0", "stock": "-", "waste": "-", "pass": "1"}


def build(text: str, fill: int | None = None) -> Position:
    """A Position from a compact picture (the text form of `solver.positions`).

    Lines that are left out default to empty (`-`, foundations at 0, pass 1). With `fill`, every
    card not named anywhere (nor on a foundation) is put face down at the bottom of pile `fill`,
    in index order, so a test only has to write the cards it cares about.
    """
    fields = dict(_DEFAULTS)
    for raw in text.strip().splitlines():
        key, _, value = raw.partition(":")
        fields[key.strip().lower()] = value.strip()
    for key in _LINES:
        fields.setdefault(key, "-")
    if fill is not None:
        used = set()
        for item in fields["foundations"].split():
            suit, _, count = item.partition("=")
            used.update(SUITS.index(suit) * 13 + v for v in range(int(count)))
        for key in ["stock", "waste"] + [str(i) for i in range(1, 8)]:
            if fields[key] != "-":
                used.update(parse_card(tok.strip("[]")) for tok in fields[key].split())
        missing = [c for c in range(52) if c not in used]
        down = " ".join(f"[{ALL_CODES[c]}]" for c in missing)
        pile = fields[str(fill)]
        fields[str(fill)] = (down + " " + pile).strip() if pile != "-" else down
    picture = "\n".join(f"{key}: {fields[key]}" for key in _LINES) + "\n"
    return from_text(picture)


def game_at(text: str, rules, fill: int | None = None) -> Game:
    """A Game under `rules` starting from a hand-built position."""
    return Game(DEAL0, rules, position=build(text, fill))


def tokens(game: Game, with_auto: bool = True) -> list[str]:
    """The line of a game as tokens (optionally without the auto-play `*` tokens)."""
    return [a.token for a in game.line if with_auto or not a.auto]


def random_playout(game: Game, rng: random.Random, max_actions: int, check=None, move_bias: float = 0.6) -> Game:
    """Play random legal actions; with probability `move_bias` a move is chosen (if any), and half of
    those times a move to a foundation, so that games make some progress. `check(game)` runs after
    every action."""
    for _ in range(max_actions):
        legal = game.legal_actions()
        if not legal:
            break
        moves = [a for a in legal if a.kind == "move"]
        if moves and rng.random() < move_bias:
            to_foundation = [a for a in moves if a.target == "F"]
            pool = to_foundation if to_foundation and rng.random() < 0.5 else moves
            action = rng.choice(pool)
        else:
            action = rng.choice(legal)
        game.apply(action)
        if check is not None:
            check(game)
    return game


def all_cards(position: Position) -> list[int]:
    """Every card of a position, foundations included (as indices)."""
    cards = [c for pile in position.piles for c in pile] + list(position.stock) + list(position.waste)
    cards += [s * 13 + v for s in range(4) for v in range(position.foundations[s])]
    return cards


def in_play_cards(foundations) -> list[int]:
    """The cards not on the foundations (per-suit prefixes)."""
    return [s * 13 + v for s in range(4) for v in range(foundations[s], 13)]


def lay_cards(rng: random.Random, cards, piles: list[list[int]], face_down: list[int], used, *,
              stock_share: float, waste_share: float, run_chance: float) -> tuple[list[int], list[int]]:
    """Lay `cards` in order at random: to the stock, the waste, or one of the piles `used` (a card
    that fits on a pile top is laid face up on it with probability `run_chance`, otherwise what lies
    below it is face down). Fills `piles` and `face_down` in place; returns (stock, waste)."""
    stock: list[int] = []
    waste: list[int] = []
    for card in cards:
        roll = rng.random()
        if roll < stock_share:
            stock.append(card)
        elif roll < stock_share + waste_share:
            waste.append(card)
        else:
            fitting = [p for p in used if piles[p] and fits_on_tableau(card, piles[p][-1])]
            if fitting and rng.random() < run_chance:
                piles[rng.choice(fitting)].append(card)
                continue
            pile = rng.choice(used)
            face_down[pile] = len(piles[pile])
            piles[pile].append(card)
    return stock, waste
