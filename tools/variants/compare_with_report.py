#!/usr/bin/env python3
"""Our variants' cells against the papers' methods in a committed report's table.

`costbo reproduce <study> --variants` compares variants and the papers' methods run side by
side, seed for seed. When only the variants were run (a variant config such as
std-adapter/configs/variants-ucb-cvs.toml, on fewer seeds), this script compares their
summary.json with the report's "Final simple regret" table instead: per cell (objective,
costs, variance), the paper's method with the lowest mean there against the variant's mean,
and whether the variant's is at least 20 % lower. The two means are over different numbers of
seeds (the variant's seeds are the first ones of the report's), which the output says.

    python3 tools/variants/compare_with_report.py docs/results/ucb-cvs.md \
        results/reproduce-ucb-cvs/grid/summary.json ts-psq,ucb-psq,etc-50,etc-100,etc-ada
"""
import json
import sys

WIN_RATIO = 0.8


def parse_table(path, paper_algorithms):
    lines = open(path, encoding="utf-8").read().split("\n")
    start = lines.index("## Final simple regret")
    header = next(l for l in lines[start:] if l.startswith("| objective"))
    names = [c.strip() for c in header.strip("|").split("|")]
    rows = {}
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("|"):
            break
        cols = [c.strip() for c in line.strip("|").split("|")]
        key = (cols[0], cols[1], float(cols[2]))
        for name, value in zip(names[3:], cols[3:]):
            if name in paper_algorithms and "±" in value:
                mean, rest = value.split("±")
                se = rest.split()[0]
                rows.setdefault(key, []).append((name, float(mean), float(se)))
    return rows


def main():
    report, summary, algorithms = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    table = parse_table(report, algorithms)
    cells = json.load(open(summary, encoding="utf-8"))["cells"]
    print("| objective | costs | variance | paper's best (report's seeds) | its regret | "
          "variant | its regret (seeds) | ratio | ≥ 20 % lower |")
    print("|---|---|---|---|---|---|---|---|---|")
    wins, compared, per_objective = 0, 0, {}
    for c in cells:
        if c.get("mean_simple_regret") is None:
            continue
        key = (c["objective"], c["costs"], float(c["variance"]))
        if key not in table:
            continue
        name, mean, se = min(table[key], key=lambda r: r[1])
        ours, ours_se = c["mean_simple_regret"], c.get("stderr_simple_regret") or 0.0
        win = ours <= WIN_RATIO * mean
        wins += win
        compared += 1
        w, n = per_objective.get(key[0], (0, 0))
        per_objective[key[0]] = (w + win, n + 1)
        ratio = ours / mean if mean > 0 else float("inf")
        print(f"| {key[0]} | {key[1]} | {key[2]} | {name} | {mean:.4f} ± {se:.4f} | "
              f"{c['algorithm']} | {ours:.4f} ± {ours_se:.4f} ({c['seeds']}) | {ratio:.2f} | "
              f"{'yes' if win else 'no'} |")
    print()
    detail = ", ".join(f"{o}: {w} of {n}" for o, (w, n) in per_objective.items())
    print(f"A variant has at least 20 % lower mean final simple regret than the paper's best "
          f"method in **{wins} of {compared}** cells ({detail}).")


if __name__ == "__main__":
    main()
