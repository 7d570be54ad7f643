"""The depth-first search kernel of the winnability solver (numba).

All search state lives in arrays owned by the caller (`solve.Search`), so the kernel runs in
chunks of a node budget and resumes where it stopped: the Python side checks the clock, grows the
transposition table or the stack, and shows progress between chunks.
"""

from __future__ import annotations

from numba import njit

from .movegen import PARAM_PASS_LIMIT, apply_move, generate_moves, waste_class
from .state import foundation_total, state_hash
from .tt import tt_insert

# Status codes returned by `search_chunk`.
RUNNING = 0  # node budget of this chunk used up
WIN = 1  # states[ctx[DEPTH]] is won; the path is moves[d, move_next[d] - 1] for d < depth
EXHAUSTED = 2  # every reachable state was explored (a loss, unless CTX_TRUNCATED is set)
TABLE_FULL = 3  # the table reached its load limit: grow or flush it, then call again
STACK_FULL = 4  # the stack is at its deepest: grow it (or forbid growing), then call again

# Slots of the int64 context array.
CTX_DEPTH, CTX_TABLE_COUNT, CTX_TABLE_LIMIT, CTX_NODES, CTX_TRUNCATED, CTX_CAN_GROW_STACK = 0, 1, 2, 3, 4, 5
CTX_SIZE = 8


@njit(cache=True)
def search_chunk(states, moves, move_count, move_next, path_keys, table, ctx, params, node_budget):
    """Run the depth-first search for at most `node_budget` nodes; return a status code.

    A node is a position reached by one macro-move. The table holds every position on the
    current path or already explored, so a position is expanded at most once between flushes,
    and a cycle back to an ancestor is never followed.
    """
    hash_pass = params[PARAM_PASS_LIMIT] != 0  # with unlimited passes the pass number is irrelevant
    max_depth = states.shape[0] - 1
    depth = ctx[CTX_DEPTH]
    nodes = 0
    if depth < 0:
        key = state_hash(states[0], hash_pass, waste_class(states[0], params))
        path_keys[0] = key
        if tt_insert(table, key):
            ctx[CTX_TABLE_COUNT] += 1
        ctx[CTX_DEPTH] = 0
        if foundation_total(states[0]) == 52:
            return WIN
        move_count[0] = generate_moves(states[0], params, moves[0])
        move_next[0] = 0
        depth = 0
    while nodes < node_budget:
        if move_next[depth] >= move_count[depth]:
            depth -= 1
            if depth < 0:
                ctx[CTX_DEPTH] = 0
                ctx[CTX_NODES] += nodes
                return EXHAUSTED
            continue
        if depth == max_depth:
            if ctx[CTX_CAN_GROW_STACK]:
                ctx[CTX_DEPTH] = depth
                ctx[CTX_NODES] += nodes
                return STACK_FULL
            ctx[CTX_TRUNCATED] = 1  # this position is left unexplored: no loss can be claimed
            move_next[depth] = move_count[depth]
            continue
        if ctx[CTX_TABLE_COUNT] >= ctx[CTX_TABLE_LIMIT]:
            ctx[CTX_DEPTH] = depth
            ctx[CTX_NODES] += nodes
            return TABLE_FULL
        index = move_next[depth]
        move_next[depth] = index + 1
        child = states[depth + 1]
        child[:] = states[depth]
        apply_move(child, moves[depth, index], params)
        nodes += 1
        if foundation_total(child) == 52:
            ctx[CTX_DEPTH] = depth + 1
            ctx[CTX_NODES] += nodes
            return WIN
        key = state_hash(child, hash_pass, waste_class(child, params))
        if not tt_insert(table, key):
            continue
        ctx[CTX_TABLE_COUNT] += 1
        depth += 1
        path_keys[depth] = key
        move_count[depth] = generate_moves(child, params, moves[depth])
        move_next[depth] = 0
    ctx[CTX_DEPTH] = depth
    ctx[CTX_NODES] += nodes
    return RUNNING
