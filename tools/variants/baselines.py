#!/usr/bin/env python3
"""The paper's best method per cell, declared before the fresh-seed runs (PLAN.md).

Reads a committed reproduction report's "Final simple regret" table (mean ± standard error
over the tuning seeds) and prints, per cell, the paper method with the lowest mean; a tie at
the table's four decimals goes to the smaller standard error, then to the earlier column.

    python3 tools/variants/baselines.py docs/results/ucb-cvs.md ts-psq,ucb-psq,etc-50,etc-100,etc-ada
    python3 tools/variants/baselines.py docs/results/unknown-cost.md unknown-cost,ts-psq,ucb-psq,etc-50
"""
import sys


def table(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    start = lines.index("## Final simple regret")
    header = None
    for line in lines[start:]:
        if line.startswith("| objective"):
            header = [c.strip() for c in line.strip("|").split("|")]
            continue
        if header and line.startswith("|---"):
            continue
        if header and line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            yield dict(zip(header, cells))
        elif header:
            return


def main():
    path, methods = sys.argv[1], sys.argv[2].split(",")
    print("objective,costs,variance,baseline,mean,se")
    for row in table(path):
        scored = []
        for order, m in enumerate(methods):
            mean, se = (float(x) for x in row[m].split(" ± "))
            scored.append((mean, se, order, m))
        mean, se, _, best = min(scored)
        print(f"{row['objective']},{row['costs']},{row['variance']},{best},{mean:.4f},{se:.4f}")


main()
