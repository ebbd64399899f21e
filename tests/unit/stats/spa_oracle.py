"""Writes the change points that MongoDB's signal-processing-algorithms finds in the series
otava_oracle.py generated, as JSON, for change_points_spa_test to compare against.

Usage: spa_oracle.py SERIES.json OUTPUT.json

SERIES.json is otava_oracle.py's output (its "cases", each with "values"), so both oracles judge
the very same series. OUTPUT.json: {"pvalue", "permutations", "found": [[index...] per case]}.
Run with the project's .venv-spa/bin/python3, where tools/setup installs the package (pinned in
tools/spa-requirements.txt).
The method is the package's E-Divisive means over the whole series (no windows), each change point
accepted by its permutation test: the within-segment order shuffled PERMUTATIONS times, p = the
share of shuffles whose best statistic reaches the candidate's, over PERMUTATIONS + 1. The shuffles
draw from numpy's global generator, seeded per series, so the answers are the same on every run.
"""
import json
import sys

try:
    import numpy as np
    from signal_processing_algorithms.energy_statistics import cext_calculator
    from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive
except ImportError as error:
    sys.exit(
        f"spa_oracle.py: {error}: run tools/setup, which installs signal-processing-algorithms "
        "(tools/spa-requirements.txt) into .venv-spa/"
    )

SEED = 20261124
# p <= 0.01 with 100 shuffles: at most one shuffle as extreme as the candidate (1/101). The
# package's defaults are 0.05 and 100.
PVALUE = 0.01
PERMUTATIONS = 100

if not cext_calculator.C_EXTENSION_LOADED:
    # Its pure-Python fallback gives the same answers far more slowly: rebuild rather than wait.
    sys.exit(
        "spa_oracle.py: signal-processing-algorithms' C extension is not loaded: install "
        "python3-dev and gcc, remove .venv-spa/ and run tools/setup again"
    )

with open(sys.argv[1]) as source:
    cases = json.load(source)["cases"]
found = []
for number, case in enumerate(cases):
    np.random.seed(SEED + number)
    points = e_divisive(np.asarray(case["values"], dtype=np.float64), PVALUE, PERMUTATIONS)
    found.append(sorted(int(p) for p in points))

with open(sys.argv[2], "w") as out:
    json.dump({"pvalue": PVALUE, "permutations": PERMUTATIONS, "found": found}, out)
