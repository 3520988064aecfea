#!/usr/bin/env python3
"""Reference values for paper 001's model refit as its authors' code runs it.

The authors' code (github.com/Fsoft-AIC/BO-uCVS, `core/gp.py::ExactGPModel.fit`, called every
exploitation round from `core/optimization.py::modified_bo_loop`) fits a GPyTorch exact GP
(constant mean, `ScaleKernel(RBFKernel(ard_num_dims=d, lengthscale_constraint=Interval(1e-2,
1e4)))`, `GaussianLikelihood()` with its noise set to 1e-4) by 10 steps of
`torch.optim.Adam(lr=0.1)` on every parameter, minimising the negative
`ExactMarginalLogLikelihood`, starting each round from the initial hyperparameters. This script
runs exactly that loop in GPyTorch, in double precision, on a few data sets, and writes each
case's inputs, starting values and the hyperparameters after every step to

    tests/fixtures/gpytorch_adam_fit.json

which `tests/gpytorch_adam.rs` compares with the core's `Gp::fit_adam`.

Run from the repository root with a Python that has GPyTorch (generated with gpytorch 1.15.2,
torch 2.15.0; the authors pinned gpytorch 1.9.0, whose constraints, constant mean and Adam are
the same computations):

    python tools/reference/gpytorch_adam_fit.py
"""

import json
import math
import pathlib

import gpytorch
import numpy as np
import torch
from gpytorch.constraints import Interval
from gpytorch.kernels import RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood

torch.set_default_dtype(torch.float64)


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, x, y, kernel, likelihood):
        super().__init__(x, y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = kernel

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def hyperparameters(model):
    return {
        "lengthscales": model.covar_module.base_kernel.lengthscale.detach().reshape(-1).tolist(),
        "outputscale": float(model.covar_module.outputscale.detach()),
        "noise": float(model.likelihood.noise.detach()),
        "mean": float(model.mean_module.constant.detach()),
    }


def case(name, seed, d, n, lengthscale, noise, mean, offset, steps=10, lr=0.1):
    rng = np.random.default_rng(seed)
    x = rng.random((n, d))
    w = rng.normal(size=d)
    y = offset + np.sin(3.0 * x @ w) + 0.5 * np.cos(5.0 * x[:, 0]) + 0.01 * rng.normal(size=n)
    tx, ty = torch.tensor(x), torch.tensor(y)
    kernel = ScaleKernel(RBFKernel(ard_num_dims=d, lengthscale_constraint=Interval(1e-2, 1e4)))
    kernel.outputscale = 1.0
    kernel.base_kernel.lengthscale = lengthscale
    likelihood = GaussianLikelihood()
    likelihood.noise = noise
    model = ExactGPModel(tx, ty, kernel, likelihood)
    model.mean_module.constant = mean
    start = hyperparameters(model)
    model.train()
    likelihood.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    trajectory, losses = [], []
    for _ in range(steps):
        with gpytorch.settings.cholesky_jitter(1e-2):
            optimizer.zero_grad()
            loss = -mll(model(tx), ty)
            loss.backward()
            optimizer.step()
        losses.append(float(loss.detach()))
        trajectory.append(hyperparameters(model))
    return {
        "name": name,
        "x": x.tolist(),
        "y": y.tolist(),
        "start": start,
        "lengthscale_bounds": [1e-2, 1e4],
        "noise_floor": 1e-4,
        "steps": steps,
        "learning_rate": lr,
        "losses": losses,
        "trajectory": trajectory,
    }


def main():
    cases = [
        # The authors' settings: noise 1e-4 sits on GaussianLikelihood's floor, so it stays.
        case("d3_at_noise_floor", 1, 3, 15, 0.2, 1e-4, 0.0, 0.0),
        case("d5_offset_outputs", 2, 5, 40, 0.1, 1e-4, 0.0, 2.0),
        # A start above the floor: the noise moves through its softplus.
        case("d2_noise_moves", 3, 2, 8, 0.3, 1e-2, 0.5, -1.0),
        # A started mean (the runner's prior mean, the initial points' mean).
        case("d12_started_mean", 4, 12, 30, 0.05, 1e-4, 0.7, 1.0),
    ]
    for c in cases:
        assert all(math.isfinite(v) for v in c["losses"])
    out = pathlib.Path("tests/fixtures/gpytorch_adam_fit.json")
    meta = {
        "generator": "tools/reference/gpytorch_adam_fit.py",
        "gpytorch": gpytorch.__version__,
        "torch": torch.__version__,
        "cases": cases,
    }
    out.write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
