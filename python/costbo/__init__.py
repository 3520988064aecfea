"""costbo: cost-aware Bayesian optimisation that chooses which inputs to set and prices each
subset, from the same experiment file as the firmware that runs on the lab's controller.

    import costbo

    opt = costbo.Optimizer.from_file("firmware/experiment.toml")
    while (ask := opt.ask()) is not None:
        x, y = run_round(ask.values)   # None in ask.values: left to chance, measured
        opt.tell(x, y)
    best = opt.recommend()

Every refusal raises :class:`CostboError` (a ``ValueError``) and leaves the object unchanged.
"""

from __future__ import annotations

import numpy as np

from ._costbo import (
    MAX_DIM,
    MAX_WIDE_DIM,
    MAX_WIDE_DIM_F32,
    WIDE_MAX_CAPACITY,
    MAX_SETS,
    MAX_SETS_LEARNING_COSTS,
    OBJECTIVES,
    RULES,
    GP,
    ArmAsk,
    Ask,
    CausalDecision,
    CausalOptimizer,
    CausalRecommendation,
    ControlSet,
    CostboError,
    FitResult,
    Objective,
    Optimizer,
    QueryAnswer,
    Recommendation,
    Variable,
)
from . import _costbo

__all__ = [
    "MAX_DIM",
    "MAX_WIDE_DIM",
    "MAX_WIDE_DIM_F32",
    "WIDE_MAX_CAPACITY",
    "MAX_SETS",
    "MAX_SETS_LEARNING_COSTS",
    "OBJECTIVES",
    "RULES",
    "GP",
    "ArmAsk",
    "Ask",
    "CausalDecision",
    "CausalOptimizer",
    "CausalRecommendation",
    "ControlSet",
    "CostboError",
    "FitResult",
    "Objective",
    "Optimizer",
    "QueryAnswer",
    "Recommendation",
    "Variable",
    "log_ei",
    "expected_improvement",
    "gittins_index",
    "normal_cdf",
]


def _broadcast(native, names, *args):
    """Applies a native function of equal-length lists to arguments broadcast as NumPy does;
    returns a float for scalar arguments, an array of the broadcast shape otherwise."""
    for name, a in zip(names, args):
        if isinstance(a, (str, bytes, bool, np.bool_)):
            raise CostboError(f"{name} is a {type(a).__name__}, not a number")
    try:
        arrays = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in args])
    except (TypeError, ValueError) as e:
        raise CostboError(f"{', '.join(names)}: {e}") from None
    shape = arrays[0].shape
    out = native(*[a.ravel().tolist() for a in arrays])
    if shape == ():
        return out[0]
    return np.asarray(out).reshape(shape)


def log_ei(mean, std, best):
    """``ln EI`` (LogEI, Ament et al. 2023) of ``f ~ N(mean, std**2)`` over ``best``: exact
    in the far tail where EI underflows, ``-inf`` where no improvement is possible. Arguments
    broadcast as NumPy arrays do."""
    return _broadcast(_costbo._log_ei, ("mean", "std", "best"), mean, std, best)


def expected_improvement(mean, std, best):
    """Expected improvement ``E[max(f - best, 0)]`` of ``f ~ N(mean, std**2)``."""
    return _broadcast(_costbo._expected_improvement, ("mean", "std", "best"), mean, std, best)


def gittins_index(mean, std, price):
    """The Pandora's Box Gittins index (paper 002, Eq. 6) of ``f ~ N(mean, std**2)`` at
    ``price = lambda * cost > 0``: the ``g`` whose expected improvement equals the price."""
    return _broadcast(_costbo._gittins_index, ("mean", "std", "price"), mean, std, price)


def normal_cdf(x):
    """The standard normal distribution function, accurate in both tails."""
    return _broadcast(_costbo._normal_cdf, ("x",), x)
