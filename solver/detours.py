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

import time
from collections.abc import Callable, Iterator

from .errors import KlondikeError
from .game import Game
from .notation import Action


def _moves_back(actions: list[Action]) -> Iterator[tuple[int, int]]:
    """Stretches (first, last) whose moves of one card to leave out of `actions`: a move of a
    card and the card's later moves up to the first that puts it back where that move took it
    from (down from its foundation and up again, or to a pile and back). The actions of other
    cards in between stay."""
    for first, action in enumerate(actions):
        if action.kind != "move":
            continue
        for last in range(first + 1, len(actions)):
            later = actions[last]
            if later.kind == "move" and later.card == action.card and later.target == action.source:
                yield first, last
                break


def _loops(origin: Game, actions: list[Action]) -> Iterator[tuple[int, int]]:
    """Stretches (first, last) of `actions` after which the layout (piles, stock, waste and
    foundations, the pass number aside) is as it was before them, the longest first for each
    start: all of the stretch is left out."""
    game = origin.copy()
    seen: dict[tuple, list[int]] = {_layout(game): [0]}
    for index, action in enumerate(actions):
        game.apply(action)
        seen.setdefault(_layout(game), []).append(index + 1)
    loops = [(starts[0], ends) for starts in seen.values() if len(starts) > 1 for ends in starts[1:]]
    for first, after in sorted(loops, key=lambda loop: (loop[0], -loop[1])):
        yield first, after - 1


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
        for kind in (_loops, _moves_back):
            stretches = kind(origin, actions) if kind is _loops else kind(actions)
            for first, last in stretches:
                if deadline is not None and time.perf_counter() >= deadline:
                    return best
                if kind is _moves_back:
                    kept = [action for index, action in enumerate(actions)
                            if not (first <= index <= last and action.kind == "move"
                                    and action.card == actions[first].card)]
                else:
                    kept = actions[:first] + actions[last + 1:]
                game = played(origin, kept)
                if game is not None and value(game) > best_value:
                    actions, best, best_value, improved = kept, game, value(game), True
                    break
            if improved:
                break
    return best
