"""The papers' objectives from Python against independent references: the plant simulator's
check points (computed by the paper's own code, std-adapter/data/plant/model.json), and the
literature's optima of Hartmann-3 and Hartmann-6."""

import json

import numpy as np
import pytest

import costbo
from conftest import ROOT


def test_the_catalogue_lists_the_papers_objectives():
    names = [name for name, _, _ in costbo.OBJECTIVES]
    for name in ["plant", "airfoil", "hartmann3", "hartmann6", "ackley", "gp-sample"]:
        assert name in names


def test_the_plant_simulator_reproduces_the_papers_check_points():
    model = json.loads((ROOT / "std-adapter" / "data" / "plant" / "model.json").read_text())
    plant = costbo.Objective("plant")
    assert plant.dim == 5
    points = [c["unit_x"] for c in model["check_points"]]
    values = plant.evaluate(np.asarray(points))
    for got, c in zip(values, model["check_points"]):
        assert abs(got - c["value"]) <= 1e-9 * max(1.0, abs(c["value"]))
    assert plant.optimum == model["optimum"]["value"]


@pytest.mark.parametrize("name,argmax,optimum", [
    ("hartmann3", [0.114614, 0.555649, 0.852547], 3.86278),
    ("hartmann6", [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573], 3.32237),
])
def test_hartmann_optima_are_the_literatures(name, argmax, optimum):
    f = costbo.Objective(name)
    assert abs(f(argmax) - optimum) < 1e-4
    assert abs(f.optimum - optimum) < 1e-4


def test_bad_objective_inputs_are_refused():
    with pytest.raises(costbo.CostboError) as e:
        costbo.Objective("no-such-objective")
    assert "no-such-objective" in str(e.value)
    with pytest.raises(costbo.CostboError):
        costbo.Objective("hartmann6", dim=3)
    f = costbo.Objective("hartmann3")
    for u in [[0.5, 0.5], [0.5, 0.5, 1.5], [0.5, float("nan"), 0.5], "abc"]:
        with pytest.raises(costbo.CostboError):
            f(u)
    with pytest.raises(costbo.CostboError) as e:
        f.evaluate([[0.5, 0.5, 0.5], [0.5, 0.5, 2.0]])
    assert "U[1]" in str(e.value)
