"""Writes generated series, where their real changes lie, and the change points Apache Otava
finds in them, as JSON, for change_points_otava_test to compare against.

Usage: otava_oracle.py OUTPUT.json

Run with the project's .venv-otava/bin/python3, where tools/setup installs apache-otava (pinned in
tools/otava-requirements.txt).
Deterministic: one seeded generator. Each series has 50 to 1,000 points, steps up and down of
2-30% at least 20 points apart and from either end, one kind of noise (gaussian, heavy-tailed
Student t with 3 degrees of freedom, or two modes 3% apart), and, in half of them, single
outliers (+40 to +80%) that are not changes.
"""
import json
import sys

import numpy as np
from otava.analysis import compute_change_points

rng = np.random.default_rng(20261124)
WINDOW = 50
MAX_P = 0.001


def noise(kind, size):
    if kind == "gaussian":
        return rng.normal(0, 0.01, size)
    if kind == "heavy":
        return rng.standard_t(3, size) * 0.01
    # two modes: most runs in the fast one, a third in a slow one 3% above
    return rng.normal(0, 0.005, size) + np.where(rng.random(size) < 0.3, 0.03, 0.0)


def series(size, kind, outliers):
    count = int(rng.integers(0, 4)) if size >= 100 else int(rng.integers(0, 2))
    steps = []
    for _ in range(200):
        if len(steps) == count:
            break
        at = int(rng.integers(20, size - 20))
        if all(abs(at - s) >= 20 for s in steps):
            steps.append(at)
    steps.sort()
    level = np.full(size, 100.0)
    for at in steps:
        magnitude = rng.uniform(0.02, 0.30) * (1 if rng.random() < 0.5 else -1)
        level[at:] *= 1 + magnitude
    values = level * (1 + noise(kind, size))
    spikes = []
    if outliers:
        for _ in range(int(rng.integers(1, 4))):
            at = int(rng.integers(5, size - 5))
            if all(abs(at - s) >= 5 for s in steps + spikes):
                values[at] *= 1 + rng.uniform(0.4, 0.8)
                spikes.append(at)
    return values, steps, sorted(spikes)


cases = []
for size in (50, 100, 200, 365, 500, 1000):
    for kind in ("gaussian", "heavy", "two-mode"):
        for outliers in (False, True):
            for _ in range(4):
                values, steps, spikes = series(size, kind, outliers)
                # A list, not an ndarray: Otava's detector slices windows only out of a list.
                found, _ = compute_change_points(
                    [float(v) for v in values], window_len=WINDOW, max_pvalue=MAX_P
                )
                cases.append(
                    {
                        "noise": kind,
                        "values": [float(v) for v in values],
                        "steps": steps,
                        "outliers": spikes,
                        "otava": [int(cp.index) for cp in found],
                    }
                )

with open(sys.argv[1], "w") as out:
    json.dump({"window": WINDOW, "max_p": MAX_P, "cases": cases}, out)
