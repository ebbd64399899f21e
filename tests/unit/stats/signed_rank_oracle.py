#!/usr/bin/python3
"""Writes scipy's answers for the paired statistics (the Wilcoxon signed-rank test, the
Hodges-Lehmann interval of the differences, the pairs a level needs, the detectable change) on
generated difference vectors, as JSON, for signed_rank_scipy_test to compare against.

Usage: signed_rank_oracle.py OUTPUT.json

Run with Debian's /usr/bin/python3 (python3-scipy). Deterministic: one seeded generator.

The interval is found by inverting the test, not from order statistics: delta is in the
interval when the signed-rank test of d - delta does not reject at 1 - confidence, and the
endpoints are where that verdict changes as delta moves across the Walsh averages.
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import stats
from scipy.stats._hypotests import _get_wilcoxon_distr  # scipy's exact null pmf of T+

rng = np.random.default_rng(20261123)

EXACT_MAX = 50  # at most this many non-zero differences without ties: the exact distribution

warnings.simplefilter("ignore")  # "sample size too small for normal approximation" and the like


def make_differences(n, shape, shift):
    """Within-pair differences of the kinds a paired gate sees."""
    if shape == "normal":  # log-ratios of timings with 3% noise per pair
        return rng.normal(shift, 0.03, size=n)
    if shape == "heavy":  # an occasional disturbed round
        return shift + 0.02 * rng.standard_t(df=2, size=n)
    if shape == "zeros":  # continuous, but some pairs measured the same
        d = rng.normal(shift, 0.03, size=n)
        d[rng.random(n) < 0.2] = 0.0
        return d
    if shape == "rounded":  # log-ratios of timer-rounded timings: ties, zeros, +-x pairs
        base = np.round(rng.normal(100, 2, size=n))
        head = np.round(rng.normal(100 * math.exp(shift), 2, size=n))
        return np.log(head / base)
    if shape == "mirrored":  # equal magnitudes of both signs: ties among |d| only
        return rng.choice([-2.0, -1.0, 1.0, 2.0, 3.0], size=n) * 0.01 + (0.01 if shift else 0.0)
    return np.round(rng.normal(shift * 100, 2, size=n))  # "integers": many ties and zeros


def size():
    r = rng.random()
    if r < 0.15:
        return int(rng.integers(1, 8))
    if r < 0.75:
        return int(rng.integers(8, 51))
    return int(rng.integers(51, 81))


def null_cdf(n):
    return np.cumsum(_get_wilcoxon_distr(n))


def two_sided_p_of_every_t(n):
    """The two-sided p of T+ = 0 .. n(n+1)/2 for n untied differences without zeros: scipy's
    exact distribution up to EXACT_MAX (as scipy.stats.wilcoxon sums it), else its normal
    approximation with continuity correction (method="approx", correction=True)."""
    total = n * (n + 1) // 2
    t = np.arange(total + 1)
    if n <= EXACT_MAX:
        pmf = _get_wilcoxon_distr(n)
        at_most = np.cumsum(pmf)
        at_least = np.cumsum(pmf[::-1])[::-1]
        return np.minimum(1.0, 2 * np.minimum(at_most, at_least))
    distance = np.abs(t - total / 2)
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    return np.where(distance <= 0.5, 1.0, 2 * stats.norm.sf((distance - 0.5) / sd))


def inverted_interval(d, confidence):
    """The Hodges-Lehmann interval as the set of shifts the signed-rank test keeps.

    For delta strictly between Walsh averages, T+ of d - delta is the number of Walsh averages
    above delta (Tukey). When the values of d are distinct, the p of d - delta is asked of
    scipy.stats.wilcoxon itself (no ties and no zeros there); with ties in d it comes from that
    count and scipy's exact distribution (or the normal one above 50), since a tie in d is a tie
    in |d - delta| for every delta and the interval assumes none.
    """
    n = len(d)
    alpha = 1 - confidence
    walsh = np.sort(np.add.outer(d, d)[np.triu_indices(n)] / 2)
    total = len(walsh)
    u = np.unique(walsh)
    distinct = len(np.unique(d)) == n
    method = "exact" if n <= EXACT_MAX else "approx"
    p_of_t = two_sided_p_of_every_t(n)

    # Probe g = -1 lies below every Walsh average, g = 0 .. len(u) - 2 between u[g] and u[g+1],
    # g = len(u) - 1 above them all.
    def probe(g):
        if g < 0:
            return u[0] - max(1.0, abs(u[0]))
        if g >= len(u) - 1:
            return u[-1] + max(1.0, abs(u[-1]))
        return (u[g] + u[g + 1]) / 2

    def count_above(g):
        """T+ for a shift in gap g: the Walsh averages above it, counted from u[g] itself (a
        midpoint of two averages one ulp apart rounds onto one of them)."""
        return total if g < 0 else total - int(np.searchsorted(walsh, u[g], side="right"))

    def inside(g):
        delta = probe(g)
        return (g < 0 or u[g] < delta) and (g >= len(u) - 1 or delta < u[g + 1])

    verdicts = {}

    def verdict(g):
        if g not in verdicts:
            t = count_above(g)
            if distinct and inside(g):
                shifted = d - probe(g)
                assert len(np.unique(np.abs(shifted))) == n and (shifted != 0).all()
                p = stats.wilcoxon(shifted, method=method, correction=True).pvalue
            else:
                p = p_of_t[t]
            verdicts[g] = (p <= alpha, t)
        return verdicts[g]

    def first(predicate, lo, hi):
        """The smallest g in [lo, hi] with predicate(g), predicate monotone and true at hi."""
        while lo < hi:
            mid = (lo + hi) // 2
            if predicate(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    last = len(u) - 1
    # Below the interval the test rejects because T+ is too large; the first probe it keeps is
    # the gap right of the lower endpoint.
    def kept_from_below(g):
        rejected, t = verdict(g)
        return not (rejected and t > total / 2)

    def rejected_from_above(g):
        rejected, t = verdict(g)
        return rejected and t < total / 2

    low_gap = first(kept_from_below, -1, last)
    high_gap = first(rejected_from_above, -1, last + 1) - 1  # the last gap kept
    high_gap = min(high_gap, last)
    if distinct and inside(low_gap):  # the count is what scipy ranks: T+ of d - delta
        assert stats.wilcoxon(d - probe(low_gap), method="approx",
                              alternative="greater").statistic == count_above(low_gap)
    low = u[max(low_gap, 0)]  # kept below every Walsh average: the widest interval there is
    high = u[min(high_gap + 1, last)]

    # What the interval covers under the null hypothesis: the probability that T+ of
    # d - true shift is one the test keeps, leaving out T+ = 0 and T+ = M, which put the true
    # shift beyond every Walsh average and so outside any interval of them.
    kept = p_of_t[1:total] > alpha  # for T+ = 1 .. M-1
    if n <= EXACT_MAX:
        coverage = float(_get_wilcoxon_distr(n)[1:total][kept].sum())
    else:  # the normal approximation, with continuity correction, of P(T+ kept)
        sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        smallest = 1 + int(np.argmax(kept))
        coverage = float(1 - 2 * stats.norm.cdf((smallest - 0.5 - total / 2) / sd))
    return {"estimate": float(np.median(walsh)), "low": float(low), "high": float(high),
            "coverage": coverage}


vectors = []
shapes = ["normal", "heavy", "zeros", "rounded", "mirrored", "integers"]
for index in range(360):
    n = size()
    shape = shapes[index % len(shapes)]
    shift = float(rng.choice([0.0, 0.0, 0.02, -0.05]))
    d = make_differences(n, shape, shift)
    nonzero = d[d != 0]
    ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
    entry = {"d": d.tolist(), "shape": shape, "used": int(len(nonzero)), "ties": bool(ties)}
    if len(nonzero) > 0:
        # scipy 1.10 falls back to the approximation when there are zeros, so the exact test is
        # asked of the non-zero differences, which is what zero_method="wilcox" tests.
        exact = not ties and len(nonzero) <= EXACT_MAX
        if exact:
            r = stats.wilcoxon(nonzero, method="exact")
        else:
            r = stats.wilcoxon(d, zero_method="wilcox", correction=True, method="approx")
        greater = stats.wilcoxon(d, zero_method="wilcox", method="approx", alternative="greater")
        entry["wilcoxon"] = {"statistic": float(greater.statistic), "p": float(r.pvalue),
                             "exact": bool(exact)}
    entry["hl_95"] = inverted_interval(d, 0.95)
    entry["hl_90"] = inverted_interval(d, 0.90)
    vectors.append(entry)

null_cdfs = [{"n": n, "cdf": null_cdf(n).tolist()} for n in [0, 1, 2, 3, 5, 10, 20, 37, 50]]

# The smallest p: the exact test on n distinct positive differences, as scipy computes it.
def smallest_p(n):
    return float(stats.wilcoxon(np.arange(1.0, n + 1), method="exact").pvalue)


attainable = [{"n": n, "p": smallest_p(n)} for n in range(1, EXACT_MAX + 1)]
# What the normal approximation gives on 51 positive differences, where the exact test stops.
attainable_approx_51 = float(
    stats.wilcoxon(np.arange(1.0, 52), method="approx", correction=True).pvalue)

reach = []
for level in [0.2, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001, 0.05 / 25, 0.05 / 100, 1e-4, 1e-6,
              1e-9]:
    n = 1
    while smallest_p(n) > level:
        n += 1
    reach.append({"level": level, "pairs": n})


def paired_detectable(n, sigma, level, trials=4000):
    df = n - 1
    quantiles = stats.t.ppf(1 - level / 2, df) + stats.t.ppf(0.8, df)
    delta = quantiles * sigma / math.sqrt(n) / math.sqrt(3 / math.pi)
    # Power of the signed-rank test at that change, with normal noise on the log-ratios (no
    # ties, no zeros). scipy 1.10's wilcoxon runs row by row, so the trials are ranked at once
    # and their p read from scipy's exact distribution (its normal one above 50 pairs).
    d = rng.normal(delta, sigma, size=(trials, n))
    ranks = stats.rankdata(np.abs(d), axis=1)
    t = np.sum(np.where(d > 0, ranks, 0), axis=1).astype(int)
    p = two_sided_p_of_every_t(n)[t]
    spot = stats.wilcoxon(d[0], method="exact" if n <= EXACT_MAX else "approx", correction=True)
    assert abs(spot.pvalue - p[0]) <= 1e-12 * p[0] + 1e-15
    return {"n": n, "sigma": sigma, "level": level, "change": math.expm1(delta),
            "simulated_power": float(np.mean(p <= level))}


mdc = [paired_detectable(n, s, a) for (n, s, a) in
       [(10, 0.03, 0.05), (20, 0.02, 0.05), (30, 0.05, 0.01), (15, 0.01, 0.01),
        (40, 0.03, 0.002), (60, 0.02, 0.05)]]

json.dump({"vectors": vectors, "null_cdf": null_cdfs, "attainable": attainable,
           "attainable_approx_51": attainable_approx_51, "reach": reach, "mdc": mdc},
          open(sys.argv[1], "w"))
