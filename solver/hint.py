"""Hints: the best next action from a game in progress or a typed-in position.

Two ways to judge the candidate actions, one entry point for each kind of knowledge:

- every card known (a seed's game, `klondike hint SEED --played ...`, or a typed-in position
  without `??`): `hint_game` asks the optimal search (`optimal.best`) for the best line. "Best"
  is the highest score under a scoring ruleset (stopping now is a candidate too), otherwise a win
  in the fewest actions, then the most cards on the foundations. With `top=K` every legal action
  is searched on its own (within a share of the budget) and the K best are ranked.
- some cards unknown (`??` in a typed-in position, or the honest hint of `klondike play`, which
  sees only what a player sees): `hint_unknown` samples deals consistent with what is seen (the
  unseen cards dealt at random into the unknown places), judges every candidate in every sample
  (winnability with `solve.solve`, or the best score with `optimal.best` under scoring) and ranks
  the candidates by win probability (Wilson 95% interval) or mean score (t 95% interval). On request
  (`commitments=True`, no points) the candidates are commitments (`solver.commitments`), not single
  actions: the solver behind each sample knows every card, so an action that can be taken back
  always looks as good as the best one.

`hint_position` dispatches between the two: a position with no unknown card takes the very same
path as the seed's hint, so both give the same answer.
"""

from __future__ import annotations

import copy
import math
import random
import time
from dataclasses import dataclass, field

from . import commitments as commitments_module
from . import line as line_module
from .cards import is_whole_number
from .deal import Deal
from .errors import KlondikeError
from .game import Game, Position, replay
from .line import counted
from .notation import Action, line_tokens, parse_token
from .optimal import best, line_value
from .positions import UNKNOWN, check_position_under
from .positions import to_json as positions_to_json
from .rules import Ruleset
from .runner import check_budget
from .solve import solve
from .stats import undecided_interval

DEFAULT_TIME_LIMIT = 10.0
DEFAULT_MEMORY_MB = 256
DEFAULT_SAMPLES = 20
STOP = "stop"
SIGN_TEST_Z = 2.0  # how clearly (in standard deviations of a fair coin) the leader must win its duels

# The 97.5% quantile of Student's t for 1..30 degrees of freedom (two-sided 95% intervals).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)
_Z975 = 1.959963984540054


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom (a table to 30, then the
    Cornish-Fisher expansion, within 1e-3)."""
    if df < 1:
        raise ValueError("degrees of freedom must be >= 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def mean_interval(values: list[float]) -> tuple[float, float | None, float | None]:
    """(mean, low, high): the mean of the values with its 95% t interval (low and high None for one
    value: one sample tells nothing of the spread)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile_975(n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


# ----- budgets, positions and games ------------------------------------------------------------

@dataclass(frozen=True)
class Budget:
    """A search budget: seconds, nodes (None: no limit) and the memory of one search."""

    time_limit: float | None = DEFAULT_TIME_LIMIT
    max_nodes: int | None = None
    memory_mb: int = DEFAULT_MEMORY_MB

    def __post_init__(self):
        check_budget(self.max_nodes, self.time_limit, self.memory_mb)

    def share(self, parts: int) -> "Budget":
        """One of `parts` equal shares of this budget (the memory is per search, not shared)."""
        parts = max(1, parts)
        return Budget(None if self.time_limit is None else self.time_limit / parts,
                      None if self.max_nodes is None else max(1, self.max_nodes // parts), self.memory_mb)


def label_deal() -> Deal:
    """A Deal for a position typed in or partly hidden: a game needs one, but with a position
    given it is only a label (the cards in play are those of the position)."""
    return Deal(tuple(range(52)), None, "position")


def fork(game: Game, position: Position | None = None, deal: Deal | None = None) -> Game:
    """A light copy of a game to search from: the same clock, points and cards already placed once,
    on `position` (default: the game's own), without the history of positions kept for undo."""
    # the positions forked are the game's own or made from them (masked, sampled): nothing to check
    forked = Game(deal or game.deal, game.rules, position if position is not None else game.position, check=False)
    forked.counters = copy.copy(game.counters)
    forked.placed = set(game.placed)
    forked._history = list(game._history)  # the score needs the counters at the 300 s cut
    return forked


def position_key(position: Position) -> tuple:
    """A hashable value equal for positions that differ only by the order of the piles (the seven
    piles play the same role, so such positions have the same future); see `commitments.state_key`."""
    return commitments_module.state_key(position)


def visible_cards(position: Position) -> set[int]:
    """The cards a player sees now: face-up tableau cards, the waste, the foundations."""
    cards = {c for pile, down in zip(position.piles, position.face_down) for c in pile[down:]}
    cards.update(position.waste)
    cards.update(s * 13 + v for s in range(4) for v in range(position.foundations[s]))
    cards.discard(UNKNOWN)
    return cards


def visible_position(position: Position, seen: set[int] | frozenset[int] = frozenset()) -> Position:
    """The position as a player knows it: face-down tableau cards unknown (`UNKNOWN`), and stock
    cards unknown unless the player has seen them (`seen`: cards shown earlier in the game, e.g.
    drawn in an earlier pass; the stock keeps its order, so a seen card stays where it was)."""
    piles = [[UNKNOWN] * down + pile[down:] for pile, down in zip(position.piles, position.face_down)]
    stock = [c if c in seen else UNKNOWN for c in position.stock]
    return Position(piles, list(position.face_down), stock, list(position.waste), list(position.foundations),
                    position.pass_number)


def unknown_count(position: Position) -> int:
    """How many cards of the position are unknown (`??`)."""
    return sum(c == UNKNOWN for pile in position.piles for c in pile) + sum(c == UNKNOWN for c in position.stock)


def replay_played(deal: Deal, rules: Ruleset, tokens) -> Game:
    """The game after the moves played so far; KlondikeError naming the first bad token."""
    tokens = line_tokens(tokens)
    result = replay(deal, rules, tokens)
    if not result.legal:
        raise KlondikeError(f"illegal token {tokens[result.error_index]!r} at index {result.error_index} "
                            f"of the moves played: {result.error}")
    return result.game


# ----- outcomes and the hint -------------------------------------------------------------------

@dataclass
class Outcome:
    """What an action leads to with every card known: the best line found after it."""

    value: int  # the objective (optimal.line_value): bigger is better
    won: bool
    actions: int  # actions from now on, the candidate's own included
    score: int | None  # the whole game's score (scoring rulesets)
    foundation_cards: int
    line: list[str]  # the continuation, the candidate's own token first
    optimal: bool | None  # the search proved it best (None: stopping now, nothing searched)
    winnable: str | None = None  # the winnability verdict after the action: win, loss, unknown

    def sort_key(self) -> tuple:
        """Bigger is better."""
        return (self.value,)

    @property
    def hopeless(self) -> bool:
        """No win after this action: proved (a no-win line scored under a ruleset with points is
        still worth its score)."""
        return self.winnable == "loss"

    def describe(self, stop: bool = False, first: bool = False) -> str:
        """`wins in 87 actions`, `best score 71,350: wins in 87 actions`, `no win: best is to stop
        now at 12,400` (stop: this is stopping now; first: it is the best candidate)."""
        if stop:
            return f"no win: best is to stop now at {self.score:,}" if first else f"stop now at {self.score:,}"
        no_win = "no win (proved)" if self.winnable == "loss" else "no win found"
        actions = counted(self.actions, "action")
        if self.score is not None:
            text = f"best score {self.score:,}: " + (f"wins in {actions}" if self.won else
                                                      f"{no_win}, stop after {actions} "
                                                      f"({counted(self.foundation_cards, 'card')} up)")
        elif self.won:
            text = f"wins in {actions}"
        else:
            text = f"{no_win}: at best {counted(self.foundation_cards, 'card')} on the foundations, after {actions}"
        return text + {True: " (proved best)", False: " (not proved: the budget ran out)", None: ""}[self.optimal]

    def to_json(self) -> dict:
        """The JSON form."""
        return {"won": self.won, "actions": self.actions, "score": self.score,
                "foundation_cards": self.foundation_cards, "line": self.line, "optimal": self.optimal,
                "winnable": self.winnable}


@dataclass
class Estimate:
    """What an action leads to over sampled deals: wins (win probability) or scores (mean)."""

    samples: int = 0
    wins: int = 0
    undecided: int = 0  # samples where the search ran out of budget before a verdict
    win_actions: list[int] = field(default_factory=list)  # per won sample: actions to the solver's win
    scores: list[int] = field(default_factory=list)  # scoring rulesets: per sample, the best score found
    won_in: dict[int, bool] = field(default_factory=dict)  # per sample judged (by index): won or not

    def record(self, sample: int, result: str, actions: int = 0) -> None:
        """One sampled deal judged: `result` (win, loss, unknown), `actions` to the win."""
        self.samples += 1
        self.won_in[sample] = result == "win"
        if result == "win":
            self.wins += 1
            self.win_actions.append(actions)
        elif result == "unknown":
            self.undecided += 1

    @property
    def probability(self) -> float:
        """The share of samples won (undecided samples count as not won)."""
        return self.wins / self.samples if self.samples else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval of the win probability, the undecided samples counted both ways (lost for
        its lower end, won for its upper end), as `klondike stats` counts undecided deals."""
        return undecided_interval(self.wins, self.undecided, self.samples) if self.samples else (0.0, 1.0)

    @property
    def hopeless(self) -> bool:
        """No sample won, and every sample was decided (proved lost)."""
        return self.wins == 0 and self.undecided == 0

    def mean_score(self) -> tuple[float, float, float] | None:
        """(mean, low, high): the mean sampled score and its 95% t interval; None without scores."""
        return mean_interval(self.scores) if self.scores else None

    def sort_key(self) -> tuple:
        """Bigger is better: the mean score; or the share of samples won, then of samples undecided,
        then the shorter wins (an action that wins as often but sooner makes progress). Shares, not
        counts: the leading candidates may have been judged in more samples than the others."""
        if self.scores:
            return (self.mean_score()[0], self.wins)
        mean_length = sum(self.win_actions) / len(self.win_actions) if self.win_actions else math.inf
        samples = max(1, self.samples)
        return (self.wins / samples, self.undecided / samples, -mean_length)

    def describe(self, stop: bool = False, first: bool = False) -> str:
        """`win probability 85% (95% interval 64% to 95%, 20 samples)` or `mean score 23,400 (...)`."""
        if stop:
            score = self.scores[0]
            return f"no win: best is to stop now at {score:,}" if first else f"stop now at {score:,}"
        if self.scores:
            mean, low, high = self.mean_score()
            spread = "no interval from one sample" if low is None else f"95% interval {low:,.0f} to {high:,.0f}"
            return f"mean score {mean:,.0f} ({spread}, {counted(self.samples, 'sample')}, won in {self.wins})"
        low, high = self.interval
        undecided = f", {self.undecided} undecided" if self.undecided else ""
        return (f"win probability {self.probability:.0%} (95% interval {low:.0%} to {high:.0%}, "
                f"{counted(self.samples, 'sample')}{undecided})")

    def to_json(self) -> dict:
        """The JSON form."""
        low, high = self.interval
        data = {"samples": self.samples, "wins": self.wins, "undecided": self.undecided,
                "win_probability": self.probability, "win_interval": [low, high]}
        if self.scores:
            mean, low, high = self.mean_score()
            data.update(mean_score=mean, score_interval=[low, high])
        return data


@dataclass
class Candidate:
    """One candidate next action (None: stop now) and what it leads to."""

    action: Action | None
    outcome: Outcome | Estimate
    plan: tuple[Action, ...] = ()  # a commitment's actions (the first is `action`); else empty

    @property
    def token(self) -> str:
        """The action's token, or `stop`."""
        return STOP if self.action is None else self.action.token

    @property
    def label(self) -> str:
        """The token, or a commitment's tokens when it takes more than one action."""
        return " ".join(a.token for a in self.plan) if len(self.plan) > 1 else self.token

    def describe(self, first: bool = False) -> str:
        """The outcome for people."""
        return self.outcome.describe(stop=self.action is None, first=first)

    def to_json(self) -> dict:
        """The JSON form: the token, the plan (a commitment's tokens), the outcome in words and its fields."""
        plan = {"plan": [a.token for a in self.plan]} if self.plan else {}
        return {"action": self.token, **plan, "outcome": self.describe(), **self.outcome.to_json()}


@dataclass
class Hint:
    """The answer: the candidates ranked best first (at most `top`), and what they were judged on."""

    rules: Ruleset
    position: Position  # the position judged (with unknown cards when sampled)
    actions_played: int
    score: int | None  # the score so far (scoring rulesets)
    candidates: list[Candidate]
    mode: str  # "known" (every card known) or "sampled"
    samples: int = 0
    rng_seed: int | None = None
    seconds: float = 0.0
    over: str | None = None  # why there is nothing to hint: "won", "no legal actions" (then at most "stop")

    @property
    def best(self) -> Candidate | None:
        """The best candidate, or None when there is nothing to hint."""
        return self.candidates[0] if self.candidates else None

    def headline(self) -> str:
        """One line: the best action and what it leads to."""
        if self.over == "won":
            return "the game is won: nothing left to do"
        if self.over:
            return f"{self.over}: the game is over" + ("" if self.score is None else f" at {self.score:,}")
        if self.best is None:
            return "no hint: no line puts more cards on the foundations than now"
        return f"{self.best.label}: {self.best.describe(first=True)}"

    def to_json(self) -> dict:
        """The JSON form of `klondike hint --json`."""
        return {"mode": self.mode, "rules": self.rules.to_json(), "actions_played": self.actions_played,
                "score": self.score, "unknown_cards": unknown_count(self.position), "samples": self.samples,
                "rng_seed": self.rng_seed, "over": self.over, "best": self.best.token if self.best else None,
                "headline": self.headline(), "candidates": [c.to_json() for c in self.candidates],
                "seconds": round(self.seconds, 6), "position": positions_to_json(self.position)}


def _ranked(game: Game, candidates: list[Candidate], top: int | None, began: float, **fields) -> Hint:
    """The Hint with the candidates ranked best first (a stable sort: ties keep the given order)."""
    ranked = sorted(candidates, key=lambda c: c.outcome.sort_key(), reverse=True)
    return Hint(game.rules, game.position, game.actions, game.score().total if game.rules.scoring else None,
                ranked if top is None else ranked[:top], seconds=time.perf_counter() - began, **fields)


def distinct_actions(game: Game) -> list[tuple[Action, Game]]:
    """The legal actions, each with a fork of the game after it, one per resulting position (a king
    moved to any of several empty piles is one candidate: the piles play the same role)."""
    result, keys = [], set()
    for action in game.legal_actions():
        after = fork(game)
        after.apply(action)
        key = position_key(after.position)
        if key not in keys:
            keys.add(key)
            result.append((action, after))
    return result


def _index_of(actions: list[Action], game: Game, token: str) -> int:
    """Which of the distinct actions `token` (a legal action of `game`, which may be another sample
    of the same visible position than the one `actions` were found in) is."""
    action = parse_token(token)
    for index, other in enumerate(actions):
        if other == action:
            return index
    after = fork(game)  # an action left out as equivalent to another (a king to another empty pile)
    after.apply(action)
    key = position_key(after.position)
    for index, other in enumerate(actions):
        alternative = fork(game)
        alternative.apply(other)
        if position_key(alternative.position) == key:
            return index
    raise KlondikeError(f"internal: {token} is not among the candidate actions")


# ----- every card known ----------------------------------------------------------------------------

def _best_after(after: Game, budget: Budget) -> Outcome:
    """The best line from `after` (a fork of the judged game, maybe with the candidate played on
    it); the outcome counts the candidate's action and tokens too."""
    found = best(after.deal, after.rules, game=after, max_nodes=budget.max_nodes, time_limit=budget.time_limit,
                 memory_mb=budget.memory_mb)
    played = sum(1 for action in after.line if not action.auto)  # a fork's line holds what was played on it
    return Outcome(line_value(found.game), found.won, played + found.actions, found.score, found.foundation_cards,
                   line_module.tokens(after) + found.line, found.optimal, found.winnable)


def _check_top(top) -> None:
    """KlondikeError unless `top` (how many candidates a hint ranks) is None (all) or a whole number >= 1."""
    if top is not None and not (is_whole_number(top) and top >= 1):
        raise KlondikeError(f"top must be a whole number >= 1, or None for every candidate, got {top!r}")


def hint_game(game: Game, top: int | None = 1, budget: Budget = Budget(), progress=None) -> Hint:
    """The best next action of a game whose every card is known.

    top=1: one optimal search from the game; its first action is the hint. top=K (None: all): that
    search gets half the budget and the legal actions share the other half, each searched from the
    game after it. Stopping now is a candidate under a scoring ruleset. `progress(done, total)` is
    called after each search.
    """
    _check_top(top)
    began = time.perf_counter()
    game = fork(game)
    stop = [Candidate(None, Outcome(line_value(game), game.won, 0, game.score().total,
                                    sum(game.position.foundations), [], None))] if game.rules.scoring else []
    if game.won:
        return _ranked(game, [], top, began, mode="known", over="won")
    moves = distinct_actions(game)
    if not moves:
        return _ranked(game, stop, top, began, mode="known", over="no legal actions")
    searches = 1 if top == 1 else 1 + len(moves)
    outcomes: list[Outcome | None] = [None] * len(moves)
    main = _best_after(game, budget if top == 1 else budget.share(2))
    if main.line:
        outcomes[_index_of([a for a, _ in moves], game, main.line[0])] = main
    if progress is not None:
        progress(1, searches)
    if top != 1:
        share = budget.share(2 * len(moves))
        for index, (_, after) in enumerate(moves):
            outcome = _best_after(after, share)
            if outcomes[index] is None or outcome.value > outcomes[index].value:
                outcomes[index] = outcome
            if progress is not None:
                progress(index + 2, searches)
    # Stopping comes first, so that on a tie the hint is to stop rather than to play on for nothing.
    candidates = stop + [Candidate(action, outcome) for (action, _), outcome in zip(moves, outcomes)
                         if outcome is not None]
    return _ranked(game, candidates, top, began, mode="known")


# ----- some cards unknown ----------------------------------------------------------------------------

def _fill(position: Position, cards: list[int]) -> Position:
    """The position with its unknown cards replaced, in order (piles 1..7 bottom to top, then the
    stock), by `cards`."""
    dealt = iter(cards)
    piles = [[next(dealt) if c == UNKNOWN else c for c in pile] for pile in position.piles]
    stock = [next(dealt) if c == UNKNOWN else c for c in position.stock]
    return Position(piles, list(position.face_down), stock, list(position.waste), list(position.foundations),
                    position.pass_number)


def _time_spent(began: float, time_limit: float | None) -> bool:
    """True once `time_limit` seconds (None: no limit) have passed since `began`."""
    return time_limit is not None and time.perf_counter() - began >= time_limit


def _judge_args(budget: Budget) -> dict:
    """The arguments of the searches that judge a sampled deal: only verdicts, first actions and
    lengths are needed, so the lines are not expanded."""
    return {"max_nodes": budget.max_nodes, "time_limit": budget.time_limit, "memory_mb": budget.memory_mb,
            "expand": False}


def _plans_from_lines(game: Game, worlds: list[Game], budget: Budget, began: float,
                      time_limit: float | None) -> tuple[list, list]:
    """When the positions reachable by reversible play are too many to walk: the commitments that
    the solver's wins in the sampled deals `worlds` begin with (one per distinct decision), and the
    solves of the deals (one per deal solved, to be reused by the judging; no further deal is
    solved once `time_limit` seconds from `began` are spent, but at least one is)."""
    plans, decisions, roots = [], set(), []
    for world in worlds:
        if roots and _time_spent(began, time_limit):
            break
        root = solve(world.deal, world.rules, start=world.position, **_judge_args(budget))
        roots.append(root)
        commitment = commitments_module.first_commitment(game, root.path) if root.result == "win" else None
        if commitment is None:
            continue
        decision = commitments_module.decision_of(game, commitment)
        if decision not in decisions:
            decisions.add(decision)
            plans.append(commitment.actions)
    return plans, roots


def _judge_wins(world: Game, plans: list[tuple[Action, ...]], estimates: list[Estimate], budget: Budget,
                first_wins: bool, root=None, sample: int = 0, judged: list[int] | None = None) -> None:
    """Winnability of the candidates `judged` (indices into `plans`, default all; a plan is one
    action, or a commitment's actions) in one sampled deal, recorded as sample number `sample`. A
    loss from the position itself (`root`, solved here unless given) is a loss after every plan; with
    `first_wins` (every plan one action, one per distinct position after it) the first action of a
    win wins, and the other plans are solved one by one."""
    args = _judge_args(budget)
    indices = list(range(len(plans))) if judged is None else judged
    if root is None:
        root = solve(world.deal, world.rules, start=world.position, **args)
    if root.result == "loss":
        for index in indices:
            estimates[index].record(sample, "loss")
        return
    first = None
    if root.result == "win" and first_wins:
        first = _index_of([plan[0] for plan in plans], world, line_module.first_token(world, root.path))
        if first in indices:
            estimates[first].record(sample, "win", root.actions)
    for index in indices:
        if index == first:
            continue
        after = fork(world)
        for action in plans[index]:
            after.apply(action)
        if after.won:
            estimates[index].record(sample, "win", len(plans[index]))
            continue
        verdict = solve(after.deal, after.rules, start=after.position, **args)
        won = verdict.result == "win"
        estimates[index].record(sample, verdict.result, len(plans[index]) + verdict.actions if won else 0)


def contenders(estimates: list[Estimate]) -> list[int]:
    """The candidates still in the running: the leader (by `Estimate.sort_key`) and every candidate
    it has not yet clearly beaten. The samples are shared, so the comparison is paired: only the
    samples one of the two wins and the other does not tell them apart, and the leader has clearly
    won when it wins SIGN_TEST_Z standard deviations more of those than a fair coin would (a sign
    test). A candidate no sample tells apart from the leader is left out too: more samples of the same
    kind would most likely not tell them apart either (a run moved one way or the other)."""
    leader = max(range(len(estimates)), key=lambda i: estimates[i].sort_key())
    best = estimates[leader].won_in
    kept = [leader]
    for index, estimate in enumerate(estimates):
        if index == leader:
            continue
        common = [s for s in estimate.won_in if s in best]
        ahead = sum(best[s] and not estimate.won_in[s] for s in common)
        behind = sum(estimate.won_in[s] and not best[s] for s in common)
        if ahead + behind and ahead - behind < SIGN_TEST_Z * math.sqrt(ahead + behind):
            kept.append(index)
    return kept


def hint_unknown(game: Game, samples: int = DEFAULT_SAMPLES, rng_seed: int = 0, top: int | None = 1,
                 budget: Budget = Budget(), progress=None, commitments: bool = False,
                 max_samples: int | None = None) -> Hint:
    """The best next action of a game whose position has unknown cards (`UNKNOWN`), by sampling.

    Each sample deals the unseen cards at random (a `random.Random(rng_seed)` permutation) into the
    unknown places, and every candidate is judged in it: winnability (`solve`), or under a scoring
    ruleset the best score (`optimal.best`; stopping now is a candidate). The candidates are the
    distinct legal actions; with `commitments` (and without points and auto-play) they are
    commitments instead (see `solver.commitments`: an action that cannot be taken back, after the
    reversible actions that lead to it; the candidate's action is the first, its `plan` the whole):
    those reachable by reversible play, or when those positions are too many to walk, those the
    solver's wins in the samples begin with. Candidates are ranked by the share of samples won (then
    undecided, then the shorter wins) or by mean score. With `max_samples` above `samples` (winnability
    only), once every candidate is judged in `samples` deals, further deals judge only the candidates
    the leader has not clearly beaten yet (`contenders`), up to `max_samples` deals in all.
    The budget of the first `samples` deals is shared by their searches, and each search of a further
    deal gets the same share; once the time is spent no further sample is started (at least one is),
    and the hint says how many were used.
    """
    _check_top(top)
    if not (is_whole_number(samples) and samples >= 1):
        raise KlondikeError(f"the number of samples must be a whole number >= 1, got {samples!r}")
    max_samples = samples if max_samples is None else max_samples
    if not is_whole_number(max_samples):
        raise KlondikeError(f"the most samples must be a whole number, got {max_samples!r}")
    if max_samples < samples:
        raise KlondikeError("the most samples cannot be fewer than the samples")
    began = time.perf_counter()
    position = game.position
    known = visible_cards(position) | {c for pile in position.piles for c in pile} | set(position.stock)
    unseen = [c for c in range(52) if c not in known]
    rng = random.Random(rng_seed)

    def sampled_world() -> Game:
        return fork(game, _fill(position, rng.sample(unseen, len(unseen))))

    worlds = [sampled_world() for _ in range(samples)]
    scoring = game.rules.scoring is not None
    by_commitment = commitments and commitments_module.applies(game)
    plans: list[tuple[Action, ...]] | None = None
    roots: list | None = None  # the samples' own solves, when the candidates were taken from them
    if by_commitment:  # found in the visible position: reversible play never shows a card
        found = commitments_module.commitments(game)
        if found is not None:
            plans = [c.actions for c in found]
        else:
            share = budget.share(samples * (len(game.legal_actions()) + 1))
            plans, roots = _plans_from_lines(game, worlds, share, began, budget.time_limit)
            if not plans:  # no sample was won: every action on its own (a loss in every sample loses them all)
                plans, by_commitment = None, False
    estimates: list[Estimate] = []
    stop = Estimate()
    done = 0
    for sample, world in enumerate(worlds):
        if roots is not None and sample == len(roots):
            break
        if sample and roots is None and _time_spent(began, budget.time_limit):
            break
        if plans is None:  # the legal actions depend only on the cards in sight: the same in every sample
            plans = [(action,) for action, _ in distinct_actions(world)]
        if not estimates:
            estimates = [Estimate() for _ in plans]
            if not plans:
                stop.scores.append(world.score().total)
                stop.samples = done = 1
                break
            share = budget.share(samples * (len(plans) + (0 if scoring else 1)))
        if scoring:
            for index, (action,) in enumerate(plans):
                after = fork(world)
                after.apply(action)
                outcome = _best_after(after, share)
                estimates[index].scores.append(outcome.score)
                estimates[index].wins += outcome.won
            stop.scores.append(world.score().total)
            for estimate in estimates + [stop]:
                estimate.samples = done + 1
        else:
            _judge_wins(world, plans, estimates, share, first_wins=not by_commitment,
                        root=None if roots is None else roots[sample], sample=sample)
        done += 1
        if progress is not None:
            progress(done, samples)
    # More samples for the candidates still in the running, while no sign test parts them (see
    # `contenders`): one sample more or less decides between close candidates, and most hints
    # have one clear leader, so the extra samples go where the decision is close.
    while not scoring and estimates and roots is None and samples <= done < max_samples and \
            not _time_spent(began, budget.time_limit):
        running = contenders(estimates)
        if len(running) < 2:
            break
        _judge_wins(sampled_world(), plans, estimates, share, first_wins=not by_commitment, sample=done, judged=running)
        done += 1
    candidates = ([Candidate(None, stop)] if scoring else []) + [Candidate(plan[0], e, plan if by_commitment else ())
                                                                 for plan, e in zip(plans, estimates)]
    over = None
    if not plans:
        over = "no action makes progress" if game.legal_actions() else "no legal actions"
    return _ranked(game, candidates, top, began, mode="sampled", samples=done, rng_seed=rng_seed, over=over)


# ----- entry points ----------------------------------------------------------------------------------

def _judge(game: Game, samples: int, rng_seed: int, top: int | None, budget: Budget, progress,
           commitments: bool, max_samples: int | None) -> Hint:
    """The known path when every card is known, else the sampled one."""
    if unknown_count(game.position) == 0:
        return hint_game(game, top, budget, progress)
    return hint_unknown(game, samples, rng_seed, top, budget, progress, commitments, max_samples)


def hint(deal: Deal, rules: Ruleset, played_tokens=(), top: int | None = 1,
         time_limit: float | None = DEFAULT_TIME_LIMIT, max_nodes: int | None = None,
         memory_mb: int = DEFAULT_MEMORY_MB, progress=None) -> Hint:
    """The best next action in the game of `deal` after `played_tokens` (RULES.md 7), every card
    known: replays the moves (KlondikeError naming the first bad token, its index and the reason),
    then ranks the `top` best candidates (see `hint_game`) within the budget."""
    game = replay_played(deal, rules, played_tokens)
    return hint_game(game, top, Budget(time_limit, max_nodes, memory_mb), progress)


def hint_position(position: Position, rules: Ruleset, samples: int = DEFAULT_SAMPLES, rng_seed: int = 0,
                  top: int | None = 1, time_limit: float | None = DEFAULT_TIME_LIMIT, max_nodes: int | None = None,
                  memory_mb: int = DEFAULT_MEMORY_MB, progress=None, commitments: bool = False,
                  max_samples: int | None = None) -> Hint:
    """The best next action in a typed-in position, `UNKNOWN` (`??`) for cards not seen.

    Raises PositionError for a position that cannot occur. With no unknown card this is exactly the
    seed's hint (`hint_game`); otherwise the unknown cards are sampled (`hint_unknown`, which weighs
    commitments instead of single actions with `commitments`, and gives close candidates more samples
    up to `max_samples`). A typed-in position starts with the clock at 0 and no points (its cards on
    the foundations count as placed).
    """
    check_position_under(position, rules, allow_unknown=True)
    game = Game(label_deal(), rules, position, check=False)
    return _judge(game, samples, rng_seed, top, Budget(time_limit, max_nodes, memory_mb), progress, commitments,
                  max_samples)


def honest_hint(game: Game, seen=frozenset(), samples: int = DEFAULT_SAMPLES, rng_seed: int = 0,
                top: int | None = 1, time_limit: float | None = DEFAULT_TIME_LIMIT, max_nodes: int | None = None,
                memory_mb: int = DEFAULT_MEMORY_MB, progress=None, commitments: bool = False,
                max_samples: int | None = None) -> Hint:
    """The best next action of a game in progress from what the player can see: the face-down tableau
    cards and the stock cards not seen yet are unknown and sampled; `seen` are the cards shown earlier
    in the game (see `Observer`). The clock and points of the game count. The deal itself is not
    looked at. `commitments`, `max_samples`: see `hint_unknown`."""
    masked = visible_position(game.position, set(seen) | visible_cards(game.position))
    return _judge(fork(game, masked, deal=label_deal()), samples, rng_seed, top,
                  Budget(time_limit, max_nodes, memory_mb), progress, commitments, max_samples)


class Observer:
    """What a player has seen of a game: call `look(position)` after every action. A stock card
    seen once (drawn to the waste) is remembered, so it is known when the stock comes round again."""

    def __init__(self, position: Position | None = None):
        self.seen: set[int] = set()
        if position is not None:
            self.look(position)

    def look(self, position: Position) -> None:
        """Remember the cards in sight."""
        self.seen |= visible_cards(position)


def look_through_stock(game: Game, observer: Observer) -> None:
    """Draw the stock through once and turn the waste back, `observer` looking after each draw:
    with unlimited passes and no points this costs nothing but actions, and afterwards every stock
    card is known (a player's first move in such a game)."""
    if game.rules.passes is not None or game.rules.scoring is not None:
        raise KlondikeError("looking through the stock is free only with unlimited passes and no points")
    while game.position.stock:
        game.play("D")
        observer.look(game.position)
    if game.position.waste:
        game.play("R")


# ----- input and output ------------------------------------------------------------------------

def load_position(path: str) -> Position:
    """A position from a file (`-`: standard input) in the text form of `positions` or its JSON
    form, `??` for unknown cards; PositionError (a KlondikeError) when it cannot occur."""
    import sys
    from pathlib import Path

    from .positions import from_json, from_text

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise KlondikeError(f"cannot read position file {path!r}: "
                            f"{err.strerror if isinstance(err, OSError) else err}") from None
    if text.lstrip().startswith("{"):
        return from_json(text, allow_unknown=True)
    return from_text(text, allow_unknown=True)


def format_hint(result: Hint) -> str:
    """The hint for people: what it was judged on, the best action, its line, the ranking."""
    lines = []
    state = f"after {counted(result.actions_played, 'action')}: {sum(result.position.foundations)}/52 cards on the foundations"
    if result.score is not None:
        state += f", score {result.score:,}"
    lines.append(state)
    if result.mode == "sampled":
        lines.append(f"{unknown_count(result.position)} cards unknown: {result.samples} sampled deals "
                     f"(rng seed {result.rng_seed})")
    else:
        lines.append("every card known")
    lines.append(f"hint: {result.headline()}")
    best_candidate = result.best
    if best_candidate is not None and isinstance(best_candidate.outcome, Outcome) and best_candidate.outcome.line:
        lines.append("line: " + " ".join(best_candidate.outcome.line))
    if len(result.candidates) > 1:
        width = max(len(c.label) for c in result.candidates)
        lines.append(f"the {len(result.candidates)} best candidates:")
        lines += [f"{n:4d}. {c.label:<{width}}  {c.describe()}" for n, c in enumerate(result.candidates, start=1)]
    lines.append(f"time: {result.seconds:.2f} s")
    return "\n".join(lines)
