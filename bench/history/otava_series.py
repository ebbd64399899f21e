"""Prints the change points Apache Otava finds in a series written by series_ledger.py --values,
for the comparison in docs/history.md.

Usage: .venv-otava/bin/python3 bench/history/otava_series.py VALUES.json [--min-magnitude FRACTION]
"""
import argparse
import json

from otava.analysis import compute_change_points

parser = argparse.ArgumentParser()
parser.add_argument("values")
parser.add_argument("--min-magnitude", type=float, default=0.0)
args = parser.parse_args()
with open(args.values) as f:
    data = json.load(f)
found, _ = compute_change_points(
    list(data["values"]), window_len=50, max_pvalue=0.001, min_magnitude=args.min_magnitude
)
print(json.dumps({"steps": data["steps"], "outliers": data["outliers"],
                  "otava": [{"index": int(cp.index), "p": float(cp.stats.pvalue),
                             "change": float(cp.stats.forward_rel_change())} for cp in found]}))
