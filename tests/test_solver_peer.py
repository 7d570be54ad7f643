"""The solver's verdicts compared with a peer: pyksolve (Klondike-Solver) on the same deals.

Under pyksolve's rules (draw 1 or 3, unlimited passes, foundation->tableau allowed, no auto-play)
each deal is given to pyksolve exactly (its 156-digit deck string, worked out and checked here
against its own layout picture), and solved in a subprocess with a timeout (pyksolve has no time
limit). pyksolve's `solve_fast` answers SolvedMinimal / SolvedMayNotBeMinimal (winnable),
Impossible (only when no move at all is possible) or CouldNotComplete (gave up: no verdict, even
when its search ran dry). For the deals our solver calls a loss, pyksolve's `solve_minimal` is
asked too: there, Impossible means its search ended without a win, a loss in its own (pruned)
model. Every pyksolve win is replayed through our reference engine, so a deal it wins is known
winnable under our rules. Where both give a verdict they must agree.
"""

from __future__ import annotations

import concurrent.futures
import subprocess
import sys

import pytest

from solver.cards import format_card, make_card
from solver.deal import Deal
from solver.formats import play_ksolve_moves
from solver.game import replay
from solver.rules import PRESETS
from solver.solve import solve

pyksolve_solver = pytest.importorskip("pyksolve.solver")

SEEDS = range(30)
DRAWS = (1, 3)
OUR_NODES = 400_000
OUR_SECONDS = 3.0
FAST_CLOSED = 40_000
MINIMAL_CLOSED = 60_000
PEER_TIMEOUT = 20.0
MIN_COMPARED = 20

KS_SUITS = "CDHS"  # our suit order c d h s; pyksolve's deck string numbers them 1..4 in this order


def peer_rules(draw: int):
    """pyksolve's rules in our terms."""
    return PRESETS["classic"].with_overrides(draw=draw, passes=None, foundation_to_tableau=True)


def ksolve_string(deal: Deal) -> str:
    """The deck string pyksolve's load_solitaire takes: per card, the value in two digits then the
    suit digit (1 clubs, 2 diamonds, 3 hearts, 4 spades), in the deal's row-by-row order (the same
    order as ours: pile tops of row 0 first, then the stock, first card drawn first)."""
    return "".join(f"{c % 13 + 1:02d}{c // 13 + 1}" for c in deal.cards)


def _card(code: str) -> int:
    """A pyksolve card code (`TH`, `AS`) as our index."""
    return make_card(KS_SUITS.index(code[1]), "A23456789TJQK".index(code[0]) + 1)


def diagram_layout(diagram: str) -> tuple[list[list[int]], list[int]]:
    """The piles (bottom to top) and stock (first drawn first) of a fresh game_diagram().

    A pile line lists the face-up cards, then each face-down one as `-XX`, from the top down; line
    8 is the stock, the next card to be drawn first.
    """
    lines = {}
    for raw in diagram.splitlines():
        head, sep, rest = raw.partition(":")
        if sep and head.strip().isdigit():
            lines[int(head)] = rest.split()
    piles = []
    for number in range(1, 8):
        cards = []
        for item in lines[number]:
            cards.extend(_card(code) for code in item.split("-") if code)
        piles.append(cards[::-1])
    return piles, [_card(code) for code in lines[8]]


# The subprocess: pyksolve on one deal. Prints the result name, then the move list.
_WORKER = """
import sys
from pyksolve import solver
deck, draw, closed, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
game = solver.Solitaire()
if game.load_solitaire(deck) is False:
    raise SystemExit("load_solitaire refused the deck")
game.reset_game(draw)
result = game.solve_fast(max_closed_count=closed) if mode == "fast" else game.solve_minimal(max_closed_count=closed)
print(result.name)
print(game.moves_made())
"""


def run_pyksolve(deal: Deal, draw: int, mode: str, closed: int):
    """(result name, moves) from pyksolve in a subprocess, or None if it did not finish in time."""
    try:
        done = subprocess.run([sys.executable, "-c", _WORKER, ksolve_string(deal), str(draw), str(closed), mode],
                              capture_output=True, text=True, timeout=PEER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    assert done.returncode == 0, done.stderr
    name, _, moves = done.stdout.partition("\n")
    return name.strip(), moves.strip()


def peer_verdict(answer) -> str | None:
    if answer is None:
        return None
    name = answer[0]
    if name in ("SolvedMinimal", "SolvedMayNotBeMinimal"):
        return "win"
    if name == "Impossible":
        return "loss"
    assert name == "CouldNotComplete", name
    return None


# ----- the deck string ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 5, 123456789])
def test_deck_string_loads_as_our_layout(seed):
    """load_solitaire(our string) gives a game_diagram showing exactly our piles and stock."""
    deal = Deal.from_seed(seed)
    game = pyksolve_solver.Solitaire()
    assert game.load_solitaire(ksolve_string(deal)) is not False
    game.reset_game(1)
    assert game.get_solitaire() == ksolve_string(deal)
    piles, stock = diagram_layout(game.game_diagram())
    assert piles == deal.tableau
    assert stock == deal.stock


def test_deck_string_read_back_from_pyksolve_deals():
    """The other way: a deal pyksolve shuffles itself, read with our reading of its string, shows
    in its game_diagram as we would deal it."""
    for number in (1, 7, 42):
        game = pyksolve_solver.Solitaire()
        game.shuffle1(number)
        text = game.get_solitaire()
        deal = Deal(tuple(make_card(int(text[i + 2]) - 1, int(text[i:i + 2])) for i in range(0, 156, 3)))
        assert ksolve_string(deal) == text
        game.reset_game(1)
        piles, stock = diagram_layout(game.game_diagram())
        assert piles == deal.tableau and stock == deal.stock, [[format_card(c) for c in p] for p in piles]


# ----- verdicts ------------------------------------------------------------------------------------

def test_verdicts_agree_with_pyksolve():
    cases = [(draw, seed) for draw in DRAWS for seed in SEEDS]
    problems, compared, skipped = [], [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        fast = {case: pool.submit(run_pyksolve, Deal.from_seed(case[1]), case[0], "fast", FAST_CLOSED)
                for case in cases}
        ours = {}
        for draw, seed in cases:
            deal = Deal.from_seed(seed)
            rules = peer_rules(draw)
            result = solve(deal, rules, max_nodes=OUR_NODES, time_limit=OUR_SECONDS)
            if result.result == "win":
                played = replay(deal, rules, result.line)
                assert played.legal and played.game.won, f"draw {draw} seed {seed}: our line does not win"
            ours[(draw, seed)] = result.result
        minimal = {case: pool.submit(run_pyksolve, Deal.from_seed(case[1]), case[0], "minimal", MINIMAL_CLOSED)
                   for case in cases if ours[case] != "win" and peer_verdict(fast[case].result()) is None}
        for case in cases:
            draw, seed = case
            answer = minimal[case].result() if case in minimal else fast[case].result()
            theirs = peer_verdict(answer)
            if theirs == "win":
                # pyksolve's win is a real win under our rules: its line replays on our engine
                deal = Deal.from_seed(seed)
                game = play_ksolve_moves(deal, peer_rules(draw), answer[1]).game
                assert game.won, f"draw {draw} seed {seed}: pyksolve's line does not win on our engine"
            mine = ours[case] if ours[case] != "unknown" else None
            if mine is None or theirs is None:
                skipped.append((case, ours[case], answer[0] if answer else "timeout"))
                continue
            compared.append(case)
            if mine != theirs:
                problems.append(f"draw {draw}, seed {seed}: ours {mine}, pyksolve {answer[0]}"
                                + (f" with the line {answer[1]}" if theirs == "win" else ""))
    print(f"compared {len(compared)} deals ({sum(ours[c] == 'win' for c in compared)} wins); skipped {skipped}")
    assert not problems, "\n".join(problems)
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} deals compared; skipped: {skipped}"
    # both directions were exercised on some deals
    assert any(ours[c] == "win" for c in compared)
