#!/usr/bin/python3
"""Writes the answers of scipy.stats (and of numpy where scipy has no such function) for
generated sample pairs, as JSON, for stats_scipy_test to compare against.

Usage: scipy_oracle.py OUTPUT.json

Run with Debian's /usr/bin/python3 (python3-scipy). Deterministic: one seeded generator.
"""
import json
import math
import sys

import numpy as np
from scipy import stats
from scipy.stats._mannwhitneyu import _mwu_state  # scipy's own exact null distribution of U

rng = np.random.default_rng(20261122)

EXACT_MAX = 50  # both sizes at most this: the exact distribution decides the HL interval


def hl_interval(x, y, confidence):
    """Hodges-Lehmann shift of y against x and its distribution-free interval, from the sorted
    pairwise differences (Hollander & Wolfe 4.3)."""
    m, n = len(x), len(y)
    diffs = np.sort(np.subtract.outer(y, x).ravel())
    pairs = m * n
    tail = (1 - confidence) / 2
    if m <= EXACT_MAX and n <= EXACT_MAX:
        pmf = _mwu_state.pmf(np.arange(0, pairs // 2 + 2), m, n)
        cdf = np.cumsum(pmf)
        k = 1
        while k < (pairs + 1) // 2 and cdf[k] <= tail:
            k += 1
        coverage = 1 - 2 * cdf[k - 1]
    else:
        sigma = math.sqrt(m * n * (m + n + 1) / 12)
        z = stats.norm.ppf(tail)
        k = int(math.floor(m * n / 2 - 0.5 + z * sigma)) + 1
        k = max(1, min(k, (pairs + 1) // 2))
        coverage = 1 - 2 * stats.norm.cdf((k - 0.5 - m * n / 2) / sigma)
    return {
        "estimate": float(np.median(diffs)),
        "low": float(diffs[k - 1]),
        "high": float(diffs[pairs - k]),
        "k": int(k),
        "coverage": float(coverage),
    }


def make_sample(size, shape):
    if shape == "lognormal":
        return rng.lognormal(mean=3.0, sigma=0.3, size=size)
    if shape == "rounded":  # timer resolution: many ties
        return np.round(rng.normal(100, 3, size=size))
    if shape == "coarse":  # very few distinct values
        return rng.integers(1, 5, size=size).astype(float)
    if shape == "bimodal":
        modes = rng.random(size) < 0.3
        return np.where(modes, 110.0, 100.0) + rng.normal(0, 1, size=size)
    if shape == "two-modes":  # a fifth of the values 10% slower, 5% CV gaussian noise on all
        modes = rng.random(size) < 0.2
        return np.where(modes, 110.0, 100.0) * (1 + 0.05 * rng.normal(size=size))
    return 50 + rng.standard_t(df=2, size=size)  # heavy tails


def sizes():
    r = rng.random()
    if r < 0.75:
        return int(rng.integers(1, 31)), int(rng.integers(1, 31))
    if r < 0.9:
        return int(rng.integers(31, 51)), int(rng.integers(3, 51))
    return int(rng.integers(51, 81)), int(rng.integers(40, 81))


pairs = []
shapes = ["lognormal", "rounded", "coarse", "bimodal", "two-modes", "heavy"]
for index in range(600):
    m, n = sizes()
    shape = shapes[index % len(shapes)]
    x = make_sample(m, shape)
    shift = rng.choice([0.0, 0.0, 1.0, -2.0, 5.0])
    y = make_sample(n, shape) + shift
    ties = len(np.unique(np.concatenate([x, y]))) < m + n
    entry = {"x": x.tolist(), "y": y.tolist(), "ties": bool(ties)}

    for continuity in (True, False):
        r = stats.mannwhitneyu(x, y, method="asymptotic", use_continuity=continuity)
        entry["mwu_asymptotic_" + ("cc" if continuity else "nocc")] = {
            "u": float(r.statistic), "p": float(r.pvalue)}
    if not ties and m <= EXACT_MAX and n <= EXACT_MAX:
        r = stats.mannwhitneyu(x, y, method="exact")
        entry["mwu_exact"] = {"u": float(r.statistic), "p": float(r.pvalue)}
    if m >= 2 and n >= 2:
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = stats.brunnermunzel(x, y, distribution="t")
        p = float(r.pvalue)
        entry["brunner_munzel"] = {"statistic": float(r.statistic) if math.isfinite(r.statistic) else None,
                                   "p": p if math.isfinite(p) else None}
    r = stats.ks_2samp(x, y, method="exact")
    entry["ks"] = {"d": float(r.statistic), "p": float(r.pvalue)}
    entry["hl_95"] = hl_interval(x, y, 0.95)
    entry["hl_90"] = hl_interval(x, y, 0.90)
    if (x > 0).all() and (y > 0).all():
        h = hl_interval(np.log(x), np.log(y), 0.95)
        entry["hl_ratio_95"] = {"ratio": math.exp(h["estimate"]), "low": math.exp(h["low"]),
                                "high": math.exp(h["high"])}
    s = np.concatenate([x, y])
    entry["summary"] = {
        "n": int(s.size), "mean": float(np.mean(s)), "median": float(np.median(s)),
        "stddev": float(np.std(s, ddof=1)) if s.size > 1 else 0.0,
        "min": float(np.min(s)), "max": float(np.max(s)),
        "p90": float(np.percentile(s, 90)), "p95": float(np.percentile(s, 95)),
        "p99": float(np.percentile(s, 99)), "p999": float(np.percentile(s, 99.9)),
    }
    pairs.append(entry)


def bh_by_definition(p):
    """Benjamini-Hochberg from its definition, O(m^2): p_adj(i) = min over hypotheses j whose
    p-value is >= p_i of m p_j / rank(j). (scipy 1.10 has no false_discovery_control.)"""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    rank = {i: r + 1 for r, i in enumerate(order)}
    out = []
    for i in range(m):
        out.append(min(1.0, min(m * p[j] / rank[j] for j in range(m) if rank[j] >= rank[i])))
    return out


def bh_rejections(p, q):
    """The hypotheses the step-up procedure rejects at level q."""
    m = len(p)
    s = sorted(p)
    k = max([r for r in range(1, m + 1) if s[r - 1] <= r * q / m], default=0)
    return [bool(k > 0 and v <= s[k - 1]) for v in p]


bh = []
for index in range(200):
    m = int(rng.integers(1, 80))
    p = rng.uniform(0, 1, size=m) ** rng.choice([1.0, 3.0, 6.0])
    if index % 4 == 0:  # ties, exact zeros and ones
        p = np.round(p, 2)
    p = [float(v) for v in p]
    bh.append({"p": p, "adjusted": bh_by_definition(p),
               "reject_05": bh_rejections(p, 0.05), "reject_10": bh_rejections(p, 0.10)})

def bh_level_by_procedure(p, i, q):
    """The largest p-value hypothesis i could have had and still be rejected at q, the others
    fixed: the step-up's cut is always some k q / m, so try each from the top and run the
    procedure."""
    m = len(p)
    for k in range(m, 0, -1):
        trial = list(p)
        trial[i] = k * q / m
        if bh_rejections(trial, q)[i]:
            return k * q / m
    raise AssertionError("q / m is always a discovery")


bh_levels = []
for index in range(80):
    m = int(rng.integers(1, 40))
    p = rng.uniform(0, 1, size=m) ** rng.choice([1.0, 4.0, 10.0])
    if index % 4 == 0:
        p = np.round(p, 3)
    p = [float(v) for v in p]
    q = float(rng.choice([0.05, 0.10]))
    bh_levels.append({"p": p, "q": q,
                      "levels": [bh_level_by_procedure(p, i, q) for i in range(m)]})


def separated(m, n):
    return np.arange(1, m + 1, dtype=float), np.arange(m + 1, m + n + 1, dtype=float)


def mwu_decides(m, n):
    """The p of the Mann-Whitney test as compare runs it, on fully separated samples: exact up
    to 50 a side (no ties), else the normal approximation with continuity correction."""
    x, y = separated(m, n)
    method = "exact" if m <= EXACT_MAX and n <= EXACT_MAX else "asymptotic"
    return float(stats.mannwhitneyu(x, y, method=method, use_continuity=True).pvalue)


attainable = []
for m, n in [(2, 2), (3, 3), (4, 7), (6, 6), (7, 7), (10, 12), (20, 20), (50, 50), (30, 70),
             (51, 60), (80, 80)]:
    x, y = separated(m, n)
    attainable.append({"m": m, "n": n, "mann_whitney": mwu_decides(m, n),
                       "kolmogorov_smirnov": float(stats.ks_2samp(x, y, method="exact").pvalue)})

reach = []
for level in [0.1, 0.05, 0.05 / 25, 0.05 / 1000, 1e-6, 1e-12]:
    size = 3
    while mwu_decides(size, size) > level:
        size += 1
    reach.append({"level": level, "size": size})

null_cdf = []
for m, n in [(1, 1), (1, 5), (3, 3), (4, 7), (8, 8), (10, 12), (20, 20), (30, 30), (25, 50),
             (50, 50)]:
    pmf = _mwu_state.pmf(np.arange(0, m * n + 1), m, n)
    null_cdf.append({"m": m, "n": n, "cdf": np.cumsum(pmf).tolist()})


def detectable(m, n, sigma, alpha, power, method="asymptotic"):
    df = m + n - 2
    t = stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)
    delta = t * sigma * math.sqrt(1 / m + 1 / n) / math.sqrt(3 / math.pi)
    # Power of scipy's test at that shift, by simulation with normal noise on the log scale.
    trials = 4000
    a = rng.normal(0, sigma, size=(trials, m))
    b = rng.normal(delta, sigma, size=(trials, n))
    p = stats.mannwhitneyu(a, b, axis=1, method=method).pvalue
    return {"m": m, "n": n, "sigma": sigma, "alpha": alpha, "power": power,
            "change": math.expm1(delta), "simulated_power": float(np.mean(p <= alpha))}


mdc = [detectable(m, n, s, a, 0.8) for (m, n, s, a) in
       [(10, 10, 0.05, 0.05), (20, 20, 0.02, 0.05), (30, 30, 0.03, 0.01), (15, 25, 0.04, 0.05)]]
# At the per-comparison levels Benjamini-Hochberg demands of a lone change (alpha / m for
# suites of 25 and 100), where compare now computes the detectable change.
mdc += [detectable(m, n, s, a, 0.8, "exact") for (m, n, s, a) in
        [(12, 12, 0.03, 0.05 / 25), (20, 20, 0.02, 0.05 / 25), (30, 30, 0.03, 0.05 / 100)]]

json.dump({"pairs": pairs, "bh": bh, "bh_levels": bh_levels, "attainable": attainable,
           "reach": reach, "null_cdf": null_cdf, "mdc": mdc},
          open(sys.argv[1], "w"))
