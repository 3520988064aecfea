#!/usr/bin/env python3
"""Reference values of multi-step lookahead EI (paper 002's MSEI) computed by BoTorch's
`qMultiStepLookahead`, for `core::acquisition::multi_step`.

The acquisition is built as the paper's code builds it (`MultiStepLookaheadEI` in
QianJaneXie/PandoraBayesOpt, after Astudillo's BudgetedBO): lookahead batch sizes [1, 1, 1],
one fantasy per stage drawn with zero base samples (the code's `PosteriorMeanSampler`: the
fantasy is the posterior mean), analytic `ExpectedImprovement` at every stage with the
fantasy model's largest training target as `best_f` (`make_best_f`; the model has no outcome
transform). The model is the core's unit-test model, as in `botorch_mes.py`.

At each tree (four points drawn uniformly with torch seed 2, plus a tree near the data where
the incumbent is a fantasy) the fixture holds BoTorch's value, the central differences of that
value (step 1e-6) and BoTorch's autograd gradient. The last is not the derivative of the value:
BoTorch's fantasy models do not carry the whole dependence of later stages on earlier points
to autograd, and the finite differences of its own value disagree with it (the fixture
shows by how much). The core's gradient is checked against the finite differences. Writes

    core/tests/fixtures/botorch_msei.json

Run from the repository root with a Python that has BoTorch:

    python tools/reference/botorch_msei.py
"""

import json
import pathlib
import warnings

import botorch
import gpytorch
import torch
from botorch.acquisition.analytic import ExpectedImprovement
from botorch.acquisition.multi_step_lookahead import make_best_f, qMultiStepLookahead
from botorch.sampling.normal import SobolQMCNormalSampler
from unit_model import model, tree_differences

torch.set_default_dtype(torch.float64)
warnings.filterwarnings("ignore")

STEP = 1e-6



class MeanFantasySampler(SobolQMCNormalSampler):
    """Zero base samples: each fantasy is the posterior mean."""

    def _construct_base_samples(self, posterior):
        shape = self._get_collapsed_shape(posterior)
        self.register_buffer("base_samples", torch.zeros(shape))


def main():
    gp = model()
    acq = qMultiStepLookahead(
        gp,
        batch_sizes=[1, 1, 1],
        samplers=[MeanFantasySampler(sample_shape=torch.Size([1])) for _ in range(3)],
        valfunc_cls=[ExpectedImprovement] * 4,
        valfunc_argfacs=[make_best_f] * 4,
    )
    torch.manual_seed(2)
    trees = [torch.rand(4, 2) for _ in range(5)]
    trees.append(torch.tensor([[0.45, 0.85], [0.3, 0.62], [0.52, 0.88], [0.7, 0.7]]))
    rows = []
    for t in trees:
        p = t.reshape(1, 4, 2).clone().requires_grad_(True)
        value = acq(p).sum()
        (grad,) = torch.autograd.grad(value, p)
        fd = tree_differences(acq, t, STEP)
        rows.append(
            {
                "points": t.tolist(),
                "value": value.item(),
                "value_differences": fd.tolist(),
                "autograd": grad[0].tolist(),
            }
        )
    out = {
        "generator": "tools/reference/botorch_msei.py",
        "botorch": botorch.__version__,
        "gpytorch": gpytorch.__version__,
        "torch": torch.__version__,
        "step": STEP,
        "trees": rows,
    }
    path = pathlib.Path("core/tests/fixtures/botorch_msei.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(rows)} trees)")


main()
