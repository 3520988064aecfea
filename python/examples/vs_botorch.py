"""Paper 002's loop from Python: costbo's Pandora's Box Gittins index (PBGI) and LogEI, and
BoTorch's LogEI where BoTorch is installed (skipped otherwise), on the negated Ackley function
in 4 dimensions, 40 evaluations after 8 random ones, uniform costs:

    python python/examples/vs_botorch.py [--seed S]

costbo's rules keep the file's hyperparameters (the experiment file has no fitted model yet);
BoTorch refits its model each round, as in the paper. One seed is an illustration, not a comparison: docs/results/pandora.md compares the rules on
16 seeds, seed for seed.
"""

import argparse
import math

import numpy as np

import costbo

D, INITIAL, ROUNDS = 4, 8, 40


def ackley(u):
    x = 2.0 * np.asarray(u) - 1.0
    a = -20.0 * math.exp(-0.2 * math.sqrt(float((x**2).sum()) / D))
    b = -math.exp(float(np.cos(2.0 * math.pi * x).sum()) / D)
    return -(a + b + 20.0 + math.e)


def costbo_loop(rule, start):
    opt = costbo.Optimizer.build(
        "ackley", float(ROUNDS),
        [{"name": f"x{i}", "lower": 0.0, "upper": 1.0} for i in range(D)],
        [([f"x{i}" for i in range(D)], 1.0)],
        rule=rule, kernel="matern52", lengthscale=0.3, noise=1e-4, capacity=64)
    for x in start:
        opt.tell_prior(x, ackley(x))
    best = max(ackley(x) for x in start)
    while (ask := opt.ask()) is not None:
        x = ask.values
        y = ackley(x)
        opt.tell(x, y)
        best = max(best, y)
    return best


def botorch_loop(start):
    import torch
    from botorch.acquisition import LogExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood

    torch.set_default_dtype(torch.float64)
    x = torch.tensor(start)
    y = torch.tensor([[ackley(p)] for p in start])
    for _ in range(ROUNDS):
        model = SingleTaskGP(x, y, train_Yvar=torch.full_like(y, 1e-4))
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        acq = LogExpectedImprovement(model, best_f=y.max())
        bounds = torch.stack([torch.zeros(D), torch.ones(D)])
        cand, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=10 * D,
                                raw_samples=200 * D)
        x = torch.cat([x, cand])
        y = torch.cat([y, torch.tensor([[ackley(cand[0].tolist())]])])
    return float(y.max())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    seed = p.parse_args().seed
    start = np.random.default_rng(seed).random((INITIAL, D)).tolist()
    print(f"best of {INITIAL} random points: {max(ackley(x) for x in start):.3f} (optimum 0)")
    for rule in ["pbgi", "log-ei"]:
        print(f"costbo {rule:<7}: best {costbo_loop(rule, start):.3f} after {ROUNDS} rounds")
    try:
        import botorch  # noqa: F401
    except ImportError:
        print("BoTorch is not installed: its loop is skipped (pip install botorch)")
        return
    print(f"BoTorch LogEI : best {botorch_loop(start):.3f} after {ROUNDS} rounds")


if __name__ == "__main__":
    main()
