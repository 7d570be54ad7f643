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

from .errors import RulesError
from .score import COMPLETION, FREE_PASSES, RECYCLE_PENALTY, STOP_BONUS_DIVISOR, TURN_POINTS, WON_BONUS_PER_SECOND, \
    card_points, clock_per_action
from .cardsets import card_count, lowest_bit_index, single
from .deadends import ALL_CARDS
from .jitcache import kernel
from .rules import TIME_LIMIT_SECONDS, Ruleset
from .state import (CARD_SUIT, CARD_VALUE, FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN, PILE_SLOTS, PILES,
                    TALON, TALON_LEN, WASTE_COUNT, ZOBRIST_PASS, ZOBRIST_WASTE_COUNT, foundation_total, talon_hash)

FEWEST, SCORED = 0, 1
WON_BASE = 1_000_000
CARD_WEIGHT = 1000
NEVER = -(1 << 40)  # the value of a line that cannot be (past the time limit)
UNLIMITED_RECYCLES = 1 << 20  # the recycles left when the passes are unlimited

OBJ_MODE, OBJ_TURN, OBJ_COMPLETION, OBJ_RECYCLE, OBJ_FREE_PASSES, OBJ_TICKS_PER_ACTION, OBJ_LIMIT_TICKS, \
    OBJ_WON_PER_SECOND, OBJ_STOP_DIVISOR, OBJ_DRAW, OBJ_AUTO, OBJ_NO_WIN, OBJ_PASS_LIMIT, OBJ_ROOT_KNOWN, \
    OBJ_ROOT_STILL, OBJ_ROOT_PASS, OBJ_GREEDY, OBJ_TICKS_PER_SECOND, OBJ_DEFER_SLACK = range(19)
OBJ_SIZE = 19
# The clock counts in ticks, the exact fraction of a second that the clock model's seconds per
# action is written in (0.7 s: tenths; 0.0005 s: ten-thousandths), so that the search's seconds left
# are those of the reference engine's exact time (`score.clock_seconds`). A finer tick than this
# could overflow 64 bits over a long line.
MAX_TICKS_PER_SECOND = 10**12


def objective_params(rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """(objective parameters int64[OBJ_SIZE], points of each card's first placement int64[52])."""
    obj = np.zeros(OBJ_SIZE, dtype=np.int64)
    points = np.zeros(52, dtype=np.int64)
    obj[OBJ_DRAW] = rules.draw
    obj[OBJ_AUTO] = int(rules.auto_play)
    obj[OBJ_PASS_LIMIT] = 0 if rules.passes is None else rules.passes
    obj[OBJ_DEFER_SLACK] = -1  # the best-first search stores every child (`optimal.BestFirst` may set it)
    if rules.scoring is None:
        obj[OBJ_MODE] = FEWEST
        return obj, points
    obj[OBJ_MODE] = SCORED
    obj[OBJ_TURN] = TURN_POINTS
    obj[OBJ_COMPLETION] = COMPLETION[rules.scoring]
    obj[OBJ_RECYCLE] = RECYCLE_PENALTY
    obj[OBJ_FREE_PASSES] = FREE_PASSES
    if rules.clock_on:
        per_action = clock_per_action(rules)
        if per_action.denominator > MAX_TICKS_PER_SECOND:
            raise RulesError(f"best lines need a clock of at most 12 decimals of a second per action,"
                             f" got {rules.seconds_per_action!r}")
        obj[OBJ_TICKS_PER_SECOND] = per_action.denominator
        obj[OBJ_LIMIT_TICKS] = TIME_LIMIT_SECONDS * per_action.denominator
        # An action longer than the whole game is past the limit either way: capped, the product
        # of actions and ticks stays within 64 bits.
        obj[OBJ_TICKS_PER_ACTION] = min(per_action.numerator, obj[OBJ_LIMIT_TICKS] + 1)
        obj[OBJ_WON_PER_SECOND] = WON_BONUS_PER_SECOND
        obj[OBJ_STOP_DIVISOR] = STOP_BONUS_DIVISOR
    for card in range(52):
        points[card] = card_points(rules.scoring, card)
    return obj, points


@kernel
def within_time(obj, actions):
    """False if `actions` actions pass the time limit (then only what came before counts)."""
    if obj[OBJ_MODE] == FEWEST or obj[OBJ_TICKS_PER_ACTION] == 0:
        return True
    return actions * obj[OBJ_TICKS_PER_ACTION] <= obj[OBJ_LIMIT_TICKS]


@kernel
def _seconds_left(obj, actions):
    return (obj[OBJ_LIMIT_TICKS] - actions * obj[OBJ_TICKS_PER_ACTION]) // obj[OBJ_TICKS_PER_SECOND]


@kernel
def stop_value(obj, state, points, actions):
    """The value of stopping here (not won)."""
    if obj[OBJ_MODE] == FEWEST:
        return CARD_WEIGHT * foundation_total(state) - actions
    if obj[OBJ_TICKS_PER_ACTION] == 0:
        return points
    return points + _seconds_left(obj, actions) // obj[OBJ_STOP_DIVISOR]


@kernel
def won_value(obj, points, actions):
    """The value of a win reached with these points and actions."""
    if obj[OBJ_MODE] == FEWEST:
        return WON_BASE - actions
    value = points + obj[OBJ_COMPLETION]
    if obj[OBJ_TICKS_PER_ACTION] != 0:
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
def blocked_actions(state, auto, draw, recycles_left):
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
    - A pile to empty for a king (`empty_pile_actions`).
    """
    return tableau_blocked_actions(state, auto) + waste_blocked_actions(state, auto, draw, recycles_left)


@kernel
def tableau_blocked_actions(state, auto):
    """The tableau's part of `blocked_actions`: its blocked cards and a pile to empty for a king."""
    total = empty_pile_actions(state, auto)
    for pile in range(PILES):
        face_down = state[FACE_DOWN + pile]
        if face_down == 0:
            continue
        base = PILE_CARDS + pile * PILE_SLOTS
        if auto:
            # Only the lowest value below counts; the face-up run descends from its first card,
            # so it is blocked if that card is. (The general loop below, with less work.)
            lowest_below = 14
            for index in range(face_down):
                value = CARD_VALUE[state[base + index]]
                if lowest_below < value:
                    total += 1
                else:
                    lowest_below = value
            total += lowest_below < CARD_VALUE[state[base + face_down]]
            continue
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
    return total


@kernel
def empty_pile_actions(state, auto):
    """1 if a pile must be emptied, by an action no other count of `blocked_actions` holds, before a
    king can leave its pile; else 0 (admissible).

    A king above a card of its own suit must leave its place before that card goes up, and it
    cannot go up first: it can only go to an empty pile. With none, another pile must be emptied
    before: its bottom card must leave (the pile of such a king cannot be emptied before the king
    leaves). A bottom card is in none of the other counts (nothing lies below it, and an action on
    the run above a pile's face-down cards moves no face-down card). It can leave without an action
    only by going up: with auto-play by itself, once every lower card is up; without, by the move
    to the foundation counted for every card, once every lower card of its suit is up. So where
    some card that must stay below such a king until it leaves forbids that to every other pile's
    bottom card, one more action is needed."""
    for pile in range(PILES):
        if state[PILE_LEN + pile] == 0:
            return 0
    lowest_under = 14  # the lowest value that stays below such a king until it leaves
    lowest_of_suit_under = 0xEEEE  # the same for each suit, 4 bits a suit (14: none)
    kings_piles = 0  # bit p: pile p holds such a king
    for pile in range(PILES):
        base = PILE_CARDS + pile * PILE_SLOTS
        suits_below = 0
        top_king = -1  # the index of the pile's highest such king
        # a king lies face down or at the bottom of the face-up run: the run descends from there
        for index in range(min(state[FACE_DOWN + pile] + 1, state[PILE_LEN + pile])):
            card = state[base + index]
            if CARD_VALUE[card] == 13 and (suits_below >> CARD_SUIT[card]) & 1:
                top_king = index
            suits_below |= 1 << CARD_SUIT[card]
        if top_king < 0:
            continue
        kings_piles |= 1 << pile
        for index in range(top_king):
            lowest_under, lowest_of_suit_under = _lower_below(state[base + index], lowest_under, lowest_of_suit_under)
    if kings_piles == 0:
        return 0
    for pile in range(PILES):
        if (kings_piles >> pile) & 1:
            continue
        if not _blocked(state[PILE_CARDS + pile * PILE_SLOTS], lowest_under, lowest_of_suit_under, auto):
            return 0
    return 1


@kernel
def waste_blocked_actions(state, auto, draw, recycles_left):
    """Actions that getting the blocked talon cards out of the waste takes at least (admissible).

    A blocked waste card (above a card it cannot go up before) leaves the waste by an action of
    its own, unless a recycle takes it back to the stock first; so does one card of each pair of
    `talon_pairs`, whose two cards are otherwise both in the waste at the recycle. With one card a
    draw, the links of `talon_chain_links` take the pairs' place (each costs an action or a card
    drawn again, as a pair does, and they are at least as many).

    A recycle that finds the bottom k cards of today's waste still there (cards leave the waste
    from the top only) costs itself, an action for every blocked card and every pair's waste card
    above those k (they left before it) and the draws that bring the cards still there out
    again: at least the k and each pair's stock card or cards not taken out by an action, `draw`
    a draw (the stock's first draws are counted apart: they come before it). The k cards then
    start the next pass's stock, in order: two of them drawn together, the upper waiting for the
    lower, are a pair of that pass, which costs an action or both wait for a second recycle
    (`_pass_pairs_cost`). So the waste costs the least, over k, of those; with no recycle left,
    one action per blocked card and per pair.
    """
    blocked_cards = 0  # bit i: waste card i is blocked
    lowest_below, lowest_of_suit = 14, 0xEEEE
    for index in range(state[WASTE_COUNT]):
        if _blocked(state[TALON + index], lowest_below, lowest_of_suit, auto):
            blocked_cards |= 1 << index
        lowest_below, lowest_of_suit = _lower_below(state[TALON + index], lowest_below, lowest_of_suit)
    if draw == 1:
        # Drawn one at a time, each chain link costs an action or a card drawn again, in both ways
        # out below, just as a pair does; the links count at least as many as the pairs.
        stock_pairs, paired_waste_cards = talon_chain_links(state, auto, blocked_cards), 0
    else:
        stock_pairs, paired_waste_cards = talon_pairs(state, auto, draw, blocked_cards)
    blocked_total, waste_pairs = _bit_count(blocked_cards), _bit_count(paired_waste_cards)
    cheapest = blocked_total + stock_pairs + waste_pairs
    if recycles_left <= 0 or draw == 1:
        # With one card a draw a recycle costs more than it saves: itself and a draw for each of
        # the k cards kept, against at most an action for each blocked one among them.
        return cheapest
    blocked = waste_pairs_kept = 0  # among the bottom `kept` waste cards
    next_pairs = 0  # pairs of the next pass among the bottom `kept` (one a draw at most)
    draw_paired = False  # whether the draw of the card at `kept - 1` in the next pass holds a pair
    for kept in range(state[WASTE_COUNT] + 1):
        if kept > 0:
            position = kept - 1
            blocked += (blocked_cards >> position) & 1
            waste_pairs_kept += (paired_waste_cards >> position) & 1
            if position % draw == 0:
                draw_paired = False
            if not draw_paired:
                for earlier in range(position - position % draw, position):
                    if _waits_for(state[TALON + position], state[TALON + earlier], auto):
                        draw_paired = True
                        next_pairs += 1
                        break
        # Taking a pair's card out by an action saves drawing its one or two stock cards again:
        # with one card a draw, all pairs are best taken out so; with more, none (each pair
        # taken out adds at most as much as it saves), so one end or the other is the least.
        taken_out = stock_pairs + waste_pairs_kept + (kept + draw - 1) // draw
        drawn_again = (kept + 2 * stock_pairs + waste_pairs_kept + draw - 1) // draw
        cost = blocked_total - blocked + waste_pairs - waste_pairs_kept + 1 + min(taken_out, drawn_again) + \
            _pass_pairs_cost(next_pairs, draw, recycles_left - 1)
        if cost < cheapest:
            cheapest = cost
    return cheapest


@kernel
def _pass_pairs_cost(pairs, draw, recycles_left):
    """The least a pass's `pairs` (and no blocked waste card) cost: an action each, or, if a recycle
    is left, the recycle and the draws that bring both cards of each pair not broken up out again."""
    if recycles_left <= 0:
        return pairs
    return min(pairs, 1 + min(pairs, (2 * pairs + draw - 1) // draw))


@kernel
def _bit_count(word):
    """The number of bits set in a non-negative int64."""
    count = 0
    while word != 0:
        word &= word - 1
        count += 1
    return count


@kernel
def _waits_for(card, lower, auto):
    """Whether `card` cannot go up before `lower` (with auto-play, by itself: any lower value)."""
    if auto:
        return CARD_VALUE[lower] < CARD_VALUE[card]
    return CARD_SUIT[lower] == CARD_SUIT[card] and CARD_VALUE[lower] < CARD_VALUE[card]


@kernel
def talon_pairs(state, auto, draw, blocked_waste_cards):
    """Disjoint pairs of talon cards of which one must leave the waste by an action this pass, or
    both are still in the waste at the next recycle: (the number of pairs of two stock cards, the
    waste cards paired with a stock card, as bits by waste position).

    A pair is a stock card `upper` and a card `lower` it waits for, drawn before it (or in the
    waste), where `lower` can leave the waste only by an action before `upper` lies on it: both
    come out of the same draw, or `lower` waits for a card drawn no earlier than `upper`. Then
    `upper` lies on `lower` (the waste is a stack) and can leave only by an action, or stays,
    `lower` under it, until the recycle. The draws of this pass are fixed: the stock leaves only
    by draws, `draw` cards each from its top. A blocked waste card (`blocked_waste_cards`) is in
    no pair: it is counted on its own. The pairs are found greedily from the last stock card
    back (any disjoint set of them gives a bound).
    """
    first = state[WASTE_COUNT]
    paired_stock = 0  # bit i: the stock card first + i is in a pair
    paired_waste = 0
    stock_pairs = 0
    lowest_after, lowest_of_suit_after = 14, 0xEEEE  # of the cards drawn after `upper`
    for upper in range(state[TALON_LEN] - 1, first - 1, -1):
        upper_card = state[TALON + upper]
        if not (paired_stock >> (upper - first)) & 1:
            for lower in range(upper - 1, first - 1, -1):
                lower_card = state[TALON + lower]
                if (paired_stock >> (lower - first)) & 1 or not _waits_for(upper_card, lower_card, auto):
                    continue
                if (lower - first) // draw == (upper - first) // draw or \
                        _blocked(lower_card, lowest_after, lowest_of_suit_after, auto):
                    paired_stock |= (1 << (lower - first)) | (1 << (upper - first))
                    stock_pairs += 1
                    break
        if not (paired_stock >> (upper - first)) & 1:
            for lower in range(first - 1, -1, -1):
                lower_card = state[TALON + lower]
                if ((blocked_waste_cards | paired_waste) >> lower) & 1 or not _waits_for(upper_card, lower_card, auto):
                    continue
                if _blocked(lower_card, lowest_after, lowest_of_suit_after, auto):
                    paired_waste |= 1 << lower
                    paired_stock |= 1 << (upper - first)
                    break
        lowest_after, lowest_of_suit_after = _lower_below(upper_card, lowest_after, lowest_of_suit_after)
    return stock_pairs, paired_waste


@kernel
def talon_chain_links(state, auto, blocked_waste_cards):
    """With one card a draw: the links of disjoint chains of talon cards, each link of which costs
    an action this pass or a card still in the waste at the next recycle (admissible).

    A chain is talon cards c1, ..., ck drawn in this order (c1 may be a waste card, the others are
    stock cards), each waiting for the one before (hence for all before: the relation is an
    order), where c1, and so every card of it, waits for a stock card drawn after ck: no card of
    the chain can go up before ck lies on the cards of it still in the waste. Then at most one
    leaves the waste without an action: one that goes up first needs every card below it gone by
    an action (none could go up before), and every card above it gone by an action too (they wait
    for it). One still in the waste at the recycle keeps every card below it there. So the k
    cards cost k - 1 actions or cards drawn again, none of them counted elsewhere: a waste card
    kept to the recycle is drawn again anyway, and blocked waste cards (`blocked_waste_cards`)
    are in no chain. (Waiting for a card drawn after the next card of the chain only would not
    do: c1 could go up between two later cards' draws, and a card after it too.)

    The chains are found greedily in draw order: a card extends the open chain whose last card is
    the highest it waits for (of two alike, the one that closes first), else opens a chain if a
    later stock card makes it wait (any disjoint set of chains gives a bound). A chain closes at
    the last stock card its first card waits for. Open chains are kept without allocating: a bit
    per talon position for each chain's last card, and 5 bits per position for where it closes.
    """
    first = state[WASTE_COUNT]
    length = state[TALON_LEN]
    chain_ends = 0  # bit p: the card at talon position p ends an open chain
    closes_low = closes_high = 0  # 5 bits per position p (< 12, >= 12): where the chain ending at p closes
    links = 0
    last_lower = 0  # with auto-play, 5 bits per value v of 2..13: 1 + the last stock position of a lower value
    if auto:
        lowest = 14  # the lowest value from the position looked at to the stock's end
        for position in range(length - 1, first - 1, -1):
            value = CARD_VALUE[state[TALON + position]]
            for higher in range(value + 1, lowest + 1 if lowest < 14 else 14):
                last_lower |= (position + 1) << (5 * (higher - 2))
            if value < lowest:
                lowest = value
    for position in range(length):
        if position < first and (blocked_waste_cards >> position) & 1:
            continue
        card = state[TALON + position]
        extended = -1  # the position of the chain end this card extends
        closes = -1
        if position >= first:
            ends = chain_ends
            while ends != 0:
                end = np.int64(lowest_bit_index(np.uint64(ends)))
                ends &= ends - 1
                end_closes = _chain_closes(closes_low, closes_high, end)
                if end_closes <= position:
                    chain_ends &= ~(1 << end)
                elif _waits_for(card, state[TALON + end], auto) and (
                        extended < 0 or CARD_VALUE[state[TALON + end]] > CARD_VALUE[state[TALON + extended]] or (
                            CARD_VALUE[state[TALON + end]] == CARD_VALUE[state[TALON + extended]] and end_closes < closes)):
                    # the highest end it waits for; of equal ones, the chain that closes first
                    extended, closes = end, end_closes
        if extended >= 0:
            links += 1
            chain_ends = (chain_ends & ~(1 << extended)) | (1 << position)
        else:
            if auto:
                closes = (last_lower >> (5 * (CARD_VALUE[card] - 2))) & 31 if CARD_VALUE[card] > 1 else 0
                closes -= 1
            else:
                for later in range(length - 1, max(position, first - 1), -1):
                    if _waits_for(card, state[TALON + later], auto):
                        closes = later
                        break
            if closes <= position:
                continue
            chain_ends |= 1 << position
        if position < 12:
            closes_low |= closes << (5 * position)
        else:
            closes_high |= closes << (5 * (position - 12))
    return links


@kernel
def _chain_closes(closes_low, closes_high, end):
    """The closing position of the open chain ending at talon position `end` (`talon_chain_links`)."""
    if end < 12:
        return (closes_low >> (5 * end)) & 31
    return (closes_high >> (5 * (end - 12))) & 31


@kernel
def actions_lower_bound(obj, state):
    """Fewest actions that can still win from here (admissible).

    Every stock card has to be drawn, `draw` at a time; without auto-play every card not yet
    up needs one action of its own to go up; the blocked cards of the tableau need actions to
    leave their piles, and the blocked and paired cards of the talon to leave the waste
    (`blocked_actions`).
    """
    return _actions_lower_bound(obj, state, talon_actions(obj, state))


@kernel
def talon_actions(obj, state):
    """The talon's part of `actions_lower_bound`: the draws and what its blocked and paired cards
    cost (`waste_blocked_actions`)."""
    stock = state[TALON_LEN] - state[WASTE_COUNT]
    draw = obj[OBJ_DRAW]
    recycles_left = UNLIMITED_RECYCLES if obj[OBJ_PASS_LIMIT] == 0 else obj[OBJ_PASS_LIMIT] - state[PASS]
    return (stock + draw - 1) // draw + waste_blocked_actions(state, obj[OBJ_AUTO], draw, recycles_left)


# A talon position's `talon_actions` in a `cached_talon_actions` entry: the low bits; the key's
# other bits tell the entry's position (its low bits are the slot).
TALON_COST_BITS = 16
TALON_CACHE_ENTRIES = 1 << 16


@kernel
def cached_talon_actions(obj, state, talon_costs):
    """`talon_actions`, through a table of the talon positions met (`talon_costs`: uint64,
    TALON_CACHE_ENTRIES, zeros at first, for one search: the deal fixes the talon's order).

    It depends on the talon's cards, the waste count and (under a pass limit) the pass alone, of
    which a search meets few: most children with a bound to work out have one met before
    (`bestfirst.best_first_chunk`), and the chains of `talon_chain_links` were a twentieth of
    the best-first search's time on `harmony`. Key and value share one word, so a thread reads
    whole entries only."""
    key = talon_hash(state) ^ ZOBRIST_WASTE_COUNT[state[WASTE_COUNT]]
    if obj[OBJ_PASS_LIMIT] != 0:
        key ^= ZOBRIST_PASS[state[PASS]]
    slot = key & np.uint64(talon_costs.shape[0] - 1)
    tag = (key >> np.uint64(TALON_COST_BITS)) << np.uint64(TALON_COST_BITS)
    entry = talon_costs[slot]
    if entry != 0 and (entry ^ tag) >> np.uint64(TALON_COST_BITS) == 0:
        return np.int64(entry & np.uint64((1 << TALON_COST_BITS) - 1))
    cost = talon_actions(obj, state)
    talon_costs[slot] = tag | np.uint64(cost)
    return cost


@kernel
def _actions_lower_bound(obj, state, talon_part):
    """`actions_lower_bound`, the talon's part (`talon_actions`) given."""
    bound = talon_part + tableau_blocked_actions(state, obj[OBJ_AUTO])
    if not obj[OBJ_AUTO]:
        bound += 52 - foundation_total(state)
    return bound


@kernel
def upper_bound(obj, card_points_table, placed, state, points, actions, win_possible):
    """A value no line from here can beat (admissible): every point still to be had, the win
    reached in the fewest actions that could do it, or the best stop. The win is left out when
    `win_possible` is false (the caller proved this position lost) or `OBJ_NO_WIN` is set (the
    winnability search proved the deal lost)."""
    if not win_possible:
        return no_win_bound(obj, card_points_table, placed, state, points, actions, ALL_CARDS, ALL_CARDS)
    return upper_bound_with_talon(obj, card_points_table, placed, state, points, actions, -1)


@kernel
def upper_bound_with_talon(obj, card_points_table, placed, state, points, actions, talon_part):
    """`upper_bound` of a position the caller has not proved lost, its `talon_actions` given (-1: not
    known; `cached_talon_actions` knows most)."""
    if obj[OBJ_NO_WIN]:
        return no_win_bound(obj, card_points_table, placed, state, points, actions, ALL_CARDS, ALL_CARDS)
    if talon_part < 0:
        talon_part = talon_actions(obj, state)
    if obj[OBJ_MODE] == FEWEST:
        return WON_BASE - actions - _actions_lower_bound(obj, state, talon_part)
    if obj[OBJ_ROOT_KNOWN]:
        still = obj[OBJ_ROOT_STILL] - recycle_penalties(obj, obj[OBJ_ROOT_PASS], state[PASS])
    else:
        still = _points_still(card_points_table, placed, state, points, obj, ALL_CARDS, ALL_CARDS)
    best = _stop_bound(obj, still, actions)
    fastest = actions + _actions_lower_bound(obj, state, talon_part)
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
    for suit in range(4):
        for card in range(first_never_placed(placed, state, suit), suit * 13 + 13):
            if reachable & single(card):
                still += card_points_table[card]
    face_down = 0
    for pile in range(PILES):
        if turnable == ALL_CARDS:
            face_down += state[FACE_DOWN + pile]  # every face-down card counts
            continue
        base = PILE_CARDS + pile * PILE_SLOTS
        for index in range(state[FACE_DOWN + pile]):
            if turnable & single(state[base + index]):
                face_down += 1
    return still + obj[OBJ_TURN] * face_down


@kernel
def set_root(obj, card_points_table, placed, state, points):
    """Tell `upper_bound` the search's root (its state, placed cards and points), from which it
    knows the points still to be had at every position without counting them.

    Along any line, every point a move gains (a first placement, a turned card) is one that was
    still to be had, so `points` plus those still to be had stays as it was at the root, but for
    the recycle penalties paid, which depend on the pass alone. (About 3% of the best-first
    search's time on `harmony` went to counting them.)"""
    obj[OBJ_ROOT_STILL] = _points_still(card_points_table, placed, state, points, obj, ALL_CARDS, ALL_CARDS)
    obj[OBJ_ROOT_PASS] = state[PASS]
    obj[OBJ_ROOT_KNOWN] = 1


@kernel
def _stop_bound(obj, still, actions):
    """The value of stopping now with `still` points."""
    if obj[OBJ_TICKS_PER_ACTION] != 0:
        return still + _seconds_left(obj, actions) // obj[OBJ_STOP_DIVISOR]
    return still


@kernel
def pass_classes(obj):
    """Whether positions are told apart by `pass_class` (under a pass limit, the search keys hold
    the pass itself; without scoring and a limit, the pass does not matter)."""
    return obj[OBJ_PASS_LIMIT] == 0 and obj[OBJ_MODE] == SCORED


@kernel
def pass_class(obj, state):
    """The class of the position's pass (`class_of_pass`)."""
    return class_of_pass(obj, state[PASS])


@kernel
def class_of_pass(obj, pass_number):
    """What the pass number matters for, with unlimited passes: under scoring, the passes before
    recycles are penalised apart and every later one as one class (`OBJ_FREE_PASSES`); else 0."""
    if not pass_classes(obj):
        return 0
    return pass_number if pass_number < obj[OBJ_FREE_PASSES] else obj[OBJ_FREE_PASSES]


@kernel
def first_never_placed(placed, state, suit):
    """The first card of `suit` never placed on its foundation. The cards placed once are those up
    to the highest the foundation reached (it is built in order): those from its top to this one
    are placed but not up, and those from this one on were never placed."""
    card = suit * 13 + state[FOUNDATION + suit]
    while card < suit * 13 + 13 and placed[card]:
        card += 1
    return card


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
        # A foundation is built up in order, so the cards of a suit placed once are those up to
        # the highest it reached: only the top ones can be new, and the loop stops at the first
        # placed one.
        for card in range(suit * 13 + state[FOUNDATION + suit] - 1, suit * 13 - 1, -1):
            if placed[card]:
                break
            placed[card] = 1
            gained += card_points_table[card]
    return gained
