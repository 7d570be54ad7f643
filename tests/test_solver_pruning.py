"""The pruning rules of the winnability search never cut a win.

Every position along a winning line is winnable, so no dead-end test may fire on any of them,
and the safe-foundation rule must always keep the line's outcome; and the full pruned search must
agree with a search that has every pruning rule switched off.
"""

import numpy as np
import pytest

from solver.benchmark import BENCH_RULESETS
from solver.deadends import is_dead_end, relaxed_unwinnable
from solver.deal import Deal
from solver.game import Game, Position
from solver.line import continue_game
from solver.movegen import (FOUNDATION_PLACE, MAX_MOVES, MOVE_FIELDS, MOVE_SOURCE, MOVE_STEPS, MOVE_TARGET, WASTE,
                            _sends_waste_up, apply_move, generate_moves, goes_to_foundation, pile_top)
from solver.positions import from_text, to_text
from solver.rules import PRESETS
from solver.solve import Search, search_params
from solver.state import (FACE_DOWN, FOUNDATION, PASS, PILE_CARDS, PILE_LEN, PILE_SLOTS, STATE_SIZE, TALON,
                          TALON_LEN, WASTE_COUNT, encode)
from solver.search import EXHAUSTED, WIN

RULESETS = ["classic", "classic-draw3", "harmony", "duel", "ksolve-draw1", "ksolve-draw3"]


def positions_along(deal, rules, line):
    """Every position of a line (after each action and its auto-play), the start included."""
    game = Game(deal, rules)
    yield game.position.copy()
    for token in line:
        if token.endswith("*"):
            continue
        game.play(token)
        yield game.position.copy()


def independent_wins(rules, seeds, nodes):
    """Winning lines found with the dead-end tests off (so they owe nothing to the tests checked)."""
    for seed in seeds:
        deal = Deal.from_seed(seed)
        search = Search(Position.initial(deal), rules, memory_mb=128, dead_ends=False)
        if search.run(nodes) == WIN:
            yield deal, continue_game(Game(deal, rules), search.path())


@pytest.mark.parametrize("name", RULESETS)
def test_no_dead_end_on_a_winning_line(name):
    rules = BENCH_RULESETS[name]
    params = search_params(rules)
    checked = 0
    for deal, won in independent_wins(rules, range(1, 41), 300_000):
        assert won.won
        for position in positions_along(deal, rules, [a.token for a in won.line]):
            state = encode(position)
            assert not relaxed_unwinnable(state, params), to_text(position)
            assert not is_dead_end(state, params, np.empty(52, dtype=np.int8)), to_text(position)
            checked += 1
    assert checked > 100  # enough winning lines were found to make the check mean something


def exhaustive_verdict(position, rules, prune):
    search = Search(position, rules, memory_mb=256, prune=prune)
    status = search.run(20_000_000)
    assert status in (WIN, EXHAUSTED) and not search.truncated
    return status


def midgame_positions(rules, count, cards_left):
    """Smaller deals: a real deal with the low cards of each suit taken out (they are on the
    foundations), then a few random actions played, so runs, waste and passes appear too."""
    import random

    rng = random.Random(7)
    found = []
    for seed in range(1, count + 1):
        deal = Deal.from_seed(seed)
        heights = [0, 0, 0, 0]
        while 52 - sum(heights) > cards_left - rng.randrange(0, 8):
            suit = rng.randrange(4)
            heights[suit] = min(13, heights[suit] + 1)
        up = {s * 13 + v for s in range(4) for v in range(heights[s])}
        start = Position.initial(deal)
        piles = [[c for c in pile if c not in up] for pile in start.piles]
        stock = [c for c in start.stock if c not in up]
        position = Position(piles, [max(0, len(p) - 1) for p in piles], stock, [], heights, 1)
        game = Game(deal, rules, position)
        for _ in range(rng.randrange(0, 30)):
            actions = game.legal_actions()
            if not actions:
                break
            game.apply(rng.choice(actions))
        found.append(game.position.copy())
    return found


@pytest.mark.parametrize("name", RULESETS)
def test_pruned_search_agrees_with_unpruned(name):
    rules = BENCH_RULESETS[name]
    verdicts = []
    for position in midgame_positions(rules, 16, 30):
        pruned = exhaustive_verdict(position, rules, prune=True)
        full = exhaustive_verdict(position, rules, prune=False)
        assert pruned == full, to_text(position)
        verdicts.append(pruned)
    # The dangerous direction is a pruned "loss" where a win exists, so most positions must be
    # wins; where losses are common enough (pass limits) both verdicts must occur.
    assert verdicts.count(WIN) >= len(verdicts) // 2, verdicts
    if rules.passes is not None:
        assert EXHAUSTED in verdicts, verdicts


def relaxation_by_rounds(position, rules):
    """The relaxed game of `solver.deadends`, played card by card in plain Python over a Position
    (an oracle for the bitboard kernel): True if it cannot put every card up."""
    def value(card):
        return card % 13 + 1

    def is_red(card):
        return card // 13 in (1, 2)

    def bases(card):
        return {s * 13 + value(card) for s in range(4) if is_red(s * 13) != is_red(card)} if value(card) < 13 else set()

    exposable = set()
    if rules.foundation_to_tableau:
        exposable |= {s * 13 + v for s in range(4) for v in range(position.foundations[s])}
    stacked = rules.passes is not None and position.pass_number >= rules.passes
    waste = list(position.waste)
    free_waste = waste[-1:] if stacked else waste
    exposable |= set(free_waste) | set(position.stock)
    # (card, the card lying on it, that card can move only from the top)
    lies_under = []
    if stacked:
        lies_under += [(waste[i], waste[i + 1], True) for i in range(len(waste) - 1)]
    for pile, down in zip(position.piles, position.face_down):
        if pile:
            exposable.add(pile[-1])
        lies_under += [(pile[i], pile[i + 1], i + 1 < down) for i in range(len(pile) - 1)]
    heights = list(position.foundations)
    while True:
        for s in range(4):
            while heights[s] < 13 and s * 13 + heights[s] in exposable:
                heights[s] += 1
        grown = False
        for card, above, top_only in lies_under:
            on_top = above in exposable
            if card in exposable or (top_only and not on_top):
                continue
            if value(above) == 13 or (on_top and heights[above // 13] >= value(above)) or bases(above) & exposable:
                exposable.add(card)
                grown = True
        if not grown:
            return min(heights) < 13


@pytest.mark.parametrize("name", RULESETS)
def test_dead_end_kernel_matches_the_relaxation_played_card_by_card(name):
    import random

    rules = BENCH_RULESETS[name]
    params = search_params(rules)
    rng = random.Random(11)
    # deal openings (about 2% are dead at once), and random walks from smaller deals
    positions = [Position.initial(Deal.from_seed(seed)) for seed in range(1, 601)]
    for start in midgame_positions(rules, 40, 40):
        game = Game(Deal.from_seed(1), rules, start)
        for _ in range(60):
            positions.append(game.position.copy())
            actions = game.legal_actions()
            if not actions:
                break
            game.apply(rng.choice(actions))
    verdicts = []
    for position in positions:
        expected = relaxation_by_rounds(position, rules)
        assert relaxed_unwinnable(encode(position), params) == expected, to_text(position)
        verdicts.append(expected)
    assert verdicts.count(True) >= 5 and verdicts.count(False) >= 100, (verdicts.count(True), verdicts.count(False))


@pytest.mark.parametrize("diamonds, forced", [(9, True), (8, False)])
def test_safe_move_to_the_foundation_with_foundation_to_tableau(diamonds, forced):
    """With foundation->tableau, Jh goes up alone once both black foundations hold their tens and
    diamonds its nine: every card that could be built on it in play is up. One diamond fewer, and
    the 9d could still come to lie on a black ten on it: the move is one among others."""
    stock = "Td Jd Qd Jc Qc Js Ks Qh Kh" + (" 9d" if diamonds == 8 else "")
    position = from_text(f"foundations: c=10 d={diamonds} h=10 s=10\nstock: {stock}\nwaste: -\npass: 1\n"
                         "1: [Kd] Jh\n2: Qs\n3: Kc\n4: -\n5: -\n6: -\n7: -\n")
    rules = BENCH_RULESETS["ksolve-draw3"]
    moves = np.zeros((MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
    count = generate_moves(encode(position), search_params(rules), moves)
    first_is_up = moves[0, MOVE_SOURCE] == 0 and moves[0, MOVE_TARGET] == FOUNDATION_PLACE
    assert (count == 1 and first_is_up) == forced
    assert count >= 1


TALON_SAFE = ("foundations: c=10 d=9 h=10 s=10\nstock: {stock}\nwaste: {waste}\npass: 1\n"
              "1: [Td] Kd\n2: Qs\n3: Kc\n4: -\n5: -\n6: -\n7: -\n")


@pytest.mark.parametrize("draw, stock, waste, steps", [
    (1, "Jd Qd Jc Qc Js Ks Qh Kh Jh", "-", 9),  # draw 1: any talon card will do, however deep
    (1, "Kh Jh", "Jd Qd Jc Qc Js Ks Qh", 2),
    (1, "Kh", "Jd Qd Jh Jc Qc Js Ks Qh", 5),  # through a recycle: 1 draw, the recycle, 3 draws
    (3, "Jd Qd Jc Qc Js Ks Qh Kh Jh", "-", 3),  # draw 3: the last talon card, from a cycle position
    (3, "Qc Js Ks Qh Kh Jh", "Jd Qd Jc", 2),
    (3, "Jd Qd Jc Qc Js Ks Qh Jh Kh", "-", None),  # not the last: taking it regroups the cards after it
    (3, "Qd Jc Qc Js Ks Qh Kh Jh", "Jd", None),  # off the cycle: drawing to the end gives up Qc, Qh
])
def test_a_safe_talon_card_goes_up_alone_with_unlimited_passes(draw, stock, waste, steps):
    """With unlimited passes, a talon card safe to go up (the Jh) is the only move where taking it
    leaves every other talon card as reachable as before (`movegen._safe_talon_card`); the draws
    (and recycle) it takes are the move's talon steps."""
    position = from_text(TALON_SAFE.format(stock=stock, waste=waste))
    rules = BENCH_RULESETS[f"ksolve-draw{draw}"]
    moves = np.zeros((MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
    count = generate_moves(encode(position), search_params(rules), moves)
    forced = count == 1 and moves[0, MOVE_SOURCE] == WASTE and moves[0, MOVE_TARGET] == FOUNDATION_PLACE
    assert forced == (steps is not None), (count, moves[:count].tolist())
    if steps is not None:
        assert moves[0, MOVE_STEPS] == steps
        game = Game(Deal.from_seed(1), rules, position)
        played = continue_game(game, [tuple(moves[0, :4])])
        assert played.position.foundations[2] == 11  # the Jh is up, by the engine's own rules


HELD_BACK = ("foundations: c=9 d=0 h=0 s=0\n"
             "stock: 9h 7d 8d Td Jd Qd Kd Th Jh Qh Kh 9s Ts Js Qs Ks Jc Qc Kc\nwaste: -\npass: 1\n"
             "1: {pile}\n2: Tc\n3: [Ah] [2h] [3h] [4h] [5h] 6h\n4: [As] [2s] [3s] [4s] [5s] 6s\n"
             "5: [Ad] [2d] [3d] [4d] [5d] 6d\n6: 7s\n7: -\n")


@pytest.mark.parametrize("pile, offered", [
    ("[8h] [9d] 8s 7h", True),  # the 8s is the lowest face-up card: it can come onto the 9h next
    ("[8h] 9d 8s 7h", False),  # it lies on the 9d, the 9h's twin, which cannot go up: it stays there
])
def test_draw_1_puts_a_stock_card_out_only_when_a_card_could_come_onto_it_next(pile, offered):
    """Draw 1, unlimited passes: the 9h leaves the stock for the Tc only if a black 8 could be put
    on it next (`movegen.could_be_covered`); the 8c is buried in its foundation."""
    position = from_text(HELD_BACK.format(pile=pile))
    moves = np.zeros((MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
    count = generate_moves(encode(position), search_params(BENCH_RULESETS["ksolve-draw1"]), moves)
    onto_ten = [tuple(m[:2]) for m in moves[:count] if m[MOVE_SOURCE] == WASTE and m[MOVE_TARGET] == 1]
    assert bool(onto_ten) == offered


NO_KING_FREE = ("foundations: c=9 d=10 h=8 s=10\nstock: Jc Qc Jd\nwaste: -\npass: 1\n"
                "1: 9h\n2: [Kh] Tc\n3: [Kd] Js\n4: [Kc] Qd\n5: [Ks] Qs\n6: [Th] Jh\n7: Qh\n")
KING_UP = ("foundations: c=9 d=13 h=8 s=10\nstock: Jc\nwaste: -\npass: 1\n"
           "1: 9h\n2: [Kh] Tc\n3: [Ks] Qs\n4: [Kc] Js\n5: [Th] Jh\n6: Qh\n7: Qc\n")


@pytest.mark.parametrize("rules_name, text, offered", [
    ("ksolve-draw3", NO_KING_FREE, False),  # no king could come into pile 1: the move waits
    ("ksolve-draw3", NO_KING_FREE.replace("Jd", "Kx").replace("[Kd]", "[Jd]").replace("Kx", "Kd"), True),  # talon
    ("ksolve-draw1", NO_KING_FREE.replace("[Kd] Js", "[Js] Kd"), True),  # face up on a face-down card
    ("ksolve-draw3", KING_UP, True),  # the king of diamonds could come down from its foundation
    ("classic", KING_UP, False),  # ... but not without foundation->tableau
    ("harmony", NO_KING_FREE, True),  # with auto-play the rule is off
])
def test_a_whole_pile_moves_off_only_when_a_king_could_take_its_place(rules_name, text, offered):
    """The 9h, alone in pile 1, goes onto the Tc only if a king could then go to the empty pile
    (`movegen._king_could_fill`): the move empties pile 1 and does nothing else. (Forced moves
    off, so that no safe move to a foundation stands alone.)"""
    rules = BENCH_RULESETS.get(rules_name) or PRESETS[rules_name]
    moves = np.zeros((MAX_MOVES, MOVE_FIELDS), dtype=np.int16)
    count = generate_moves(encode(from_text(text)), search_params(rules, forced=False), moves)
    onto_ten = [tuple(m[:3]) for m in moves[:count] if m[MOVE_SOURCE] == 0 and m[MOVE_TARGET] == 1]
    assert bool(onto_ten) == offered, moves[:count].tolist()


def random_states(count, seed):
    """Random states (not reachable positions, but well formed): low, even foundations, so that
    pile tops and the waste top often go up by auto-play."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = np.zeros(STATE_SIZE, dtype=np.int8)
        heights = rng.integers(2, 6, size=4)
        state[FOUNDATION:FOUNDATION + 4] = heights
        rest = [suit * 13 + value for suit in range(4) for value in range(heights[suit], 13)]
        rng.shuffle(rest)
        talon_length = int(rng.integers(1, 24))
        talon, rest = rest[:talon_length], rest[talon_length:]
        cuts = sorted(rng.integers(0, len(rest), size=6))
        for pile, part in enumerate(np.split(np.array(rest, dtype=np.int8), cuts)):
            part = part[:PILE_SLOTS]
            state[PILE_CARDS + pile * PILE_SLOTS:PILE_CARDS + pile * PILE_SLOTS + len(part)] = part
            state[PILE_LEN + pile] = len(part)
            state[FACE_DOWN + pile] = int(rng.integers(0, max(1, len(part))))
        state[TALON:TALON + len(talon)] = talon
        state[TALON_LEN] = len(talon)
        state[WASTE_COUNT] = int(rng.integers(0, len(talon) + 1))
        state[PASS] = 1
        yield state


def test_the_waste_top_going_up_with_a_forced_move_is_found_without_playing_it():
    """`movegen._sends_waste_up` (worked out on packed foundation heights) agrees with playing the
    move and its auto-play on a copy of the state and looking at the talon."""
    params = search_params(PRESETS["duel"])
    move = np.zeros(MOVE_FIELDS, dtype=np.int16)
    seen = {True: 0, False: 0}
    for state in random_states(4000, 11):
        for pile in range(7):
            top = pile_top(state, pile)
            if top < 0 or not goes_to_foundation(state, top):
                continue
            move[:4] = (pile, FOUNDATION_PLACE, state[PILE_LEN + pile] - 1, 0)
            trial = state.copy()
            apply_move(trial, move, params)
            expected = trial[TALON_LEN] != state[TALON_LEN]
            assert _sends_waste_up(state, pile) == expected
            seen[bool(expected)] += 1
    assert min(seen.values()) >= 50, seen  # both answers were checked often enough
