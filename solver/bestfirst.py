"""The best-first kernel of the optimal search (numba).

The same positions, macro-moves, bounds and table as the branch and bound (`bnb`), searched in
another order: always from the open position with the highest bound (`bnb.position_bound`); among
equals, the one with the most cards up, then the one stored last (`heap_key`). With the
fewest-actions objective this is A*, the bound being the actions so far plus
`objective.actions_lower_bound`. The first line whose value reaches the
highest open bound is the best of all, so a short win is found early, where the depth-first
search first wades through long lines; and while it runs, the highest open bound is a proven
limit on every line.

A position stored for the search is a node: its parent node, the macro-move from there, its
actions, points, depth, table key and whether its bound is the tight one (`node_*` arrays: the
fields of one 32-byte record, `optimal.BestFirst.node_record`, and 12 more bytes for its heap key
and `compact`'s work space); its state is not stored
but played again from the root along its parents. The states of the last node expanded stay in
a stack (`states`, `placed`, `path_nodes`, one row per depth), so a node close to the last one
(its child, most often) costs a move or two to rebuild. Open nodes sit in a binary heap
(`heap_keys`) keyed by bound, then the node's number, which the key holds (`heap_key`). A child is
stored with the cheap bound (`objective.upper_bound`); the relaxed game's tighter one waits until
it comes out of the heap, as most children never do, and a node it lowers goes back in.

An expansion plays all its children first, keying them and fetching their table slots into the
cache, and only then looks them up (`play_children`): the fetches overlap. A child is looked up
in the table before its bound is worked out: most are repeats of a position
already stored with at least the points and at most the actions (`tt.tt_seen_scored`; 6.3 M of
the 9.2 M children on `harmony` seed 13). A node whose table entry was replaced by one that
dominates it (`tt.tt_visit_scored`) is dropped when it comes out of the heap: the other is or
was expanded and reaches all it reaches. Making room in a full table only loses duplicates.
A child the table does not dominate is looked up again in the talon table (`tt.talon_dominated`,
one entry a slot: a lost entry only cuts less), under its key without the waste count (and the
pass class): a stored visit of the same position but for a waste of fewer cards, from which
drawing reaches this one (no drawn card going up by auto-play) with at most its actions and at
least its points, reaches all it reaches, at least as well; so does, with unlimited passes, a
visit in this pass or an earlier one from which drawing the rest, recycling and drawing again
reaches it. That visit is or was searched, or cut by its own bound, which holds for this one too
(on `harmony` seed 13, 1.07 M children, two fifths of the positions).
When the nodes are all used, `compact` frees those no open node needs and can drop open nodes
of low bound; the highest bound dropped (F_DROPPED) is then a limit below which nothing is proved.
"""

from __future__ import annotations

import numpy as np

from .atomics import atomic_load, fetch_add
from .bnb import B_BEST, _play_child, child_scored_key, enter_child, position_bound, relaxed_bound, scored_key
from .jitcache import kernel
from .movegen import generate_moves
from .objective import (NEVER, OBJ_DEFER_SLACK, OBJ_GREEDY, WON_BASE, cached_talon_actions, stop_value,
                        upper_bound_with_talon, won_value)
from .search import (CTX_CAN_GROW_STACK, CTX_DEPTH, CTX_NODES, CTX_TABLE_COUNT, CTX_TABLE_LIMIT,
                     EXHAUSTED, RUNNING, STACK_FULL, TABLE_FULL)
from .state import foundation_total, layout_hashes
from .tt import (prefetch_slot, talon_dominated, talon_key, talon_store, tt_dominated_scored, tt_seen_scored,
                 tt_visit_scored)

# Status returned when the node arrays cannot take another expansion's children.
NODES_FULL = 5

# Slots of the int64 context array (one a thread): those of `search` (CTX_DEPTH is the deepest
# valid row of the thread's state stack), then the best value, the node of its line (-1: the
# incumbent handed in), the open nodes (of the thread's heap), the room for nodes an expansion
# keeps (every thread's at once), the highest bound of a node dropped (to make room, or for want of
# stack depth; NEVER while none was), and the children the talon table cut.
F_BEST = B_BEST  # the same slot in both optimal searches (`optimal.OptimalSearch`)
F_BEST_NODE, F_HEAP_SIZE, F_NODE_MARGIN, F_DROPPED, F_TALON_DOMINATED = 7, 8, 9, 10, 11
F_CTX_SIZE = 12

# The nodes stored so far: one counter that every thread of a search takes its nodes' numbers from
# (`atomics.fetch_add`), alone on its cache line (the slot in the middle of a 128-byte array), so
# that no thread's other writes share the line it bounces between cores on.
NODE_COUNT = 8
# Raised by a thread that ends its part of a round (its budget spent, its heap empty, or out of
# room): the others end theirs at their next expansion, instead of leaving it idle until they have
# spent their budgets too (`optimal.BestFirst._run_lanes`). On another cache line than NODE_COUNT.
ROUND_OVER = 0
COUNTER_SIZE = 16

# heap key: bound << NODE_BITS | rank << NODE_NUMBER_BITS | node (a bound is a value, within
# +-2**31: scores and WON_BASE are far below; the rank is the cards on the foundations, 0..52; node
# numbers are below 2**NODE_NUMBER_BITS, the most nodes a search may keep: `optimal.BestFirst`)
NODE_BITS = 32
RANK_BITS = 6
NODE_NUMBER_BITS = NODE_BITS - RANK_BITS
NODE_MASK = (1 << NODE_NUMBER_BITS) - 1
NO_PARENT = -1


@kernel
def heap_key(bound, rank, node):
    """The heap key of an open node: its bound first; among equal bounds, the node with the most
    cards on the foundations (`rank`); then the node stored last.

    Within the bound of the best line, the search only has to reach a line, and one with more
    cards up is closer to a win (`harmony` seed 147: proved in 44 s instead of 73 s, 104 M positions
    instead of 188 M, on two threads; below the best line's bound no line is found anyway, and
    the rank only changes which of the positions that must all be expanded goes first). Among
    equal ranks the node stored last is most often a child of the node just expanded, so the
    search goes on depth-first, a node's state is a move away from the states kept (`rebuild`).
    (The deepest first, by actions, rebuilt four times as many states and ran a third slower on
    `duel`: docs/MEASUREMENTS.md.)"""
    return (bound << NODE_BITS) | (rank << NODE_NUMBER_BITS) | node


@kernel
def key_bound(key):
    """The bound a heap key was made from."""
    return key >> NODE_BITS


@kernel
def key_node(key):
    """The node a heap key was made for."""
    return key & NODE_MASK


@kernel
def heap_push(heap_keys, size, key):
    """Add a key to the max-heap of `size` entries; returns the new size."""
    slot = size
    while slot > 0:
        parent = (slot - 1) >> 1
        if heap_keys[parent] >= key:
            break
        heap_keys[slot] = heap_keys[parent]
        slot = parent
    heap_keys[slot] = key
    return size + 1


@kernel
def heap_pop(heap_keys, size):
    """Remove the top of the max-heap of `size` entries (size > 0); returns the new size."""
    size -= 1
    key = heap_keys[size]
    slot = 0
    while True:
        child = 2 * slot + 1
        if child >= size:
            break
        if child + 1 < size and heap_keys[child + 1] > heap_keys[child]:
            child += 1
        if heap_keys[child] <= key:
            break
        heap_keys[slot] = heap_keys[child]
        slot = child
    if size > 0:
        heap_keys[slot] = key
    return size


@kernel
def move_heap_top(source_keys, source_ctx, target_keys, target_ctx, count):
    """Move the top `count` keys of one thread's heap to another's (`optimal.BestFirst._share_work`)."""
    source_size, target_size = source_ctx[F_HEAP_SIZE], target_ctx[F_HEAP_SIZE]
    for _ in range(min(count, source_size)):
        key = source_keys[0]
        source_size = heap_pop(source_keys, source_size)
        target_size = heap_push(target_keys, target_size, key)
    source_ctx[F_HEAP_SIZE], target_ctx[F_HEAP_SIZE] = source_size, target_size


@kernel
def new_node(node_parent, node_move, node_actions, node_points, node_depth, node_key, node_tight, counter, parent,
             move, actions, points, depth, key):
    """Store a node; returns its index (the caller made sure there is room: `F_NODE_MARGIN`)."""
    node = fetch_add(counter, NODE_COUNT, 1)
    node_parent[node] = parent
    for field in range(4):
        node_move[node, field] = move[field]
    node_actions[node] = actions
    node_points[node] = points
    node_depth[node] = depth
    node_key[node] = key
    node_tight[node] = 0
    return node


@kernel
def rebuild(node, states, placed, path_nodes, node_parent, node_move, node_actions, node_points, node_depth, ctx,
            params, obj, card_points_table, move_row):
    """Make `states[depth]`, `placed[depth]` those of `node` (depth: its depth), playing its moves
    from the deepest row of the stack that lies on its path. Each move is copied into `move_row`
    (a move row of work space) first: a node's move is a field of its record, a strided array, and
    `_play_child` given one would be compiled a second time, with `apply_move`, for it alone."""
    depth = node_depth[node]
    level = depth
    ancestor = node
    while level > ctx[CTX_DEPTH] or path_nodes[level] != ancestor:
        path_nodes[level] = ancestor
        ancestor = node_parent[ancestor]
        level -= 1
    for d in range(level + 1, depth + 1):
        step = path_nodes[d]
        parent = path_nodes[d - 1]
        for field in range(node_move.shape[1]):
            move_row[field] = node_move[step, field]
        _play_child(states[d - 1], placed[d - 1], node_points[parent], node_actions[parent], move_row,
                    states[d], placed[d], params, obj, card_points_table)
    ctx[CTX_DEPTH] = depth


@kernel
def best_first_start(states, placed, path_nodes, node_parent, node_move, node_actions, node_points, node_depth,
                     node_key, node_tight, heap_keys, keys, table_infos, ctx, params, obj,
                     card_points_table, root_points, root_actions, scratch, no_move, counter):
    """Store the root (states[0], placed[0]) as node 0, the first open node."""
    key = scored_key(states[0], params, obj, placed[0])
    node = new_node(node_parent, node_move, node_actions, node_points, node_depth, node_key, node_tight, counter,
                    NO_PARENT, no_move, root_actions, root_points, 0, key)
    path_nodes[0] = node
    ctx[CTX_DEPTH] = 0
    root_stop = stop_value(obj, states[0], root_points, root_actions)
    if root_stop > ctx[F_BEST]:
        ctx[F_BEST] = root_stop
        ctx[F_BEST_NODE] = node
    if foundation_total(states[0]) == 52:
        return
    bound = position_bound(obj, card_points_table, placed[0], states[0], root_points, root_actions, params,
                           ctx[F_BEST], scratch)
    if bound > ctx[F_BEST]:
        tt_visit_scored(keys, table_infos, key, root_points, root_actions)
        ctx[CTX_TABLE_COUNT] += 1
        node_tight[node] = 1
        ctx[F_HEAP_SIZE] = heap_push(heap_keys, 0, heap_key(bound, foundation_total(states[0]), node))


@kernel
def best_first_chunk(states, placed, path_nodes, node_parent, node_move, node_actions, node_points, node_depth,
                     node_key, node_tight, heap_keys, keys, table_infos, ctx, params, obj,
                     card_points_table, node_budget, scratch, moves, talon_keys, talon_info, children_states,
                     children_placed, children_actions, children_points, children_keys, children_free_keys,
                     parent_hashes, talon_costs, counter):
    """Expand open nodes, highest bound first, for at most `node_budget` children; return a status
    (RUNNING; EXHAUSTED: no open node can beat the best, which is proved unless a dropped node
    could (F_DROPPED above it); TABLE_FULL, STACK_FULL as in
    `search`; NODES_FULL: no room for another expansion's nodes). `scratch` (52 int8), `moves`
    and the `children_*` arrays (`play_children`; MAX_MOVES rows each) are work space;
    `talon_costs` is the thread's `objective.cached_talon_actions` table."""
    capacity = node_parent.shape[0]
    max_depth = states.shape[0] - 1
    greedy = obj[OBJ_GREEDY]  # 0: A*; else the weight of the actions still needed (`BestFirst`)
    nodes = 0
    status = RUNNING
    expanded = False
    while nodes < node_budget:
        if expanded and atomic_load(counter, ROUND_OVER) != 0:
            break  # another thread ended its part of the round
        size = ctx[F_HEAP_SIZE]
        if size == 0 or (key_bound(heap_keys[0]) <= ctx[F_BEST] if greedy == 0 else ctx[F_BEST_NODE] >= 0):
            status = EXHAUSTED
            break
        if ctx[CTX_TABLE_COUNT] + moves.shape[0] >= ctx[CTX_TABLE_LIMIT]:
            status = TABLE_FULL
            break
        if counter[NODE_COUNT] + ctx[F_NODE_MARGIN] >= capacity:
            status = NODES_FULL
            break
        node = key_node(heap_keys[0])
        depth = node_depth[node]
        if depth >= max_depth:
            if ctx[CTX_CAN_GROW_STACK]:
                status = STACK_FULL
                break
            # left unexplored: its bound still counts (`optimal.BestFirst.proven_bound`, `proved`)
            if key_bound(heap_keys[0]) > ctx[F_DROPPED]:
                ctx[F_DROPPED] = key_bound(heap_keys[0])
            ctx[F_HEAP_SIZE] = heap_pop(heap_keys, size)
            continue
        popped = heap_keys[0]
        ctx[F_HEAP_SIZE] = heap_pop(heap_keys, size)
        points = node_points[node]
        actions = node_actions[node]
        if tt_dominated_scored(keys, table_infos, node_key[node], points, actions):
            continue
        rebuild(node, states, placed, path_nodes, node_parent, node_move, node_actions, node_points, node_depth, ctx,
                params, obj, card_points_table, moves[0])  # `moves` is filled again after it
        state = states[depth]
        if not node_tight[node]:
            # Children get the cheap bound; the relaxed game's tighter one waits until they come
            # out, as most never do. A node it lowers goes back with the lower bound.
            node_tight[node] = 1
            # its key holds the cheap bound, above the best (or the search would be over)
            bound = relaxed_bound(obj, card_points_table, placed[depth], state, points, actions, params, scratch,
                                  key_bound(popped))
            if bound < key_bound(popped):
                if bound > ctx[F_BEST]:
                    lowered = heap_key(bound, foundation_total(state), node)
                    ctx[F_HEAP_SIZE] = heap_push(heap_keys, ctx[F_HEAP_SIZE], lowered)
                continue
        expanded = True
        # partial expansion: children whose bound lies below this wait, unstored (`OBJ_DEFER_SLACK`)
        defer_below = key_bound(popped) - obj[OBJ_DEFER_SLACK] if obj[OBJ_DEFER_SLACK] >= 0 else NEVER
        deferred = NEVER  # the best bound of a child that waits
        count = generate_moves(state, params, moves)
        play_children(state, placed[depth], points, actions, moves, count, children_states, children_placed,
                      children_actions, children_points, children_keys, children_free_keys, parent_hashes, keys,
                      talon_keys, params, obj, card_points_table)
        for index in range(count):
            taken = children_actions[index]
            if taken < 0:
                continue  # past the time limit nothing counts: stopping before is at least as good
            child = children_states[index]
            child_points = children_points[index]
            nodes += 1
            cards_up = foundation_total(child)
            won = cards_up == 52
            value = won_value(obj, child_points, taken) if won else stop_value(obj, child, child_points, taken)
            if value > ctx[F_BEST]:
                ctx[F_BEST] = value
                ctx[F_BEST_NODE] = new_node(node_parent, node_move, node_actions, node_points, node_depth, node_key,
                                            node_tight, counter, node, moves[index], taken, child_points, depth + 1,
                                            np.uint64(0))  # a line's last node: never looked up
            if won:
                continue
            key = children_keys[index]
            if tt_seen_scored(keys, table_infos, key, child_points, taken):
                continue  # most children: asked first, it spares their bound
            free_key = children_free_keys[index]
            if talon_dominated(talon_keys, talon_info, free_key, child, child_points, taken, obj):
                ctx[F_TALON_DOMINATED] += 1
                continue
            bound = upper_bound_with_talon(obj, card_points_table, children_placed[index], child, child_points, taken,
                                           cached_talon_actions(obj, child, talon_costs))
            if bound <= ctx[F_BEST]:
                continue
            if bound < defer_below:
                if bound > deferred:
                    deferred = bound
                continue
            enter_child(keys, table_infos, ctx, key, child_points, taken)
            talon_store(talon_keys, talon_info, free_key, child, child_points, taken, obj)
            stored = new_node(node_parent, node_move, node_actions, node_points, node_depth, node_key, node_tight,
                              counter,
                              node, moves[index], taken, child_points, depth + 1, key)
            if greedy != 0:
                # weighted A*: the actions the bound says are still needed count `greedy` times,
                # so a node near a win comes out sooner; its key is an order, no longer a bound
                node_tight[stored] = 1
                bound -= (greedy - 1) * (WON_BASE - taken - bound)
            ctx[F_HEAP_SIZE] = heap_push(heap_keys, ctx[F_HEAP_SIZE], heap_key(bound, cards_up, stored))
        if deferred > ctx[F_BEST]:
            # back in the heap at the best bound of a child that waits: expanded again once the
            # search gets there; the children stored this time are then repeats the table cuts
            ctx[F_HEAP_SIZE] = heap_push(heap_keys, ctx[F_HEAP_SIZE], heap_key(deferred, foundation_total(state), node))
    ctx[CTX_NODES] += nodes
    if expanded or status != EXHAUSTED:
        fetch_add(counter, ROUND_OVER, 1)
    return status


@kernel
def play_children(state, state_placed, points, actions, moves, count, children_states, children_placed,
                  children_actions, children_points, children_keys, children_free_keys, parent_hashes, keys, talon_keys,
                  params, obj, card_points_table):
    """Play each of the first `count` moves from `state` into its row of the `children_*` arrays:
    the child's state, placed cards, actions (-1: past the time limit), points and, unless it is won,
    its keys in the table and in the talon table (`tt.talon_key`); and start fetching the child's
    slots in both tables (`tt.prefetch_slot`).

    The tables are far larger than the caches, so a probe waits for memory. Fetched for every child
    before the first is looked up, they arrive together, while the others are played (`harmony`
    seeds 13 and 23, best-first alone: a fifth less time, the same positions)."""
    layout_hashes(state, parent_hashes)
    for index in range(count):
        child = children_states[index]
        children_actions[index], children_points[index] = _play_child(
            state, state_placed, points, actions, moves[index], child, children_placed[index], params, obj,
            card_points_table)
        if children_actions[index] < 0 or foundation_total(child) == 52:
            continue
        key = child_scored_key(child, state, parent_hashes, params, obj, children_placed[index])
        children_keys[index] = key
        children_free_keys[index] = talon_key(key, child, obj)
        prefetch_slot(keys, key)
        prefetch_slot(talon_keys, children_free_keys[index])


@kernel
def compact(node_parent, node_move, node_actions, node_points, node_depth, node_key, node_tight, node_remap,
            heap_keys, path_nodes, ctx, drop_key, counter):
    """Make room among the nodes; returns how many are left.

    First the open nodes with a heap key of at most `drop_key` are dropped (their highest bound
    is kept in F_DROPPED: the search proves nothing below it). Then every node that is neither open,
    the best line's end, nor an ancestor of one is freed: expanded nodes whose children were all
    cut or dominated, most of them. The nodes left keep their order (a parent before its
    children), so one pass renumbers them; `node_remap` is work space.
    """
    size = ctx[F_HEAP_SIZE]
    kept = 0
    for slot in range(size):
        if heap_keys[slot] <= drop_key:
            if key_bound(heap_keys[slot]) > ctx[F_DROPPED]:
                ctx[F_DROPPED] = key_bound(heap_keys[slot])
            continue
        heap_keys[kept] = heap_keys[slot]
        kept += 1
    size = 0
    for slot in range(kept):  # heapify again, by pushes (the heap is a prefix of itself)
        size = heap_push(heap_keys, size, heap_keys[slot])
    ctx[F_HEAP_SIZE] = size
    count = counter[NODE_COUNT]
    node_remap[:count] = 0
    node_remap[0] = 1
    for slot in range(size + 1):
        node = key_node(heap_keys[slot]) if slot < size else ctx[F_BEST_NODE]
        while node > 0 and node_remap[node] == 0:
            node_remap[node] = 1
            node = node_parent[node]
    left = 0
    for node in range(count):
        if node_remap[node] == 0:
            continue
        node_remap[node] = left
        parent = node_parent[node]
        node_parent[left] = node_remap[parent] if parent >= 0 else parent
        for field in range(4):
            node_move[left, field] = node_move[node, field]
        node_actions[left] = node_actions[node]
        node_points[left] = node_points[node]
        node_depth[left] = node_depth[node]
        node_key[left] = node_key[node]
        node_tight[left] = node_tight[node]
        left += 1
    for slot in range(size):  # the new numbers keep the order: still a heap
        heap_keys[slot] = (heap_keys[slot] & ~NODE_MASK) | node_remap[key_node(heap_keys[slot])]  # rank and bound kept
    if ctx[F_BEST_NODE] >= 0:
        ctx[F_BEST_NODE] = node_remap[ctx[F_BEST_NODE]]
    counter[NODE_COUNT] = left
    path_nodes[0] = 0
    ctx[CTX_DEPTH] = 0  # the stack's rows no longer name nodes: only the root's is kept
    return left
