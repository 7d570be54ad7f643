"""Detours in a line, and cutting them: plain Python over the reference engine.

A line a search did not prove best can carry detours that cost actions and gain nothing: a card
taken down from its foundation and put back, a card moved between piles and back, the talon
drawn round to where it was. A depth-first search stops at its first line better than the one it
had, detours and all (`harmony` seed 104 at 10 s: a line that takes 2d down from its foundation and
puts it back four times). `cut_detours` tries leaving such a stretch out, replays the rest on the
engine, and keeps the shorter line wherever it is legal and worth more, until none is. A proved
best line has none that pays, so only unproved lines are worth cutting.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator

from .errors import KlondikeError
from .game import Game
from .notation import Action


def _without_moves_back(actions: list[Action]) -> Iterator[list[Action]]:
    """`actions` without a move of a card and the card's later moves up to the first that puts it
    back where that move took it from (down from its foundation and up again, or to a pile and
    back); the actions of other cards in between stay. One such line for each move."""
    for first, action in enumerate(actions):
        if action.kind != "move":
            continue
        for last in range(first + 1, len(actions)):
            later = actions[last]
            if later.kind == "move" and later.card == action.card and later.target == action.source:
                yield [kept for index, kept in enumerate(actions)
                       if not (first <= index <= last and kept.kind == "move" and kept.card == action.card)]
                break


def _without_loops(origin: Game, actions: list[Action]) -> Iterator[list[Action]]:
    """`actions` without a stretch after which the layout (piles, stock, waste and foundations,
    the pass number aside) is as it was before it; for each start, the longest stretch first."""
    game = origin.copy()
    seen: dict[tuple, list[int]] = {_layout(game): [0]}
    for index, action in enumerate(actions):
        game.apply(action)
        seen.setdefault(_layout(game), []).append(index + 1)
    loops = [(starts[0], ends) for starts in seen.values() if len(starts) > 1 for ends in starts[1:]]
    for first, after in sorted(loops, key=lambda loop: (loop[0], -loop[1])):
        yield actions[:first] + actions[after:]


def _layout(game: Game) -> tuple:
    # A later pass only limits what follows (recycles left, penalties), so a loop that ends in a
    # later pass is still one to cut: the rest plays the same a pass or more earlier.
    return game.position.key()[:-1]


def played(origin: Game, actions: list[Action]) -> Game | None:
    """`actions` played on a copy of `origin`, or None where the engine refuses one."""
    game = origin.copy()
    try:
        for action in actions:
            game.apply(action)
    except KlondikeError:
        return None
    return game


def cut_detours(origin: Game, line: Game, value: Callable[[Game], int], deadline: float | None = None) -> Game:
    """`line` (a game continuing `origin`) with detours left out as long as each cut gives a legal
    line of higher `value` (the first such cut is kept, then the search starts again), or until
    `deadline` (a `time.perf_counter()` time). Auto-play moves are the engine's to make again."""
    actions = [action for action in line.line[len(origin.line):] if not action.auto]
    best, best_value = line, value(line)
    improved = True
    while improved:
        improved = False
        for kept in itertools.chain(_without_loops(origin, actions), _without_moves_back(actions)):
            if deadline is not None and time.perf_counter() >= deadline:
                return best
            game = played(origin, kept)
            worth = None if game is None else value(game)
            if worth is not None and worth > best_value:
                actions, best, best_value, improved = kept, game, worth, True
                break
    return best
