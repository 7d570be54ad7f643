"""The optimal-line benchmark's speed figure against pyksolve (`benchmarks/optimal.py`), on made-up deals."""

from __future__ import annotations

import math

import pytest

from benchmarks.optimal import OurDeal, PeerDeal, compare, print_peer, speed


def ours(seed: int, seconds: float, optimal: bool = True, won: bool = True) -> OurDeal:
    return OurDeal(seed, won, optimal, 100 if won else 0, None, 100 if optimal else 90, None, seconds, 1000, None)


def theirs(seed: int, seconds: float, status: str = "SolvedMinimal", checked: str | None = "ok") -> PeerDeal:
    return PeerDeal(seed, status, seconds, 100 if status.startswith("Solved") else None, 120, checked)


def test_speed_counts_only_the_wins_both_prove():
    our_deals = [ours(1, 1.0), ours(2, 2.0), ours(3, 1.0), ours(4, 1.0, optimal=False), ours(5, 0.5, won=False),
                 ours(6, 1.0), ours(7, 1.0)]
    peer_deals = [theirs(1, 4.0), theirs(2, 1.0), theirs(3, 20.0), theirs(4, 50.0), theirs(5, 0.1, "Impossible"),
                  theirs(6, 9.0, "SolvedMayNotBeMinimal"), theirs(7, 30.0, checked="replays but does not win")]
    figures = speed(our_deals, peer_deals)
    assert figures["seeds"] == [1, 2, 3]  # 4 not proved by us, 5 a loss, 6 not minimal, 7 a bad line
    assert figures["count"] == 3
    assert figures["median"] == pytest.approx(4.0)
    assert figures["geometric_mean"] == pytest.approx((4.0 * 0.5 * 20.0) ** (1 / 3))
    assert (figures["min"], figures["max"]) == (pytest.approx(0.5), pytest.approx(20.0))
    assert figures["at_target"] == 1 and figures["target"] == 10.0
    assert (figures["ours_seconds"], figures["pyksolve_seconds"]) == (pytest.approx(4.0), pytest.approx(25.0))


def test_speed_without_a_deal_both_prove_is_empty_and_not_printed(capsys):
    our_deals, peer_deals = [ours(1, 1.0, optimal=False)], [theirs(1, 2.0)]
    comparison = compare(our_deals, peer_deals)
    assert comparison["speed"]["count"] == 0 and math.isnan(comparison["speed"]["median"])
    print_peer(our_deals, peer_deals, comparison, per_deal=False)
    assert "speed on the" not in capsys.readouterr().out


def test_the_speed_line_is_printed(capsys):
    our_deals, peer_deals = [ours(1, 1.0), ours(2, 1.0)], [theirs(1, 3.0), theirs(2, 12.0)]
    comparison = compare(our_deals, peer_deals)
    print_peer(our_deals, peer_deals, comparison, per_deal=False)
    out = capsys.readouterr().out
    assert "speed on the 2 wins both prove (its time / ours): median 7.50x, geometric mean 6.00x" in out
    assert "range 3.00x-12.00x; at least 10x on 1" in out
