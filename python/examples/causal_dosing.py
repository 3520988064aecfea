"""A contextual causal experiment from Python (paper 004): each round the optimizer chooses an
arm, the lab measures only that arm's contexts in the source water, and the optimizer doses
the arm's control set knowing them.

    pip install ./python
    python python/examples/causal_dosing.py

The file is `firmware/experiments/causal-contexts.toml`, the one the firmware builds its
contextual controller from. `Trays` stands for the lab, here the file's own model of the
growth (its comment): in unit coordinates
growth = 1 - 2 (K - 0.2 - 0.6 NO3)^2 - (pH - 0.3 - 0.4 T)^2 - 0.5 (Ca - 0.5)^2 plus noise,
so the best potassium depends on the nitrate and the best pH on the temperature, which the
water brings and nobody doses. The source water is uniform within the bounds.
"""

import pathlib
import random
import sys

import costbo

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Trays:
    def __init__(self, names, bounds, seed=3, noise=0.01):
        self.names, self.bounds = names, bounds
        self.rng = random.Random(seed)
        self.noise = noise
        self.water = None

    def source_water(self):
        """This round's water: every variable, though only the arm's contexts are read."""
        self.water = [self.rng.uniform(lo, hi) for lo, hi in self.bounds]
        return self.water

    def dose_and_grow(self, values):
        x = [v if v is not None else w for v, w in zip(values, self.water)]
        u = {n: (v - lo) / (hi - lo) for n, v, (lo, hi) in zip(self.names, x, self.bounds)}
        g = (1 - 2 * (u["K"] - 0.2 - 0.6 * u["NO3"]) ** 2
             - (u["pH"] - 0.3 - 0.4 * u["T"]) ** 2 - 0.5 * (u["Ca"] - 0.5) ** 2)
        return g + self.rng.gauss(0.0, self.noise)


def main():
    path = ROOT / "firmware" / "experiments" / "causal-contexts.toml"
    opt = costbo.CausalOptimizer.from_file(path)
    names = opt.variable_names
    trays = Trays(names, [(v.lower, v.upper) for v in opt.variables])
    while (arm := opt.next_arm()) is not None:
        water = trays.source_water()
        contexts = {names[l]: water[l] for l in arm.contexts}
        decision = opt.ask(contexts)
        growth = trays.dose_and_grow(decision.values)
        opt.tell(growth)
        dosed = [f"{n}={v:.2f}" for n, v in zip(names, decision.values) if v is not None]
        seen = ", ".join(f"{k}={v:.2f}" for k, v in contexts.items()) or "none"
        print(f"round {opt.rounds:>2}: arm {arm.arm} (contexts {seen}) dose {' '.join(dosed)} "
              f"-> growth {growth:.3f}")
    best = opt.recommend()
    print(f"spent {opt.spent:.2f} of {opt.budget:.2f}; recommended: arm {best.arm} "
          f"(control set {best.set}), mean growth {best.mean_outcome:.3f} over {best.plays} plays")


if __name__ == "__main__":
    main()
