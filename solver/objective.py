"""What the optimal search maximises (RULES.md section 6), as numba functions over the state.

Two objectives, one scale (bigger is better):

- `SCORED` (harmony, duel): the score itself. `points` carries the events so far (first
  placements, turned cards, recycle penalties); the clock adds 150 per whole second left when
  won, 1 per whole 3 seconds left otherwise; past 300 s nothing counts.
- `FEWEST` (no scoring): a win in the fewest actions, else the most cards on the foundations,
  then the fewest actions: ``WON_BASE - actions`` for a win, ``1000 * cards - actions`` otherwise.
"""

from __future__ import annotations

import numpy as np

from .score import COMPLETION, FREE_PASSES, RECYCLE_PENALTY, STOP_BONUS_DIVISOR, TURN_POINTS, WON_BONUS_PER_SECOND, \
    card_points
from .cardsets import card_count, single
from .deadends import ALL_CARDS
from .jitcache import kernel
from .rules import TIME_LIMIT_SECONDS, Ruleset
from .state import (CARD_SUIT, CARD_VALUE, FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN, PILE_SLOTS, PILES,
                    TALON, TALON_LEN, WASTE_COUNT, foundation_total)

FEWEST, SCORED = 0, 1
WON_BASE = 1_000_000
CARD_WEIGHT = 1000
NEVER = -(1 << 40)  # the value of a line that cannot be (past the time limit)

OBJ_MODE, OBJ_TURN, OBJ_COMPLETION, OBJ_RECYCLE, OBJ_FREE_PASSES, OBJ_MS_PER_ACTION, OBJ_LIMIT_MS, \
    OBJ_WON_PER_SECOND, OBJ_STOP_DIVISOR, OBJ_DRAW, OBJ_AUTO, OBJ_NO_WIN, OBJ_PASS_LIMIT = range(13)
OBJ_SIZE = 13


def objective_params(rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """(objective parameters int64[OBJ_SIZE], points of each card's first placement int64[52])."""
    obj = np.zeros(OBJ_SIZE, dtype=np.int64)
    points = np.zeros(52, dtype=np.int64)
    obj[OBJ_DRAW] = rules.draw
    obj[OBJ_AUTO] = int(rules.auto_play)
    obj[OBJ_PASS_LIMIT] = 0 if rules.passes is None else rules.passes
    if rules.scoring is None:
        obj[OBJ_MODE] = FEWEST
        return obj, points
    obj[OBJ_MODE] = SCORED
    obj[OBJ_TURN] = TURN_POINTS
    obj[OBJ_COMPLETION] = COMPLETION[rules.scoring]
    obj[OBJ_RECYCLE] = RECYCLE_PENALTY
    obj[OBJ_FREE_PASSES] = FREE_PASSES
    if rules.clock_on:
        milliseconds = round(rules.seconds_per_action * 1000)
        if abs(milliseconds - rules.seconds_per_action * 1000) > 1e-6 or milliseconds <= 0:
            raise ValueError("the optimal search needs a clock in whole milliseconds per action")
        obj[OBJ_MS_PER_ACTION] = milliseconds
        obj[OBJ_LIMIT_MS] = TIME_LIMIT_SECONDS * 1000
        obj[OBJ_WON_PER_SECOND] = WON_BONUS_PER_SECOND
        obj[OBJ_STOP_DIVISOR] = STOP_BONUS_DIVISOR
    for card in range(52):
        points[card] = card_points(rules.scoring, card)
    return obj, points


@kernel
def within_time(obj, actions):
    """False if `actions` actions pass the time limit (then only what came before counts)."""
    if obj[OBJ_MODE] == FEWEST or obj[OBJ_MS_PER_ACTION] == 0:
        return True
    return actions * obj[OBJ_MS_PER_ACTION] <= obj[OBJ_LIMIT_MS]


@kernel
def _seconds_left(obj, actions):
    return (obj[OBJ_LIMIT_MS] - actions * obj[OBJ_MS_PER_ACTION]) // 1000


@kernel
def stop_value(obj, state, points, actions):
    """The value of stopping here (not won)."""
    if obj[OBJ_MODE] == FEWEST:
        return CARD_WEIGHT * foundation_total(state) - actions
    if obj[OBJ_MS_PER_ACTION] == 0:
        return points
    return points + _seconds_left(obj, actions) // obj[OBJ_STOP_DIVISOR]


@kernel
def won_value(obj, points, actions):
    """The value of a win reached with these points and actions."""
    if obj[OBJ_MODE] == FEWEST:
        return WON_BASE - actions
    value = points + obj[OBJ_COMPLETION]
    if obj[OBJ_MS_PER_ACTION] != 0:
        value += obj[OBJ_WON_PER_SECOND] * _seconds_left(obj, actions)
    return value


@kernel
def _blocked(card, lowest_below, lowest_of_suit, auto):
    """Whether `card` cannot go up before a card below it (`lowest_of_suit`: 4 bits a suit)."""
    if auto:
        return lowest_below < CARD_VALUE[card]
    return (lowest_of_suit >> (4 * CARD_SUIT[card])) & 15 < CARD_VALUE[card]


@kernel
def _lower_below(card, lowest_below, lowest_of_suit):
    """The two running minima of `blocked_actions` once `card` lies below the next card."""
    value = CARD_VALUE[card]
    shift = 4 * CARD_SUIT[card]
    if value < lowest_below:
        lowest_below = value
    if value < (lowest_of_suit >> shift) & 15:
        lowest_of_suit = (lowest_of_suit & ~(15 << shift)) | (value << shift)
    return lowest_below, lowest_of_suit


@kernel
def blocked_actions(state, auto, draw, can_recycle):
    """Actions that getting blocked cards out of the tableau and the waste takes at least (admissible).

    A card lying above a card it cannot go up before (without auto-play: a lower card of its
    suit; with auto-play, which waits for every lower value: any lower card) can leave its place
    only by an action.

    - Each face-down card so blocked needs an action of its own: the first action that moves it
      moves no other card of its pile's original layout (a card above it that came back to it
      must have left first, and one below is still face down).
    - The face-up part of a pile needs one action if any of its cards is blocked by a face-down
      card below: that action happens while every face-down card of the pile is still face
      down, so it is not counted twice.
    - The waste (`waste_blocked_actions`).
    """
    total = 0
    for pile in range(PILES):
        face_down = state[FACE_DOWN + pile]
        if face_down == 0:
            continue
        base = PILE_CARDS + pile * PILE_SLOTS
        lowest_below = 14  # lowest value among the face-down cards below the one looked at
        lowest_of_suit = 0xEEEE  # the same for each suit, 4 bits a suit (14: none)
        for index in range(face_down):
            card = state[base + index]
            if _blocked(card, lowest_below, lowest_of_suit, auto):
                total += 1
            lowest_below, lowest_of_suit = _lower_below(card, lowest_below, lowest_of_suit)
        # a face-up card can only be blocked by the face-down ones: the run below it is higher
        for index in range(face_down, state[PILE_LEN + pile]):
            if _blocked(state[base + index], lowest_below, lowest_of_suit, auto):
                total += 1
                break
    return total + waste_blocked_actions(state, auto, draw, can_recycle)


@kernel
def waste_blocked_actions(state, auto, draw, can_recycle):
    """Actions that getting the blocked waste cards out of the waste takes at least (admissible).

    A blocked waste card (above a card it cannot go up before) leaves the waste by an action of
    its own, unless a recycle takes it back to the stock first. A recycle that finds the bottom
    k cards of today's waste still there costs itself and at least ceil(k / draw) draws to bring
    them out again (the stock's draws are counted apart: they come before it), and every blocked
    card above those k left before it, by an action. So the waste costs the least, over k, of
    those; with no recycle left, one action per blocked card.
    """
    blocked = 0
    cheapest_recycle = 0  # the least, over k, of the recycle's cost less the blocked cards among the k
    lowest_below, lowest_of_suit = 14, 0xEEEE
    for index in range(state[WASTE_COUNT]):
        if _blocked(state[TALON + index], lowest_below, lowest_of_suit, auto):
            blocked += 1
        lowest_below, lowest_of_suit = _lower_below(state[TALON + index], lowest_below, lowest_of_suit)
        recycled = index + 1
        cost = 1 + (recycled + draw - 1) // draw - blocked
        if cost < cheapest_recycle:
            cheapest_recycle = cost
    if not can_recycle:
        return blocked
    return blocked + cheapest_recycle


@kernel
def actions_lower_bound(obj, state):
    """Fewest actions that can still win from here (admissible).

    Every stock card has to be drawn, `draw` at a time; without auto-play every card not yet
    up needs one action of its own to go up; and the blocked cards of the tableau need actions
    to leave their piles (`blocked_actions`).
    """
    stock = state[TALON_LEN] - state[WASTE_COUNT]
    draw = obj[OBJ_DRAW]
    can_recycle = obj[OBJ_PASS_LIMIT] == 0 or state[PASS] < obj[OBJ_PASS_LIMIT]
    bound = (stock + draw - 1) // draw + blocked_actions(state, obj[OBJ_AUTO], draw, can_recycle)
    if not obj[OBJ_AUTO]:
        bound += 52 - foundation_total(state)
    return bound


@kernel
def upper_bound(obj, card_points_table, placed, state, points, actions, win_possible):
    """A value no line from here can beat (admissible): every point still to be had, the win
    reached in the fewest actions that could do it, or the best stop. The win is left out when
    `win_possible` is false (the caller proved this position lost) or `OBJ_NO_WIN` is set (the
    winnability search proved the deal lost)."""
    if not win_possible or obj[OBJ_NO_WIN]:
        return no_win_bound(obj, card_points_table, placed, state, points, actions, ALL_CARDS, ALL_CARDS)
    if obj[OBJ_MODE] == FEWEST:
        return WON_BASE - actions - actions_lower_bound(obj, state)
    still = _points_still(card_points_table, placed, state, points, obj, ALL_CARDS, ALL_CARDS)
    best = _stop_bound(obj, still, actions)
    fastest = actions + actions_lower_bound(obj, state)
    if within_time(obj, fastest):
        won = won_value(obj, still, fastest)
        if won > best:
            best = won
    return best


@kernel
def no_win_bound(obj, card_points_table, placed, state, points, actions, reachable, turnable):
    """A value no line from here that does not win can beat, when no line puts up a card outside
    the card set `reachable` nor turns one outside `turnable` (`ALL_CARDS` if nothing is known):
    the points still to be had from those cards (for the fewest-actions objective, all of them up)
    and the stop bonus for the actions so far."""
    if obj[OBJ_MODE] == FEWEST:
        return CARD_WEIGHT * card_count(reachable) - actions
    still = _points_still(card_points_table, placed, state, points, obj, reachable, turnable)
    return _stop_bound(obj, still, actions)


@kernel
def _points_still(card_points_table, placed, state, points, obj, reachable, turnable):
    """`points` plus every point still to be had from placing the cards of `reachable` not yet
    placed and from turning the face-down cards of `turnable`."""
    still = points
    for card in range(52):
        if placed[card] == 0 and reachable & single(card):
            still += card_points_table[card]
    face_down = 0
    for pile in range(PILES):
        base = PILE_CARDS + pile * PILE_SLOTS
        for index in range(state[FACE_DOWN + pile]):
            if turnable & single(state[base + index]):
                face_down += 1
    return still + obj[OBJ_TURN] * face_down


@kernel
def _stop_bound(obj, still, actions):
    """The value of stopping now with `still` points."""
    if obj[OBJ_MS_PER_ACTION] != 0:
        return still + _seconds_left(obj, actions) // obj[OBJ_STOP_DIVISOR]
    return still


@kernel
def recycle_penalties(obj, pass_before, pass_after):
    """Points lost to the recycles that took the pass number from `pass_before` to `pass_after`."""
    if obj[OBJ_MODE] == FEWEST or pass_after <= pass_before:
        return 0
    first_penalised = obj[OBJ_FREE_PASSES] + 1
    low = pass_before + 1 if pass_before + 1 > first_penalised else first_penalised
    if pass_after < low:
        return 0
    return obj[OBJ_RECYCLE] * (pass_after - low + 1)


@kernel
def record_placements(obj, card_points_table, placed, state):
    """Mark every card now on a foundation as placed; return the points of first placements."""
    gained = 0
    for suit in range(4):
        for value in range(state[FOUNDATION + suit]):
            card = suit * 13 + value
            if placed[card] == 0:
                placed[card] = 1
                gained += card_points_table[card]
    return gained
