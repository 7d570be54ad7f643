"""Move generation and application for the numba core, over the state arrays of `state`.

The stock is handled as macro-moves (the "K+" representation): instead of searching each draw,
every card that repeated drawing (and recycling, where the pass limit allows) can bring to the
waste top is a candidate, with the number of talon actions (draws and recycles) it costs.

A move is a row of ``MOVE_FIELDS`` int16: source, target, index, talon steps, priority.
Sources: pile 0..6, ``WASTE``, ``FOUNDATION_PLACE`` (index = suit), ``NOWHERE`` (talon actions
only). Targets: pile 0..6, ``FOUNDATION_PLACE``, ``NOWHERE``. For a pile source, index is the
position in the pile of the lowest moved card.
"""

from __future__ import annotations

import numpy as np

from .cardsets import ACES, ONE, SUIT_BITS, bases_of, single
from .jitcache import kernel
from .state import (BASE_MASK, CARD_RED, CARD_SUIT, CARD_VALUE, FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN,
                    PILE_SLOTS, PILES, TALON, TALON_LEN, WASTE_COUNT, MAX_PASS_HASHED)

WASTE = 7
FOUNDATION_PLACE = 8
NOWHERE = 9

MOVE_SOURCE, MOVE_TARGET, MOVE_INDEX, MOVE_STEPS, MOVE_PRIORITY = 0, 1, 2, 3, 4
MOVE_FIELDS = 5
MAX_MOVES = 256

# Parameters of a search (an int32 array), set from a Ruleset by `solve.search_params`.
PARAM_DRAW, PARAM_PASS_LIMIT, PARAM_F2T, PARAM_AUTO, PARAM_PRUNE, PARAM_DEAD_ENDS, PARAM_FORCED, PARAM_ORDER, \
    PARAM_WAIT, PARAM_EXACT = range(10)
PARAM_SIZE = 10


@kernel
def pile_top(state, pile):
    """The top card of a pile, or -1 when it is empty."""
    length = state[PILE_LEN + pile]
    if length == 0:
        return -1
    return state[PILE_CARDS + pile * PILE_SLOTS + length - 1]


@kernel
def fits_on(card, base):
    """True if `card` may lie on `base` in the tableau (one lower, other colour)."""
    return CARD_VALUE[card] + 1 == CARD_VALUE[base] and CARD_RED[card] != CARD_RED[base]


@kernel
def goes_to_foundation(state, card):
    """True if `card` is the next card of its suit's foundation."""
    return state[FOUNDATION + CARD_SUIT[card]] == CARD_VALUE[card] - 1


@kernel
def partial_run_needed(state, below):
    """Whether moving the part of a run that lies on `below` (a face-up card) can be needed: only
    to send `below` to its foundation at once (Blake & Gent, Appendix B).

    This keeps every line's cards, points and actions, not only some win. The part of the run
    can only go onto the twin of `below` (same value and colour, the other suit). Two positions
    that differ only in which twin holds which stack of cards are mirror images: every move has
    its mirror move (onto, from, or with the other twin) with the same source card under it, the
    same cards turned and the same foundations, except a twin's own move to its foundation. So a
    line that starts with the move can be played from before it without it, move for move in
    mirror, until a twin is to go up while the other holds the stack; there the stack moves over
    to the other twin, which is this move right before the card it uncovers goes up, and the two
    lines meet. The line without the move has at most the same actions and the same events;
    repeating this removes every such move (the moves in mirror have the same card under them, so
    the rule allows each as much as before). Foundation->tableau changes nothing here: until the
    lines meet, both twins stay in the tableau, and a card coming down onto one has the other as
    its mirror. Nor does auto-play: the stacks' tops are the same cards in both lines, and a twin
    goes up by itself only once all four cards one lower are up, the bottom cards of both stacks
    among them, when the two positions are one.
    """
    return goes_to_foundation(state, below)


@kernel
def lowest_foundation(state):
    """The smallest foundation count."""
    low = state[FOUNDATION]
    for s in range(1, 4):
        if state[FOUNDATION + s] < low:
            low = state[FOUNDATION + s]
    return low


@kernel
def auto_playable(state, card):
    """RULES.md 4 auto-play test: an ace, or a card all four of whose lower cards are up."""
    if not goes_to_foundation(state, card):
        return False
    return CARD_VALUE[card] == 1 or lowest_foundation(state) >= CARD_VALUE[card] - 1


@kernel
def safe_to_foundation(state, card, foundation_to_tableau, auto):
    """True if moving `card` to its foundation now cannot lose a win (a forced move).

    - Value <= 2: nothing useful can lie on it (an ace only builds on a foundation, and an ace
      that could lie on a 2 can go to its own, empty-based foundation instead), so keeping it
      in play only blocks.
    - All four cards one lower are up (the auto-play test): every card that could lie on it is
      up, and a card brought down again could only ever hold other such cards, so (with or
      without foundation->tableau) a line that never uses it in play does as well.
    - Without foundation->tableau or auto-play, the stronger rule of Blake & Gent: both
      other-colour foundations hold at least value-2 cards and the other same-colour one at
      least value-3. A card x (other colour, value-1) that a line would put on it is then next
      for its own foundation, and can go there instead; a card y (same colour, value-2) that
      would then go on x is next for its foundation too; nothing in play can go on y, as the
      other colour's value-3 cards are all up. So the line can be replayed with those cards
      sent up instead, and what the card covered is uncovered sooner.
    - With foundation->tableau (no auto-play), the same one value higher: both other-colour
      foundations hold at least value-1 cards and the other same-colour one at least value-2.
      Every card that could lie on it, or lower in a run built on it, is then up (the other
      colour up to value-1, this colour up to value-2), so a run on it could only be made of
      cards taken down from the foundations, and no card from a pile or the talon could ever be
      put on such a run: taking them down is of no use (see `worth_taking_down`), nor is the card
      below it in its own suit, which could hold only such cards. The card is needed in play for
      nothing else.
    """
    if not goes_to_foundation(state, card):
        return False
    value = CARD_VALUE[card]
    if value <= 2 or lowest_foundation(state) >= value - 1:
        return True
    if auto:
        return False
    slack = 0 if foundation_to_tableau else 1
    red = CARD_RED[card]
    suit = CARD_SUIT[card]
    for s in range(4):
        if s == suit:
            continue
        needed = (value - 2 if CARD_RED[s * 13] == red else value - 1) - slack
        if state[FOUNDATION + s] < needed:
            return False
    return True


@kernel
def turn_top(state, pile):
    """Turn a face-down card left on top of a pile; returns 1 if a card was turned."""
    length = state[PILE_LEN + pile]
    if length > 0 and state[FACE_DOWN + pile] == length:
        state[FACE_DOWN + pile] = length - 1
        return 1
    return 0


@kernel
def remove_waste_top(state):
    """Delete the waste top from the talon sequence."""
    waste_count = state[WASTE_COUNT]
    length = state[TALON_LEN]
    for i in range(waste_count - 1, length - 1):
        state[TALON + i] = state[TALON + i + 1]
    state[TALON_LEN] = length - 1
    state[WASTE_COUNT] = waste_count - 1


@kernel
def talon_step(state, draw, pass_limit):
    """One talon action: draw if the stock is not empty, else recycle if allowed. False if neither."""
    length = state[TALON_LEN]
    waste_count = state[WASTE_COUNT]
    if waste_count < length:
        waste_count += draw
        state[WASTE_COUNT] = waste_count if waste_count < length else length
        return True
    if length > 0 and (pass_limit == 0 or state[PASS] < pass_limit):
        state[WASTE_COUNT] = 0
        if state[PASS] < MAX_PASS_HASHED:
            state[PASS] += 1
        return True
    return False


@kernel
def talon_recycles(state, steps, draw):
    """How many recycles `steps` talon actions from `state` make (each allowed, as a move's steps
    are). The pass number cannot tell once it has stopped at MAX_PASS_HASHED (unlimited passes)."""
    length = state[TALON_LEN]
    waste_count = state[WASTE_COUNT]
    recycles = 0
    for _ in range(steps):
        if waste_count < length:
            waste_count = waste_count + draw if waste_count + draw < length else length
        else:
            waste_count = 0
            recycles += 1
    return recycles


@kernel
def put_on_foundation(state, card):
    """Place a card on its foundation."""
    state[FOUNDATION + CARD_SUIT[card]] += 1


@kernel
def auto_play(state):
    """RULES.md 4: move every auto-playable waste top or pile top up, waste first, until none.

    Returns the number of face-down cards turned on the way.
    """
    turned = 0
    moved = True
    while moved:
        moved = False
        waste_count = state[WASTE_COUNT]
        if waste_count > 0:
            card = state[TALON + waste_count - 1]
            if auto_playable(state, card):
                remove_waste_top(state)
                put_on_foundation(state, card)
                moved = True
                continue
        for pile in range(PILES):
            card = pile_top(state, pile)
            if card >= 0 and auto_playable(state, card):
                state[PILE_LEN + pile] -= 1
                turned += turn_top(state, pile)
                put_on_foundation(state, card)
                moved = True
                break
    return turned


@kernel
def auto_play_pending(state):
    """True if a card is auto-playable now (only possible before the first action)."""
    waste_count = state[WASTE_COUNT]
    if waste_count > 0 and auto_playable(state, state[TALON + waste_count - 1]):
        return True
    for pile in range(PILES):
        card = pile_top(state, pile)
        if card >= 0 and auto_playable(state, card):
            return True
    return False


@kernel
def moved_card(state, move):
    """The card a move carries (the lowest of a run), or -1 for talon actions only.

    For a waste move the talon steps must already have been made on `state`.
    """
    source = move[MOVE_SOURCE]
    if source < PILES:
        return state[PILE_CARDS + source * PILE_SLOTS + move[MOVE_INDEX]]
    if source == WASTE:
        return state[TALON + state[WASTE_COUNT] - 1]
    if source == FOUNDATION_PLACE:
        return move[MOVE_INDEX] * 13 + state[FOUNDATION + move[MOVE_INDEX]] - 1
    return -1


@kernel
def apply_move(state, move, params):
    """Play a move on `state` in place: talon steps, the move, turning, then auto-play.

    Returns the number of face-down cards turned.
    """
    draw = params[PARAM_DRAW]
    pass_limit = params[PARAM_PASS_LIMIT]
    for _ in range(move[MOVE_STEPS]):
        talon_step(state, draw, pass_limit)
    source = move[MOVE_SOURCE]
    target = move[MOVE_TARGET]
    turned = 0
    if source != NOWHERE:
        card = moved_card(state, move)
        count = 1
        if source < PILES:
            count = state[PILE_LEN + source] - move[MOVE_INDEX]
            if target < PILES:
                src_base = PILE_CARDS + source * PILE_SLOTS + move[MOVE_INDEX]
                dst_base = PILE_CARDS + target * PILE_SLOTS + state[PILE_LEN + target]
                for i in range(count):
                    state[dst_base + i] = state[src_base + i]
                state[PILE_LEN + target] += count
            state[PILE_LEN + source] = move[MOVE_INDEX]
            turned += turn_top(state, source)
        elif source == WASTE:
            remove_waste_top(state)
            if target < PILES:
                state[PILE_CARDS + target * PILE_SLOTS + state[PILE_LEN + target]] = card
                state[PILE_LEN + target] += 1
        else:  # from a foundation: only to a pile
            state[FOUNDATION + move[MOVE_INDEX]] -= 1
            state[PILE_CARDS + target * PILE_SLOTS + state[PILE_LEN + target]] = card
            state[PILE_LEN + target] += 1
        if target == FOUNDATION_PLACE:
            put_on_foundation(state, card)
    if params[PARAM_AUTO]:
        turned += auto_play(state)
    return turned


@kernel
def _add(moves, count, source, target, index, steps, priority):
    """Append a move; silently ignored past MAX_MOVES (callers size the array generously)."""
    if count < MAX_MOVES:
        moves[count, MOVE_SOURCE] = source
        moves[count, MOVE_TARGET] = target
        moves[count, MOVE_INDEX] = index
        moves[count, MOVE_STEPS] = steps
        moves[count, MOVE_PRIORITY] = priority
    return count + 1


EMPTY_PILE_BIT = np.uint64(1) << np.uint64(52)


@kernel
def pile_tops(state):
    """The bits (1 << card) of the pile tops, and EMPTY_PILE_BIT if a pile is empty."""
    tops = np.uint64(0)
    for pile in range(PILES):
        top = pile_top(state, pile)
        tops |= EMPTY_PILE_BIT if top < 0 else np.uint64(1) << np.uint64(top)
    return tops


@kernel
def has_target(tops, card, king_at_bottom):
    """False if `card` fits on no pile top (`tops`: `pile_tops`), nor, a king not already at the
    bottom of its pile, in an empty pile: the usual case, settled without a look at the piles.

    Callers test this before `_card_targets`: a call of a kernel that takes arrays costs more than
    the test (numba counts references to the arrays it passes).
    """
    if CARD_VALUE[card] == 13:
        return not king_at_bottom and tops & EMPTY_PILE_BIT != 0
    return tops & BASE_MASK[card] != 0


@kernel
def _card_targets(state, moves, count, card, source, index, steps, priority, skip_pile, king_at_bottom):
    """Add the moves of `card` (alone or under a run) to every pile it fits on (once `has_target`).

    Piles are interchangeable, so one empty pile stands for all (the canonical hash makes them
    the same state). A king already at the bottom of its pile gains nothing on another empty pile.
    """
    empty_done = king_at_bottom
    for pile in range(PILES):
        if pile == skip_pile:
            continue
        top = pile_top(state, pile)
        if top < 0:
            if CARD_VALUE[card] == 13 and not empty_done:
                count = _add(moves, count, source, pile, index, steps, priority)
                empty_done = True
        elif fits_on(card, top):
            count = _add(moves, count, source, pile, index, steps, priority)
    return count


@kernel
def could_be_covered(state, card, foundation_to_tableau):
    """True if some card could be put on `card` next: one of the two other-colour cards one
    lower, in the talon, (with foundation->tableau) a foundation top, or in a pile where the
    search would move it: the lowest face-up card, or one above a card that can go up (the
    partial-run rule of `generate_moves`; any other would be moved onto `card`'s twin, where it
    already lies).

    Used to hold back moves whose only use is as a base (see `_talon_moves`).
    """
    value = CARD_VALUE[card]
    if value == 1:
        return False
    red = CARD_RED[card]
    for suit in range(4):
        if CARD_RED[suit * 13] == red:
            continue
        lower = suit * 13 + value - 2
        height = state[FOUNDATION + suit]
        if height == value - 1:
            if foundation_to_tableau:
                return True  # it is that foundation's top
            continue
        if height >= value:
            continue  # buried in its foundation
        for i in range(state[TALON_LEN]):
            if state[TALON + i] == lower:
                return True
        for pile in range(PILES):
            base = PILE_CARDS + pile * PILE_SLOTS
            down = state[FACE_DOWN + pile]
            for i in range(down, state[PILE_LEN + pile]):
                if state[base + i] == lower and (i == down or goes_to_foundation(state, state[base + i - 1])):
                    return True
    return False


@kernel
def worth_taking_down(state):
    """The foundation cards that may be worth taking down (a card set): without auto-play, every
    other foundation card is provably of no use in play yet.

    A card taken down is of use only as a base, for a card put on it, or to let the cards under
    it in its suit come down. So each take-down belongs to a cluster of them that ends when a
    card from a pile or the talon is put on one of them: the others come down onto cards of the
    cluster or to uncover one. The whole cluster can wait until just before that last move:
    until then, keeping its cards up changes nothing. Then that card is face up in a pile or in
    the talon, and every card of the cluster is one that could take it (a foundation card), a
    card above such a card in its suit, or a base for a card of the cluster, and so on: the
    least set closed under those steps, which holds every card worth taking down now.

    Waiting only reorders a line's actions, and a cluster no card is ever put on can be left out
    with the actions that bring it back: no line loses cards, points (a card placed again earns
    nothing) or actions, so the optimal search uses this too (PARAM_EXACT).
    """
    # Aces never come down: an ace in play is only a blocker. A foundation's cards from its
    # second card up are bits 1 to height - 1 of its block.
    up = np.uint64(0)
    for suit in range(4):
        height = state[FOUNDATION + suit]
        if height > 1:
            up |= (((ONE << np.uint64(height)) - ONE) & ~ONE) << np.uint64(13 * suit)
    if up == 0:
        return up  # nothing to take down: no need to look at the cards in play
    in_play = np.uint64(0)  # face up in a pile or in the talon
    for i in range(state[TALON_LEN]):
        in_play |= single(state[TALON + i])
    for pile in range(PILES):
        base = PILE_CARDS + pile * PILE_SLOTS
        for i in range(state[FACE_DOWN + pile], state[PILE_LEN + pile]):
            in_play |= single(state[base + i])
    worth = up & bases_of(in_play & ~ACES)
    while True:
        # above a card of the cluster in its suit: every bit of the block above its lowest one
        above = np.uint64(0)
        for suit in range(4):
            block = (worth >> np.uint64(13 * suit)) & SUIT_BITS
            if block != 0:
                above |= ((SUIT_BITS & ~((block & (~block + ONE)) - ONE))) << np.uint64(13 * suit)
        grown = worth | (up & (above | bases_of(worth)))
        if grown == worth:
            return worth
        worth = grown


@kernel
def _talon_moves(state, tops, params, moves, count, pending):
    """Macro-moves from the stock and waste: every card that repeated talon actions can bring
    to the waste top, to a foundation or a pile, costing that many actions.

    Positions come in dealing order; once a position repeats one already offered in this pass,
    the rest repeats too and is dominated (same cards reachable, more actions, more passes used).
    With auto-play, a drawn card that auto-plays changes the position, so the enumeration offers
    the draws up to that point as a move of their own and stops there: every later draw passes
    through that position.
    """
    draw = params[PARAM_DRAW]
    pass_limit = params[PARAM_PASS_LIMIT]
    auto = params[PARAM_AUTO]
    f2t = params[PARAM_F2T]
    length = state[TALON_LEN]
    if length == 0:
        return count
    # Draw 1 with unlimited passes: every talon card stays within reach, so a card is worth
    # putting on the tableau only just before something is put on it: in any winning line, each
    # such move can wait until then. (With auto-play and foundation->tableau together, waiting
    # could let auto-play send up cards the line later takes down, so the rule is off there.)
    # Move orders (`PARAM_ORDER`, see `solve`): 0 puts the tableau first and the nearest talon
    # cards first; 1 puts the talon moves before the tableau ones; 2 also the deepest talon cards first.
    bonus = 40 * 64 if params[PARAM_ORDER] >= 1 else 0
    sign = -1 if params[PARAM_ORDER] == 2 else 1
    hold_back = params[PARAM_PRUNE] and draw == 1 and pass_limit == 0 and not (auto and f2t)
    waste_count = state[WASTE_COUNT]
    seen = np.int64(1) << waste_count  # the waste counts offered in this pass, a bit each
    passes = state[PASS]
    steps = 0
    recycled = False
    while True:
        if waste_count > 0:
            card = state[TALON + waste_count - 1]
            if steps > 0 and auto and (pending or auto_playable(state, card)):
                return _add(moves, count, NOWHERE, NOWHERE, 0, steps, 20 * 64 - steps)
            if goes_to_foundation(state, card):
                count = _add(moves, count, WASTE, FOUNDATION_PLACE, 0, steps, 70 * 64 - sign * steps + bonus)
            if has_target(tops, card, False) and (not hold_back or could_be_covered(state, card, f2t)):
                count = _card_targets(state, moves, count, card, WASTE, 0, steps, 50 * 64 - sign * steps + bonus, -1, False)
        elif steps > 0 and auto and pending:
            return _add(moves, count, NOWHERE, NOWHERE, 0, steps, 20 * 64 - steps)
        # next talon position
        if waste_count < length:
            waste_count = waste_count + draw if waste_count + draw < length else length
        elif not recycled and (pass_limit == 0 or passes < pass_limit):
            waste_count = 0
            passes += 1
            recycled = True
        else:
            return count
        steps += 1
        if recycled:
            if waste_count > 0 and seen >> waste_count & 1:
                return count
        else:
            seen |= np.int64(1) << waste_count
        if steps > 60:
            return count
    return count


@kernel
def forced_move(state, params, moves):
    """A move that provably loses no win and is played alone (with forced moves on): written to
    `moves[0]`; returns 1, or 0 when there is none.

    In the winnability search, and in the fewest-actions search without auto-play, where the
    argument of `safe_to_foundation` also keeps the action count: the card goes up by an action
    in every winning line (or stopping line that puts it up), so that action comes first instead,
    and the moves of the card in between, each an action, are dropped; a run it lay on moves
    without it for the same action. With foundation->tableau, the cards a line could take down
    onto it or its suit's foundation top are of no use (`safe_to_foundation`,
    `worth_taking_down`). (With auto-play the card might have gone up later for no action.)
    """
    if not params[PARAM_FORCED]:
        return 0
    f2t = params[PARAM_F2T]
    auto = params[PARAM_AUTO]
    for pile in range(PILES):
        card = pile_top(state, pile)
        if card >= 0 and safe_to_foundation(state, card, f2t, auto):
            _add(moves, 0, pile, FOUNDATION_PLACE, state[PILE_LEN + pile] - 1, 0, 0)
            # With draw 3 and auto-play, the cards this sends up may take the waste top along,
            # which shifts the grouping of later draws: then the move is not provably safe.
            if not (auto and params[PARAM_DRAW] == 3 and _sends_waste_up(state, pile)):
                return 1
    waste_count = state[WASTE_COUNT]
    # Taking a draw-1 waste card away only skips it in every later pass; with draw 3 it would
    # shift the grouping of later draws, so it is not forced there.
    if params[PARAM_DRAW] == 1 and waste_count > 0:
        if safe_to_foundation(state, state[TALON + waste_count - 1], f2t, auto):
            _add(moves, 0, WASTE, FOUNDATION_PLACE, 0, 0, 0)
            return 1
    if params[PARAM_PRUNE] and params[PARAM_PASS_LIMIT] == 0 and not auto:
        steps = _safe_talon_card(state, params)
        if steps >= 0:
            _add(moves, 0, WASTE, FOUNDATION_PLACE, 0, steps, 0)
            return 1
    return 0


@kernel
def generate_moves(state, params, moves):
    """Fill `moves` with the moves of `state`, best first; returns how many: the `forced_move`
    alone if there is one, else `generate_choices`."""
    if forced_move(state, params, moves):
        return 1
    return generate_choices(state, params, moves)


@kernel
def generate_choices(state, params, moves):
    """Fill `moves` with every move of `state` worth trying, best first; returns how many.
    (`generate_moves` without the look for a forced move, for a caller that knows there is none.)
    """
    # PARAM_EXACT: the pruning rules that keep every line's value, not only some win
    exact = params[PARAM_EXACT]
    f2t = params[PARAM_F2T]
    auto = params[PARAM_AUTO]
    count = 0
    pending = auto and auto_play_pending(state)
    tops = pile_tops(state)
    king_waiting = -1  # `_king_could_fill`, worked out when first needed
    for pile in range(PILES):
        length = state[PILE_LEN + pile]
        if length == 0:
            continue
        down = state[FACE_DOWN + pile]
        base = PILE_CARDS + pile * PILE_SLOTS
        top = state[base + length - 1]
        if goes_to_foundation(state, top):
            priority = 90 if (length - 1 == down and down > 0) else 60
            count = _add(moves, count, pile, FOUNDATION_PLACE, length - 1, 0, priority * 64)
        for index in range(down, length):
            card = state[base + index]
            if index == down:
                if down > 0:
                    priority = 80 * 64 + down
                else:
                    priority = 40 * 64
                if index == 0 and params[PARAM_WAIT] and not auto and CARD_VALUE[card] != 13:
                    # Moving a whole pile that is not a king's run only empties it, which is of use
                    # only to a king; until one could come, the move can wait (see `_king_could_fill`).
                    if king_waiting < 0:
                        king_waiting = _king_could_fill(state, f2t)
                    if king_waiting == 0:
                        continue
                if has_target(tops, card, index == 0):
                    count = _card_targets(state, moves, count, card, pile, index, 0, priority, pile, index == 0)
            else:
                # Moving only the upper part of a run: needed only when the card it uncovers can
                # then go to its foundation (`partial_run_needed`).
                below = state[base + index - 1]
                if has_target(tops, card, False) and (not exact or partial_run_needed(state, below)):
                    count = _card_targets(state, moves, count, card, pile, index, 0, 30 * 64, pile, False)
    count = _talon_moves(state, tops, params, moves, count, pending)
    if f2t:
        worth = worth_taking_down(state) if exact and not auto else ~np.uint64(0)
        for suit in range(4):
            height = state[FOUNDATION + suit]
            if height == 0:
                continue
            card = suit * 13 + height - 1
            value = CARD_VALUE[card]
            if exact and value == 1:
                continue  # an ace in the tableau is only ever a blocker
            if not worth & single(card):
                continue
            if auto:
                # it would be auto-played straight back: the move changes nothing but the clock
                back = True
                for other in range(4):
                    if other != suit and state[FOUNDATION + other] < value - 1:
                        back = False
                if value == 1 or back:
                    continue
            if has_target(tops, card, False):
                count = _card_targets(state, moves, count, card, FOUNDATION_PLACE, suit, 0, 10 * 64, -1, False)
    if count > MAX_MOVES:
        count = MAX_MOVES  # cannot happen in Klondike (at most ~170); guarded all the same
    _sort_moves(moves, count)
    return count


@kernel
def on_stock_cycle(state, params):
    """True if the talon position is one the draws come back to forever with unlimited passes.

    Those positions (0, draw, 2*draw, ... and the end of the talon) can all be reached from one
    another by talon actions alone. With auto-play that holds only while no card at those
    positions would auto-play on arriving at the top (it would change the position on the way).
    """
    draw = params[PARAM_DRAW]
    length = state[TALON_LEN]
    waste_count = state[WASTE_COUNT]
    if waste_count % draw != 0 and waste_count != length:
        return False
    if params[PARAM_AUTO]:
        position = draw
        while position <= length + draw - 1:
            top = position if position < length else length
            if top > 0 and auto_playable(state, state[TALON + top - 1]):
                return False
            position += draw
    return True


@kernel
def _safe_talon_card(state, params):
    """With unlimited passes (no auto-play): the talon actions that bring a card safe to go up
    (`safe_to_foundation`) to the waste top, where taking it away leaves every other talon card
    as reachable as before; -1 if there is none. The forced move is then that card up.

    - Draw 1: every talon card stays within reach whatever is taken, so any card will do (the
      nearest one).
    - Draw 3: taking a card shifts the grouping of the cards after it, except for the last
      card of the talon; and drawing to the end gives up nothing only from a stock-cycle position
      (`on_stock_cycle`), which every later pass comes back to anyway.
    """
    draw = params[PARAM_DRAW]
    f2t = params[PARAM_F2T]
    no_auto = 0  # an int, as the other callers of `safe_to_foundation` pass: one compile serves all
    length = state[TALON_LEN]
    waste_count = state[WASTE_COUNT]
    if length == 0:
        return -1
    if draw == 1:
        for steps in range(1, length + 1):  # the waste top itself (no steps) was tried before
            position = waste_count + steps if waste_count + steps <= length else waste_count + steps - length - 1
            if position > 0 and safe_to_foundation(state, state[TALON + position - 1], f2t, no_auto):
                return steps
        return -1
    if not on_stock_cycle(state, params) or not safe_to_foundation(state, state[TALON + length - 1], f2t, no_auto):
        return -1
    return (length - waste_count + draw - 1) // draw


@kernel
def _king_could_fill(state, foundation_to_tableau):
    """1 if a king could go to an empty pile next: one in the talon, face up on a face-down card,
    or (with foundation->tableau) on top of a foundation; else 0.

    A whole pile whose bottom card is not a king moves onto another pile only to leave its place
    empty (the moved cards play the same wherever they lie, and the card they cover only loses its
    use), and an empty pile is of use only to a king. So in a winning line the move can wait until
    just before the first king goes to an empty pile after it: every move in between is as legal
    with the pile still in place (cards go onto its top there instead; the covered card lies
    uncovered, and nothing could have been put on it). Just before, that king is one of these (a
    king taken from the bottom of a pile to an empty one changes nothing, the piles being
    interchangeable, so a winning line need not hold such a move). Without auto-play only: with
    it, the uncovered card might go up on its own meanwhile.
    """
    for i in range(state[TALON_LEN]):
        if CARD_VALUE[state[TALON + i]] == 13:
            return 1
    for pile in range(PILES):
        down = state[FACE_DOWN + pile]
        if 0 < down < state[PILE_LEN + pile] and CARD_VALUE[state[PILE_CARDS + pile * PILE_SLOTS + down]] == 13:
            return 1
    if foundation_to_tableau:
        for suit in range(4):
            if state[FOUNDATION + suit] == 13:
                return 1
    return 0


@kernel
def _sends_waste_up(state, pile):
    """True if sending the top card of `pile` up, with the auto-play after it, takes the waste top
    up too (which changes the talon).

    Worked out without playing it: a card that can be auto-played stays so until it goes up (its
    foundation waits for it, and the lowest one only grows), so the waste top goes up at some point
    exactly when it can be auto-played once the pile tops have gone up as far as they can without
    it, in whatever order. The foundation heights (4 bits a suit) and the pile lengths (5 bits a
    pile) of that play are kept packed in two integers.
    """
    waste_count = state[WASTE_COUNT]
    if waste_count == 0:
        return False
    waste_top = state[TALON + waste_count - 1]
    heights = np.int64(0)
    for suit in range(4):
        heights |= np.int64(state[FOUNDATION + suit]) << (4 * suit)
    lengths = np.int64(0)
    for p in range(PILES):
        lengths |= np.int64(state[PILE_LEN + p]) << (5 * p)
    card = pile_top(state, pile)
    heights += np.int64(1) << (4 * CARD_SUIT[card])
    lengths -= np.int64(1) << (5 * pile)
    while True:
        if _auto_playable_at(waste_top, heights):
            return True
        moved = False
        for p in range(PILES):
            length = (lengths >> (5 * p)) & 31
            if length == 0:
                continue
            card = state[PILE_CARDS + p * PILE_SLOTS + length - 1]
            if _auto_playable_at(card, heights):
                heights += np.int64(1) << (4 * CARD_SUIT[card])
                lengths -= np.int64(1) << (5 * p)
                moved = True
                break
        if not moved:
            return False


@kernel
def _auto_playable_at(card, heights):
    """`auto_playable` with the foundation heights packed 4 bits a suit."""
    value = CARD_VALUE[card]
    if (heights >> (4 * CARD_SUIT[card])) & 15 != value - 1:
        return False
    if value == 1:
        return True
    for suit in range(4):
        if (heights >> (4 * suit)) & 15 < value - 1:
            return False
    return True


@kernel
def _sort_moves(moves, count):
    """Insertion sort by priority, highest first (stable, so generation order breaks ties)."""
    for i in range(1, count):
        j = i
        while j > 0 and moves[j - 1, MOVE_PRIORITY] < moves[j, MOVE_PRIORITY]:
            for f in range(MOVE_FIELDS):
                tmp = moves[j - 1, f]
                moves[j - 1, f] = moves[j, f]
                moves[j, f] = tmp
            j -= 1
