"""Commitments: the decisions of a game with hidden cards, as a sampled hint can weigh them.

In every sampled deal the solver behind a hint knows all the cards, so a reversible action (a draw
round an unlimited stock, a run moved to another pile and back) always looks at least as good as any
real decision: "keep every option open" costs nothing to a player who will know everything. A
sampled hint can therefore weigh commitments instead of single actions (`hint_unknown` with
`commitments=True`): the actions that cannot be taken back (a card turned, a card taken from the
waste, a pile emptied of a non-king, a draw that shows unseen cards or leaves the cycle of reachable
stock positions), each after the shortest run of reversible actions that leads to it.

`reversible` tells the two kinds apart from RULES.md alone; `commitments` walks the positions that
reversible actions reach (safe cards sent up on the way) and collects the commitments found there,
one per distinct decision (`decision`); `first_commitment` takes the one a solver's line begins with,
for positions with too many reversible continuations to walk."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .cards import is_red, value_of
from .game import Game, Position, can_go_to_foundation
from .line import actions_of
from .notation import Action, move
from .positions import UNKNOWN

KING = 13
MAX_POSITIONS = 200  # the positions reachable by reversible play that are walked at most


@dataclass(frozen=True)
class Commitment:
    """Reversible actions (`prefix`), then one action that cannot be taken back (`action`)."""

    prefix: tuple[Action, ...]
    action: Action

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action of the commitment, in order."""
        return self.prefix + (self.action,)


def applies(game: Game) -> bool:
    """True when the hint weighs commitments: no points (every action has the same cost, so taking
    one back is free) and no auto-play (which can make a move after a reversible action that cannot
    be taken back)."""
    return game.rules.scoring is None and not game.rules.auto_play


def reversible(game: Game, action: Action) -> bool:
    """True if `action` (legal in `game`, whose unseen cards are `UNKNOWN`) can be taken back by
    legal play and shows no card: the position before it is reachable again from the position after
    it. A draw that shows an unseen card is a commitment: it changes what the player knows.

    Why each case holds, with unlimited passes (with a pass limit every draw and recycle uses up
    part of the stock's future, so none is reversible):
    - a recycle: drawing from the full stock reaches every multiple of the draw count, and the end;
    - a draw from a waste holding a multiple of the draw count: after the recycle the draws come
      back to that waste; from any other waste they never do (the stock positions reachable from
      the turned-over stock are the multiples), so such a draw is a commitment;
    - a move from the foundation to a pile: the card is on top and goes back up;
    - a move from a pile that leaves a face-up card below the run: face-up cards are a built run, so
      the run (or the single card sent to the foundation, foundation->tableau allowed) goes back;
      one that empties the pile goes back only when its lowest card is a king;
    - a card taken from the waste, or a move that turns a face-down card: never.
    """
    position = game.position
    rules = game.rules
    if action.kind in ("draw", "recycle"):
        if rules.passes is not None:
            return False
        if action.kind == "recycle":
            return True
        return len(position.waste) % rules.draw == 0 and UNKNOWN not in position.stock[:rules.draw]
    if action.source == "W":
        return False
    if action.source == "F":
        return True
    if action.target == "F" and not rules.foundation_to_tableau:
        return False
    pile = position.piles[action.source - 1]
    index = pile.index(action.card)
    if index > position.face_down[action.source - 1]:
        return True
    return index == 0 and value_of(action.card) == KING


def state_key(position: Position, unlimited: bool = False) -> tuple:
    """A hashable value equal for positions that play alike: the seven piles play the same role, so
    their order is left out, and so is the pass number with `unlimited` passes (it changes nothing
    then)."""
    piles = tuple(sorted((tuple(p), d) for p, d in zip(position.piles, position.face_down)))
    return (piles, tuple(position.stock), tuple(position.waste), tuple(position.foundations),
            None if unlimited else position.pass_number)


def decision(game: Game, action: Action) -> tuple:
    """What a commitment decides, whatever the reversible play before it: which card goes where
    (a pile named by its top card, since the piles may have been rearranged), or a draw from a given
    stock size. Two commitments deciding the same are one candidate."""
    position = game.position
    if action.kind == "draw":
        return ("D", len(position.stock))
    if action.kind == "recycle":
        return ("R",)
    if action.target == "F":
        target = "F"
    else:
        top = position.pile_top(action.target)
        target = "empty" if top is None else top
    source = action.source if action.source in ("W", "F") else "pile"
    return (action.card, source, target)


def safe_up(position: Position, card: int) -> bool:
    """True if no card still out could want `card` as a tableau base: a two or lower, or both
    foundations of the other colour already hold the cards one below it."""
    value = value_of(card)
    other_colour = [suit for suit in range(4) if is_red(suit * 13) != is_red(card)]
    return value <= 2 or all(position.foundations[suit] >= value - 1 for suit in other_colour)


def _settle(game: Game) -> list[Action]:
    """Send up every pile top that is safe to send up (`safe_up`) and reversible (it turns no card):
    such moves lose nothing, and walking every order of them (with foundation->tableau allowed they
    are reversible) would never end. Returns the moves made."""
    made = []
    position = game.position
    progress = True
    while progress:
        progress = False
        for pile in range(1, 8):
            top = position.pile_top(pile)
            if top is None or not can_go_to_foundation(position, top) or not safe_up(position, top):
                continue
            action = move(top, pile, "F")
            if reversible(game, action):
                game.apply(action)
                made.append(action)
                progress = True
    return made


def commitments(game: Game, max_positions: int | None = None) -> list[Commitment] | None:
    """The commitments reachable from `game` (whose unknown cards are `UNKNOWN`) through reversible
    actions (safe cards go up on the way, see `_settle`), each with its shortest prefix, in
    the order found (breadth first); None when more than `max_positions` positions are reachable
    that way (then a walk through them is too slow, and the commitments found so far may miss the
    one that matters; default `MAX_POSITIONS`). A game that reversible play alone wins (every card
    known) gives that win as a commitment too."""
    max_positions = MAX_POSITIONS if max_positions is None else max_positions
    unlimited = game.rules.passes is None
    start = Game(game.deal, game.rules, game.position, check=False)  # only the position matters here
    queue = deque([(start, tuple(_settle(start)))])
    explored = {state_key(start.position, unlimited)}
    found: dict[tuple, Commitment] = {}
    while queue:
        current, prefix = queue.popleft()
        if current.won:
            found.setdefault(("won",), Commitment(prefix[:-1], prefix[-1]))
            continue
        for action in current.legal_actions():
            if action.source == "F" and safe_up(current.position, action.card):
                continue  # nothing needs a safe card back down (and `_settle` would send it up again)
            if not reversible(current, action):
                found.setdefault(decision(current, action), Commitment(prefix, action))
                continue
            after = Game(current.deal, current.rules, current.position, check=False)
            after.apply(action)
            settled = _settle(after)
            key = state_key(after.position, unlimited)
            if key not in explored:
                if len(explored) >= max_positions:
                    return None
                explored.add(key)
                queue.append((after, prefix + (action, *settled)))
    return list(found.values())


def first_commitment(game: Game, macros) -> Commitment | None:
    """The first commitment of a solver's line (its macro-moves, found in a sampled deal of
    `game`, whose unknown cards are `UNKNOWN`): the reversible actions it starts with, then its
    first action that cannot be taken back; None if it has none (it wins by reversible play)."""
    current = Game(game.deal, game.rules, game.position, check=False)
    prefix = []
    for action in actions_of(current, macros):
        if not reversible(current, action):
            return Commitment(tuple(prefix), action)
        current.apply(action)
        prefix.append(action)
    return None


def decision_of(game: Game, commitment: Commitment) -> tuple:
    """What `commitment`, taken from `game`, decides (see `decision`)."""
    current = Game(game.deal, game.rules, game.position, check=False)
    for action in commitment.prefix:
        current.apply(action)
    return decision(current, commitment.action)
