"""The branch-and-bound kernel of the optimal search (numba).

Depth-first over the same positions and macro-moves as the winnability search, with pruning
off (a pruning rule that keeps some win need not keep the best one). Each node carries its
points and actions; a node is cut when its upper bound (`objective.upper_bound`) cannot beat
the best line found, or when the table holds a visit of the same position that dominates it
(at least the points, at most the actions). Like `search`, it runs in resumable chunks.
"""

from __future__ import annotations

import numpy as np

from .deadends import ALL_CARDS, relaxed_game
from .jitcache import kernel
from .movegen import (MOVE_SOURCE, MOVE_STEPS, NOWHERE, PARAM_DRAW, PARAM_PASS_LIMIT, apply_move, generate_moves,
                      talon_recycles)
from .objective import (OBJ_MODE, OBJ_NO_WIN, OBJ_TURN, SCORED, first_never_placed, no_win_bound, pass_class,
                        pass_classes, recycle_penalties, record_placements, stop_value, upper_bound, within_time,
                        won_value)
from .search import AGAIN, CTX_DEPTH, CTX_NODES, CTX_TABLE_COUNT, PROCEED, RUNNING, next_step
from .state import FOUNDATION, MAX_PASS_HASHED, PASS, WASTE_COUNT, ZOBRIST_PASS, copy_into, \
    child_layout_hash, child_layout_hashes, finish_hash, foundation_total, layout_hash, layout_hashes, layout_of
from .tt import tt_seen_scored, tt_store_scored, tt_visit_scored

_rng = np.random.default_rng(0x706C61636564)
ZOBRIST_PLACED = _rng.integers(1, 2**63, size=52, dtype=np.int64).astype(np.uint64)

# Slots of the int64 context array: those of `search`, then the best value and the length of
# its line (-1: the line handed in as the incumbent).
B_BEST, B_BEST_LENGTH = 6, 7
B_CTX_SIZE = 8


@kernel
def scored_key(state, params, obj, placed):
    """Table key of a position for the optimal search.

    Exact talon position; the pass number exactly under a pass limit, else only whether later
    recycles are penalised; and which cards in play have already been placed once (they score
    nothing next time).
    """
    return layout_scored_key(layout_hash(state), state, params, obj, placed)


@kernel
def child_scored_key(child, parent, parent_hashes, params, obj, placed):
    """`scored_key` of a state one move from `parent`, from the parent's `state.layout_hashes`
    (`state.child_layout_hash`)."""
    return layout_scored_key(child_layout_hash(child, parent, parent_hashes), child, params, obj, placed)


@kernel
def layout_scored_key(layout, state, params, obj, placed):
    """`scored_key` from the state's `state.layout_hash`."""
    key = finish_hash(layout, state, params[PARAM_PASS_LIMIT] != 0, state[WASTE_COUNT])
    return _scored_key_from(key, state, obj, placed)


@kernel
def _scored_key_from(key, state, obj, placed):
    """`scored_key` from the state's `state.state_hash`."""
    if pass_classes(obj):
        key ^= ZOBRIST_PASS[pass_class(obj, state)]
    for suit in range(4):  # the suit's cards placed once but not up
        for card in range(suit * 13 + state[FOUNDATION + suit], first_never_placed(placed, state, suit)):
            key ^= ZOBRIST_PLACED[card]
    if key == 0:
        key = np.uint64(1)
    return key


@kernel
def enter_child(keys, table_infos, ctx, key, child_points, taken):
    """Record the visit of a child that is to be searched: no stored visit dominated it
    (`tt.tt_seen_scored`), and its bound can beat the best line. A child cut by its bound is not
    recorded, so that it replaces no entry that may dominate a later visit."""
    tt_store_scored(keys, table_infos, key, child_points, taken)
    ctx[CTX_TABLE_COUNT] += 1


@kernel
def _record_best(moves, move_next, depth, best_path, ctx, value):
    """Keep the current path (through the move being tried at `depth`) as the best line."""
    for d in range(depth + 1):
        for f in range(4):
            best_path[d, f] = moves[d, move_next[d] - 1, f]
    ctx[B_BEST] = value
    ctx[B_BEST_LENGTH] = depth + 1


@kernel
def _play_child(parent, parent_placed, parent_points, parent_actions, move, child, child_placed, params, obj,
                card_points_table):
    """Play `move` from `parent` into `child`; returns (actions, points) of the child, or (-1, 0)
    when the move would pass the time limit (`child` is then untouched)."""
    taken = parent_actions + move[MOVE_STEPS] + (1 if move[MOVE_SOURCE] != NOWHERE else 0)
    if not within_time(obj, taken):
        return -1, 0
    copy_into(child, parent)
    copy_into(child_placed, parent_placed)
    pass_before = child[PASS]
    turned = apply_move(child, move, params)
    gained = obj[OBJ_TURN] * turned + record_placements(obj, card_points_table, child_placed, child)
    pass_after = np.int64(child[PASS])
    if pass_after == MAX_PASS_HASHED and move[MOVE_STEPS] > 0:
        # the pass number stops there with unlimited passes, but every recycle still costs
        pass_after = pass_before + talon_recycles(parent, move[MOVE_STEPS], params[PARAM_DRAW])
    gained -= recycle_penalties(obj, pass_before, pass_after)
    return taken, parent_points + gained


@kernel
def position_bound(obj, card_points_table, placed, state, points, actions, params, best, scratch):
    """`objective.upper_bound` of a position, made tighter by the relaxed game of `deadends`
    (`scratch`: its array): where it cannot put every card up, the position is lost, and no line
    puts up or turns a card it cannot. That game costs more than the bound, so it is played only
    when the bound would not already cut the position (not above `best`)."""
    bound = upper_bound(obj, card_points_table, placed, state, points, actions, True)
    if bound <= best:
        return bound
    return relaxed_bound(obj, card_points_table, placed, state, points, actions, params, scratch, bound)


@kernel
def relaxed_bound(obj, card_points_table, placed, state, points, actions, params, scratch, bound):
    """`bound`, the position's `objective.upper_bound` (a caller that knows it need not work it out
    again), made tighter by the relaxed game (`position_bound`)."""
    reachable = relaxed_game(state, params, scratch, False)
    if reachable != ALL_CARDS or obj[OBJ_NO_WIN]:
        turnable = relaxed_game(state, params, scratch, True) if obj[OBJ_MODE] == SCORED else ALL_CARDS
        return no_win_bound(obj, card_points_table, placed, state, points, actions, reachable, turnable)
    return bound


@kernel
def open_bound(states, placed, points, actions, bounds, moves, move_count, move_next, ctx, params, obj,
               card_points_table, child, child_placed, scratch):
    """A value no line can beat while the search is under way (depth >= 0): the best so far, or
    a move not yet tried from a position on the stack (every other line was explored, or cut by a
    bound or by a dominating visit). An untried move is bounded by the smaller of its own
    position's bound and its parent's. `child`, `child_placed` (a row of `states`, `placed`) and
    `scratch` (52 int8) are work space from the caller: the kernel allocates nothing."""
    best = ctx[B_BEST]
    for d in range(ctx[CTX_DEPTH], -1, -1):
        if bounds[d] <= best:
            continue
        for index in range(move_next[d], move_count[d]):
            taken, child_points = _play_child(states[d], placed[d], points[d], actions[d], moves[d, index], child,
                                              child_placed, params, obj, card_points_table)
            if taken < 0:
                continue
            bound = min(bounds[d], position_bound(obj, card_points_table, child_placed, child, child_points, taken,
                                                  params, best, scratch))
            if bound > best:
                best = bound
    return best


@kernel
def bnb_chunk(states, layouts, placed, points, actions, bounds, moves, move_count, move_next, path_keys,
              keys, table_infos, best_path, ctx, params, obj, card_points_table, node_budget,
              scratch):
    """Run the branch and bound for at most `node_budget` nodes; return a status code
    (RUNNING, EXHAUSTED, TABLE_FULL, STACK_FULL as in `search`; EXHAUSTED proves the best).
    `scratch` (52 int8) is the dead-end test's work space for `position_bound`; `layouts` holds the
    `state.layout_hashes` of each state on the path: each child's are worked out from its parent's
    into its own row (`state.child_layout_hashes`), and its key from them, as in `search.search_chunk`."""
    max_depth = states.shape[0] - 1
    depth = ctx[CTX_DEPTH]
    nodes = 0
    if depth < 0:
        record_placements(obj, card_points_table, placed[0], states[0])
        root_stop = stop_value(obj, states[0], points[0], actions[0])
        if root_stop > ctx[B_BEST]:
            ctx[B_BEST] = root_stop
            ctx[B_BEST_LENGTH] = 0
        layout_hashes(states[0], layouts[0])
        key = layout_scored_key(layout_of(layouts[0]), states[0], params, obj, placed[0])
        path_keys[0] = key
        if tt_visit_scored(keys, table_infos, key, points[0], actions[0]):
            ctx[CTX_TABLE_COUNT] += 1
        bounds[0] = position_bound(obj, card_points_table, placed[0], states[0], points[0], actions[0], params,
                                   ctx[B_BEST], scratch)
        move_count[0] = 0
        if foundation_total(states[0]) < 52 and bounds[0] > ctx[B_BEST]:
            move_count[0] = generate_moves(states[0], params, moves[0])
        move_next[0] = 0
        depth = 0
    while nodes < node_budget:
        step, depth = next_step(depth, move_count, move_next, ctx, max_depth)
        if step == AGAIN:
            continue
        if step != PROCEED:
            ctx[CTX_DEPTH] = depth
            ctx[CTX_NODES] += nodes
            return step
        if bounds[depth] <= ctx[B_BEST]:
            move_next[depth] = move_count[depth]  # a better line was found meanwhile
            continue
        index = move_next[depth]
        move_next[depth] = index + 1
        child = states[depth + 1]
        child_placed = placed[depth + 1]
        taken, child_points = _play_child(states[depth], placed[depth], points[depth], actions[depth],
                                          moves[depth, index], child, child_placed, params, obj, card_points_table)
        if taken < 0:
            continue  # past the time limit nothing counts: stopping before is at least as good
        nodes += 1
        if foundation_total(child) == 52:
            value = won_value(obj, child_points, taken)
            if value > ctx[B_BEST]:
                _record_best(moves, move_next, depth, best_path, ctx, value)
            continue
        value = stop_value(obj, child, child_points, taken)
        if value > ctx[B_BEST]:
            _record_best(moves, move_next, depth, best_path, ctx, value)
        child_layout_hashes(child, states[depth], layouts[depth], layouts[depth + 1])
        key = layout_scored_key(layout_of(layouts[depth + 1]), child, params, obj, child_placed)
        if tt_seen_scored(keys, table_infos, key, child_points, taken):
            continue
        bound = position_bound(obj, card_points_table, child_placed, child, child_points, taken, params, ctx[B_BEST],
                               scratch)
        if bound <= ctx[B_BEST]:
            continue
        enter_child(keys, table_infos, ctx, key, child_points, taken)
        depth += 1
        path_keys[depth] = key
        points[depth] = child_points
        actions[depth] = taken
        bounds[depth] = bound
        move_count[depth] = generate_moves(child, params, moves[depth])
        move_next[depth] = 0
    ctx[CTX_DEPTH] = depth
    ctx[CTX_NODES] += nodes
    return RUNNING
