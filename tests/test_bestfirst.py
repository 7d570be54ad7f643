"""The best-first optimal search (`solver.bestfirst`, `solver.optimal.BestFirst`).

Its answers on small positions are checked against the exhaustive oracle with the rest of
`best` (test_optimal, both search orders). Here: the heap it keeps its open nodes in, the lines
it rebuilds from its nodes, and what happens when its nodes fill the memory budget (the
depth-first search takes over below the bound it proved).
"""

from __future__ import annotations

import functools
import random
import time

import numpy as np
import pytest

from solver import line as line_module
from solver.bestfirst import (COUNTER_SIZE, F_BEST_NODE, F_CTX_SIZE, F_DROPPED, F_HEAP_SIZE, F_TALON_DOMINATED,
                              NODE_COUNT, NODE_NUMBER_BITS, compact, heap_key, heap_pop, heap_push, key_bound, key_node,
                              play_children)
from solver.bnb import _play_child, scored_key
from solver.movegen import generate_moves
from solver.objective import NEVER, WON_BASE, objective_params, pass_class, pass_classes
from solver.deal import Deal
from solver.game import Game, replay
from solver.benchmark import BENCH_RULESETS
from solver import optimal as optimal_module
from solver.optimal import DEFER_SLACK, BestFirst, best, line_value
from solver.rules import PRESETS, Ruleset
from solver.runner import FIRST_TABLE_ENTRIES, ChunkedSearch
from solver.solve import solve
from solver.state import PASS, WASTE_COUNT, ZOBRIST_PASS, ZOBRIST_WASTE_COUNT, encode
from solver.tt import talon_dominated, talon_key, talon_store
from test_optimal import CASES, CASES_BY_ID, DEAL0, oracle_answer, talon_position, with_clock


def test_the_heap_gives_nodes_back_highest_key_first():
    rng = random.Random(7)
    capacity = 500
    keys = np.zeros(capacity, dtype=np.int64)
    size = 0
    mirror = []  # the keys in the heap
    popped = []
    for step in range(2000):
        if size < capacity and (size == 0 or rng.random() < 0.55):
            key = heap_key(rng.randint(-3000, 3000), rng.randint(0, 52), rng.randint(0, 5000))
            size = heap_push(keys, size, key)
            mirror.append(key)
        else:
            top_key = keys[0]
            assert top_key == max(mirror)
            mirror.remove(top_key)
            popped.append(top_key)
            size = heap_pop(keys, size)
        assert size == len(mirror)
    assert popped, "nothing was popped: the test looked at nothing"


@pytest.mark.parametrize("bound, rank, node", [(0, 0, 0), (999_880, 52, 120), (-400, 7, 3), (-(1 << 30), 0, 7),
                                               (12, 30, (1 << NODE_NUMBER_BITS) - 1)])
def test_a_heap_key_orders_by_bound_then_rank_then_the_node_stored_last_and_gives_the_bound_back(bound, rank, node):
    key = heap_key(bound, rank, node)
    assert key_bound(key) == bound and key_node(key) == node
    assert heap_key(bound + 1, 0, 0) > key  # a higher bound first, whatever the rest
    assert heap_key(bound - 1, 52, (1 << NODE_NUMBER_BITS) - 1) < key
    if rank < 52:
        assert heap_key(bound, rank + 1, 0) > key  # then more cards up, whatever the node
    if node > 0:
        assert heap_key(bound, rank, node - 1) < key  # then the node stored last


@pytest.mark.parametrize("seed", range(6))
def test_making_room_keeps_every_open_node_with_its_line_and_frees_the_rest(seed):
    """A random tree of nodes, some open: `compact` drops the open nodes at or below the key it
    is given (recording their highest bound), keeps every other open node and the best line's end
    with the same moves from the root, renumbers parents before children, and frees the rest."""
    rng = random.Random(seed)
    count = 300
    parent = np.full(count, -1, dtype=np.int32)
    depth = np.zeros(count, dtype=np.int16)
    for node in range(1, count):
        parent[node] = rng.randrange(node)
        depth[node] = depth[parent[node]] + 1
    move = np.zeros((count, 4), dtype=np.int16)
    move[:, 0] = np.arange(count)  # names each node by its first field, whatever its new number
    actions, points = np.arange(count, dtype=np.int32), -np.arange(count, dtype=np.int32)
    key, tight, remap = np.arange(count, dtype=np.uint64), np.ones(count, dtype=np.int8), np.zeros(count, np.int32)
    heap_keys = np.zeros(count, dtype=np.int64)
    ctx = np.zeros(F_CTX_SIZE, dtype=np.int64)
    counter = np.zeros(COUNTER_SIZE, dtype=np.int64)
    counter[NODE_COUNT] = count
    ctx[F_DROPPED], ctx[F_BEST_NODE] = NEVER, rng.randrange(count)
    open_nodes = rng.sample(range(1, count), 60)
    bounds = {node: rng.randint(-50, 50) for node in open_nodes}
    ranks = {node: rng.randint(0, 52) for node in open_nodes}
    size = 0
    for node in open_nodes:
        size = heap_push(heap_keys, size, heap_key(bounds[node], ranks[node], node))
    ctx[F_HEAP_SIZE] = size
    drop_key = heap_key(0, 20, 5)

    def line(names, parents, node):
        moves = []
        while node >= 0:
            moves.append(int(names[node, 0]))
            node = int(parents[node])
        return moves

    before = {node: line(move, parent, node) for node in open_nodes + [int(ctx[F_BEST_NODE])]}
    kept = [node for node in open_nodes if heap_key(bounds[node], ranks[node], node) > drop_key]
    dropped = [bounds[node] for node in open_nodes if node not in kept]
    best_before = int(ctx[F_BEST_NODE])
    left = compact(parent, move, actions, points, depth, key, tight, remap, heap_keys,
                   np.zeros(count, dtype=np.int32), ctx, drop_key, counter)
    needed = {0} | {step for node in kept + [best_before] for step in before[node]}
    assert left == counter[NODE_COUNT] == len(needed)
    assert ctx[F_HEAP_SIZE] == len(kept)
    assert ctx[F_DROPPED] == (max(dropped) if dropped else NEVER)
    assert all(parent[node] < node for node in range(1, left)) and parent[0] == -1
    for node in range(left):  # each node's fields moved with it
        name = int(move[node, 0])
        assert actions[node] == name and points[node] == -name and key[node] == name
        assert depth[node] == len(line(move, parent, node)) - 1
    assert sorted(int(move[key_node(heap_keys[slot]), 0]) for slot in range(len(kept))) == sorted(kept)
    for slot in range(len(kept)):
        node = int(key_node(heap_keys[slot]))
        assert line(move, parent, node) == before[int(move[node, 0])]
        assert slot == 0 or heap_keys[(slot - 1) // 2] >= heap_keys[slot]  # still a heap
        name = int(move[node, 0])
        assert heap_keys[slot] == heap_key(bounds[name], ranks[name], node)  # keyed by its new number
    assert line(move, parent, int(ctx[F_BEST_NODE])) == before[best_before]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("case_id", [case[0] for case in CASES])
def test_best_first_alone_finds_the_exhaustive_optimum(case_id, threads):
    """On the oracle's small positions (test_optimal), the best-first search alone, from no line
    but the empty one, proves the optimum of every clock, and its line replays to that value; so
    do several threads, which share the nodes and both tables."""
    _, position, base_rules, clocks = CASES_BY_ID[case_id]
    for seconds in clocks:
        rules = with_clock(base_rules, seconds)
        answer = oracle_answer(case_id, seconds)
        origin = Game(DEAL0, rules, position)
        search = BestFirst(origin, rules, line_value(origin) - 1, False, 16, threads)
        search.run(2_000_000)
        assert search.proved, (case_id, seconds, search.nodes)
        assert search.best_value == search.proven_bound() == answer.value, (case_id, seconds)
        path = search.best_path()
        line = line_module.continue_game(origin, path if path is not None else [])
        assert line_value(line) == answer.value, (case_id, seconds, path)


@pytest.mark.parametrize("name, seed", [("classic", 3), ("classic-draw3", 5), ("harmony", 5), ("harmony", 9)])
def test_best_first_alone_proves_a_line_the_engine_values_alike(name, seed):
    """From the deal with no incumbent, the search proves its line; the line is rebuilt from the
    nodes' moves, and the engine values it as the search did and finds it no worse than a line
    from the depth-first search."""
    rules = PRESETS[name]
    origin = Game(Deal.from_seed(seed), rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 256)
    search.run(5_000_000)
    assert search.proved, (name, seed, search.nodes)
    line = line_module.continue_game(origin, search.best_path())
    assert line_value(line) == search.best_value == search.proven_bound()
    depth_first = best(Deal.from_seed(seed), rules, max_nodes=2_000_000, best_first=False)
    assert line_value(depth_first.game) <= search.best_value
    if depth_first.optimal:
        assert line_value(depth_first.game) == search.best_value


@pytest.mark.parametrize("name, seed, actions", [("harmony", 5, 0), ("harmony", 5, 299), ("duel", 4, 294),
                                                   ("classic-draw3", 8, 294)])
def test_an_expansions_children_are_each_as_that_move_played_alone(name, seed, actions):
    """`play_children` fills one row a move with what playing that move alone gives (the child's
    state, placed cards, actions or -1 past the time limit, points and keys) and changes
    neither table: fetching slots is only a hint. From 299 or 294 actions with the clock on, some
    moves pass the 300 s limit and some do not (no limit without scoring)."""
    rules = PRESETS[name]
    search = BestFirst(Game(Deal.from_seed(seed), rules), rules, -(1 << 40), False, 16)
    state, placed = search.stack["states"][0], search.stack["placed"][0]
    lane = search.lanes[0]
    moves = np.empty_like(lane.moves)
    count = generate_moves(state, search.params, moves)
    children = tuple(np.zeros_like(array) for array in lane.children.values())
    tables = search.table[0].copy(), search.talon_keys.copy()
    play_children(state, placed, 700, actions, moves, count, *children, search.table[0], search.talon_keys,
                  search.params, search.obj, search.card_points)
    states, placed_rows, actions_of, points_of, keys_of, free_keys_of, _ = children
    alone, alone_placed = np.zeros_like(state), np.zeros_like(placed)
    timed_out = 0
    for index in range(count):
        taken, points = _play_child(state, placed, 700, actions, moves[index], alone, alone_placed, search.params,
                                    search.obj, search.card_points)
        assert actions_of[index] == taken, index
        if taken < 0:
            timed_out += 1
            continue
        assert points_of[index] == points
        assert (states[index] == alone).all() and (placed_rows[index] == alone_placed).all()
        assert keys_of[index] == scored_key(alone, search.params, search.obj, alone_placed)
        assert free_keys_of[index] == talon_key(keys_of[index], alone, search.obj)
    assert count > 2
    assert (timed_out > 0) == (actions >= 294 and rules.scoring is not None) and timed_out < count
    assert (search.table[0] == tables[0]).all() and (search.talon_keys == tables[1]).all()


@pytest.mark.parametrize("stored_waste, stored_points, stored_actions, draw, auto, dominated", [
    (1, 500, 10, 1, False, True),  # three draws from the stored visit: 13 actions, here 13
    (1, 500, 11, 1, False, False),  # 14 actions
    (1, 400, 10, 1, False, False),  # fewer points
    (5, 500, 10, 1, False, False),  # a waste of more cards: a draw, the recycle and four draws, 16 actions
    (5, 500, 7, 1, False, True),  # ... 13 actions
    (5, 500, 8, 1, False, False),  # ... 14 actions
    (5, 500, 7, 1, True, False),  # ... but the Ac drawn again goes up
    (4, 500, 12, 1, False, True),  # the same waste, fewer actions
    (1, 500, 10, 1, True, False),  # with auto-play, the Ac drawn on the way goes up
    (2, 500, 10, 1, True, False),  # the Ac is drawn first
    (3, 500, 12, 1, True, True),  # the 7d drawn does not go up
    (1, 500, 10, 3, False, True),  # one draw of three
    (2, 500, 10, 3, False, False),  # no draw of three stops here from there
    (5, 500, 9, 3, False, False),  # nor from the next pass's first card (3, 6)
])
def test_a_visit_with_a_smaller_waste_dominates_when_drawing_reaches_this_one(stored_waste, stored_points,
                                                                                stored_actions, draw, auto, dominated):
    """The talon table (`tt.talon_dominated`): the same position, but for how far the stock was
    drawn, dominates when drawing (and, with unlimited passes, recycling) from it reaches this one
    with at most the actions, at least the points, and no drawn card going up by auto-play on the way."""
    rules = Ruleset(draw=draw, passes=None, auto_play=auto)
    assert talon_table_answer(rules, talon_position("9s Jd", "Kc 5h Ac 7d"), stored_waste, 1, stored_points,
                              stored_actions) == dominated


@pytest.mark.parametrize("passes, scoring, stored_pass, here_pass, stored_points, dominated", [
    (None, None, 1, 1, 500, True),  # no scoring: the pass does not count
    (3, None, 1, 1, 500, False),  # under a pass limit it does: a recycle leads to another position
    (None, "harmony", 1, 2, 500, True),  # the second pass begins without a penalty
    (None, "harmony", 1, 1, 500, False),  # the recycle would begin the second pass, not the first
    (None, "harmony", 2, 2, 500, False),  # the third pass begins with a penalty of 400
    (None, "harmony", 2, 2, 900, True),
    (None, "harmony", 3, 2, 900, True),  # the second pass and later ones are one class
    (None, "harmony", 2, 1, 900, False),  # no recycle leads back to the first pass
])
def test_a_visit_in_an_earlier_pass_dominates_when_recycling_reaches_this_one(passes, scoring, stored_pass,
                                                                            here_pass, stored_points, dominated):
    """Through a recycle (`tt.talon_dominated`): from a waste of five of the six talon cards, a
    draw, the recycle and four draws reach a waste of four in the next pass: 6 actions. The pass
    counts as it does for the points (`objective.pass_class`)."""
    rules = Ruleset(draw=1, passes=passes, scoring=scoring)
    here = talon_position("9s Jd", "Kc 5h Ac 7d")
    here.pass_number = here_pass
    assert talon_table_answer(rules, here, 5, stored_pass, stored_points, 7) == dominated


@pytest.mark.parametrize("stored_pass, here_pass, dominated", [
    (1, 2, True),  # the first pass has a free recycle more to come than the second
    (2, 3, True),  # the second and later ones are one class
    (2, 1, False),
])
def test_a_visit_in_an_earlier_pass_class_dominates_the_same_layout_drawn_further(stored_pass, here_pass, dominated):
    """Drawing within its pass (`tt.talon_dominated`): from a waste of one, three draws reach this
    waste of four, 13 actions; the stored visit's pass may be of an earlier class than this one's."""
    here = talon_position("9s Jd", "Kc 5h Ac 7d")
    here.pass_number = here_pass
    assert talon_table_answer(Ruleset(draw=1, passes=None, scoring="harmony"), here, 1, stored_pass, 500,
                              10) == dominated


def talon_table_answer(rules, here, stored_waste, stored_pass, stored_points, stored_actions):
    """Whether a visit of `here` with 500 points and 13 actions is dominated by the talon table
    holding a visit of the same cards with this waste count, pass, points and actions."""
    obj, _ = objective_params(rules)
    state = encode(here)
    assert state[WASTE_COUNT] == 4
    keys = np.zeros(1024, dtype=np.uint64)
    info = np.zeros(1024, dtype=np.int64)
    stored = state.copy()
    stored[WASTE_COUNT] = stored_waste
    stored[PASS] = stored_pass
    without_talon = np.uint64(0x1234_5678_9ABC_DEF1)  # a key, but for the waste count and the pass class

    def key_of(position_state):
        key = without_talon ^ ZOBRIST_WASTE_COUNT[position_state[WASTE_COUNT]]
        return key ^ ZOBRIST_PASS[pass_class(obj, position_state)] if pass_classes(obj) else key

    free_key = talon_key(key_of(stored), stored, obj)
    assert free_key == talon_key(key_of(state), state, obj) == without_talon
    talon_store(keys, info, free_key, stored, stored_points, stored_actions, obj)
    return talon_dominated(keys, info, free_key, state, 500, 13, obj)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_talon_table_grows_with_the_nodes_and_the_optimum_stays(monkeypatch, threads):
    """Started small, the talon table doubles as the nodes stored grow (between rounds, never past
    its share of the memory), keeps cutting children, and the search proves the optimum it proves
    with the table at its largest from the start."""
    rules = PRESETS["harmony"]
    origin = Game(Deal.from_seed(5), rules)
    whole = BestFirst(origin, rules, line_value(origin) - 1, False, 256, threads)
    monkeypatch.setattr(optimal_module, "FIRST_TALON_ENTRIES", whole.max_talon_entries)
    whole = BestFirst(origin, rules, line_value(origin) - 1, False, 256, threads)
    whole.run(5_000_000)
    monkeypatch.setattr(optimal_module, "FIRST_TALON_ENTRIES", 1 << 10)
    growing = BestFirst(origin, rules, line_value(origin) - 1, False, 256, threads)
    assert growing.talon_keys.shape[0] == 1 << 10
    growing.run(5_000_000)
    assert whole.proved and growing.proved and growing.best_value == whole.best_value
    entries = growing.talon_keys.shape[0]
    assert entries > 1 << 10 and entries <= growing.max_talon_entries
    assert entries >= min(growing.max_talon_entries, optimal_module.TALON_ENTRIES_PER_NODE * growing.stored_nodes // 2)
    assert growing.ctx[F_TALON_DOMINATED] > 0


@pytest.mark.parametrize("name, seed", [("harmony", 5), ("classic-draw3", 5), ("classic", 3)])
def test_the_talon_table_spares_children_and_the_optimum_is_the_depth_first_one(name, seed):
    """The optimum the best-first search proves with its talon table is the one the depth-first
    search (which has none) proves; with unlimited passes the table cuts children (these searches
    under pass limits are small: it cuts none)."""
    rules = PRESETS[name]
    origin = Game(Deal.from_seed(seed), rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 256)
    search.run(5_000_000)
    assert search.proved
    assert (search.ctx[F_TALON_DOMINATED] > 0) == (rules.passes is None), search.ctx[F_TALON_DOMINATED]
    depth_first = best(Deal.from_seed(seed), rules, max_nodes=5_000_000, best_first=False)
    assert depth_first.optimal and line_value(depth_first.game) == search.best_value


def test_making_room_that_would_end_past_the_deadline_stops_the_search_as_out_of_time(monkeypatch):
    """A search whose nodes are full makes room only if that should end before its deadline, at the
    slowest speed the process has seen (`BestFirst._room_fits`); otherwise it stops at once, its
    time up, instead of overrunning it. Told that making room is fast, the same search makes room."""
    rules = PRESETS["harmony"]
    origin = Game(Deal.from_seed(5), rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 1)  # 1 MB: about 10,000 nodes
    monkeypatch.setattr(BestFirst, "slowest_room_seconds_per_node", 1.0)
    began = time.perf_counter()
    assert search.run_within(began, 0, None, 30.0) == "time limit"
    assert search.compactions == 0 and search.nodes > 0 and time.perf_counter() - began < 10
    monkeypatch.setattr(BestFirst, "slowest_room_seconds_per_node", 0.0)
    assert search.run_within(time.perf_counter(), 0, search.nodes + 300_000, 30.0) in ("node budget", None)
    assert search.compactions > 0 and not search.out_of_time


def test_before_any_room_is_timed_making_room_is_judged_at_the_untimed_speed(monkeypatch):
    """In a process that has not yet made room among many nodes, `BestFirst._room_fits` judges at
    ROOM_SECONDS_PER_NODE_UNTIMED (the first time was once free: `harmony` seed 36 overran by 4.7 s)."""
    rules = PRESETS["harmony"]
    origin = Game(Deal.from_seed(5), rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 1)  # 1 MB: about 10,000 nodes
    monkeypatch.setattr(BestFirst, "slowest_room_seconds_per_node", None)
    monkeypatch.setattr(optimal_module, "ROOM_SECONDS_PER_NODE_UNTIMED", 1.0)
    assert search.run_within(time.perf_counter(), 0, None, 30.0) == "time limit"
    assert search.compactions == 0 and search.out_of_time
    monkeypatch.setattr(optimal_module, "ROOM_SECONDS_PER_NODE_UNTIMED", 1e-9)
    assert search.run_within(time.perf_counter(), 0, search.nodes + 300_000, 30.0) in ("node budget", None)
    assert search.compactions > 0 and not search.out_of_time


@pytest.mark.parametrize("slowest, grows", [(1.0, False), (0.0, True)])
def test_the_talon_table_grows_only_if_that_ends_before_the_deadline(monkeypatch, slowest, grows):
    """A growth of the talon table is judged as one of the main table (`runner._growth_fits`): at
    a second an entry it would end past the deadline, and the table keeps its size (it then only
    cuts fewer visits); where growths are fast, it grows."""
    rules = PRESETS["harmony"]
    origin = Game(Deal.from_seed(5), rules)
    monkeypatch.setattr(optimal_module, "FIRST_TALON_ENTRIES", 1 << 10)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 256)
    monkeypatch.setattr(ChunkedSearch, "slowest_growth_seconds_per_entry", slowest)
    search.run_within(time.perf_counter(), 0, 200_000, 30.0)
    assert (search.talon_keys.shape[0] > 1 << 10) == grows
    assert search.stored_nodes * optimal_module.TALON_ENTRIES_PER_NODE > 1 << 10


@functools.lru_cache(maxsize=None)
def proved_best(name: str, seed: int) -> int:
    """The best value of a deal, proved by the best-first search with room enough."""
    rules = PRESETS[name]
    origin = Game(Deal.from_seed(seed), rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 256)
    search.run(5_000_000)
    assert search.proved and search.compactions == 0
    return search.best_value


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name, seed", [("classic-draw3", 5), ("harmony", 5)])
def test_with_little_memory_the_search_makes_room_and_stays_right(name, seed, threads):
    """With 1 MB (about 10,000 nodes) the best-first search has to make room, again and again
    (with several threads, their heaps pooled, compacted and dealt out again): what it proves is
    still true (the best value, or a bound no line beats). `best` with 1 MB goes on depth-first
    where it ends unproved: its line replays as reported and its bound holds."""
    deal = Deal.from_seed(seed)
    rules = PRESETS[name]
    optimum = proved_best(name, seed)
    origin = Game(deal, rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 1, threads)
    search.run(3_000_000)
    assert search.compactions > 0
    assert search.best_value <= optimum <= search.proven_bound()
    if search.proved:
        assert search.best_value == optimum
    if search.best_path() is not None:
        assert line_value(line_module.continue_game(origin, search.best_path())) == search.best_value
    result = best(deal, rules, max_nodes=1_000_000, memory_mb=1, threads=threads)
    replayed = replay(deal, rules, result.line)
    assert replayed.legal and line_value(replayed.game) == line_value(result.game) <= optimum
    if rules.scoring is not None:
        assert result.bound >= optimum
    else:
        assert result.bound is not None and result.bound <= WON_BASE - optimum
    if result.optimal:
        assert line_value(result.game) == optimum


@pytest.mark.parametrize("seed, slow_in", [(3, "search"), (5, "search"), (3, "process")])
def test_a_table_growth_that_would_end_past_the_time_limit_makes_room_instead(seed, slow_in, monkeypatch):
    """Where fresh memory is slow, growing the table could overrun the time limit: a growth that
    the last one's speed, or the slowest of the process, says would end past it is not started,
    the table makes room instead (only duplicates are lost), and the search proves the same
    optimum."""
    rules = PRESETS["classic"]
    game = Game(Deal.from_seed(seed), rules)
    roomy = BestFirst(game, rules, 0, False, 64)
    roomy.run_within(time.perf_counter(), 0, None, None)  # no time limit: the table grows
    slow = BestFirst(game, rules, 0, False, 64)
    # as if a growth took a second per entry: none fits in 10 minutes
    if slow_in == "search":
        slow.growth_seconds_per_entry = 1.0
    else:
        monkeypatch.setattr(ChunkedSearch, "slowest_growth_seconds_per_entry", 1.0)
    slow.run_within(time.perf_counter(), 0, None, 600)
    assert roomy.table_entries > FIRST_TABLE_ENTRIES and roomy.table_purges == 0
    assert slow.table_entries == FIRST_TABLE_ENTRIES and slow.table_purges > 0
    assert roomy.proved and slow.proved and slow.best_value == roomy.best_value


@pytest.mark.parametrize("name, seed", [("harmony", 5), ("classic-draw3", 5), ("duel", 4)])
def test_two_threads_prove_the_one_threads_optimum_and_both_search(name, seed):
    """On real deals two threads prove what one does, every thread searches (work is handed to
    the one whose heap runs dry: `BestFirst._share_work`), the children counted are every
    thread's, and the line replays to the value proved."""
    rules = PRESETS[name]
    origin = Game(Deal.from_seed(seed), rules)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 256, 2)
    search.run(5_000_000)
    assert search.proved and search.compactions == 0
    assert search.best_value == search.proven_bound() == proved_best(name, seed)
    assert all(nodes > 0 for nodes in search.lane_nodes) and sum(search.lane_nodes) == search.nodes
    assert line_value(line_module.continue_game(origin, search.best_path())) == search.best_value


def test_best_on_two_threads_gives_the_one_threads_answer():
    """`best(threads=2)` proves the optimum `best` proves on one thread, and its line replays."""
    deal, rules = Deal.from_seed(9), PRESETS["harmony"]
    one, two = best(deal, rules, max_nodes=3_000_000), best(deal, rules, max_nodes=3_000_000, threads=2)
    assert one.optimal and two.optimal and one.score == two.score
    replayed = replay(deal, rules, two.line)
    assert replayed.legal and replayed.game.score().total == two.score


@pytest.mark.parametrize("case_id", [case[0] for case in CASES if case[2].scoring is None])
def test_a_greedy_search_finds_a_line_no_better_than_the_optimum_and_proves_nothing(case_id):
    """Weighted A* (`BestFirst(greedy=2)`, what `best` runs when A* found no line in time) on the
    oracle's fewest-actions positions: its line replays to the value it reports, which is no
    better than the exhaustive optimum; it never says proved, and its bound is no limit."""
    _, position, rules, _ = CASES_BY_ID[case_id]
    answer = oracle_answer(case_id, None)
    origin = Game(DEAL0, rules, position)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 16, greedy=2)
    search.run(2_000_000)
    assert not search.proved and search.proven_bound() > WON_BASE
    path = search.best_path()
    line = line_module.continue_game(origin, path if path is not None else [])
    assert line_value(line) == search.best_value <= answer.value, (case_id, path)


@functools.cache
def _greedy_from_winnability_line(seed: int) -> tuple:
    """(deal, rules, winnability line, the first greedy search's line) for a `ksolve-draw1` seed:
    the greedy search from the winnability line, which finds a line within 300,000 children."""
    rules = PRESETS["classic"].with_overrides(draw=1, passes=None, foundation_to_tableau=True)
    deal = Deal.from_seed(seed)
    origin = Game(deal, rules)
    verdict = solve(deal, rules, max_nodes=1_000_000)
    assert verdict.result == "win"
    winnability = line_module.continue_game(origin, verdict.path)
    search = BestFirst(origin, rules, line_value(winnability), False, 256, greedy=2)
    search.run(300_000)
    assert search.best_path() is not None, search.nodes
    line = line_module.continue_game(origin, search.best_path())
    assert line_value(line) == search.best_value
    return deal, rules, winnability, line


def test_a_greedy_search_beats_a_long_winnability_line_fast():
    """`ksolve-draw1` seed 16, whose shortest win A* does not prove in 30 s: from the winnability
    line (185 actions), the greedy search finds a much shorter win within 300,000 children, and
    the engine values it as the search does. It is for the fewest actions only."""
    deal, _, winnability, line = _greedy_from_winnability_line(16)
    assert line.actions <= winnability.actions - 30, (line.actions, winnability.actions)
    with pytest.raises(ValueError):
        BestFirst(Game(deal, PRESETS["harmony"]), PRESETS["harmony"], 0, False, 16, greedy=2)


def test_best_chains_greedy_searches_where_a_star_proves_nothing():
    """Where A* proves nothing within its budget, `best` runs the greedy search again from each
    line it finds (`improve_greedily`), so its line beats the first greedy search's, which a
    single greedy search would stop at: `ksolve-draw1` seed 16, 3 M children in all."""
    deal, rules, _, first_greedy = _greedy_from_winnability_line(16)
    result = best(deal, rules, max_nodes=3_000_000, memory_mb=256)
    assert not result.optimal and result.nodes <= 3_000_000
    assert result.actions < first_greedy.actions, (result.actions, first_greedy.actions)
    replayed = replay(deal, rules, result.line)
    assert replayed.legal and replayed.game.won and replayed.game.actions == result.actions


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("slack", [0, 1])
@pytest.mark.parametrize("case_id", [case[0] for case in CASES if case[2].scoring is None])
def test_partial_expansion_proves_the_exhaustive_optimum(case_id, slack, threads):
    """With the children more than `slack` actions above their parent left unstored (the parent
    back in the heap at the best of them: `optimal.DEFER_SLACK`), A* still proves the oracle's
    fewest actions on its small positions, and its line replays to that value."""
    _, position, rules, _ = CASES_BY_ID[case_id]
    answer = oracle_answer(case_id, None)
    origin = Game(DEAL0, rules, position)
    search = BestFirst(origin, rules, line_value(origin) - 1, False, 16, threads, defer_slack=slack)
    search.run(2_000_000)
    assert search.proved, (case_id, search.nodes)
    assert search.best_value == search.proven_bound() == answer.value, case_id
    path = search.best_path()
    assert line_value(line_module.continue_game(origin, path if path is not None else [])) == answer.value


@pytest.mark.parametrize("name, seed, far_children", [("ksolve-draw1", 9, True), ("ksolve-draw3", 12, True),
                                                     ("classic", 3, False)])
def test_partial_expansion_stores_fewer_positions_and_proves_the_same_optimum(name, seed, far_children):
    """On whole deals, leaving the children far above their parent unstored proves the optimum
    that storing every child does, with fewer positions stored where some child lies that far
    (with unlimited passes: a card the recycle takes back, drawn again; not so with one pass,
    where every draw is one the bound counts); with no slack at all too, though its parents then
    expand again and again."""
    rules = BENCH_RULESETS[name] if name in BENCH_RULESETS else PRESETS[name]
    origin = Game(Deal.from_seed(seed), rules)
    searches = {}
    for slack in (None, 0, DEFER_SLACK):
        search = BestFirst(origin, rules, line_value(origin) - 1, False, 256, defer_slack=slack)
        search.run(5_000_000)
        assert search.proved and search.compactions == 0, (slack, search.nodes)
        assert line_value(line_module.continue_game(origin, search.best_path())) == search.best_value
        searches[slack] = search
    every_child = searches[None]
    for slack in (0, DEFER_SLACK):
        assert searches[slack].best_value == every_child.best_value
    assert searches[0].stored_nodes < every_child.stored_nodes
    if far_children:
        assert searches[DEFER_SLACK].stored_nodes < every_child.stored_nodes
    else:
        assert searches[DEFER_SLACK].stored_nodes == every_child.stored_nodes
