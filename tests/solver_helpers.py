"""Helpers for the solver correctness tests: small endgame positions and the reference engine's
exhaustive answer on them (a breadth-first enumeration of every reachable position).

Nothing here uses the numba core: the ground truth comes from `solver.game` only.
"""

from __future__ import annotations

import itertools
import random
from collections import deque

from solver.cards import fits_on_tableau, format_card
from solver.deal import Deal
from solver.game import Game, Position
from solver.positions import check_position, from_text, to_text
from solver.rules import PRESETS, Ruleset

DEAL0 = Deal.from_seed(0)
PILES = 7

# Every parameter combination of RULES.md section 5 that matters for winnability.
DRAWS = (1, 3)
PASSES = (1, 2, 3, None)
COMBOS = [Ruleset("t", draw=d, passes=p, foundation_to_tableau=f, auto_play=a)
          for d, p, f, a in itertools.product(DRAWS, PASSES, (False, True), (False, True))]


def combo_id(rules: Ruleset) -> str:
    """A short test id: `d1-p3-f2t-auto`."""
    passes = "inf" if rules.passes is None else str(rules.passes)
    return (f"d{rules.draw}-p{passes}-{'f2t' if rules.foundation_to_tableau else 'nof2t'}-"
            f"{'auto' if rules.auto_play else 'noauto'}")


def copy_position(pos: Position) -> Position:
    """A fast copy (the engine's own copy is a deepcopy)."""
    return Position([list(p) for p in pos.piles], list(pos.face_down), list(pos.stock), list(pos.waste),
                    list(pos.foundations), pos.pass_number)


def state_key(pos: Position, rules: Ruleset) -> tuple:
    """The engine's exact key with the piles sorted, and without the pass number under unlimited passes.

    Positions that differ only by the order of the piles are the same game (the rules treat the
    seven piles alike, and auto-play ends in the same position whatever order it scans them in),
    so sorting the piles only shrinks the enumeration; the pass number matters only under a limit.
    """
    piles = tuple(sorted((tuple(p), d) for p, d in zip(pos.piles, pos.face_down)))
    key = (piles, tuple(pos.stock), tuple(pos.waste), tuple(pos.foundations))
    return key if rules.passes is None else key + (pos.pass_number,)


def engine_winnable(position: Position, rules: Ruleset, limit: int = 200_000) -> tuple[bool, int]:
    """Breadth-first search over Game.legal_actions()/apply(): (a won position is reachable, states seen).

    Raises if more than `limit` distinct positions are reachable (the test positions are meant to
    be tiny).
    """
    if position.won:
        return True, 1
    seen = {state_key(position, rules)}
    queue = deque([position])
    while queue:
        pos = queue.popleft()
        game = Game(DEAL0, rules, pos)
        for action in game.legal_actions():
            game.apply(action)
            after = game.position
            if after.won:
                return True, len(seen)
            key = state_key(after, rules)
            if key not in seen:
                seen.add(key)
                if len(seen) > limit:
                    raise RuntimeError(f"more than {limit} positions reachable from\n{to_text(position)}")
                queue.append(copy_position(after))
            game.undo()
    return False, len(seen)


# ----- position builders ------------------------------------------------------------------------

def in_play_cards(foundations) -> list[int]:
    """The cards not on the foundations (per-suit prefixes)."""
    return [s * 13 + v for s in range(4) for v in range(foundations[s], 13)]


def random_foundations(rng: random.Random, n_cards: int) -> list[int]:
    """Foundation heights leaving exactly `n_cards` cards in play."""
    missing = [0, 0, 0, 0]
    for _ in range(n_cards):
        suit = rng.choice([s for s in range(4) if missing[s] < 13])
        missing[suit] += 1
    return [13 - m for m in missing]


def random_endgame(rng: random.Random, n_cards: int, *, stock_share: float = 0.35,
                   waste_share: float = 0.1, run_chance: float = 0.75, piles_used: int | None = None,
                   pass_number: int = 1) -> Position:
    """A random position with `n_cards` cards in play, the rest on the foundations.

    Cards go to the stock, the waste or piles; on a pile a card that fits on the top is laid face
    up on it (a run) with probability `run_chance`, otherwise everything below it is face down.
    """
    foundations = random_foundations(rng, n_cards)
    cards = in_play_cards(foundations)
    rng.shuffle(cards)
    piles: list[list[int]] = [[] for _ in range(PILES)]
    face_down = [0] * PILES
    stock: list[int] = []
    waste: list[int] = []
    used = piles_used if piles_used is not None else rng.randint(1, PILES)
    pile_choices = rng.sample(range(PILES), used)
    for card in cards:
        roll = rng.random()
        if roll < stock_share:
            stock.append(card)
        elif roll < stock_share + waste_share:
            waste.append(card)
        else:
            # prefer a pile where the card fits, to make runs
            fitting = [p for p in pile_choices if piles[p] and fits_on_tableau(card, piles[p][-1])]
            if fitting and rng.random() < run_chance:
                piles[rng.choice(fitting)].append(card)
                continue
            p = rng.choice(pile_choices)
            face_down[p] = len(piles[p])
            piles[p].append(card)
    position = Position(piles, face_down, stock, waste, foundations, pass_number)
    check_position(position)
    return position


def positions_along(deal: Deal, rules: Ruleset, tokens: list[str], max_in_play: int) -> list[Position]:
    """The positions of a line (tokens without `*`) once at most `max_in_play` cards are in play."""
    game = Game(deal, rules)
    found = []
    for token in tokens:
        if token.endswith("*"):
            continue
        game.play(token)
        if 52 - sum(game.position.foundations) <= max_in_play and not game.won:
            found.append(copy_position(game.position))
    return found


def describe(position: Position, rules: Ruleset) -> str:
    """Text for a failure message: the ruleset and the position."""
    return f"{rules.describe()}\n{to_text(position)}"


def picture(text: str) -> Position:
    """A Position from a compact picture: left-out lines are empty, foundations default to 13 each
    for suits not mentioned... (no: every suit must be given on the foundations line)."""
    fields = {"stock": "-", "waste": "-", "pass": "1"}
    fields.update({str(i): "-" for i in range(1, PILES + 1)})
    for raw in text.strip().splitlines():
        key, _, value = raw.partition(":")
        fields[key.strip().lower()] = value.strip()
    order = ["foundations", "stock", "waste", "pass"] + [str(i) for i in range(1, PILES + 1)]
    return from_text("\n".join(f"{k}: {fields[k]}" for k in order) + "\n")


__all__ = ["COMBOS", "DEAL0", "PRESETS", "combo_id", "copy_position", "describe", "engine_winnable",
           "format_card", "in_play_cards", "picture", "positions_along", "random_endgame", "state_key"]
