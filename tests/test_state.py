"""The numba state array and its canonical hash."""

import random

from solver.cards import parse_card
from solver.deal import Deal
from solver.game import Game, Position
from solver.rules import PRESETS
from solver.state import decode, encode, state_hash


def key(position, waste_count=None):
    state = encode(position)
    return state_hash(state, True, len(position.waste) if waste_count is None else waste_count)


def random_positions(count):
    rng = random.Random(3)
    for seed in range(count):
        game = Game(Deal.from_seed(seed), PRESETS["harmony"])
        for _ in range(rng.randrange(5, 120)):
            actions = game.legal_actions()
            if not actions:
                break
            game.apply(rng.choice(actions))
        yield game.position.copy()


def test_encode_decode_round_trip():
    for position in random_positions(40):
        assert decode(encode(position)).key() == position.key()


def test_hash_ignores_the_order_of_piles():
    rng = random.Random(5)
    for position in random_positions(40):
        order = list(range(7))
        rng.shuffle(order)
        permuted = Position([position.piles[i] for i in order], [position.face_down[i] for i in order],
                            position.stock, position.waste, position.foundations, position.pass_number)
        assert key(permuted) == key(position)


def test_hash_tells_apart_cards_swapped_between_piles_at_the_same_height():
    def position(first, second):
        piles = [[parse_card("Ad"), parse_card("9c"), parse_card(first)],
                 [parse_card("Ah"), parse_card("9s"), parse_card(second)], [], [], [], [], []]
        return Position(piles, [1, 1, 0, 0, 0, 0, 0], [], [], [0, 0, 0, 0], 1)

    assert key(position("8h", "8d")) != key(position("8d", "8h"))


def test_hash_tells_apart_positions_that_differ():
    seen = {}
    for position in random_positions(60):
        seen.setdefault(key(position), set()).add(position.key())
    assert all(len(keys) == 1 for keys in seen.values())
    assert len(seen) > 50


def test_a_childs_hash_from_its_parents_parts_is_its_whole_hash():
    """`child_layout_hash` hashes again only the piles and talon a move changed; for every move of
    positions along random games, with and without auto-play and with both draws (moves of runs,
    waste and foundation cards, talon steps, recycles), `finish_hash` over it (as the searches key
    a child) equals the child's `state_hash`, and the parts `child_layout_hashes` works out are the
    child's own `layout_hashes`."""
    import numpy as np

    from solver.movegen import MAX_MOVES, MOVE_FIELDS, apply_move, generate_moves
    from solver.solve import search_params
    from solver.state import (LAYOUT_HASHES, TALON_LEN, WASTE_COUNT, child_layout_hash, child_layout_hashes,
                              finish_hash, layout_hash, layout_hashes, layout_of)

    checked = talon_changed = 0
    for name in ("harmony", "classic-draw3", "classic"):
        rules = PRESETS[name]
        params = search_params(rules, prune=False)
        rng = random.Random(name)
        for seed in range(30):
            game = Game(Deal.from_seed(seed), rules)
            for _ in range(rng.randrange(0, 90)):
                actions = game.legal_actions()
                if not actions:
                    break
                game.apply(rng.choice(actions))
            parent = encode(game.position)
            hashes = np.empty(LAYOUT_HASHES, dtype=np.uint64)
            layout_hashes(parent, hashes)
            moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
            for index in range(generate_moves(parent, params, moves)):
                child = parent.copy()
                apply_move(child, moves[index], params)
                for hash_pass in (True, False):
                    worked_out_layout = np.uint64(child_layout_hash(child, parent, hashes))
                    assert finish_hash(worked_out_layout, child, hash_pass, child[WASTE_COUNT]) == \
                        state_hash(child, hash_pass, child[WASTE_COUNT]), (name, seed, moves[index])
                worked_out, whole = np.empty(LAYOUT_HASHES, dtype=np.uint64), np.empty(LAYOUT_HASHES, dtype=np.uint64)
                child_layout_hashes(child, parent, hashes, worked_out)
                layout_hashes(child, whole)
                assert worked_out.tolist() == whole.tolist(), (name, seed, moves[index])
                assert layout_of(worked_out) == layout_hash(child)
                checked += 1
                talon_changed += child[TALON_LEN] != parent[TALON_LEN]
    assert checked > 300 and 0 < talon_changed < checked
