#!/usr/bin/env python3
"""Median regret of each rule of one `costbo reproduce pandora` cell at chosen budgets.

Reads the cell's finished traces (OUT/<figure>/<panel>-<cost>/<rule>/seed-<s>.csv), reads
regret as a step function of the budget spent, as the report does, and prints one row per rule:
the seeds, the median regret at each budget and, with --below T, how many runs end below T.

    python3 tools/pandora_regret_at.py results/reproduce-pandora/fig3/gp-matern52-d8-linear \
        --budgets 20,60,100,400
"""
import argparse
import glob
import os
import statistics


def read_trace(path):
    lines = open(path).read().splitlines()
    if not lines or not lines[-1].startswith("# sealed"):
        return None  # not a finished run
    head = lines[0].split()
    optimum, initial_best = float(head[2]), float(head[4])
    rows = [tuple(map(float, l.split(","))) for l in lines[2:] if not l.startswith("#")]
    return optimum, initial_best, rows


def regret_at(trace, budget):
    optimum, best, rows = trace
    for spent, _y, best_so_far, _seconds in rows:
        if spent > budget:
            break
        best = best_so_far
    return optimum - best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cell", help="a cell directory, e.g. results/reproduce-pandora/fig3/gp-matern52-d8-linear")
    p.add_argument("--budgets", required=True, help="comma-separated budgets")
    p.add_argument("--below", type=float, help="also count runs whose final regret is below this")
    a = p.parse_args()
    budgets = [float(b) for b in a.budgets.split(",")]
    print("rule seeds " + " ".join(f"{b:g}" for b in budgets) + (f" below-{a.below:g}" if a.below is not None else ""))
    for rule_dir in sorted(glob.glob(os.path.join(a.cell, "*", ""))):
        traces = [t for t in map(read_trace, sorted(glob.glob(rule_dir + "seed-*.csv"))) if t]
        if not traces:
            continue
        cols = [f"{statistics.median(regret_at(t, b) for t in traces):.4f}" for b in budgets]
        if a.below is not None:
            cols.append(str(sum(regret_at(t, budgets[-1]) < a.below for t in traces)))
        print(os.path.basename(rule_dir.rstrip("/")), len(traces), " ".join(cols))


if __name__ == "__main__":
    main()
