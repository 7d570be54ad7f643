"""Hints (solver.hint, `klondike hint`) and terminal play (solver.play, `klondike play`).

Budgets are node counts (no time limit), so every answer here is deterministic.
"""

import json

import pytest
from click.testing import CliRunner

from cli import main
from solver import hint as hint_lib
from solver.cards import format_card, parse_card
from solver.deal import Deal
from solver.errors import KlondikeError, PositionError
from solver.game import Game, Position
from solver.positions import UNKNOWN, from_text, to_text
from solver.rules import PRESETS
from solver.solve import solve

HARMONY = PRESETS["harmony"]
CLASSIC = PRESETS["classic"]
SEED = 119  # a fixed deal for the tests that need no easy win (its pile 1 is As, pile 2 [9h] 2c)
DEAL = Deal.from_seed(SEED)
NODES = dict(time_limit=None, max_nodes=5_000)


@pytest.fixture(scope="module")
def easy():
    """An easy seed under harmony, found by scanning: solve() wins it within 2,000 nodes in at most
    90 actions. Returns (seed, deal, the actions of that win without the auto-play tokens)."""
    for seed in range(1000):
        deal = Deal.from_seed(seed)
        result = solve(deal, HARMONY, max_nodes=2_000)
        if result.result == "win" and result.actions <= 90:
            return seed, deal, [token for token in result.line if not token.endswith("*")]
    pytest.fail("no easy seed among 0..999")


def run(*args, input=None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    return result


def one_error_line(result):
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("klondike: error: ")
    return lines[0]


def dead_position(waste: str, foundations: str, hidden: bool = False) -> Position:
    """A position where nothing can ever move: the tops are Kc Kd Kh Ks Jc Jd Js and the other cards
    lie face down under them, six per pile (`??` when `hidden`)."""
    tops = "Kc Kd Kh Ks Jc Jd Js".split()
    used = {parse_card(c) for c in tops + waste.split()}
    for item in foundations.split():
        suit, _, count = item.partition("=")
        used.update("cdhs".index(suit) * 13 + v for v in range(int(count)))
    rest = [c for c in range(52) if c not in used]
    assert len(rest) == 42
    text = f"foundations: {foundations}\nstock: -\nwaste: {waste or '-'}\npass: 1\n"
    for pile, top in enumerate(tops):
        down = " ".join("[??]" if hidden else f"[{format_card(c)}]" for c in rest[6 * pile: 6 * pile + 6])
        text += f"{pile + 1}: {down} {top}\n"
    return from_text(text, allow_unknown=True)


# ----- every card known ----------------------------------------------------------------------------

def test_hints_along_a_winning_line_keep_the_deal_winnable(easy):
    _, deal, line = easy
    for index in range(len(line)):
        result = hint_lib.hint(deal, HARMONY, line[:index], **NODES)
        assert result.mode == "known" and result.best is not None
        assert result.best.outcome.won, (index, result.headline())
        game = hint_lib.replay_played(deal, HARMONY, line[:index])
        game.apply(result.best.action)
        assert solve(deal, HARMONY, start=game.position, max_nodes=200_000).result == "win", (index, result.best.token)


def test_hint_texts_and_ranking(easy):
    _, deal, easy_line = easy
    result = hint_lib.hint(deal, HARMONY, easy_line[:3], top=3, time_limit=None, max_nodes=30_000)
    assert 1 <= len(result.candidates) <= 3
    values = [c.outcome.value for c in result.candidates]
    assert values == sorted(values, reverse=True)
    assert result.best.describe().startswith("best score ") and "wins in" in result.best.describe()
    assert result.best.outcome.line[0] == result.best.token
    everything = hint_lib.hint(deal, HARMONY, easy_line[:3], top=None, time_limit=None, max_nodes=30_000)
    assert "stop" in [c.token for c in everything.candidates]  # stopping now is a candidate under scoring
    assert everything.candidates[-1].describe().startswith("stop now at ")
    classic = hint_lib.hint(Deal.from_seed(0), CLASSIC, ["Ad:7>F"], top=2, **NODES)
    assert "stop" not in [c.token for c in classic.candidates]
    assert all(c.describe().startswith(("wins in", "no win")) for c in classic.candidates)


def test_stopping_now_is_best_in_a_dead_position():
    result = hint_lib.hint_position(dead_position("5h", "c=1 d=1"), HARMONY, top=None, **NODES)
    assert result.mode == "known"
    assert [c.token for c in result.candidates] == ["stop", "R"]
    assert result.headline() == "stop: no win: best is to stop now at 100"
    sampled = hint_lib.hint_position(dead_position("5h", "c=1 d=1", hidden=True), HARMONY, samples=3, top=None,
                                     **NODES)
    assert sampled.mode == "sampled" and sampled.best.token == "stop"


@pytest.mark.parametrize("hidden", [False, True])
def test_no_legal_action_is_the_end_of_the_game(hidden, tmp_path):
    position = dead_position("", "c=1 d=1 h=1", hidden)
    for rules in (HARMONY, CLASSIC):
        result = hint_lib.hint_position(position, rules, samples=2, **NODES)
        assert result.over == "no legal actions" and result.headline().startswith("no legal actions: the game is over")
        assert [c.token for c in result.candidates] == (["stop"] if rules.scoring else [])
    path = tmp_path / "dead.txt"
    path.write_text(to_text(position), encoding="utf-8")
    result = run("hint", "--position", path, "--rules", "harmony", "--max-nodes", 1000)
    # a typed-in position starts with the clock at 0 and no points: the score is the stop bonus
    assert result.exit_code == 1 and "no legal actions: the game is over at 100" in result.stdout


def test_a_position_without_unknown_cards_gets_the_seed_hint():
    # the deal itself, typed in: the same path, the same answer (harmony: the same clock and points)
    typed = from_text(to_text(Position.initial(DEAL)), allow_unknown=True)
    seed_hint = hint_lib.hint(DEAL, HARMONY, (), top=3, **NODES)
    typed_hint = hint_lib.hint_position(typed, HARMONY, top=3, **NODES)
    assert typed_hint.mode == seed_hint.mode == "known"
    assert [c.to_json() for c in typed_hint.candidates] == [c.to_json() for c in seed_hint.candidates]
    # in the middle of a game (no points: the clock and the actions so far do not change the ranking)
    deal = Deal.from_seed(0)
    played = ["Ad:7>F", "3h:4>5", "D", "D"]
    middle = hint_lib.replay_played(deal, CLASSIC, played).position
    seed_hint = hint_lib.hint(deal, CLASSIC, played, top=4, **NODES)
    typed_hint = hint_lib.hint_position(from_text(to_text(middle), allow_unknown=True), CLASSIC, top=4, **NODES)
    assert [c.to_json() for c in typed_hint.candidates] == [c.to_json() for c in seed_hint.candidates]


# ----- some cards unknown ----------------------------------------------------------------------------

def test_sampled_hint_ranks_by_win_probability():
    hidden = hint_lib.visible_position(Position.initial(DEAL))
    assert hint_lib.unknown_count(hidden) == 21 + 24
    rules = CLASSIC.with_overrides(passes=None, foundation_to_tableau=True)
    first = hint_lib.hint_position(hidden, rules, samples=4, rng_seed=7, top=None, **NODES)
    again = hint_lib.hint_position(hidden, rules, samples=4, rng_seed=7, top=None, **NODES)
    assert first.mode == "sampled" and first.samples == 4
    assert [c.to_json() for c in first.candidates] == [c.to_json() for c in again.candidates]  # seeded
    for candidate in first.candidates:
        estimate = candidate.outcome
        low, high = estimate.interval
        assert estimate.samples == 4 and 0 <= estimate.wins + estimate.undecided <= 4
        assert low <= estimate.probability <= high
        assert candidate.describe().startswith("win probability ") and "4 samples" in candidate.describe()
    keys = [c.outcome.sort_key() for c in first.candidates]
    assert keys == sorted(keys, reverse=True)


def _estimate(verdicts: str) -> hint_lib.Estimate:
    """An Estimate judged in len(verdicts) samples: W won, L lost, U undecided."""
    estimate = hint_lib.Estimate()
    for sample, verdict in enumerate(verdicts):
        estimate.record(sample, {"W": "win", "L": "loss", "U": "unknown"}[verdict], 10)
    return estimate


def test_estimate_records_verdicts_per_sample():
    estimate = _estimate("WLUW")
    assert (estimate.samples, estimate.wins, estimate.undecided) == (4, 2, 1)
    assert estimate.won_in == {0: True, 1: False, 2: False, 3: True} and estimate.win_actions == [10, 10]
    # ranked by shares: a candidate judged in more samples is not favoured by its larger counts
    assert _estimate("WL").sort_key() > _estimate("WLLLWL").sort_key()


def test_undecided_samples_count_both_ways_in_the_interval():
    from solver.stats import wilson_interval

    assert _estimate("UUU").interval == (0.0, 1.0)  # nothing decided: nothing known
    assert "95% interval 0% to 100%, 3 samples, 3 undecided" in _estimate("UUU").describe()
    low, high = _estimate("WLU").interval
    assert low == wilson_interval(1, 3)[0] and high == wilson_interval(2, 3)[1]
    assert _estimate("LLL").interval == (0.0, wilson_interval(0, 3)[1])  # all decided: the plain interval
    assert "1 sample)" in _estimate("W").describe()
    scored = _estimate("W")
    scored.scores.append(97_350)
    assert scored.describe() == "mean score 97,350 (no interval from one sample, 1 sample, won in 1)"
    assert scored.to_json()["score_interval"] == [None, None]


def test_contenders_are_those_the_leader_has_not_clearly_beaten():
    leader = _estimate("WWWWWWWWWWWWLLLL")
    beaten = _estimate("LLLLLLLLWWWWLLLL")  # the leader wins 8 duels, loses none: 8 >= 2 * sqrt(8)
    close = _estimate("WWWWWWWWWWLLWLLL")  # 2 duels won, 1 lost: not clear yet
    twin = _estimate("WWWWWWWWWWWWLLLL")  # never told apart from the leader: more samples would not either
    assert hint_lib.contenders([beaten, leader, close, twin]) == [1, 2]
    assert hint_lib.contenders([leader]) == [0]


def test_close_candidates_get_more_samples_up_to_the_most():
    rules = CLASSIC.with_overrides(passes=None, foundation_to_tableau=True)
    deal = Deal.from_seed(1)
    game = Game(deal, rules)
    for token in [t for t in solve(deal, rules, max_nodes=200_000).line if not t.endswith("*")][:5]:
        game.play(token)  # a position where the first samples do not part the candidates
    hidden = hint_lib.visible_position(game.position)
    plain = hint_lib.hint_position(hidden, rules, samples=4, rng_seed=3, top=None, **NODES)
    more = hint_lib.hint_position(hidden, rules, samples=4, rng_seed=3, top=None, max_samples=12, **NODES)
    again = hint_lib.hint_position(hidden, rules, samples=4, rng_seed=3, top=None, max_samples=12, **NODES)
    assert [c.to_json() for c in more.candidates] == [c.to_json() for c in again.candidates]  # seeded
    assert plain.samples == 4 and 4 < more.samples <= 12
    counts = sorted(c.outcome.samples for c in more.candidates)
    assert counts[0] >= 4 and counts[-1] == more.samples
    for candidate in more.candidates:  # judged in the first 4 deals, then in some of the others
        assert set(range(4)) <= set(candidate.outcome.won_in) <= set(range(more.samples))
    # the first 4 samples are the same deals as without the extra samples
    first_four = {c.token: {s: w for s, w in c.outcome.won_in.items() if s < 4} for c in more.candidates}
    assert first_four == {c.token: c.outcome.won_in for c in plain.candidates}
    with pytest.raises(KlondikeError, match="fewer than the samples"):
        hint_lib.hint_position(hidden, rules, samples=4, max_samples=3, **NODES)


def test_sampled_hint_under_scoring_gives_mean_scores():
    hidden = hint_lib.visible_position(Position.initial(DEAL))
    result = hint_lib.hint_position(hidden, HARMONY, samples=3, rng_seed=1, top=None, **NODES)
    assert result.samples == 3 and "stop" in [c.token for c in result.candidates]
    moves = [c for c in result.candidates if c.token != "stop"]
    assert all(c.describe().startswith("mean score ") and len(c.outcome.scores) == 3 for c in moves)
    means = [c.outcome.mean_score()[0] for c in result.candidates]
    assert means == sorted(means, reverse=True)


def test_honest_hint_never_looks_at_hidden_cards():
    # two deals that differ only by two face-down cards and two stock cards: the same honest hint
    cards = list(DEAL.cards)
    cards[6], cards[12] = cards[12], cards[6]  # pile 7, rows 0 and 1: both face down
    cards[40], cards[50] = cards[50], cards[40]  # two stock cards
    other = Deal(tuple(cards))
    games = [Game(DEAL, CLASSIC), Game(other, CLASSIC)]
    assert hint_lib.visible_position(games[0].position).key() == hint_lib.visible_position(games[1].position).key()
    hints = [hint_lib.honest_hint(g, samples=3, rng_seed=5, top=None, **NODES) for g in games]
    assert [c.to_json() for c in hints[0].candidates] == [c.to_json() for c in hints[1].candidates]


def test_the_observer_remembers_drawn_stock_cards():
    rules = CLASSIC.with_overrides(draw=3, passes=None)
    game = Game(DEAL, rules)
    observer = hint_lib.Observer(game.position)
    for _ in range(8):
        game.play("D")
        observer.look(game.position)
    game.play("R")
    seen = hint_lib.visible_position(game.position, observer.seen)
    assert seen.stock == game.position.stock  # every stock card has been drawn once: all known now
    assert hint_lib.visible_position(game.position).stock == [UNKNOWN] * 24


# ----- errors --------------------------------------------------------------------------------------------

def test_a_bad_played_token_names_the_token_and_index():
    with pytest.raises(KlondikeError, match=r"'Kd:1>2' at index 1 .*Kd is not in pile 1"):
        hint_lib.hint(DEAL, CLASSIC, ["D", "Kd:1>2"], **NODES)
    with pytest.raises(PositionError):
        hint_lib.hint_position(Position([[0]] * 7, [0] * 7, []), CLASSIC)


@pytest.mark.parametrize("args, message", [
    (["hint", SEED, "--played", "D Zz:1>2"], "'Zz:1>2' at index 1"),
    (["hint", SEED, "--played", "D Kd:1>2"], "'Kd:1>2' at index 1"),
    (["hint", SEED, "--played", "D", "--played-file", "x.txt"], "not both"),
    (["hint", "--position", "missing.txt"], "cannot read position file"),
    (["hint", "--position", "POSITION", SEED], "not both"),
    (["hint", "--position", "POSITION", "--played", "D"], "go with a deal"),
    (["hint", "--position", "POSITION", "--source", "pysol"], "says where a SEED's deal comes from"),
    (["play", "abc"], "bad seed"),
])
def test_cli_errors_are_one_line_and_exit_2(args, message, tmp_path):
    path = tmp_path / "position.txt"
    path.write_text(to_text(Position.initial(DEAL)), encoding="utf-8")
    result = run(*[str(path) if a == "POSITION" else a for a in args])
    assert message in one_error_line(result)


@pytest.mark.parametrize("change, message", [
    (lambda text: text.replace("1: As", "1: -"), "52 cards"),                # a card missing
    (lambda text: text.replace("1: As", "1: 2c"), "duplicate card 2c"),      # a card twice
    (lambda text: text.replace("1: As", "1: As [??]"), "face-down card above a face-up"),  # impossible layouts
    (lambda text: text.replace("1: As", "1: -").replace("2: [??] 2c", "2: [??] 2c As"), "As cannot lie on 2c"),
    (lambda text: text.replace("1: As", "1: -").replace("waste: -", "waste: ??"), "may be unknown"),  # face up
])
def test_cli_rejects_impossible_positions(change, message, tmp_path):
    text = to_text(hint_lib.visible_position(Position.initial(DEAL)))
    path = tmp_path / "position.txt"
    path.write_text(change(text), encoding="utf-8")
    assert message in one_error_line(run("hint", "--position", path, "--samples", 1, "--max-nodes", 1000))


@pytest.mark.parametrize("change, message", [
    (lambda data: data.pop("tableau"), "lacks the field(s): tableau"),
    (lambda data: data.update(foundations={"c": 0}), '"foundations" must be'),
    (lambda data: data.update(foundations={"c": True, "d": 0, "h": 0, "s": 0}), '"foundations" must be'),
    (lambda data: data.update(tableau=[1, 2, 3, 4, 5, 6, 7]), 'pile 1 must be {"face_down"'),
    (lambda data: data.update(stock="Ah"), '"stock" must be a list of card codes'),
    (lambda data: data["tableau"][2].update(face_up=[3]), "pile 3's \"face_up\" must be a list of card codes"),
    (lambda data: data.update({"pass": 1.5}), '"pass" must be a whole number'),
    (lambda data: data.update({"pass": True}), '"pass" must be a whole number'),
    (lambda data: data.update({"pass": 2}), "pass 2 cannot occur under classic"),  # classic has one pass
])
def test_json_positions_name_what_is_wrong(change, message, tmp_path):
    from solver.positions import to_json

    data = to_json(Position.initial(DEAL))
    change(data)
    path = tmp_path / "position.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert message in one_error_line(run("hint", "--position", path, "--max-nodes", 1000))


def test_a_pass_number_within_the_rules_is_accepted(tmp_path):
    from solver.positions import to_json

    data = to_json(Position.initial(DEAL))
    data["pass"] = 3
    path = tmp_path / "position.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run("hint", "--position", path, "--rules", "classic-draw3", "--max-nodes", 1000, "--json")
    assert result.exit_code in (0, 1), result.stderr  # a hint, or none in a lost game
    assert json.loads(result.stdout)["position"]["pass"] == 3


@pytest.mark.parametrize("args, message", [
    ([SEED, "--samples", "5"], "--samples would change nothing: every card is known"),
    ([SEED, "--rng-seed", "3", "--commitments"], "--rng-seed and --commitments would change nothing"),
    (["--position", "HIDDEN", "--rules", "harmony", "--max-samples", "9"], "harmony scores points"),
])
def test_sampling_options_where_nothing_is_sampled_are_refused(args, message, tmp_path):
    path = tmp_path / "position.txt"
    path.write_text(to_text(hint_lib.visible_position(Position.initial(DEAL))), encoding="utf-8")
    result = run("hint", *[str(path) if a == "HIDDEN" else a for a in args], "--max-nodes", 1000)
    assert result.exit_code == 2
    assert message in one_error_line(result)


# ----- the commands -------------------------------------------------------------------------------------

def test_cli_hint_text_and_json(easy, tmp_path):
    easy_seed, deal, easy_line = easy
    result = run("hint", easy_seed, "--rules", "harmony", "--played", " ".join(easy_line[:2]), "--top", 2,
                 "--max-nodes", 10_000)
    assert result.exit_code == 0, result.output
    assert f"seed {easy_seed} (native)" in result.stdout and "every card known" in result.stdout
    assert "hint: " in result.stdout and "the 2 best candidates:" in result.stdout
    path = tmp_path / "played.txt"
    path.write_text(json.dumps(easy_line[:2]), encoding="utf-8")
    data = json.loads(run("hint", easy_seed, "--rules", "harmony", "--played-file", path, "--max-nodes", 10_000,
                          "--json").stdout)
    assert data["mode"] == "known" and data["actions_played"] == 2 and data["best"] == data["candidates"][0]["action"]
    game = hint_lib.replay_played(deal, HARMONY, easy_line[:2])
    assert data["best"] in [a.token for a in game.legal_actions()]
    # over: after the whole winning line there is nothing to hint (exit 1)
    done = run("hint", easy_seed, "--rules", "harmony", "--played", " ".join(easy_line), "--max-nodes", 1000)
    assert done.exit_code == 1 and "the game is won" in done.stdout


def test_cli_hint_position_with_unknown_cards(tmp_path):
    path = tmp_path / "position.txt"
    path.write_text(to_text(hint_lib.visible_position(Position.initial(DEAL))), encoding="utf-8")
    result = run("hint", "--position", path, "--samples", 3, "--rng-seed", 2, "--max-nodes", 20_000, "--top", 2,
                 "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["mode"] == "sampled" and data["samples"] == 3 and data["unknown_cards"] == 45
    assert data["candidates"][0]["outcome"].startswith("win probability")
    text = run("hint", "--position", path, "--samples", 3, "--rng-seed", 2, "--max-nodes", 20_000).stdout
    assert "45 cards unknown: 3 sampled deals (rng seed 2)" in text
    more = run("hint", "--position", path, "--samples", 3, "--max-samples", 6, "--max-nodes", 20_000, "--json")
    assert more.exit_code == 0, more.output
    assert 3 <= json.loads(more.stdout)["samples"] <= 6
    fewer = run("hint", "--position", path, "--samples", 3, "--max-samples", 2)
    assert fewer.exit_code == 2 and "the most samples cannot be fewer than the samples" in fewer.output
    assert "Traceback" not in fewer.output


def test_play_through_stdin_wins_the_easy_seed(easy):
    easy_seed, deal, easy_line = easy
    menu = [a.token for a in Game(deal, HARMONY).legal_actions()]
    number = str(menu.index(easy_line[0]) + 1)  # the first action is typed by its number in the menu
    script = ["h", number, "u", "Zz:1>2", "Kd:1>2", "99", "?", number] + easy_line[1:] + ["q"]
    result = run("play", easy_seed, "--rules", "harmony", "--samples", 2, "--max-nodes", 5_000,
                 input="\n".join(script) + "\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "hint (from what you have seen): " in out and "mean score" in out
    assert "undone (-1,000 points)" in out
    assert "not played: bad token 'Zz:1>2'" in out and "not played: Kd is not in pile 1" in out
    assert "not played: no action number 99" in out
    assert "game over: won!" in out and "foundations 52/52" in out
    assert "[??]" in out and f"[{format_card(deal.tableau[1][0])}]" not in out  # face-down cards are hidden
    # the score counts the undo: 1,000 below the line's own score
    line_score = hint_lib.replay_played(deal, HARMONY, easy_line).score().total
    game_over = next(line for line in out.splitlines() if line.startswith("game over: "))
    assert game_over.endswith(f"score {line_score - 1000:,}")


def test_play_peek_and_end_of_input():
    result = run("play", SEED, "--peek", "--max-nodes", 5_000, input="h\nD\n")
    assert result.exit_code == 1  # input ended before a win
    assert "hint (every card known): " in result.stdout and "[9h]" in result.stdout
    assert "game over: stopped" in result.stdout


def test_play_takes_odd_numbers_and_huge_lines_as_bad_actions():
    script = ["\u00b2", "\u2460", "1" * 5000, "Z" * 5000, "q"]  # superscript two, circled one: digits to isdigit()
    result = run("play", SEED, "--max-nodes", 5_000, input="\n".join(script) + "\n")
    assert result.exit_code == 1, result.output  # quit: the game went on past every bad line
    assert result.stdout.count("not played: ") == 4 and "no action number 1111" in result.stdout
    assert "(5,000 characters)" in result.stdout and "Z" * 100 not in result.stdout


def test_play_ends_when_a_scored_games_time_is_up():
    result = run("play", SEED, "--rules", "harmony", "--seconds-per-action", 150, "--max-nodes", 5_000,
                 input="D\nD\nD\n")
    assert "game over: time is up" in result.stdout and "clock 300/300 s" in result.stdout
    assert result.stdout.count("played D") == 2  # the third D came after the end
    unscored = run("play", SEED, "--max-nodes", 5_000, input="D\n")
    assert "clock 1 s" in unscored.stdout and "/300" not in unscored.stdout  # no time limit without scoring


def test_play_peek_refuses_the_sampling_options():
    result = run("play", SEED, "--peek", "--samples", 4, input="q\n")
    assert "--samples would change nothing: with --peek" in one_error_line(result)


def test_t_interval_of_a_mean():
    assert hint_lib.t_quantile_975(1) == 12.706 and hint_lib.t_quantile_975(30) == 2.042
    assert abs(hint_lib.t_quantile_975(40) - 2.021) < 1e-3 and abs(hint_lib.t_quantile_975(120) - 1.980) < 1e-3
    mean, low, high = hint_lib.mean_interval([1, 2, 3])
    assert mean == 2 and abs(high - 2 - 4.303 / 3 ** 0.5) < 1e-9 and abs(low + high - 4) < 1e-9
    assert hint_lib.mean_interval([5]) == (5, None, None)  # one sample: no spread, no interval
