#!/usr/bin/env python3
"""Runs the jobs of docs/results/variants/PLAN.md in the plan's order, resumably.

    nice python3 tools/variants/run.py COSTBO [PHASE ...]

COSTBO is a `costbo` binary (a release build runs the jobs about twice as fast as the test
profile's). Each cell is one `costbo run` into `results/variants/<study>/grid`; the runner skips
the jobs that have finished, so an interrupted run resumes where it stopped. Phases, in the
plan's order: 000-main (moderate and expensive cells), 000-cheap, 001, 000-gittins. With no
PHASE every phase runs.
"""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAN = os.path.join(ROOT, "docs", "results", "variants")

SETS_3 = [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]
SETS_AIRFOIL = [[4, 5], [2, 5], [1, 4], [2, 3], [3, 5], [1, 2], [3, 4]]
SETS_PLANT = [[1, 2], [3, 4], [4, 5], [1, 2, 3], [2, 3, 4], [3, 4, 5], [1, 2, 3, 4, 5]]
SETS_12 = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [1, 2, 3, 4, 5, 6],
           [7, 8, 9, 10, 11, 12], list(range(1, 13))]

STUDIES = {
    "ucb-cvs": {
        "seeds": list(range(10, 30)),
        "head": "bank = 64\n",
        "objectives": {"gp-sample": (SETS_3, 50.0), "hartmann3": (SETS_3, 50.0),
                       "airfoil": (SETS_AIRFOIL, 50.0), "plant": (SETS_PLANT, 200.0)},
    },
    "unknown-cost": {
        "seeds": list(range(5, 25)),
        "head": "bank = 64\nmax_rounds = 450\nprior_mean = \"initial\"\n",
        "objectives": {"hartmann6-ext12": (SETS_12, 100.0), "ackley6-ext12": (SETS_12, 100.0),
                       "plant": (SETS_PLANT, 100.0), "airfoil": (SETS_AIRFOIL, 100.0)},
    },
}


def baselines(study):
    with open(os.path.join(PLAN, f"{study}.baselines.csv"), encoding="utf-8") as f:
        return list(csv.DictReader(f))


def unique(algorithms):
    """Without repeats (where the paper's best is ETC-Ada, its fitted form is our variant)."""
    return list(dict.fromkeys(algorithms))


def cells(phase):
    """(study, objective, costs, variance, algorithms) of a phase, in order."""
    if phase in ("000-main", "000-cheap"):
        for b in baselines("ucb-cvs"):
            if (b["costs"] == "cheap") != (phase == "000-cheap"):
                continue
            algs = unique([b["baseline"], "etc-ada+fitted", b["baseline"] + "+fitted"])
            yield "ucb-cvs", b["objective"], b["costs"], b["variance"], algs
    elif phase == "001":
        for b in baselines("unknown-cost"):
            algs = [b["baseline"], "unknown-cost+fitted", b["baseline"] + "+fitted"]
            if b["baseline"] != "unknown-cost":
                algs.append("unknown-cost")
            yield "unknown-cost", b["objective"], b["costs"], b["variance"], algs
    elif phase == "000-gittins":
        for b in baselines("ucb-cvs"):
            if b["costs"] == "expensive":
                algs = ["gittins-cvs", "ei-psq", "gittins-cvs+fitted", "ei-psq+fitted"]
                yield "ucb-cvs", b["objective"], b["costs"], b["variance"], algs
    else:
        sys.exit(f"unknown phase {phase!r}")


def config(study, objective, costs, variance, algorithms):
    s = STUDIES[study]
    sets, budget = s["objectives"][objective]
    return (f"seeds = {s['seeds']}\ncosts = [\"{costs}\"]\nvariances = [{variance}]\n"
            f"algorithms = {algorithms!r}\n".replace("'", '"')
            + s["head"]
            + f"\n[[objectives]]\nname = \"{objective}\"\nsets = {sets}\nbudget = {budget}\n")


def main():
    costbo = os.path.abspath(sys.argv[1])
    phases = sys.argv[2:] or ["000-main", "000-cheap", "001", "000-gittins"]
    for phase in phases:
        for study, objective, costs, variance, algs in cells(phase):
            out = os.path.join(ROOT, "results", "variants", study)
            os.makedirs(os.path.join(out, "configs"), exist_ok=True)
            name = f"{objective}_{costs}_v{variance}_{phase}.toml"
            path = os.path.join(out, "configs", name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(config(study, objective, costs, variance, algs))
            print(f"== {phase}: {study} {objective} {costs} {variance}: {', '.join(algs)}",
                  flush=True)
            done = subprocess.run([costbo, "run", "--config", path, "--out",
                                   os.path.join(out, "grid"), "--jobs", "2"])
            if done.returncode != 0:
                sys.exit(f"costbo run failed on {path} (status {done.returncode})")


main()
