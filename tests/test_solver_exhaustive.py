"""The solver's verdicts on small endgames, checked against an exhaustive search of the reference engine.

Small positions (a handful of cards in play, the rest on the foundations) are built at random with a
fixed RNG, by hand, and by playing real deals forward. For each, the reference engine
(`solver.game`, nothing of the numba core) searches every reachable position (Game.legal_actions
and apply; positions that differ only by the order of the piles, or under unlimited passes only
by the pass number, are counted once) and says whether a won one is among them; a loss is
claimed only once all of them have been seen. `solve(..., start=position)` must give exactly that: `win` iff the engine
finds a win, `loss` iff not, never `unknown` on positions this small. Every parameter combination
is covered: draw 1/3, passes 1/2/3/unlimited, foundation->tableau on/off, auto-play on/off; each
combination meets both winnable and unwinnable positions, so no test passes vacuously.

Set KLONDIKE_EXHAUSTIVE_SCALE=N (an integer) to multiply the random part of the pool by N for a
deeper (slower) run.
"""

from __future__ import annotations

import heapq
import itertools
import os
import random

import pytest

from helpers import in_play_cards, lay_cards
from solver.cards import fits_on_tableau
from solver.deal import Deal
from solver.game import Game, Position, replay
from solver.positions import check_position, from_text, to_text
from solver.rules import PRESETS, Ruleset
import solver.solve as solve_module
from solver.solve import relaxation, solve

# ----- the reference engine's exhaustive answer ---------------------------------------------------

DEAL0 = Deal.from_seed(0)
PILES = 7

# Every parameter combination of RULES.md section 5 that matters for winnability.
DRAWS = (1, 3)
PASSES = (1, 2, 3, None)
COMBOS = [Ruleset("t", draw=d, passes=p, foundation_to_tableau=f, auto_play=a)
          for d, p, f, a in itertools.product(DRAWS, PASSES, (False, True), (False, True))]


def combo_id(rules: Ruleset) -> str:
    """A short test id: `d1-p3-f2t-auto`."""
    passes = "inf" if rules.passes is None else str(rules.passes)
    return (f"d{rules.draw}-p{passes}-{'f2t' if rules.foundation_to_tableau else 'nof2t'}-"
            f"{'auto' if rules.auto_play else 'noauto'}")


def state_key(pos: Position, rules: Ruleset) -> tuple:
    """The engine's exact key with the piles sorted, and without the pass number under unlimited passes.

    Positions that differ only by the order of the piles are the same game (the rules treat the
    seven piles alike, and auto-play ends in the same position whatever order it scans them in),
    so sorting the piles only shrinks the enumeration; the pass number matters only under a limit.
    """
    piles = tuple(sorted((tuple(p), d) for p, d in zip(pos.piles, pos.face_down)))
    key = (piles, tuple(pos.stock), tuple(pos.waste), tuple(pos.foundations))
    return key if rules.passes is None else key + (pos.pass_number,)


class TooBig(Exception):
    """More positions are reachable than the caller allows."""


def engine_winnable(position: Position, rules: Ruleset, limit: int = 50_000) -> tuple[bool, int]:
    """Exhaustive search with the reference engine only (Game.legal_actions / apply / undo).

    Returns (a won position is reachable, positions seen). Best-first (most cards on the
    foundations first), stopping at the first won position; a loss is only claimed once every
    reachable position has been expanded. Raises TooBig past `limit` positions.
    """
    if position.won:
        return True, 1
    start = position.copy()
    seen = {state_key(start, rules)}
    heap = [(0, 0, start)]
    pushed = 0
    while heap:
        game = Game(DEAL0, rules, heapq.heappop(heap)[2])
        for action in game.legal_actions():
            game.apply(action)
            after = game.position
            if after.won:
                return True, len(seen)
            key = state_key(after, rules)
            if key not in seen:
                seen.add(key)
                if len(seen) > limit:
                    raise TooBig(f"more than {limit} positions reachable")
                pushed += 1
                heapq.heappush(heap, (-sum(after.foundations), -pushed, after.copy()))
            game.undo()
    return False, len(seen)


# ----- position builders ------------------------------------------------------------------------

def random_foundations(rng: random.Random, n_cards: int) -> list[int]:
    """Foundation heights leaving exactly `n_cards` cards in play."""
    missing = [0, 0, 0, 0]
    for _ in range(n_cards):
        suit = rng.choice([s for s in range(4) if missing[s] < 13])
        missing[suit] += 1
    return [13 - m for m in missing]


def random_endgame(rng: random.Random, n_cards: int, *, stock_share: float = 0.35,
                   waste_share: float = 0.1, run_chance: float = 0.75, piles_used: int | None = None,
                   pass_number: int = 1) -> Position:
    """A random position with `n_cards` cards in play, the rest on the foundations.

    Cards go to the stock, the waste or piles; on a pile a card that fits on the top is laid face
    up on it (a run) with probability `run_chance`, otherwise everything below it is face down.
    """
    foundations = random_foundations(rng, n_cards)
    cards = in_play_cards(foundations)
    rng.shuffle(cards)
    piles: list[list[int]] = [[] for _ in range(PILES)]
    face_down = [0] * PILES
    used = piles_used if piles_used is not None else rng.randint(1, PILES)
    pile_choices = rng.sample(range(PILES), used)
    stock, waste = lay_cards(rng, cards, piles, face_down, pile_choices, stock_share=stock_share,
                             waste_share=waste_share, run_chance=run_chance)
    position = Position(piles, face_down, stock, waste, foundations, pass_number)
    check_position(position)
    return position


def locked_endgame(rng: random.Random, extra: int, *, keep_bases: float = 0.6, stock_share: float = 0.35,
                   waste_share: float = 0.1, run_chance: float = 0.5) -> Position:
    """A random position around a blocked card: a card Y lies face up on its own predecessor
    (face down) and, with probability `keep_bases` each, on the cards it could be built on.

    With every base under it Y can never move (not even with foundation->tableau: its bases are
    in play, so none can come down from a foundation): a loss under every ruleset. With a base
    elsewhere the answer depends on where it is. `extra` more cards in play are laid at random.
    """
    while True:
        suit = rng.randrange(4)
        value = rng.randint(2, 12)  # Y: not an ace (it needs a predecessor), not a king
        other = [s for s in range(4) if (s in (1, 2)) != (suit in (1, 2))]
        foundations = [13, 13, 13, 13]
        foundations[suit] = value - 2  # the predecessor is in play
        for s in other:
            foundations[s] = min(value, 13 - 0)  # the bases (value + 1) are in play
        base_cards = sum(13 - f for f in foundations)
        if base_cards <= 10:
            break
    # a few more cards in play, taken from the suits' tops downward
    for _ in range(extra):
        choices = [s for s in range(4) if foundations[s] > 0]
        if not choices:
            break
        foundations[rng.choice(choices)] -= 1
    y = suit * 13 + value - 1
    pred = y - 1
    bases = [s * 13 + value for s in other]
    under = [pred] + [b for b in bases if rng.random() < keep_bases]
    rng.shuffle(under)
    rest = [c for c in in_play_cards(foundations) if c != y and c not in under]
    rng.shuffle(rest)
    piles: list[list[int]] = [[] for _ in range(PILES)]
    face_down = [0] * PILES
    home = rng.randrange(PILES)
    # the blocked pile may hold some random face-down cards below too
    below = [c for c in rest if rng.random() < 0.2]
    rest = [c for c in rest if c not in below]
    piles[home] = below + under + [y]
    face_down[home] = len(piles[home]) - 1
    others = [p for p in range(PILES) if p != home]
    used = rng.sample(others, rng.randint(1, len(others)))
    stock, waste = lay_cards(rng, rest, piles, face_down, used, stock_share=stock_share,
                             waste_share=waste_share, run_chance=run_chance)
    position = Position(piles, face_down, stock, waste, foundations)
    check_position(position)
    return position


def twins_endgame(rng: random.Random, extra: int) -> Position:
    """A random position with two twin face-up cards (same value and colour) at the same height of
    two piles, and the two cards that fit on both of them elsewhere: either can go on either twin,
    so the search meets positions that differ only by which twin holds which card.
    """
    value = rng.choice([13, 13, 12])
    black = rng.random() < 0.5
    twin_suits = [0, 3] if black else [1, 2]
    card_suits = [1, 2] if black else [0, 3]
    foundations = [13] * 4
    for s in twin_suits:
        foundations[s] = value - 1 - rng.randint(0, 1)
    for s in card_suits:
        foundations[s] = value - 2 - rng.randint(0, 1)
    for _ in range(extra):
        if sum(13 - f for f in foundations) >= 12:
            break  # at most 12 cards in play
        foundations[rng.choice([s for s in range(4) if foundations[s] > 0])] -= 1
    twins = [s * 13 + value - 1 for s in twin_suits]
    fitting = [s * 13 + value - 2 for s in card_suits]
    rest = [c for c in in_play_cards(foundations) if c not in twins and c not in fitting]
    rng.shuffle(rest)
    piles: list[list[int]] = [[] for _ in range(PILES)]
    face_down = [0] * PILES
    a, b = rng.sample(range(PILES), 2)
    depth = min(rng.randint(1, 2), len(rest) // 2)
    piles[a] = rest[:depth] + [twins[0]]
    piles[b] = rest[depth:2 * depth] + [twins[1]]
    face_down[a] = face_down[b] = depth
    rest = rest[2 * depth:] + fitting
    rng.shuffle(rest)
    stock: list[int] = []
    waste: list[int] = []
    others = [p for p in range(PILES) if p not in (a, b)][:3]
    for card in rest:
        roll = rng.random()
        if roll < 0.45:
            stock.append(card)
        elif roll < 0.55:
            waste.append(card)
        else:
            p = rng.choice(others)
            if not (piles[p] and fits_on_tableau(card, piles[p][-1])):
                face_down[p] = len(piles[p])
            piles[p].append(card)
    position = Position(piles, face_down, stock, waste, foundations)
    check_position(position)
    return position


def positions_along(deal: Deal, rules: Ruleset, tokens: list[str], max_in_play: int) -> list[Position]:
    """The positions of a line (tokens without `*`) once at most `max_in_play` cards are in play."""
    game = Game(deal, rules)
    found = []
    for token in tokens:
        if token.endswith("*"):
            continue
        game.play(token)
        if 52 - sum(game.position.foundations) <= max_in_play and not game.won:
            found.append(game.position.copy())
    return found


def describe(position: Position, rules: Ruleset) -> str:
    """Text for a failure message: the ruleset and the position."""
    return f"{rules.describe()}\n{to_text(position)}"


def picture(text: str) -> Position:
    """A Position from a compact picture: the lines left out are empty (`-`), pass 1."""
    fields = {"stock": "-", "waste": "-", "pass": "1"}
    fields.update({str(i): "-" for i in range(1, PILES + 1)})
    for raw in text.strip().splitlines():
        key, _, value = raw.partition(":")
        fields[key.strip().lower()] = value.strip()
    order = ["foundations", "stock", "waste", "pass"] + [str(i) for i in range(1, PILES + 1)]
    return from_text("\n".join(f"{k}: {fields[k]}" for k in order) + "\n")


# ----- the test pool -------------------------------------------------------------------------------

SCALE = max(1, int(os.environ.get("KLONDIKE_EXHAUSTIVE_SCALE", "1")))
ENGINE_LIMIT = 5_000  # positions; a pool position whose space is larger is left out for that ruleset
MIN_EACH = 3  # wins and losses each ruleset must meet

# ----- hand-made positions ----------------------------------------------------------------------
# name -> (picture, expected verdict as a function of the ruleset, or None)

HAND_MADE = {
    # Jh lies on Th; the only black queen for it is on its foundation: a win only by bringing Qs
    # down onto Kh (foundation->tableau), Jh onto it, then everything goes up.
    "needs-foundation-to-tableau": ("""
        foundations: c=13 d=13 h=9 s=12
        1: [Th] Jh
        2: Kh
        3: Ks Qh
        """, lambda r: r.foundation_to_tableau),
    # Th must leave 9h; its only free black jack, Js, lies under Qs on the foundation, and nothing
    # could go on Qs (Jh is face down, Jd buried): Qs comes down onto Kh only to let Js come down
    # onto Qh and take Th. A take-down whose use is to uncover the card under it.
    "foundation-to-tableau-to-uncover": ("""
        foundations: c=13 d=13 h=8 s=12
        1: [Jh] [9h] Th
        2: Kh
        3: Qh
        4: Ks
        """, lambda r: r.foundation_to_tableau),
    # Qh lies on Jh and on both black kings: it can never move, under any rules.
    "blocked-on-its-bases": ("""
        foundations: c=12 d=13 h=10 s=12
        1: [Kc] [Ks] [Jh] Qh
        2: Kh
        """, lambda r: False),
    # Draw 3 takes Jh Th Qh together, Qh stays on top for ever: won with draw 1, or with a black
    # king brought down to an empty pile to hold Qh.
    "draw-three-grouping": ("""
        foundations: c=13 d=13 h=9 s=13
        stock: Jh Th Qh
        1: Kh
        """, lambda r: r.draw == 1 or r.foundation_to_tableau),
    # Draw 1 brings 9h, Th, Js: Js goes up, then Qs (which has nowhere else to go), uncovering
    # 8h, but Th now lies on 9h in the waste: a second pass is needed to play 9h then Th. Draw 3
    # brings 9h and Th together (Th on top) in every later pass.
    "needs-a-second-pass": ("""
        foundations: c=13 d=13 h=7 s=10
        stock: 9h Th Js
        1: [Kh] [8h] Qs
        2: [Qh] [Jh] Ks
        """, lambda r: (r.draw == 1 and r.passes != 1) if not r.foundation_to_tableau else None),
    # Found by a random search: with draw 3 (and no foundation->tableau) only a third pass wins.
    "draw-three-needs-a-third-pass": ("""
        foundations: c=12 d=10 h=8 s=13
        stock: Kc Jd Qh Th Jh Qd Kh
        waste: Kd
        1: 9h
        """, lambda r: (r.passes is None or r.passes >= 3) if r.draw == 3 and not r.foundation_to_tableau else None),
    # Auto-play is pending at the start (Th and what it uncovers); any action sets it off.
    "auto-play-pending-at-start": ("""
        foundations: c=13 d=13 h=9 s=12
        stock: Ks
        1: [Qh] [Jh] Th
        2: Kh
        """, lambda r: True),
    # Draw 1: Jh, 9h, Th come in that order but are needed as 9h, Th, Jh: one pass is enough, as
    # the waste is a stack. Draw 3 takes them together with Th on top: stuck, unless a black jack
    # comes down from its foundation onto Qh to take Th.
    "waste-is-a-stack": ("""
        foundations: c=13 d=13 h=8 s=13
        stock: Jh 9h Th
        1: Kh
        2: Qh
        """, lambda r: r.draw == 1 or r.foundation_to_tableau),
    # Kc lies on Qc: it has to go to an empty pile first.
    "king-to-an-empty-pile": ("""
        foundations: c=11 d=13 h=13 s=13
        1: [Qc] Kc
        """, lambda r: True),
    # Twin black kings with the two red queens to share out (positions that differ only by which
    # king holds which queen).
    "twin-kings": ("""
        foundations: c=11 d=11 h=11 s=11
        stock: Qh Qd
        1: [Qc] Kc
        2: [Qs] Ks
        3: Kh
        4: Kd
        """, None),
    # Jh must leave Qs for Qs to go up and free Th: only by moving Jh alone (the upper part of the
    # run Qs Jh) onto Qc; the red kings the whole run could go on are buried or up.
    "partial-run": ("""
        foundations: c=11 d=13 h=9 s=11
        1: [Th] Qs Jh
        2: [Kh] [Kc] Qc
        3: Ks Qh
        """, lambda r: True),
}


def hand_made():
    out = []
    for name, (text, expect) in HAND_MADE.items():
        lines = "\n".join(line.strip() for line in text.strip().splitlines())
        out.append((f"hand:{name}", picture(lines), expect))
    return out


# ----- random and real-deal positions -----------------------------------------------------------

def random_pool():
    rng = random.Random(20261129)
    out = []
    for i in range(20 * SCALE):
        out.append((f"random-a{i}", random_endgame(rng, rng.randint(5, 10), piles_used=rng.randint(1, 7),
                                                    run_chance=rng.choice([0.0, 0.3, 0.8]),
                                                    stock_share=rng.choice([0.15, 0.35, 0.55]),
                                                    waste_share=rng.choice([0.0, 0.1, 0.2]),
                                                    pass_number=rng.choice([1, 1, 2])), None))
    for i in range(10 * SCALE):
        out.append((f"random-b{i}", random_endgame(rng, rng.randint(8, 12), piles_used=7, run_chance=0.2,
                                                    stock_share=0.3), None))
    for i in range(10 * SCALE):  # talon-heavy: where draw 3 and the pass limit tell
        out.append((f"talon{i}", random_endgame(rng, rng.randint(6, 10), piles_used=rng.randint(1, 3), run_chance=0.0,
                                                 stock_share=0.6, waste_share=0.1), None))
    for i in range(20 * SCALE):
        out.append((f"locked{i}", locked_endgame(rng, rng.randint(0, 4), keep_bases=rng.choice([0.3, 0.6, 0.9])),
                    None))
    for i in range(10 * SCALE):
        out.append((f"twins{i}", twins_endgame(rng, rng.randint(0, 4)), None))
    return out


def real_deal_pool():
    """Positions of real deals played forward along a winning line until few cards are in play.

    The lines are the solver's own (any legal line would do: only the positions are used, and the
    engine decides them).
    """
    out = []
    for name, seeds in (("classic", (2, 3, 5)), ("harmony", (2, 3))):
        rules = PRESETS[name]
        for seed in seeds:
            deal = Deal.from_seed(seed)
            result = solve(deal, rules, max_nodes=200_000, time_limit=5)
            if result.result != "win":
                continue
            positions = positions_along(deal, rules, result.line, max_in_play=12)
            picked = positions[:1] + [p for p in positions if 52 - sum(p.foundations) <= 8][:1]
            for k, pos in enumerate(picked):
                out.append((f"deal:{name}:{seed}:{k}", pos, None))
    return out


_POOL = None


def pool():
    global _POOL
    if _POOL is None:
        _POOL = hand_made() + random_pool() + real_deal_pool()
    return _POOL


# ----- the check ---------------------------------------------------------------------------------

_ENGINE_ANSWERS: dict[tuple[str, Ruleset], bool | None] = {}


def pool_answer(name: str, position: Position, rules: Ruleset) -> bool | None:
    """`engine_winnable` of a pool position under `rules` (None: too big for the engine), worked out once."""
    key = (name, rules)
    if key not in _ENGINE_ANSWERS:
        try:
            _ENGINE_ANSWERS[key] = engine_winnable(position, rules, limit=ENGINE_LIMIT)[0]
        except TooBig:
            _ENGINE_ANSWERS[key] = None
    return _ENGINE_ANSWERS[key]


@pytest.mark.parametrize("rules", COMBOS, ids=combo_id)
def test_solver_agrees_with_exhaustive_engine(rules, monkeypatch):
    # Every move order of the portfolio takes turns from the first node, a few nodes each, so the
    # verdict comes from whichever order finishes first: each must be right on its own.
    monkeypatch.setattr(solve_module, "SOLO_NODES", 3)
    monkeypatch.setattr(solve_module, "SLICE_NODES", 3)
    wins = losses = skipped = 0
    problems = []
    for name, position, expect in pool():
        engine_win = pool_answer(name, position, rules)
        if engine_win is None:
            skipped += 1
            continue
        if expect is not None and expect(rules) is not None:
            assert engine_win == bool(expect(rules)), f"hand-made {name}: the engine disagrees with its " \
                                                      f"description\n{describe(position, rules)}"
        result = solve(DEAL0, rules, start=position, max_nodes=2_000_000, time_limit=30)
        expected = "win" if engine_win else "loss"
        if result.result != expected:
            problems.append(f"{name}: engine {expected}, solver {result.result} (nodes {result.nodes})\n"
                            f"{describe(position, rules)}")
        elif engine_win:
            played = replay(DEAL0, rules, result.line, position)
            if not (played.legal and played.game.won):
                problems.append(f"{name}: the solver's line does not win: {played.error}\n"
                                f"{describe(position, rules)}")
        wins += engine_win
        losses += not engine_win
    print(f"{combo_id(rules)}: {wins} wins, {losses} losses, {skipped} too big for the engine")
    assert not problems, f"{len(problems)} disagreement(s):\n\n" + "\n".join(problems)
    assert wins >= MIN_EACH and losses >= MIN_EACH, f"{combo_id(rules)}: {wins} wins, {losses} losses"


def test_pool_is_small_and_varied():
    """The pool holds positions with 5..12 cards in play, stock/waste/face-down cards among them."""
    positions = [p for _, p, _ in pool()]
    assert len(positions) >= 40
    in_play = [52 - sum(p.foundations) for p in positions]
    assert min(in_play) >= 2 and max(in_play) <= 14
    assert any(p.stock for p in positions) and any(p.waste for p in positions)
    assert any(any(p.face_down) for p in positions)
    assert any(p.pass_number > 1 for p in positions)


@pytest.mark.parametrize("rules", [r for r in COMBOS if relaxation(r) is not None], ids=combo_id)
def test_every_win_is_a_win_under_the_relaxation(rules):
    """The reference engine's answers bear out `solve.relaxation`: a position won under some draw,
    pass limit and auto-play setting is won under draw 1 with unlimited passes and no auto-play,
    so a loss there is a loss here.
    Each ruleset meets at least MIN_EACH won positions."""
    relaxed = relaxation(rules)
    both = 0
    for name, position, _ in pool():
        win = pool_answer(name, position, rules)
        relaxed_win = pool_answer(name, position, relaxed)
        if win is None or relaxed_win is None:
            continue
        assert relaxed_win or not win, f"{name}: won under the rules, lost under the relaxation\n" \
                                       f"{describe(position, rules)}"
        both += win
    assert both >= MIN_EACH
