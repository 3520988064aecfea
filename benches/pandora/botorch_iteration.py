"""One iteration of paper 002's loop in BoTorch, for the side-by-side comparison with
`cargo bench -p costbo-benches --bench pandora` (docs/performance.md).

The iteration is what the paper's code times with `time.process_time()` minus the objective:
build a SingleTaskGP (Matern-5/2 ARD, outputs standardised, fixed noise 1e-4), fit it by MAP
(`fit_gpytorch_mll`, L-BFGS-B), and maximise LogEI with `optimize_acqf` (q = 1, 200*d raw
samples, 10*d restarts). The data are n scrambled-Sobol points of the negated Ackley function on
[-1, 1]^d (paper 002's scaling), as in the Rust benchmark (the points differ: Sobol' streams
differ between the two libraries; the cost does not depend on them).

Not part of CI. Set up once (torch from PyPI, several GB):

    python3 -m venv /work/venv-botorch && /work/venv-botorch/bin/pip install botorch
    /work/venv-botorch/bin/python benches/pandora/botorch_iteration.py [--repeats 3]

Prints one line per (d, n): median CPU seconds per iteration and the torch thread count.
"""

import argparse
import math
import statistics
import time
import warnings

import torch
from botorch.acquisition import LogExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.optim import optimize_acqf
from gpytorch.mlls import ExactMarginalLogLikelihood
from torch.quasirandom import SobolEngine

warnings.filterwarnings("ignore")
torch.set_default_dtype(torch.float64)


def ackley(u):
    x = 2.0 * u - 1.0
    d = x.shape[-1]
    a = -20.0 * torch.exp(-0.2 * torch.sqrt((x**2).sum(-1) / d))
    b = -torch.exp(torch.cos(2.0 * math.pi * x).sum(-1) / d)
    return -(a + b + 20.0 + math.e)


def iteration(x, y, d):
    model = SingleTaskGP(
        x,
        y,
        train_Yvar=torch.full_like(y, 1e-4),
        outcome_transform=Standardize(m=1),
    )
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    acq = LogExpectedImprovement(model, best_f=y.max())
    bounds = torch.stack([torch.zeros(d), torch.ones(d)])
    candidate, _ = optimize_acqf(
        acq, bounds=bounds, q=1, num_restarts=10 * d, raw_samples=200 * d
    )
    return candidate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dims", default="4,8,16")
    parser.add_argument("--ns", default="50,100,200")
    args = parser.parse_args()
    import botorch

    print(
        f"botorch {botorch.__version__}, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads"
    )
    print("d,n,median_cpu_seconds,repeats")
    for d in [int(v) for v in args.dims.split(",")]:
        for n in [int(v) for v in args.ns.split(",")]:
            x = SobolEngine(d, scramble=True, seed=9).draw(n)
            y = ackley(x).unsqueeze(-1)
            times = []
            for _ in range(args.repeats):
                start = time.process_time()
                iteration(x, y, d)
                times.append(time.process_time() - start)
            print(f"{d},{n},{statistics.median(times):.4f},{args.repeats}", flush=True)


if __name__ == "__main__":
    main()
