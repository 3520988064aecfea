#!/usr/bin/env python3
"""Recomputes the variants reports' wins and losses from the committed per-seed files with
SciPy, independently of the Rust code that wrote the reports, and compares the counts.

    /path/to/venv-with-scipy/bin/python tools/variants/check.py [docs/results/variants]

For each study, each algorithm of ours against the cell's paper baseline (the rows with
origin `paper`): per seed d = 0 when |ours − paper| < 0.01, else ln(max(ours, 0.01) /
max(paper, 0.01)); SciPy's Wilcoxon signed-rank test, two-sided, zeros dropped (its exact
distribution without ties, else a permutation test over every sign assignment); Holm's
correction over the cells of each table; a significant cell is a win when the positive
differences' rank sum is below its null mean. Prints each table's counts beside the report's
"N wins, M losses" line and exits non-zero on a difference; likewise the demo's other plant
settings (McNemar's exact test per setting, Holm over the settings) and the declared candidate's
test (Wilson's interval from its formula, McNemar's exact test).
"""
import csv
import math
import os
import re
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

TIE = 0.01
ALPHA = 0.05


def p_and_side(d):
    d = np.asarray(d, dtype=float)
    nz = d[d != 0]
    if len(nz) == 0:
        return 1.0, 0
    ranks = stats.rankdata(np.abs(nz))
    w_plus = ranks[nz > 0].sum()
    side = -1 if w_plus < len(nz) * (len(nz) + 1) / 4 else 1
    tied = len(np.unique(np.abs(nz))) < len(nz)
    if not tied:
        p = stats.wilcoxon(nz, method="exact").pvalue
    else:
        p = stats.wilcoxon(nz, method=stats.PermutationMethod(n_resamples=2 ** (len(nz) + 1))).pvalue
    return float(p), side


def holm(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    adj, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adj[i] = running
    return adj


def main():
    docs = sys.argv[1] if len(sys.argv) > 1 else "docs/results/variants"
    bad = 0
    for study in ["ucb-cvs", "unknown-cost"]:
        path = os.path.join(docs, f"{study}.csv")
        if not os.path.exists(path):
            continue
        by = defaultdict(dict)
        baseline = {}
        for r in csv.DictReader(open(path, encoding="utf-8")):
            by[(r["cell"], r["algorithm"])][int(r["seed"])] = float(r["final_simple_regret"])
            if r["origin"] == "paper":
                baseline[r["cell"]] = r["algorithm"]
        headline = {"ucb-cvs": "etc-ada+fitted", "unknown-cost": "unknown-cost+fitted"}[study]
        # Each table of the report: its title's start, and which algorithm of a cell it takes.
        families = [
            (f"## {headline} (ours) against the paper's best", lambda b: headline),
            ("## The model's share", lambda b: b + "+fitted"),
            ("## gittins-cvs (ours, fixed model)", lambda b: "gittins-cvs"),
            ("## gittins-cvs+fitted (ours)", lambda b: "gittins-cvs+fitted"),
            ("## ei-psq (cost-unaware EI, fixed model)", lambda b: "ei-psq"),
            ("## ei-psq+fitted (cost-unaware EI", lambda b: "ei-psq+fitted"),
        ]
        report = open(os.path.join(docs, f"{study}.md"), encoding="utf-8").read()
        for title, pick in families:
            cells, ps, sides = [], [], []
            for cell, b in sorted(baseline.items()):
                a = pick(b)
                x, y = by.get((cell, a)), by.get((cell, b))
                if a == b or not x or not y:
                    continue
                seeds = sorted(set(x) & set(y))
                d = [0.0 if abs(x[s] - y[s]) < TIE else math.log(max(x[s], TIE) / max(y[s], TIE))
                     for s in seeds]
                p, side = p_and_side(d)
                cells.append(cell)
                ps.append(p)
                sides.append(side)
            if not cells:
                continue
            adj = holm(ps)
            wins = sum(1 for q, s in zip(adj, sides) if q <= ALPHA and s < 0)
            losses = sum(1 for q, s in zip(adj, sides) if q <= ALPHA and s > 0)
            m = re.search("^" + re.escape(title) + r".*\n\n.*\n\n(\d+) wins?, (\d+) loss(?:es)?",
                          report, re.M)
            shown = (int(m.group(1)), int(m.group(2))) if m else None
            ok = shown == (wins, losses)
            bad += not ok
            print(f"{study}: {title[3:]}: {len(cells)} cells, {wins} wins, {losses} losses "
                  f"(report: {shown}) {'ok' if ok else 'DIFFERENT'}")
    bad += check_demo(docs)
    bad += check_candidate(docs)
    sys.exit(1 if bad else 0)


def demo_successes(docs, experiment, key):
    """Whether each run of `experiment` in demo.csv reached 90 % of the best growth, as
    {key(row): {seed: success}}; None without the file."""
    path = os.path.join(docs, "demo.csv")
    if not os.path.exists(path):
        return None
    runs = defaultdict(dict)
    for r in csv.DictReader(open(path, encoding="utf-8")):
        if r["experiment"] == experiment:
            runs[key(r)][int(r["seed"])] = float(r["share_of_best"]) >= 0.9
    return runs


def mcnemar(first, second):
    """McNemar's exact test on the seeds both ran: (first alone, second alone, two-sided p)."""
    seeds = sorted(set(first) & set(second))
    b = sum(1 for s in seeds if first[s] and not second[s])
    c = sum(1 for s in seeds if second[s] and not first[s])
    return b, c, stats.binomtest(b, b + c, 0.5).pvalue if b + c else 1.0


def check_demo(docs):
    """The demo's other plant settings: per setting, McNemar's exact test (a two-sided binomial
    test on the seeds where exactly one contender succeeds) of ours against the paper's ETC-Ada,
    Holm's correction over the settings; a win where ours succeeds alone more often."""
    runs = demo_successes(docs, "settings",
                          lambda r: ((r["costs"], float(r["variance"])), r["contender"]))
    if runs is None:
        return 0
    settings = sorted({k for k, _ in runs})
    ps, sides = [], []
    for k in settings:
        b, c, p = mcnemar(runs.get((k, "ours"), {}), runs.get((k, "paper"), {}))
        ps.append(p)
        sides.append(-1 if b > c else 1)
    adj = holm(ps)
    wins = sum(1 for q, s in zip(adj, sides) if q < ALPHA and s < 0)
    losses = sum(1 for q, s in zip(adj, sides) if q < ALPHA and s > 0)
    report = open(os.path.join(docs, "demo.md"), encoding="utf-8").read()
    m = re.search(r"^Ours against the paper's ETC-Ada: (\d+) Holm-significant wins and (\d+) "
                  r"losses in (\d+) settings", report, re.M)
    shown = tuple(int(g) for g in m.groups()) if m else None
    ok = shown == (wins, losses, len(settings))
    print(f"demo: other plant settings: {len(settings)} settings, {wins} wins, {losses} losses "
          f"(report: {shown}) {'ok' if ok else 'DIFFERENT'}")
    return 0 if ok else 1


def check_candidate(docs):
    """The declared candidate against ours on the test seeds: each rate's Wilson interval at
    95 % (z from SciPy's normal quantile) and McNemar's exact p, compared with the report's rows
    as printed."""
    runs = demo_successes(docs, "candidate", lambda r: r["contender"])
    if runs is None or set(runs) != {"ours", "etc-120"}:
        return 0
    report = open(os.path.join(docs, "demo.md"), encoding="utf-8").read()
    z = stats.norm.ppf(0.975)
    bad = 0
    for name, label in [("ours", "ETC-Ada, fitted model (ours)"),
                        ("etc-120", "ETC-120, fitted model (candidate)")]:
        n, k = len(runs[name]), sum(runs[name].values())
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        row = (f"| {label} (β = 8) | test, 161–260 | {n} | {k} | {100 * p:.1f} % "
               f"[{100 * (centre - half):.1f} %, {100 * (centre + half):.1f} %] |")
        ok = row in report
        bad += not ok
        print(f"demo: candidate test, {name}: {k}/{n}, Wilson "
              f"[{centre - half:.4f}, {centre + half:.4f}] {'ok' if ok else 'DIFFERENT'}")
    b, c, p = mcnemar(runs["etc-120"], runs["ours"])
    shown = re.search(r"^\| test, 161–260 \| (\d+) \| \d+ \| (\d+) \| (\d+) \| \d+ \| "
                      r"([0-9.e+-]+) \|", report, re.M)
    ok = bool(shown) and (int(shown.group(2)), int(shown.group(3))) == (b, c) \
        and abs(float(shown.group(4)) - p) <= 5e-3 * p
    bad += not ok
    print(f"demo: candidate test, McNemar: {b} only the candidate, {c} only ours, p = {p:.4g} "
          f"(report: {shown.groups() if shown else None}) {'ok' if ok else 'DIFFERENT'}")
    return bad


main()
