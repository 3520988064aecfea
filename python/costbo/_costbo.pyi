"""Type stubs of costbo's native module (re-exported by ``costbo``)."""

from __future__ import annotations

import os
from typing import Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Vector = Union[Sequence[float], npt.NDArray[np.floating]]
_Matrix = Union[Sequence[Sequence[float]], npt.NDArray[np.floating]]

MAX_DIM: int
"""Most variables an Optimizer holds in either precision, with either model."""
MAX_WIDE_DIM: int
"""Most variables (64) an f64 Optimizer holds, with a capacity up to WIDE_MAX_CAPACITY
(beyond MAX_DIM its model has inert inputs up to the next compiled size)."""
MAX_WIDE_DIM_F32: int
"""Most variables (16, a device's most) an f32 Optimizer holds."""
WIDE_MAX_CAPACITY: int
"""Largest capacity (1024) of an f64 Optimizer of more than MAX_DIM variables."""
MAX_SETS: int
"""Most control sets an Optimizer holds."""
MAX_SETS_LEARNING_COSTS: int
"""Most control sets of an Optimizer whose rule learns each set's cost (unknown-cost)."""
RULES: list[tuple[str, str]]
"""Every decision rule's name, with one line on what it is."""
OBJECTIVES: list[tuple[str, int, str]]
"""Every objective's name, default dimension and what it is."""

class CostboError(ValueError):
    """A refused call; ``kind`` says what went wrong ("experiment", "io", "input", "sequence",
    "model", "state", "resources"). The object the call was made on is unchanged."""

    kind: str

class Ask:
    """One decision: which control set to pay for and the values of its variables."""

    @property
    def set(self) -> int:
        """Index of the control set, in the file's order."""
    @property
    def values(self) -> list[Optional[float]]:
        """One value per variable (physical units); None for a variable left to chance."""
    @property
    def cost(self) -> float:
        """What the round costs: the set's cost, or with learned costs the mean of the costs
        told for the set so far (0 before its first round)."""
    @property
    def score(self) -> float:
        """The rule's score of the decision."""

class Recommendation:
    """The best (control set, values) by expected posterior mean."""

    @property
    def set(self) -> int:
        """Index of the control set."""
    @property
    def values(self) -> list[Optional[float]]:
        """The set's variables' values; None for the others."""
    @property
    def expected(self) -> float:
        """The expected outcome under the model."""

class QueryAnswer:
    """Whether to pay for measuring this round's outcome (truthy when it should be)."""

    @property
    def measure(self) -> bool:
        """Pay for the measurement (then tell); otherwise skip."""
    @property
    def min_probability(self) -> float:
        """The smallest probability, over the competitors, that the point is not beaten."""
    def __bool__(self) -> bool: ...

class Variable:
    """A variable of the experiment."""

    @property
    def name(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def lower(self) -> float: ...
    @property
    def upper(self) -> float: ...
    @property
    def price(self) -> float:
        """Price per physical unit dosed, on top of a set's cost (0: none)."""

class ControlSet:
    """A control set of the experiment."""

    @property
    def variables(self) -> list[int]:
        """Indices of the variables it sets."""
    @property
    def cost(self) -> Optional[float]:
        """What a round with it costs; None when the costs are learned."""

class Optimizer:
    """An ask/tell optimizer over an experiment (the format of firmware/experiment.toml)."""

    @staticmethod
    def from_toml(text: str, precision: str = "f64") -> Optimizer:
        """An optimizer for the experiment in ``text``; precision "f64" or "f32" (the
        device's, bit for bit)."""
    @staticmethod
    def from_file(path: Union[str, os.PathLike[str]], precision: str = "f64") -> Optimizer:
        """An optimizer for the experiment file at ``path``."""
    @staticmethod
    def from_json(text: str) -> Optimizer:
        """Restores an optimizer saved by ``to_json``, bit for bit."""
    @staticmethod
    def build(
        name: str,
        budget: float,
        variables: list[dict],
        sets: list[Union[tuple[list[str], Optional[float]], dict]],
        *,
        rule: str = "ucb-cvs",
        seed: int = 0,
        capacity: int = 256,
        bank: int = 64,
        beta: Optional[float] = None,
        kernel: str = "se",
        lengthscale: Optional[float] = None,
        outputscale: Optional[float] = None,
        noise: Optional[float] = None,
        mean: Optional[float] = None,
        inner: Optional[tuple[int, int, int]] = None,
        precision: str = "f64",
        bank_seed: Optional[int] = None,
        fit: str = "fixed",
        refit_every: Optional[int] = None,
        noise_floor: Optional[float] = None,
        budget_rule: str = "affordable",
        from_spent: Optional[float] = None,
        steps: Optional[int] = None,
        learning_rate: Optional[float] = None,
    ) -> Optimizer:
        """An experiment by keywords: variables as dicts (name, lower, upper; optionally
        unit, mean with variance for a truncated normal, and price per unit dosed), sets as
        (names, cost) with the cost None for every set when the costs are learned, inner as
        the inner optimiser's (pool, starts, evaluations_per_start); fit "map" refits the
        model every refit_every rounds (default 5) with its noise at least noise_floor
        (default 1e-6), "botorch" refits as paper 002 (the noise kept), "adam" as paper 001's
        authors' code (from_spent 0.6, steps 10, learning_rate 0.1 by default); budget_rule
        "while-below" decides while the spent budget is below the total; bank_seed seeds the
        sample bank apart from seed."""
    def ask(self) -> Optional[Ask]:
        """The next decision, or None once the budget cannot pay for another round."""
    def tell(self, x: _Vector, y: float, cost: Optional[float] = None) -> None:
        """Tells the pending decision's outcome: the full measured point, the outcome and
        the cost paid (the asked cost if omitted; required when the costs are learned)."""
    def tell_prior(self, x: _Vector, y: float, cost: Optional[float] = None) -> None:
        """An observation made outside the rounds, not charged to the budget (with its cost
        where the costs are learned as a function of the values)."""
    def query(self, x: _Vector) -> QueryAnswer:
        """With a costly measurement: whether to pay for measuring this round's outcome."""
    def skip(self, x: _Vector, cost: Optional[float] = None) -> None:
        """Ends the pending round without measuring, as query answered."""
    def recommend(self) -> Recommendation:
        """The best (control set, values) by expected posterior mean."""
    def to_json(self) -> str:
        """The state as JSON text (the file and every observation, with a checksum)."""
    def to_toml(self) -> str:
        """The experiment file's text."""
    @property
    def name(self) -> str: ...
    @property
    def precision(self) -> str: ...
    @property
    def variables(self) -> list[Variable]: ...
    @property
    def sets(self) -> list[ControlSet]: ...
    @property
    def learns_costs(self) -> bool:
        """True when the costs are learned from the costs told."""
    @property
    def learns_cost_function(self) -> bool:
        """True when a model of ln(cost) over the box learns the costs told."""
    @property
    def capacity(self) -> int: ...
    @property
    def bank(self) -> int: ...
    @property
    def budget(self) -> float: ...
    @property
    def spent(self) -> float: ...
    @property
    def rounds(self) -> int: ...
    @property
    def observations(self) -> int: ...
    @property
    def pending(self) -> Optional[Ask]: ...
    @property
    def _core_seconds(self) -> float:
        """Seconds the last call spent inside the Rust optimizer."""

class ArmAsk:
    """The arm chosen for this round: measure the variables in ``contexts``, then ``ask``."""
    @property
    def arm(self) -> int:
        """The arm's index, in the file's order."""
    @property
    def set(self) -> int:
        """The control set it doses."""
    @property
    def contexts(self) -> list[int]:
        """The indices of the variables to measure now (the arm's contexts)."""
    @property
    def cost(self) -> float:
        """What the round costs."""

class CausalDecision:
    """The action of this round: the dose of each of the arm's actions."""
    @property
    def arm(self) -> int:
        """The arm."""
    @property
    def set(self) -> int:
        """The control set it doses."""
    @property
    def values(self) -> list[Optional[float]]:
        """One value per variable (physical units); ``None`` for those the arm does not set."""
    @property
    def cost(self) -> float:
        """The round's cost."""
    @property
    def ucb(self) -> float:
        """The action's UCB value (the device sends it as its decision's score)."""

class CausalRecommendation:
    """The arm whose outcomes were best on average."""
    @property
    def arm(self) -> int:
        """The arm."""
    @property
    def set(self) -> int:
        """Its control set."""
    @property
    def mean_outcome(self) -> float:
        """Its mean outcome."""
    @property
    def plays(self) -> int:
        """Its plays."""

_Contexts = Union[Sequence[Optional[float]], npt.NDArray[np.floating], dict[str, float]]

class CausalOptimizer:
    """A contextual causal experiment (a file with a ``[causal]`` table): ``next_arm()``,
    ``ask(contexts)``, ``tell(y)``. In ``"f32"`` it makes the device's decisions bit for bit."""
    @staticmethod
    def from_toml(text: str, precision: str = "f64") -> CausalOptimizer:
        """An optimizer for the causal experiment in ``text``."""
    @staticmethod
    def from_file(path: Union[str, os.PathLike[str]], precision: str = "f64") -> CausalOptimizer:
        """An optimizer for the causal experiment file at ``path``."""
    @staticmethod
    def from_json(text: str) -> CausalOptimizer:
        """Restores an optimizer saved by ``to_json``."""
    def next_arm(self) -> Optional[ArmAsk]:
        """This round's arm, or ``None`` once the budget cannot pay for it."""
    def ask(self, contexts: _Contexts) -> CausalDecision:
        """The doses for the chosen arm given its measured contexts (one entry per variable,
        ``None`` where not measured, or a dict from names to values)."""
    def tell(self, y: float) -> None:
        """The outcome of the decided round."""
    def abandon(self) -> None:
        """Drops the open round (not carried out)."""
    def recommend(self) -> Optional[CausalRecommendation]:
        """The arm with the best mean outcome so far."""
    def to_json(self) -> str:
        """The state (the experiment file and the rounds told) as JSON."""
    @property
    def name(self) -> str: ...
    @property
    def precision(self) -> str: ...
    @property
    def arms(self) -> list[tuple[int, list[int], list[int]]]:
        """``(set, actions, contexts)`` per arm, variable indices."""
    @property
    def variables(self) -> list[Variable]: ...
    @property
    def variable_names(self) -> list[str]: ...
    @property
    def budget(self) -> float: ...
    @property
    def spent(self) -> float: ...
    @property
    def rounds(self) -> int: ...

class FitResult:
    """The hyperparameters a GP fit found."""

    @property
    def lengthscales(self) -> list[float]: ...
    @property
    def outputscale(self) -> float: ...
    @property
    def noise(self) -> float: ...
    @property
    def mean(self) -> float: ...
    @property
    def log_marginal_likelihood(self) -> float: ...
    @property
    def evaluations(self) -> int: ...

class GP:
    """A Gaussian process with a constant mean and Gaussian noise (costbo's model)."""

    def __init__(
        self,
        kernel: str = "matern52",
        lengthscales: Union[float, _Vector, None] = None,
        outputscale: Optional[float] = None,
        noise: Optional[float] = None,
        mean: Optional[float] = None,
        precision: str = "f64",
    ) -> None: ...
    def fit(
        self,
        x: _Matrix,
        y: _Vector,
        *,
        optimize: bool = True,
        starts: int = 8,
        evaluations: int = 200,
        seed: int = 0,
    ) -> Optional[FitResult]:
        """Takes the data and, with optimize, fits the hyperparameters."""
    def predict(self, x: _Matrix) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Posterior mean and latent variance at each row."""
    def log_marginal_likelihood(self) -> float: ...
    @property
    def kernel(self) -> str: ...
    @property
    def lengthscales(self) -> list[float]: ...
    @property
    def outputscale(self) -> float: ...
    @property
    def noise(self) -> float: ...
    @property
    def mean(self) -> float: ...
    def __len__(self) -> int: ...

class Objective:
    """An objective of the papers, maximised over the unit cube [0, 1]^dim."""

    def __init__(self, name: str, dim: Optional[int] = None, seed: Optional[int] = None) -> None: ...
    def __call__(self, u: _Vector) -> float:
        """The value at the unit-cube point u."""
    def evaluate(self, u: _Matrix) -> npt.NDArray[np.float64]:
        """The values at the rows of U."""
    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def optimum(self) -> float:
        """The maximum over the unit cube."""
    @property
    def argmax(self) -> Optional[list[float]]:
        """A maximiser, where one is known."""

def _log_ei(mean: Sequence[float], std: Sequence[float], best: Sequence[float]) -> list[float]: ...
def _expected_improvement(
    mean: Sequence[float], std: Sequence[float], best: Sequence[float]
) -> list[float]: ...
def _gittins_index(
    mean: Sequence[float], std: Sequence[float], price: Sequence[float]
) -> list[float]: ...
def _normal_cdf(x: Sequence[float]) -> list[float]: ...
