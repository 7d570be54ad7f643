"""Deals (RULES.md sections 2 and 3): native seeds, the dealing layout, explicit deals."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ALL_CODES, DEAL0
from solver.deal import Deal, piles_to_deal_order
from solver.errors import DealError, KlondikeError
from solver.game import Game, Position
from solver.options import load_deal, parse_seed
from solver.rules import PRESETS

M = (1 << 64) - 1


def ref_splitmix64(state):
    """An independent transcription of the RULES.md 3 pseudo-code."""
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return state, z ^ (z >> 31)


def ref_deck(seed):
    deck = list(range(52))
    state = seed
    for i in range(51, 0, -1):
        state, x = ref_splitmix64(state)
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_reference_splitmix_known_outputs():
    # The published splitmix64 stream from state 0 (Vigna's reference implementation).
    state, outputs = 0, []
    for _ in range(3):
        state, x = ref_splitmix64(state)
        outputs.append(x)
    assert outputs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_seed_0_vector():
    assert Deal.from_seed(0).codes[:10] == "8s Jh 9c 2s 2d Qd 6s Tc 3d Ac".split()


@pytest.mark.parametrize("seed", [0, 1, 42, 2**64 - 1, 123456789, 2**63])
def test_native_seeds_match_independent_shuffle(seed):
    deal = Deal.from_seed(seed)
    assert list(deal.cards) == ref_deck(seed)
    assert deal.codes == [ALL_CODES[c] for c in ref_deck(seed)]
    assert deal.seed == seed and deal.source == "native"


def test_seeds_give_different_deals_and_are_repeatable():
    decks = {tuple(Deal.from_seed(s).cards) for s in range(20)}
    assert len(decks) == 20
    assert Deal.from_seed(7) == Deal.from_seed(7)


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, 1.5, 1.0, "3", None])
def test_bad_seeds_rejected(seed):
    with pytest.raises(DealError):
        Deal.from_seed(seed)


def _dealt_index(row, pile):
    """Deck position of the card of `row` (0-based) in `pile` (1-based) when dealing row by row."""
    return sum(7 - r for r in range(row)) + (pile - 1 - row)


@pytest.mark.parametrize("seed", [0, 42])
def test_dealing_layout(seed):
    deal = Deal.from_seed(seed)
    d = list(deal.cards)
    piles = deal.tableau
    assert [len(p) for p in piles] == [1, 2, 3, 4, 5, 6, 7]
    assert piles[0] == [d[0]]
    assert piles[1] == [d[1], d[7]]
    assert piles[6] == [d[6], d[12], d[17], d[21], d[24], d[26], d[27]]
    assert piles[6][-1] == d[27]
    for p in range(1, 8):
        assert piles[p - 1] == [d[_dealt_index(r, p)] for r in range(p)]
    assert deal.stock == d[28:]
    assert piles_to_deal_order(piles, deal.stock) == d
    position = Position.initial(deal)
    assert position.face_down == [0, 1, 2, 3, 4, 5, 6]
    assert position.waste == [] and position.foundations == [0, 0, 0, 0] and position.pass_number == 1
    assert [position.pile_top(p) for p in range(1, 8)] == [d[_dealt_index(p - 1, p)] for p in range(1, 8)]


def test_stock_first_card_drawn_first():
    d = list(DEAL0.cards)
    game = Game(DEAL0, PRESETS["classic"])
    game.play("D")
    assert game.position.waste == [d[28]]
    game.play("D")
    assert game.position.waste == [d[28], d[29]]
    game3 = Game(DEAL0, PRESETS["classic-draw3"])
    game3.play("D")
    assert game3.position.waste == d[28:31] and game3.position.waste_top == d[30]


def test_explicit_deal_round_trip():
    codes = DEAL0.codes
    assert Deal.from_codes(" ".join(codes)).cards == DEAL0.cards
    assert Deal.from_codes(",".join(codes)).cards == DEAL0.cards
    assert Deal.from_codes("\n".join(c.replace("T", "10").upper() for c in codes)).cards == DEAL0.cards
    explicit = Deal.from_codes(" ".join(codes))
    assert explicit.seed is None and explicit.source == "explicit"


@pytest.mark.parametrize("count", [0, 51, 53])
def test_explicit_deal_wrong_count(count):
    codes = (ALL_CODES + ["Ah"])[:count]
    with pytest.raises(DealError, match=f"52 cards, got {count}"):
        Deal.from_codes(" ".join(codes))


def test_explicit_deal_duplicate():
    codes = list(ALL_CODES)
    codes[5] = "Qs"  # Qs twice, 6c missing
    with pytest.raises(DealError, match="duplicate.*Qs"):
        Deal.from_codes(" ".join(codes))


def test_explicit_deal_unknown_card():
    codes = list(ALL_CODES)
    codes[10] = "Xq"
    with pytest.raises(DealError, match="Xq"):
        Deal.from_codes(" ".join(codes))


def test_deal_errors_are_klondike_errors():
    with pytest.raises(KlondikeError):
        Deal(tuple(range(51)))
    with pytest.raises(DealError):
        Deal(tuple(range(51)) + (52,))


def test_deal_file(tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text("\n".join(DEAL0.codes) + "\n", encoding="utf-8")
    assert Deal.from_file(path).cards == DEAL0.cards
    with pytest.raises(DealError, match="cannot read"):
        Deal.from_file(tmp_path / "missing.txt")


def test_to_json():
    data = DEAL0.to_json()
    assert data["seed"] == 0 and data["source"] == "native"
    assert data["deal"] == DEAL0.codes
    assert data["tableau"][1] == [DEAL0.codes[1], DEAL0.codes[7]]
    assert data["stock"] == DEAL0.codes[28:]


@pytest.mark.parametrize("text, seed", [("42", 42), (" 7 ", 7), ("0", 0), ("0x2a", 42), ("1_000", 1000),
                                        ("007", 7), (str(2**64 - 1), 2**64 - 1)])
def test_parse_seed(text, seed):
    assert parse_seed(text) == seed


@pytest.mark.parametrize("text", ["-1", str(10**20 + 1), "abc", "1.5", "", "2**64", "0x"])
def test_parse_seed_rejects(text):
    with pytest.raises(DealError):
        parse_seed(text)


def test_each_source_checks_its_own_seed_range():
    # PySol FC game numbers go past 2^64, native seeds stop below it, Klondike-Solver's at 2^31 - 1
    assert parse_seed(str(10**20)) == 10**20
    with pytest.raises(DealError, match="2\\^64"):
        load_deal(str(2**64))
    with pytest.raises(DealError, match="2147483647"):
        load_deal(str(2**31), source="ksolve")


def test_load_deal_needs_exactly_one_source(tmp_path):
    assert load_deal("0").cards == DEAL0.cards
    assert load_deal(None, deal_codes=" ".join(DEAL0.codes)).cards == DEAL0.cards
    with pytest.raises(DealError, match="exactly one"):
        load_deal(None)
    with pytest.raises(DealError, match="exactly one"):
        load_deal("0", deal_codes=" ".join(DEAL0.codes))
    with pytest.raises(DealError, match="cannot read"):
        load_deal(None, deal_file=str(tmp_path / "nope"))
    with pytest.raises(DealError, match="source"):
        load_deal("0", source="bogus")


@settings(max_examples=60, deadline=None, database=None)
@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_any_seed_matches_the_independent_shuffle(seed):
    deal = Deal.from_seed(seed)
    assert list(deal.cards) == ref_deck(seed)
    assert sorted(deal.cards) == list(range(52))
