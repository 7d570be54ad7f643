"""Lines: turning the solver's macro-moves into RULES.md 7 tokens, checked by the reference engine.

The numba core reports each step of a line as (source, target, index, talon steps). Here each
step is played on the reference engine: its talon steps become `D`/`R` actions, its move becomes
a `CARD:FROM>TO` token, and the engine adds the auto-play tokens (`*`). If the engine refuses a
step, or the line does not end as the solver claims, the solver has a bug and we say so.
"""

from __future__ import annotations

from .errors import KlondikeError
from .game import Game
from .movegen import FOUNDATION_PLACE, NOWHERE, PILES, WASTE
from .notation import DRAW, RECYCLE, move


class SolverBug(KlondikeError):
    """The solver produced a line the reference engine rejects: a bug, never a user error."""


def _place(code: int):
    return "F" if code == FOUNDATION_PLACE else code + 1


def _talon_action(position):
    """The talon action in `position`: a draw, or a recycle once the stock is empty."""
    return DRAW if position.stock else RECYCLE


def _move_action(position, source: int, target: int, index: int):
    """The move of a macro-move (after its talon actions), as an engine action on `position`."""
    if source < PILES:
        card = position.piles[source][index]
    elif source == WASTE:
        card = position.waste_top
    else:
        card = position.foundation_top(index)
    source_place = "W" if source == WASTE else ("F" if source == FOUNDATION_PLACE else source + 1)
    return move(card, source_place, _place(target))


def actions_of(game: Game, macros):
    """The atomic actions of a line of macro-moves from `game`, one at a time: each is worked out
    from the game's position when asked for, so the caller plays each on `game` before asking for
    the next (or stops early)."""
    for source, target, index, steps in macros:
        source, target, index = int(source), int(target), int(index)
        for _ in range(int(steps)):
            yield _talon_action(game.position)
        if source != NOWHERE:
            yield _move_action(game.position, source, target, index)


def continue_game(origin: Game, macros) -> Game:
    """Play a list of macro-moves on a copy of `origin`; return the copy.

    Raises SolverBug if the engine refuses a step.
    """
    game = origin.copy()
    try:
        for action in actions_of(game, macros):
            game.apply(action)
    except (KlondikeError, IndexError, TypeError) as err:
        raise SolverBug(f"the engine rejects action {game.actions - origin.actions} of the solver's line: "
                        f"{err}") from None
    return game


def first_token(origin: Game, macros) -> str:
    """The token of the first action of a line of macro-moves from `origin` (nothing is played:
    the judging of sampled deals asks this for thousands of lines)."""
    source, target, index, steps = (int(field) for field in macros[0])
    if steps > 0:
        return _talon_action(origin.position).token
    return _move_action(origin.position, source, target, index).token


def tokens(game: Game, since: int = 0) -> list[str]:
    """The tokens of what was played in a game from entry `since` of its line on, auto-play
    moves marked with `*`."""
    return [action.token for action in game.line[since:]]


def counted(count: int, noun: str) -> str:
    """`1 action`, `2 actions`, `12,345 nodes`: a count and its noun, plural unless one."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def numbered(actions) -> list[str]:
    """A line for people: one numbered row per action, its auto-play moves on the same row."""
    rows: list[str] = []
    for action in actions:
        if action.auto and rows:
            rows[-1] += f"  {action.token}"
        else:
            rows.append(f"{len(rows) + 1:4d}. {action.token}")
    return rows
