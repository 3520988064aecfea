#!/usr/bin/env python3
"""Reference values of budgeted multi-step lookahead EI (paper 002's BMSEI, known cost) as the
paper's own code computes it, for `core::acquisition::multi_step`.

BMSEI is `BudgetedMultiStepLookaheadEI` of the paper's repository (QianJaneXie/PandoraBayesOpt,
after Astudillo's BudgetedBO), imported from a checkout given as the first argument and run
on BoTorch as installed, with two adjustments for BoTorch 0.18, which the code predates:
`botorch.utils.objective.soft_eval_constraint` (removed) is given back its definition,
`sigmoid(-lhs / eta)` with `eta = 1e-3`, and the stage value's output is reshaped to the
batch shape newer BoTorch checks for. The model is the core's unit-test model (as in
`botorch_mes.py`), the known cost its priced problem's, `2 + 20 p0^2 + p1` at physical
`p = (2 u0, 2 u1 - 1)`. `budget_plus_cumulative_cost` is the lookahead budget plus the cost
of the model's four points, so the first stage's budget is the lookahead budget.

Each entry holds the tree, the lookahead budget, BMSEI's value and the central differences of
that value (step 1e-8: at the soft edge the constraint turns within 1e-5 of a coordinate). Writes

    core/tests/fixtures/botorch_bmsei.json

Run from the repository root with a Python that has BoTorch:

    git clone https://github.com/QianJaneXie/PandoraBayesOpt /tmp/pbo
    python tools/reference/botorch_bmsei.py /tmp/pbo
"""

import json
import pathlib
import sys
import warnings

import botorch
import botorch.utils.objective
import gpytorch
import torch
from botorch.utils.transforms import t_batch_mode_transform

torch.set_default_dtype(torch.float64)
warnings.filterwarnings("ignore")
botorch.utils.objective.soft_eval_constraint = lambda lhs, eta=1e-3: torch.sigmoid(-lhs / eta)
sys.path.insert(0, sys.argv[1])
from pandora_bayesopt.acquisition.budgeted_ei import BudgetedExpectedImprovement  # noqa: E402
from pandora_bayesopt.acquisition.budgeted_multi_step_ei import (  # noqa: E402
    BudgetedMultiStepLookaheadEI,
)
from unit_model import X, model, tree_differences  # noqa: E402
from unit_model import unit_cost_of_dose as cost  # noqa: E402

_stage = BudgetedExpectedImprovement.forward.__wrapped__
BudgetedExpectedImprovement.forward = t_batch_mode_transform(expected_q=1)(
    lambda self, X: _stage(self, X).reshape(X.shape[:-2])
)

STEP = 1e-8




def bmsei(gp, budget):
    return BudgetedMultiStepLookaheadEI(
        gp,
        unknown_cost=False,
        budget_plus_cumulative_cost=budget + cost(X).sum(),
        batch_size=1,
        lookahead_batch_sizes=[1, 1, 1],
        num_fantasies=[1, 1, 1],
        cost_function=cost,
    )


def main():
    gp = model()
    torch.manual_seed(3)
    trees = [torch.rand(4, 2) * torch.tensor([0.4, 1.0]) for _ in range(4)]
    rows = []
    for i, t in enumerate(trees):
        spent = torch.cumsum(cost(t), 0)
        # All stages affordable; the third stage at the constraint's soft edge; three stages.
        for budget in [1e3, spent[2].item() + 4e-4, spent[2].item() + 0.5]:
            acq = bmsei(gp, budget)
            with torch.no_grad():
                value = acq(t.reshape(1, 4, 2)).item()
                fd = tree_differences(acq, t, STEP)
            rows.append(
                {
                    "points": t.tolist(),
                    "budget": budget,
                    "value": value,
                    "value_differences": fd.tolist(),
                }
            )
    out = {
        "generator": "tools/reference/botorch_bmsei.py",
        "botorch": botorch.__version__,
        "gpytorch": gpytorch.__version__,
        "torch": torch.__version__,
        "step": STEP,
        "trees": rows,
    }
    path = pathlib.Path("core/tests/fixtures/botorch_bmsei.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(rows)} trees)")


main()
