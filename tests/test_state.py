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
