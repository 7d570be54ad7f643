"""The reference game engine: plain Python, written straight from RULES.md sections 4 and 6.

It is the referee of the project: every line a solver reports is replayed here. It is kept
simple and independent of the numba core (no shared code with `state`, `movegen`, `search`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from .cards import fits_on_tableau, format_card, suit_of, value_of
from .deal import Deal, deal_order_to_piles
from .errors import IllegalAction
from .notation import DRAW, RECYCLE, Action, line_tokens, move, parse_token
from .rules import Ruleset
from .score import Breakdown, actions_within_limit, breakdown, card_points, clock_seconds, recycle_penalty

PILES = 7


@dataclass
class Position:
    """A Klondike position.

    piles: 7 lists bottom to top; the first `face_down[i]` cards of pile i are face down.
    stock: the next card to be drawn first. waste: the top is the last card.
    foundations: number of cards per suit (c, d, h, s). pass_number: the pass in progress (1 first).
    """

    piles: list[list[int]]
    face_down: list[int]
    stock: list[int]
    waste: list[int] = field(default_factory=list)
    foundations: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    pass_number: int = 1

    @classmethod
    def initial(cls, deal: Deal) -> "Position":
        """The dealt position: only the top card of each pile face up."""
        piles, stock = deal_order_to_piles(deal.cards)
        return cls(piles, [len(p) - 1 for p in piles], stock)

    def __str__(self) -> str:
        """The plain-text picture of `positions.to_text` (which reads it back)."""
        from .positions import to_text  # positions imports this module

        return to_text(self)

    def copy(self) -> "Position":
        """An independent copy (every field is a list of ints or an int, so list copies suffice)."""
        return Position([list(pile) for pile in self.piles], list(self.face_down), list(self.stock),
                        list(self.waste), list(self.foundations), self.pass_number)

    def pile_top(self, pile: int) -> int | None:
        """The top card of pile 1..7, or None if empty."""
        cards = self.piles[pile - 1]
        return cards[-1] if cards else None

    def face_up(self, pile: int) -> list[int]:
        """The face-up cards of pile 1..7, bottom to top."""
        return self.piles[pile - 1][self.face_down[pile - 1]:]

    @property
    def waste_top(self) -> int | None:
        """The waste top, or None."""
        return self.waste[-1] if self.waste else None

    def foundation_top(self, suit: int) -> int | None:
        """The top card of a suit's foundation, or None."""
        count = self.foundations[suit]
        return suit * 13 + count - 1 if count else None

    def on_foundation(self, card: int) -> bool:
        """True if the card is on its foundation."""
        return self.foundations[suit_of(card)] >= value_of(card)

    @property
    def won(self) -> bool:
        """All 52 cards on the foundations."""
        return all(count == 13 for count in self.foundations)

    def card_count(self) -> int:
        """Cards in play plus on foundations (52 in every reachable position)."""
        return sum(len(p) for p in self.piles) + len(self.stock) + len(self.waste) + sum(self.foundations)

    def key(self) -> tuple:
        """A hashable value identifying the position exactly (for enumerations in tests)."""
        return (tuple(tuple(p) for p in self.piles), tuple(self.face_down), tuple(self.stock),
                tuple(self.waste), tuple(self.foundations), self.pass_number)


@dataclass
class _Counters:
    actions: int = 0
    card_points: int = 0
    turned: int = 0
    penalised_recycles: int = 0
    undos: int = 0
    won: bool = False  # all 52 cards up after this action (a line may go on after the win)


def can_go_to_foundation(position: Position, card: int) -> bool:
    """True if the card is the next of its suit's foundation."""
    return position.foundations[suit_of(card)] == value_of(card) - 1


def can_go_on_pile(position: Position, card: int, pile: int) -> bool:
    """True if the card (alone or as the bottom of a run) may be placed on pile 1..7."""
    top = position.pile_top(pile)
    if top is None:
        return value_of(card) == 13
    return fits_on_tableau(card, top)


def auto_playable(position: Position, card: int) -> bool:
    """RULES.md 4 auto-play test: an ace, or a card whose four lower cards are all up."""
    if not can_go_to_foundation(position, card):
        return False
    return value_of(card) == 1 or min(position.foundations) >= value_of(card) - 1


class Game:
    """A game in progress under a ruleset: the position, the clock and the score events."""

    def __init__(self, deal: Deal, rules: Ruleset, position: Position | None = None, check: bool = True):
        """A game from the deal, or from `position` (checked: PositionError if it cannot occur;
        `check=False` for one this engine made or a caller checked, as searches start thousands)."""
        if position is not None and check:
            from .positions import check_position  # positions imports this module

            check_position(position, allow_unknown=True)
        self.deal = deal
        self.rules = rules
        self.position = position.copy() if position is not None else Position.initial(deal)
        self.counters = _Counters(won=self.position.won)
        self.placed: set[int] = {c for s in range(4) for c in range(s * 13, s * 13 + self.position.foundations[s])}
        self.line: list[Action] = []  # every action and auto-play move, in order
        self._history: list[_Counters] = [copy.copy(self.counters)]  # counters after each action
        self._snapshots: list[tuple] = []  # for undo
        # RULES.md 4: auto-play acts after every action, so not on the deal itself.

    def __repr__(self) -> str:
        origin = f"seed {self.deal.seed} ({self.deal.source})" if self.deal.seed is not None else "explicit deal"
        return (f"<Game {origin}, {self.rules.name}, {self.actions} action{'' if self.actions == 1 else 's'}, "
                f"{sum(self.position.foundations)} on the foundations{', won' if self.won else ''}>")

    def copy(self) -> "Game":
        """An independent copy of the game, undo history included (searches replay lines on
        copies; a deepcopy took most of their time)."""
        twin = Game.__new__(Game)
        twin.deal, twin.rules = self.deal, self.rules
        twin.position = self.position.copy()
        twin.counters = copy.copy(self.counters)
        twin.placed = set(self.placed)
        twin.line = list(self.line)  # actions are immutable
        twin._history = list(self._history)  # entries are replaced, never changed in place
        twin._snapshots = [(position.copy(), copy.copy(counters), set(placed), length)
                           for position, counters, placed, length in self._snapshots]
        return twin

    # ----- queries -------------------------------------------------------------------------
    @property
    def won(self) -> bool:
        """True once all 52 cards are on the foundations."""
        return self.position.won

    @property
    def actions(self) -> int:
        """Number of actions made (auto-play and turning are not actions)."""
        return self.counters.actions

    @property
    def seconds(self):
        """Clock time of the actions made (a Fraction), or None with the clock off."""
        return clock_seconds(self.rules, self.counters.actions)

    def legal_actions(self) -> list[Action]:
        """Every legal action in the current position (in a fixed order)."""
        pos = self.position
        result: list[Action] = []
        if pos.won:
            return result  # the game is over
        if pos.stock:
            result.append(DRAW)
        elif pos.waste and self.rules.recycles_allowed(pos.pass_number):
            result.append(RECYCLE)
        top = pos.waste_top
        if top is not None:
            if can_go_to_foundation(pos, top):
                result.append(move(top, "W", "F"))
            result.extend(move(top, "W", p) for p in range(1, PILES + 1) if can_go_on_pile(pos, top, p))
        for src in range(1, PILES + 1):
            up = pos.face_up(src)
            for index, card in enumerate(up):
                if index == len(up) - 1 and can_go_to_foundation(pos, card):
                    result.append(move(card, src, "F"))
                result.extend(move(card, src, dst) for dst in range(1, PILES + 1)
                              if dst != src and can_go_on_pile(pos, card, dst))
        if self.rules.foundation_to_tableau:
            for suit in range(4):
                card = pos.foundation_top(suit)
                if card is not None:
                    result.extend(move(card, "F", p) for p in range(1, PILES + 1) if can_go_on_pile(pos, card, p))
        return result

    def check(self, action: Action) -> None:
        """Raise IllegalAction with the reason if `action` is not legal now."""
        pos = self.position
        if pos.won:
            raise IllegalAction("the game is already won")
        if action.kind == "draw":
            if not pos.stock:
                raise IllegalAction("cannot draw: the stock is empty")
            return
        if action.kind == "recycle":
            if pos.stock:
                raise IllegalAction("cannot recycle: the stock is not empty")
            if not pos.waste:
                raise IllegalAction("cannot recycle: the waste is empty")
            if not self.rules.recycles_allowed(pos.pass_number):
                raise IllegalAction(f"cannot recycle: the pass limit ({self.rules.passes}) is reached")
            return
        card, src, dst = action.card, action.source, action.target
        name = format_card(card)
        if src == "W":
            if pos.waste_top != card:
                top = format_card(pos.waste_top) if pos.waste_top is not None else "empty"
                raise IllegalAction(f"{name} is not the waste top (waste top: {top})")
        elif src == "F":
            if not self.rules.foundation_to_tableau:
                raise IllegalAction("foundation->tableau moves are not allowed under these rules")
            if pos.foundation_top(suit_of(card)) != card:
                raise IllegalAction(f"{name} is not the top of its foundation")
            if dst == "F":
                raise IllegalAction("cannot move from a foundation to a foundation")
        else:
            up = pos.face_up(src)
            if card not in up:
                where = "face down in" if card in pos.piles[src - 1] else "not in"
                raise IllegalAction(f"{name} is {where} pile {src}")
            if dst == "F" and up[-1] != card:
                raise IllegalAction(f"only the top card of pile {src} can go to a foundation, {name} is covered")
        if dst == "F":
            if not can_go_to_foundation(pos, card):
                raise IllegalAction(f"{name} does not go on its foundation (it holds {pos.foundations[suit_of(card)]} cards)")
        elif not can_go_on_pile(pos, card, dst):
            top = pos.pile_top(dst)
            if top is None:
                raise IllegalAction(f"only a king can go on the empty pile {dst}")
            raise IllegalAction(f"{name} does not fit on {format_card(top)} (pile {dst})")

    # ----- play ------------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Action]:
        """Play one action (checked); return the auto-play moves it caused."""
        if not isinstance(action, Action):
            raise TypeError(f"apply() takes an Action (notation.DRAW, notation.move); play() takes a token, "
                            f"got {type(action).__name__}")
        if action.auto:
            raise IllegalAction(f"{action.token} is an auto-play move: the game makes those by itself")
        self.check(action)
        self._snapshots.append((self.position.copy(), copy.copy(self.counters), set(self.placed), len(self.line)))
        pos = self.position
        self.counters.actions += 1
        if action.kind == "draw":
            taken = pos.stock[: self.rules.draw]
            del pos.stock[: self.rules.draw]
            pos.waste.extend(taken)
        elif action.kind == "recycle":
            pos.stock = pos.waste
            pos.waste = []
            pos.pass_number += 1
            if recycle_penalty(pos.pass_number):
                self.counters.penalised_recycles += 1
        else:
            self._move(action.card, action.source, action.target)
        self.line.append(Action(action.kind, action.card, action.source, action.target, False))
        auto_moves = self._auto_play()
        self.counters.won = pos.won
        self._history.append(copy.copy(self.counters))
        return auto_moves

    def play(self, token: str) -> list[Action]:
        """Parse and play one token (not an auto-play token); return the auto-play moves."""
        return self.apply(parse_token(token))

    def undo(self) -> None:
        """Take back the last action (and the auto-play after it); counts as an undo (-1000)."""
        if not self._snapshots:
            raise IllegalAction("nothing to undo")
        position, counters, placed, line_length = self._snapshots.pop()
        undos = self.counters.undos + 1
        self.position, self.counters, self.placed = position, counters, placed
        self.counters.undos = undos
        del self.line[line_length:]
        self._history.pop()
        self._history[-1] = copy.copy(self.counters)

    def _move(self, card: int, src, dst) -> None:
        pos = self.position
        if src == "W":
            cards = [pos.waste.pop()]
        elif src == "F":
            pos.foundations[suit_of(card)] -= 1
            cards = [card]
        else:
            pile = pos.piles[src - 1]
            index = pile.index(card)
            cards = pile[index:]
            del pile[index:]
            self._turn(src)
        if dst == "F":
            pos.foundations[suit_of(card)] += 1
            if card not in self.placed:
                self.placed.add(card)
                self.counters.card_points += card_points(self.rules.scoring, card)
        else:
            pos.piles[dst - 1].extend(cards)

    def _turn(self, pile: int) -> None:
        """Turn a face-down card left on top of pile 1..7 (not an action)."""
        pos = self.position
        index = pile - 1
        if pos.piles[index] and pos.face_down[index] == len(pos.piles[index]):
            pos.face_down[index] -= 1
            self.counters.turned += 1

    def _auto_play(self) -> list[Action]:
        """RULES.md 4 auto-play: the waste first, then piles 1..7, rescanning after each card."""
        moves: list[Action] = []
        if not self.rules.auto_play:
            return moves
        pos = self.position
        while True:
            candidates = [("W", pos.waste_top)] + [(p, pos.pile_top(p)) for p in range(1, PILES + 1)
                                                   if len(pos.piles[p - 1]) > pos.face_down[p - 1]]
            for source, card in candidates:
                if card is not None and auto_playable(pos, card):
                    self._move(card, source, "F")
                    auto_move = move(card, source, "F", auto=True)
                    moves.append(auto_move)
                    self.line.append(auto_move)
                    break
            else:
                return moves

    # ----- score -----------------------------------------------------------------------------
    def score(self) -> Breakdown:
        """The score of the line so far (RULES.md 6), the 300 s cut applied."""
        counted = actions_within_limit(self.rules, self.counters.actions)
        at_cut = self._history[counted] if counted < self.counters.actions else self.counters
        won = at_cut.won  # won by the cut, even if the line goes on after the win
        return breakdown(self.rules, at_cut.card_points, at_cut.turned, won, at_cut.penalised_recycles,
                         self.counters.undos, counted, out_of_time=counted < self.counters.actions)

    def summary(self) -> dict:
        """Actions, cards on foundations, passes, time and score, for reports."""
        seconds = self.seconds
        counted = actions_within_limit(self.rules, self.counters.actions)
        return {
            "actions": self.counters.actions,
            "foundation_cards": sum(self.position.foundations),
            "won": self.won,
            "passes": self.position.pass_number,
            "seconds": None if seconds is None else float(seconds),
            "cut_at_action": counted if counted < self.counters.actions else None,
            "score": self.score().total if self.rules.scoring else None,
            "breakdown": self.score().to_json() if self.rules.scoring else None,
        }


@dataclass
class ReplayResult:
    """The outcome of replaying a line: the game as far as it got, and the first bad token if any."""

    game: Game
    tokens: list[str]
    error_index: int | None = None
    error: str | None = None

    @property
    def legal(self) -> bool:
        """True if every token was legal."""
        return self.error_index is None


def replay(deal: Deal, rules: Ruleset, tokens, position: Position | None = None) -> ReplayResult:
    """Replay tokens (a list, or one string of them: `"Ad:1>F D"`) from the deal (or a given position).

    Auto-play tokens (`*`) are checked against the moves the game made by itself since the last
    action, in order; they may also be left out of the line.
    """
    tokens = line_tokens(tokens)
    game = Game(deal, rules, position)
    pending: list[Action] = []
    for index, token in enumerate(tokens):
        try:
            action = parse_token(token)
            if action.auto:
                if not rules.auto_play:
                    raise IllegalAction("auto-play is off under these rules")
                expected = pending.pop(0) if pending else None
                if expected is None or expected.token != action.token:
                    made = expected.token if expected else "nothing"
                    raise IllegalAction(f"auto-play did not make this move here (it made {made})")
                continue
            pending = game.apply(action)
        except (IllegalAction, ValueError) as err:
            return ReplayResult(game, tokens, index, str(err))
    return ReplayResult(game, tokens)
