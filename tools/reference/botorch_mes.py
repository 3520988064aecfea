#!/usr/bin/env python3
"""Reference values and gradients of the MES acquisition (and MES per unit cost) on a GP
posterior computed by BoTorch/GPyTorch, for `core::acquisition::max_value_entropy`.

The model is the core's unit-test model (`core/src/acquisition/test_support.rs`): a
`SingleTaskGP` on four points in the unit square with a Matérn-5/2 kernel of lengthscales
(0.3, 0.5) and outputscale 1.3, constant mean 0.1 and noise variance 1e-4, every
hyperparameter fixed, no input or outcome transform. At each test point the latent posterior
(`observation_noise=False`, variance floored at 1e-8 as BoTorch's MES does) gives mu and sigma;
the noiseless MES of Wang & Jegelka over the given samples of the maximum,
mean_k [g_k phi(g_k) / (2 Phi(g_k)) - log Phi(g_k)], g_k = (y*_k - mu)/sigma, is written in
torch (log Phi by `torch.special.log_ndtr`) and differentiated by autograd with respect to the
point; the per-unit-cost form divides by the test model's cost 2 + 20 x0^2 + x1 at physical
x = (2 u0, 2 u1 - 1). Writes

    core/tests/fixtures/botorch_mes.json

Run from the repository root with a Python that has BoTorch:

    python tools/reference/botorch_mes.py
"""

import json
import pathlib

import botorch
import gpytorch
import torch
from unit_model import model

torch.set_default_dtype(torch.float64)

SAMPLES = [1.05, 1.2, 0.95, 1.6, 2.4, 1.1, 0.92, 1.35]
POINTS = [[0.4, 0.4], [0.05, 0.95], [0.7, 0.75], [0.95, 0.05], [0.3, 0.61], [0.5, 0.5]]



def mes(gp, x, per_cost):
    post = gp.posterior(x.reshape(1, 2), observation_noise=False)
    mu = post.mean.reshape(())
    sigma = post.variance.reshape(()).clamp_min(1e-8).sqrt()
    g = (torch.tensor(SAMPLES) - mu) / sigma
    log_cdf = torch.special.log_ndtr(g)
    log_pdf = -0.5 * g * g - 0.5 * torch.log(torch.tensor(2 * torch.pi))
    value = (g * torch.exp(log_pdf - log_cdf) / 2 - log_cdf).mean()
    if per_cost:
        p0, p1 = 2 * x[0], 2 * x[1] - 1
        value = value / (2 + 20 * p0 * p0 + p1)
    return value, mu, sigma


def main():
    gp = model()
    rows = []
    for per_cost in [False, True]:
        for p in POINTS:
            x = torch.tensor(p, requires_grad=True)
            value, mu, sigma = mes(gp, x, per_cost)
            (grad,) = torch.autograd.grad(value, x)
            rows.append(
                {
                    "x": p,
                    "per_unit_cost": per_cost,
                    "mean": mu.item(),
                    "std": sigma.item(),
                    "value": value.item(),
                    "gradient": grad.tolist(),
                }
            )
    out = {
        "generator": "tools/reference/botorch_mes.py",
        "botorch": botorch.__version__,
        "gpytorch": gpytorch.__version__,
        "torch": torch.__version__,
        "max_values": SAMPLES,
        "points": rows,
    }
    path = pathlib.Path("core/tests/fixtures/botorch_mes.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(rows)} points)")


main()
