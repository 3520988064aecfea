"""The dosing loop from Python, on the firmware's own experiment file and the plant growth
simulator of papers 000 and 001:

    pip install ./python
    python python/examples/ask_tell.py

Each round the optimizer says which nutrients to dose (the values that are not None); the
rest come from the source water. `Trays` stands for the lab: it doses, measures every nutrient
and the growth, here the plant simulator (`costbo.Objective("plant")`: standardised leaf area
as a function of Ca, B, NH3, K and pH, the file's five variables with the same bounds); the
source water is uniform within the bounds. The state is saved after every round, so a
controller that restarts resumes where it was, with the same decisions.
"""

import pathlib
import random
import sys

import costbo

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Trays:
    def __init__(self, variables, seed=1):
        self.variables = variables
        self.rng = random.Random(seed)
        self.plant = costbo.Objective("plant")

    def dose_and_measure(self, values):
        x = [v if v is not None else self.rng.uniform(var.lower, var.upper)
             for v, var in zip(values, self.variables)]
        u = [(v - var.lower) / (var.upper - var.lower) for v, var in zip(x, self.variables)]
        return x, self.plant(u)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ROOT / "firmware" / "experiment.toml"
    opt = costbo.Optimizer.from_file(path)
    trays = Trays(opt.variables)
    names = [v.name for v in opt.variables]
    state = None
    while (ask := opt.ask()) is not None:
        x, growth = trays.dose_and_measure(ask.values)
        opt.tell(x, growth)
        state = opt.to_json()  # what a controller would write to disk after each round
        dosed = [n for n, v in zip(names, ask.values) if v is not None]
        print(f"round {opt.rounds:>2}: dose {'+'.join(dosed):<14} cost {ask.cost:.2f} "
              f"-> growth {growth:.3f}")
    best = opt.recommend()
    print(f"spent {opt.spent:.2f} of {opt.budget:.2f}")
    shown = {n: round(v, 3) for n, v in zip(names, best.values) if v is not None}
    print(f"recommended: control set {best.set}, dose {shown}, "
          f"expected growth {best.expected:.3f} (the simulator's best: "
          f"{trays.plant.optimum:.3f})")
    resumed = costbo.Optimizer.from_json(state)
    assert resumed.to_json() == state and resumed.ask() is None


if __name__ == "__main__":
    main()
