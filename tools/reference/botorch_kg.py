#!/usr/bin/env python3
"""Reference values and gradients of the one-shot knowledge gradient computed by BoTorch's
`qKnowledgeGradient`, for `core::acquisition::knowledge_gradient`.

The model is the core's unit-test model (`core/src/acquisition/test_support.rs`), as in
`botorch_mes.py`: a `SingleTaskGP` on four points in the unit square, Matérn-5/2 with
lengthscales (0.3, 0.5), outputscale 1.3, constant mean 0.1, noise variance 1e-4, every
hyperparameter fixed, no input or outcome transform. The fantasies' base samples are the ones
BoTorch's own `SobolQMCNormalSampler` draws for 8 fantasies with seed 0; they are written to
the fixture, and a sampler subclass hands exactly those to `qKnowledgeGradient`, so that both
sides evaluate the same fantasies. At each one-shot point (the point to observe followed by one
point per fantasy, drawn uniformly with torch seed 1) BoTorch's forward value and its autograd
gradient with respect to every coordinate are written. Writes

    core/tests/fixtures/botorch_kg.json

Run from the repository root with a Python that has BoTorch:

    python tools/reference/botorch_kg.py
"""

import json
import pathlib

import botorch
import gpytorch
import torch
from botorch.acquisition import qKnowledgeGradient
from botorch.sampling.normal import SobolQMCNormalSampler
from unit_model import model

torch.set_default_dtype(torch.float64)

FANTASIES = 8
POINTS = 6



def botorch_base_samples(gp):
    """The base samples BoTorch's Sobol sampler draws for one point's fantasies (seed 0)."""
    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([FANTASIES]), seed=0)
    posterior = gp.posterior(torch.tensor([[0.5, 0.5]]), observation_noise=True)
    sampler._construct_base_samples(posterior)
    return sampler.base_samples.reshape(-1).clone()


class FixedSampler(SobolQMCNormalSampler):
    """BoTorch's sampler with the base samples given."""

    def __init__(self, z):
        super().__init__(sample_shape=torch.Size([len(z)]))
        self.z = z

    def _construct_base_samples(self, posterior):
        shape = self._get_collapsed_shape(posterior)
        self.register_buffer("base_samples", self.z.reshape(shape))


def main():
    gp = model()
    z = botorch_base_samples(gp)
    kg = qKnowledgeGradient(gp, num_fantasies=FANTASIES, sampler=FixedSampler(z))
    torch.manual_seed(1)
    rows = []
    for _ in range(POINTS):
        p = torch.rand(1, 1 + FANTASIES, 2).requires_grad_(True)
        value = kg(p).sum()
        (grad,) = torch.autograd.grad(value, p)
        rows.append(
            {
                "x": p[0, 0].tolist(),
                "fantasy_points": p[0, 1:].tolist(),
                "value": value.item(),
                "gradient_x": grad[0, 0].tolist(),
                "gradient_fantasy_points": grad[0, 1:].tolist(),
            }
        )
    out = {
        "generator": "tools/reference/botorch_kg.py",
        "botorch": botorch.__version__,
        "gpytorch": gpytorch.__version__,
        "torch": torch.__version__,
        "base_samples": z.tolist(),
        "points": rows,
    }
    path = pathlib.Path("core/tests/fixtures/botorch_kg.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(rows)} points, {FANTASIES} fantasies)")


main()
