#!/usr/bin/env python3
"""Reference samples of the maximum from BoTorch's Gumbel approximation, for the core's
`special::gumbel::gumbel_max_values` (paper 002's MES baseline).

BoTorch's `botorch.acquisition.max_value_entropy_search._sample_max_value_Gumbel` reads the
posterior mean and variance at a candidate set, finds the quartiles of
prod_i Phi((z - mu_i)/sigma_i) with SciPy's `brentq` (bracket [min(mu - 3 sigma),
max(mu + 5 sigma)]), fits a Gumbel to them and returns a - b*log(-log(u)) for uniforms u from
`torch.rand`. This script hands it a stand-in model whose posterior is given moments (so no GP
of ours or BoTorch's is involved), seeds torch, calls the function, and draws the same uniforms
again from the same seed; it writes the moments, the uniforms and BoTorch's samples to

    core/tests/fixtures/botorch_gumbel.json

which `core/tests/botorch_gumbel.rs` compares with `gumbel_max_values` on the same moments and
uniforms. Run from the repository root with a Python that has BoTorch (generated with the
versions the JSON records):

    python tools/reference/botorch_gumbel.py
"""

import json
import pathlib

import botorch
import numpy as np
import scipy
import torch
from botorch.acquisition.max_value_entropy_search import _sample_max_value_Gumbel

torch.set_default_dtype(torch.float64)


class Moments:
    """A posterior with the given mean and variance at every candidate (n x 1)."""

    def __init__(self, mean, variance):
        self.mean = mean
        self.variance = variance


class GivenPosterior:
    """A stand-in for a single-output model: `posterior` returns fixed moments."""

    num_outputs = 1

    def __init__(self, mu, sigma):
        self.mu = torch.tensor(mu).reshape(-1, 1)
        self.var = torch.tensor(sigma).reshape(-1, 1) ** 2

    def posterior(self, X, posterior_transform=None):
        assert X.shape[0] == self.mu.shape[0]
        return Moments(self.mu, self.var)


def case(name, mu, sigma, samples, seed):
    model = GivenPosterior(mu, sigma)
    candidates = torch.zeros(len(mu), 1)
    torch.manual_seed(seed)
    with torch.no_grad():
        max_values = _sample_max_value_Gumbel(model, candidates, samples)
    torch.manual_seed(seed)
    uniforms = torch.rand(samples, 1)
    return {
        "name": name,
        "means": list(map(float, mu)),
        "stds": list(map(float, sigma)),
        "uniforms": uniforms.reshape(-1).tolist(),
        "max_values": max_values.reshape(-1).tolist(),
    }


def main():
    rng = np.random.default_rng(20261129)
    cases = []
    # A fitted model's look: means spread around 0, stds from near-certain to wide.
    n = 200
    cases.append(case("mixed-200", rng.normal(0.0, 1.0, n), rng.uniform(0.01, 1.5, n), 10, 1))
    # Many candidates (the paper's 1000·d at d = 2) with a few standing out.
    n = 2000
    mu = rng.normal(-1.0, 0.3, n)
    mu[:5] = [0.8, 0.9, 1.1, 0.7, 1.0]
    cases.append(case("peaked-2000", mu, rng.uniform(0.05, 0.4, n), 10, 2))
    # Equal candidates: prod = Phi^C, with a closed form the core's tests also check.
    cases.append(case("equal-1000", [0.3] * 1000, [1.7] * 1000, 10, 3))
    # Large offsets and scales (a model on unstandardised outputs).
    n = 300
    cases.append(case("offset-300", rng.normal(250.0, 40.0, n), rng.uniform(0.5, 30.0, n), 10, 4))
    out = {
        "generator": "tools/reference/botorch_gumbel.py",
        "botorch": botorch.__version__,
        "torch": torch.__version__,
        "scipy": scipy.__version__,
        "cases": cases,
    }
    path = pathlib.Path("core/tests/fixtures/botorch_gumbel.json")
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {path} ({len(cases)} cases)")


main()
