"""An independent oracle for the optimal-line tests: the true optimum of RULES.md section 6 on
small positions, by exhaustive enumeration with the reference engine.

Nothing here uses the numba core nor `solver.objective`/`solver.score`: the engine
(`solver.game.Game`) only says which actions are legal and what position each one leads to
(auto-play included). Points, the clock and the objective are counted here, straight from
RULES.md, and the witness line the oracle returns is replayed by the tests through the engine,
whose own score must agree: the two counts check each other.

How it works:

1. Every position reachable from the start is enumerated (a graph: one node per position, the
   piles taken as a sorted tuple since the seven piles play alike, plus, with scoring, which
   cards in play were already placed once and whether later recycles are penalised; one edge
   per legal action, with the points it earns). Pile numbers of the witness line are found
   again by playing it from the real start.
2. The value of a line is a function of the node it ends at, its points and its action count, so:
   - scoring with the clock on: a forward dynamic programme over "exactly a actions"
     (a = 0 .. floor(300 / seconds per action); a longer line is cut at 300 s and is never
     better than its own prefix that stops in time), keeping for every node the most points
     reachable with exactly a actions;
   - scoring with the clock off: the most points reachable at each node (Bellman-Ford; a cycle
     of positions never gains points, since cards are placed and turned only once);
   - fewest actions (no scoring): breadth-first distances.
   The best value over every node (and every a) is the optimum: a player may stop anywhere.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from solver.deal import Deal
from solver.game import Game, Position
from solver.rules import Ruleset

DEAL0 = Deal.from_seed(0)

# RULES.md section 6, written out again here on purpose (not imported from solver.score).
TURN = 100
RECYCLE = 400
COMPLETION = {"harmony": 10000, "duel": 30000}
WON_PER_SECOND = 150
LIMIT_SECONDS = 300
# The fewest-actions scale of `solver.optimal.line_value` (bigger is better): a win in n actions
# is WON_BASE - n; a non-win with c cards up after n actions is CARD_WEIGHT * c - n.
WON_BASE = 1_000_000
CARD_WEIGHT = 1000

NEG = -(1 << 60)
UNCHANGED = object()  # marker: keep the origin's clock


def first_placement_points(scoring: str, card: int) -> int:
    """Points of a card's first arrival on its foundation (RULES.md 6)."""
    value = card % 13 + 1
    if scoring == "harmony":
        return 1000
    return 100 * value if value <= 9 else 1000


class TooBig(Exception):
    """More positions are reachable than the caller allows."""


def _foundation_cards(foundations) -> set[int]:
    return {s * 13 + v for s in range(4) for v in range(foundations[s])}


@dataclass
class OracleAnswer:
    """The optimum from a start, with a line that reaches it.

    value: on the scale of `solver.optimal.line_value` (the whole game's score with scoring; the
    fewest-actions value otherwise), counting what the origin game had already done.
    line: the actions of a best line from the start (tokens, no auto-play tokens).
    won: that line wins. win_reachable: some line wins (in time, with the clock on).
    best_win: the best value among winning lines (None if none), best_stop: among the others.
    """

    value: int
    line: list[str]
    won: bool
    win_reachable: bool
    best_win: int | None
    best_stop: int
    states: int
    edges: int


class _Graph:
    def __init__(self):
        self.keys: dict = {}
        self.key_list: list = []
        self.won: list[bool] = []
        self.cards_up: list[int] = []
        self.src: list[int] = []
        self.dst: list[int] = []
        self.gain: list[int] = []
        self.complete = True  # every reachable node was expanded
        self.stopped_at_win = False  # the enumeration stopped at the first win found
        self.first_win_depth: int | None = None


def node_key(position: Position, pass_class: int, placed_in_play: frozenset) -> tuple:
    """The node of a position: the piles as a sorted tuple (the seven piles play alike, and
    auto-play reaches the same cards whatever order it scans the piles in), the talon, the
    foundations, the pass class and (scoring) the cards in play already placed once."""
    piles = tuple(sorted((tuple(p), d) for p, d in zip(position.piles, position.face_down)))
    return piles, tuple(position.stock), tuple(position.waste), tuple(position.foundations), pass_class, \
        placed_in_play


def node_position(key: tuple) -> Position:
    """A position of a node (`node_key` read back; the piles in their sorted order, the pass
    number its pass class, at least 1)."""
    piles, stock, waste, foundations, pass_class, _ = key
    return Position([list(pile) for pile, _ in piles], [down for _, down in piles], list(stock), list(waste),
                    list(foundations), max(1, pass_class))


class _Model:
    """The rules as the oracle sees them: node keys and the points of each action."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.scoring = rules.scoring

    def pass_class(self, number: int) -> int:
        # Under a pass limit the pass number decides what is legal; under unlimited passes only
        # whether the next recycle is penalised (it would start pass 3 or later) matters.
        if self.rules.passes is not None:
            return number
        if self.scoring is None:
            return 1
        return min(number, 2)

    def game_at(self, position: Position, placed_in_play) -> Game:
        game = Game(DEAL0, self.rules, position)  # the game copies it
        game.placed = _foundation_cards(position.foundations) | set(placed_in_play)
        return game

    def key(self, position: Position, placed_in_play: frozenset) -> tuple:
        return node_key(position, self.pass_class(position.pass_number), placed_in_play)

    def step(self, game: Game, action):
        """Play `action` on `game` (the caller undoes it); returns (key, gain, position, placed in play)."""
        down_before = sum(game.position.face_down)
        up_before = set(game.placed)
        game.apply(action)
        after = game.position
        gain = 0
        placed_after = frozenset()
        if self.scoring:
            gain += TURN * (down_before - sum(after.face_down))
            now_up = _foundation_cards(after.foundations)
            gain += sum(first_placement_points(self.scoring, c) for c in now_up - up_before)
            if action.kind == "recycle" and after.pass_number >= 3:
                gain -= RECYCLE
            placed_after = frozenset((up_before | now_up) - now_up)
        return self.key(after, placed_after), gain, after, placed_after


def _explore(origin: Game, model: _Model, limit: int, max_depth: int | None, until_first_win: bool) -> _Graph:
    """Every node reachable from the origin game by the engine's legal actions, breadth first
    (so a node's discovery depth is its distance): with `max_depth`, nodes at that distance are
    not expanded; with `until_first_win`, the enumeration stops at the first won node found."""
    graph = _Graph()
    start = origin.position.copy()
    start.pass_number = model.pass_class(start.pass_number)
    start_placed = frozenset(c for c in origin.placed if c not in _foundation_cards(start.foundations)) \
        if model.scoring else frozenset()
    key = model.key(start, start_placed)
    graph.keys[key] = 0
    graph.key_list.append(key)
    graph.won.append(start.won)
    graph.cards_up.append(sum(start.foundations))
    if start.won:
        graph.first_win_depth = 0
        return graph
    queue = deque([(0, start, start_placed, 0)])
    while queue:
        node, position, placed_in_play, depth = queue.popleft()
        if position.won:
            continue  # the game is over
        if max_depth is not None and depth >= max_depth:
            graph.complete = False
            continue
        game = model.game_at(position, placed_in_play)
        empty_targets = set()
        for action in game.legal_actions():
            if action.kind == "move" and action.target != "F" and not position.piles[action.target - 1]:
                # A king (or a run under it) to one empty pile or another: the same node (the
                # piles are sorted in the key), for the same points; one stands for all.
                if (action.card, action.source) in empty_targets:
                    continue
                empty_targets.add((action.card, action.source))
            key, gain, after, placed_after = model.step(game, action)
            child = graph.keys.get(key)
            if child is None:
                child = len(graph.won)
                if child >= limit:
                    raise TooBig(f"more than {limit} positions reachable")
                child_position = after.copy()
                child_position.pass_number = model.pass_class(after.pass_number)
                graph.keys[key] = child
                graph.key_list.append(key)
                graph.won.append(child_position.won)
                graph.cards_up.append(sum(child_position.foundations))
                queue.append((child, child_position, placed_after, depth + 1))
                if child_position.won and graph.first_win_depth is None:
                    graph.first_win_depth = depth + 1
            graph.src.append(node)
            graph.dst.append(child)
            graph.gain.append(gain)
            game.undo()
        if until_first_win and graph.first_win_depth is not None:
            graph.complete = False  # (a shortest win is known: nothing deeper can beat it)
            graph.stopped_at_win = True
            break
    return graph


def _realise(origin: Game, model: _Model, graph: _Graph, nodes: list[int], gains: list[int]) -> list[str]:
    """The actions of a path of nodes, found again by playing from the origin's own position
    (nodes stand for pile permutations of positions, so the pile numbers must come from play)."""
    placed = frozenset(c for c in origin.placed if c not in _foundation_cards(origin.position.foundations)) \
        if model.scoring else frozenset()
    game = model.game_at(origin.position, placed)
    tokens = []
    for node, gain in zip(nodes[1:], gains):
        for action in game.legal_actions():
            key, got, _, _ = model.step(game, action)
            if key == graph.key_list[node] and got == gain:
                tokens.append(action.token)
                break
            game.undo()
        else:
            raise AssertionError("the oracle cannot play its own path again")
    return tokens


def _origin_points(origin: Game) -> int:
    """Points the origin game has earned so far (cards, turns, recycles, undos), no clock."""
    if origin.rules.scoring is None:
        return 0
    part = origin.score()
    return part.cards + part.turns + part.recycles + part.undos


class Oracle:
    """The enumeration of the positions reachable from a game, ready to be valued under any
    clock (the clock changes values, never what is legal).

    `max_depth`: enumerate only what `max_depth` actions reach (enough with the clock on: a
    line is never better than its prefix that stops by the 300 s cut). `until_first_win`: stop
    at the first (so shortest) win (enough for the fewest-actions objective). Either one makes
    the oracle refuse the valuations it cannot answer exactly.
    """

    def __init__(self, origin: Game, limit: int = 60_000, max_depth: int | None = None,
                 until_first_win: bool = False):
        self.origin = origin
        self.model = _Model(origin.rules)
        self.graph = _explore(origin, self.model, limit, max_depth, until_first_win)
        self.max_depth = max_depth
        graph = self.graph
        self.size = len(graph.won)
        self.src = np.array(graph.src, dtype=np.int64)
        self.dst = np.array(graph.dst, dtype=np.int64)
        self.gain = np.array(graph.gain, dtype=np.int64)
        self.won = np.array(graph.won, dtype=bool)
        self.cards_up = np.array(graph.cards_up, dtype=np.int64)

    @property
    def complete(self) -> bool:
        """Every reachable position was enumerated."""
        return self.graph.complete

    @property
    def win_found(self) -> bool:
        """Some line found wins (whatever the time it takes)."""
        return bool(self.won.any())

    def optimum(self, seconds_per_action=UNCHANGED) -> OracleAnswer:
        """The best value and a best line, under the origin's rules with this clock (None: off)."""
        rules = self.origin.rules
        if seconds_per_action is not UNCHANGED:
            rules = dataclasses.replace(rules, seconds_per_action=seconds_per_action)
        before = self.origin.actions
        if rules.scoring is None:
            if not (self.complete or self.graph.first_win_depth is not None):
                raise ValueError("the enumeration was cut before any win: no exact fewest-actions value")
            value, edges, best_win, best_stop = _fewest(self.graph, self.size, self.won, self.cards_up, before)
        elif rules.seconds_per_action is not None:
            last = math.floor(Fraction(LIMIT_SECONDS) / Fraction(str(rules.seconds_per_action)))
            if before > last:
                raise ValueError("the origin game is already past the 300 s cut")
            deep_enough = self.max_depth is not None and self.max_depth >= last - before
            if not (self.complete or (deep_enough and not self.graph.stopped_at_win)):
                raise ValueError("the enumeration does not reach the 300 s cut")
            value, edges, best_win, best_stop = _scored_clock(self.size, self.src, self.dst, self.gain, self.won,
                                                              rules, before, _origin_points(self.origin))
        else:
            if not self.complete:
                raise ValueError("the clock is off: the whole space is needed")
            value, edges, best_win, best_stop = _scored_no_clock(self.size, self.src, self.dst, self.gain,
                                                                 self.won, rules, _origin_points(self.origin))
        nodes = [0] + [int(self.dst[e]) for e in edges]
        line = _realise(self.origin, self.model, self.graph, nodes, [int(self.gain[e]) for e in edges])
        return OracleAnswer(int(value), line, bool(self.won[nodes[-1]]), best_win is not None, best_win,
                            best_stop, self.size, len(self.src))


def optimum(origin: Game, limit: int = 60_000) -> OracleAnswer:
    """The best value any continuation of `origin` can reach (stopping anywhere), with a line."""
    return Oracle(origin, limit).optimum()


def _fewest(graph, size, won, cards_up, before):
    adjacency: list[list[int]] = [[] for _ in range(size)]
    for e, s in enumerate(graph.src):
        adjacency[s].append(e)
    dist = [-1] * size
    parent = [-1] * size
    dist[0] = 0
    queue = deque([0])
    while queue:
        node = queue.popleft()
        for e in adjacency[node]:
            child = graph.dst[e]
            if dist[child] < 0:
                dist[child] = dist[node] + 1
                parent[child] = e
                queue.append(child)
    best_win, best_stop = None, NEG
    best_node = best_value = None
    for node in range(size):
        actions = before + dist[node]
        if won[node]:
            value = WON_BASE - actions
            best_win = value if best_win is None else max(best_win, value)
        else:
            value = CARD_WEIGHT * int(cards_up[node]) - actions
            best_stop = max(best_stop, value)
        if best_value is None or value > best_value:
            best_value, best_node = value, node
    edges = []
    node = best_node
    while node != 0:
        edges.append(parent[node])
        node = graph.src[parent[node]]
    edges.reverse()
    return best_value, edges, best_win, best_stop


class _Edges:
    """The edges sorted by target, for a fast "best over incoming edges" (numpy reduceat)."""

    def __init__(self, src, dst, gain, size):
        order = np.argsort(dst, kind="stable")
        self.src, self.dst, self.gain = src[order], dst[order], gain[order]
        self.order = order
        self.size = size
        if len(order):
            self.starts = np.concatenate(([0], np.nonzero(np.diff(self.dst))[0] + 1))
        else:
            self.starts = np.zeros(0, dtype=np.int64)
        self.targets = self.dst[self.starts]

    def relax(self, points):
        """The most points reachable at each node with one action more (NEG: unreachable)."""
        nxt = np.full(self.size, NEG, dtype=np.int64)
        if len(self.src):
            candidate = points[self.src] + self.gain
            nxt[self.targets] = np.maximum.reduceat(candidate, self.starts)
        nxt[nxt < NEG // 2] = NEG
        return nxt


def _scored_clock(size, src, dst, gain, won, rules, before, points0):
    per_action = Fraction(str(rules.seconds_per_action))
    last = math.floor(Fraction(LIMIT_SECONDS) / per_action)  # the most actions done by the cut
    completion = COMPLETION[rules.scoring]
    edges_by_target = _Edges(src, dst, gain, size)
    points = np.full(size, NEG, dtype=np.int64)
    points[0] = points0
    layers = []
    best = (NEG, None, None)
    best_win, best_stop = None, NEG
    for actions in range(before, last + 1):
        layers.append(points)
        left = math.floor(LIMIT_SECONDS - per_action * actions)
        reachable = points > NEG // 2
        if not reachable.any():
            break
        values = np.where(won, points + completion + WON_PER_SECOND * left, points + left // 3)
        values = np.where(reachable, values, NEG)
        node = int(np.argmax(values))
        if values[node] > best[0]:
            best = (int(values[node]), actions, node)
        if (reachable & won).any():
            top = int(values[reachable & won].max())
            best_win = top if best_win is None else max(best_win, top)
        if (reachable & ~won).any():
            best_stop = max(best_stop, int(values[reachable & ~won].max()))
        points = edges_by_target.relax(points)
    value, actions, node = best
    edges = []
    while actions > before:
        previous = layers[actions - 1 - before]
        target = layers[actions - before][node]
        candidates = np.nonzero((dst == node) & (previous[src] > NEG // 2) & (previous[src] + gain == target))[0]
        e = int(candidates[0])
        edges.append(e)
        node = int(src[e])
        actions -= 1
    assert node == 0
    edges.reverse()
    return value, edges, best_win, best_stop


def _scored_no_clock(size, src, dst, gain, won, rules, points0):
    completion = COMPLETION[rules.scoring]
    edges_by_target = _Edges(src, dst, gain, size)
    points = np.full(size, NEG, dtype=np.int64)
    points[0] = points0
    parent = np.full(size, -1, dtype=np.int64)
    for _ in range(size + 1):
        improved = np.maximum(points, edges_by_target.relax(points))
        changed = improved > points
        if not changed.any():
            break
        candidate = np.where(points[src] > NEG // 2, points[src] + gain, NEG)
        tight = changed[dst] & (candidate == improved[dst])
        parent[dst[tight]] = np.nonzero(tight)[0]
        points = improved
    else:
        raise AssertionError("points keep growing around a cycle: the oracle's model is wrong")
    reachable = points > NEG // 2
    values = np.where(reachable, np.where(won, points + completion, points), NEG)
    node = int(np.argmax(values))
    best_win = int(values[reachable & won].max()) if (reachable & won).any() else None
    best_stop = int(values[reachable & ~won].max()) if (reachable & ~won).any() else NEG
    edges = []
    seen = set()
    current = node
    while current != 0:
        if current in seen:
            raise AssertionError("the oracle's parent links loop")
        seen.add(current)
        e = int(parent[current])
        edges.append(e)
        current = int(src[e])
    edges.reverse()
    return int(values[node]), edges, best_win, best_stop
