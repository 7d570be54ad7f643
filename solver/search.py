"""The depth-first search kernel of the winnability solver (numba).

All search state lives in arrays owned by the caller (`solve.Search`), so the kernel runs in
chunks of a node budget and resumes where it stopped: the Python side checks the clock, grows the
transposition table or the stack, and shows progress between chunks.
"""

from __future__ import annotations

from .canon import layout_position_key
from .deadends import is_dead_end
from .jitcache import kernel
from .movegen import apply_move, forced_move, generate_choices, generate_moves
from .state import child_layout_hashes, copy_into, foundation_total, layout_hashes, layout_of
from .tt import tt_seen, tt_visit

# Status codes returned by `search_chunk`.
RUNNING = 0  # node budget of this chunk used up
WIN = 1  # states[ctx[DEPTH]] is won; the path is moves[d, move_next[d] - 1] for d < depth
EXHAUSTED = 2  # every reachable state was explored (a loss, unless CTX_TRUNCATED is set)
TABLE_FULL = 3  # the table reached its load limit: grow it or make room, then call again
STACK_FULL = 4  # the stack is at its deepest: grow it (or forbid growing), then call again

# Slots of the int64 context array.
CTX_DEPTH, CTX_TABLE_COUNT, CTX_TABLE_LIMIT, CTX_NODES, CTX_TRUNCATED, CTX_CAN_GROW_STACK = 0, 1, 2, 3, 4, 5
CTX_SIZE = 8


# What the depth-first loop does next (`next_step`), besides returning one of the statuses above.
PROCEED = -1  # try the next move at this depth
AGAIN = -2  # the level was closed or left: look again


@kernel
def next_step(depth, move_count, move_next, ctx, max_depth):
    """The stack bookkeeping shared by the depth-first kernels: returns (step, depth).

    Closes an exhausted level (EXHAUSTED when the root is done), asks for a bigger stack at the
    deepest row (or, when it may not grow, leaves that position unexplored and marks the search
    truncated, so no loss can be claimed), asks for a bigger table at its load limit.
    """
    if move_next[depth] >= move_count[depth]:
        if depth == 0:
            return EXHAUSTED, 0
        return AGAIN, depth - 1
    if depth == max_depth:
        if ctx[CTX_CAN_GROW_STACK]:
            return STACK_FULL, depth
        ctx[CTX_TRUNCATED] = 1
        move_next[depth] = move_count[depth]
        return AGAIN, depth
    if ctx[CTX_TABLE_COUNT] >= ctx[CTX_TABLE_LIMIT]:
        return TABLE_FULL, depth
    return PROCEED, depth


FORCED_ROWS = 52  # forced moves in a row at most: each puts a card up


@kernel
def follow_forced_moves(state, params, forced):
    """Play forced moves (`movegen.forced_move`) on `state` until none is left, each written to
    the next row of `forced` (FORCED_ROWS rows); returns how many."""
    played = 0
    while forced_move(state, params, forced[played:]):
        apply_move(state, forced[played], params)
        played += 1
    return played


@kernel
def search_chunk(states, layouts, moves, move_count, move_next, path_keys, path_orders, keys, orders, ctx, params,
                 node_budget, scratch, forced):
    """Run the depth-first search for at most `node_budget` nodes; return a status code.

    A node is a position reached by one macro-move and the forced moves after it. The table
    holds every position on the current path or already explored, so a position is expanded at
    most once while its entry stays (not at all when a dominating one was), and a cycle back to
    an ancestor is never followed. `scratch` (52 int8, for the dead-end test) and `forced`
    (FORCED_ROWS rows of moves) are work space from the caller: the kernel allocates nothing (`jitcache.kernel`).

    `layouts` holds the `state.layout_hashes` of each state on the path, so that a child's key
    hashes again only the piles its move changed (`state.child_layout_hashes`): hashing each child
    whole took a fifth of the time (`harmony` seed 270, sampled with `benchmarks/profile.py`).
    """
    max_depth = states.shape[0] - 1
    depth = ctx[CTX_DEPTH]
    nodes = 0
    if depth < 0:
        layout_hashes(states[0], layouts[0])
        key, order = layout_position_key(layout_of(layouts[0]), states[0], params)
        path_keys[0] = key
        path_orders[0] = order
        if tt_visit(keys, orders, key, order):
            ctx[CTX_TABLE_COUNT] += 1
        ctx[CTX_DEPTH] = 0
        if foundation_total(states[0]) == 52:
            return WIN
        move_count[0] = 0 if is_dead_end(states[0], params, scratch) else generate_moves(states[0], params, moves[0])
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
        index = move_next[depth]
        move_next[depth] = index + 1
        child = states[depth + 1]
        copy_into(child, states[depth])
        apply_move(child, moves[depth, index], params)
        nodes += 1
        if foundation_total(child) == 52:
            ctx[CTX_DEPTH] = depth + 1
            ctx[CTX_NODES] += nodes
            return WIN
        child_layout_hashes(child, states[depth], layouts[depth], layouts[depth + 1])
        key, order = layout_position_key(layout_of(layouts[depth + 1]), child, params)
        if tt_seen(keys, orders, key, order):
            continue
        # A new position with a forced move: the forced moves are played at once, and the
        # positions they pass through are not stored (the line's forced moves are found again
        # the same way, see `follow_forced_moves`).
        if follow_forced_moves(child, params, forced):
            if foundation_total(child) == 52:
                ctx[CTX_DEPTH] = depth + 1
                ctx[CTX_NODES] += nodes
                return WIN
            # more than one move from its parent: hashed whole
            layout_hashes(child, layouts[depth + 1])
            key, order = layout_position_key(layout_of(layouts[depth + 1]), child, params)
        if not tt_visit(keys, orders, key, order):
            continue
        ctx[CTX_TABLE_COUNT] += 1
        depth += 1
        path_keys[depth] = key
        path_orders[depth] = order
        if is_dead_end(child, params, scratch):
            move_count[depth] = 0
        else:
            move_count[depth] = generate_choices(child, params, moves[depth])
        move_next[depth] = 0
    ctx[CTX_DEPTH] = depth
    ctx[CTX_NODES] += nodes
    return RUNNING
