"""The GP and the acquisition values against independent references: the 40-digit mpmath
GP cases of tests/fixtures/gp_cases.json (tools/reference/gp_reference.py), closed forms of
the normal distribution, and the Gittins index's defining equation EI(g) = price."""

import json
import math

import numpy as np
import pytest

import costbo
from conftest import ROOT

CASES = [c for c in json.loads((ROOT / "tests" / "fixtures" / "gp_cases.json").read_text())["cases"]
         if c["well_conditioned"]]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_predictions_match_the_mpmath_references(case):
    gp = costbo.GP(case["kernel"], case["lengthscales"], case["outputscale"], case["noise"],
                   case["mean"])
    gp.fit(np.asarray(case["train_x"]), case["train_y"], optimize=False)
    mean, var = gp.predict(case["test_x"])
    scale = case["outputscale"]
    for got, want in zip(mean, case["pred_mean"]):
        assert abs(got - want) <= 1e-9 * max(abs(want), scale)
    for got, want in zip(var, case["pred_var"]):
        assert abs(got - want) <= 1e-9 * max(abs(want), scale)
    lml = gp.log_marginal_likelihood()
    assert abs(lml - case["lml"]) <= 1e-9 * max(abs(case["lml"]), 1.0)
    # f32: the device's precision, within 1e-3 of the output scale.
    gp32 = costbo.GP(case["kernel"], case["lengthscales"], case["outputscale"], case["noise"],
                     case["mean"], precision="f32")
    gp32.fit(case["train_x"], case["train_y"], optimize=False)
    mean32, _ = gp32.predict(case["test_x"])
    assert np.max(np.abs(mean32 - np.asarray(case["pred_mean"]))) <= 1e-3 * scale


def test_a_fit_beats_the_reference_hyperparameters_likelihood():
    case = CASES[0]
    gp = costbo.GP(case["kernel"], 0.5)
    result = gp.fit(case["train_x"], case["train_y"], starts=4, evaluations=100)
    assert result.log_marginal_likelihood >= case["lml"] - 1e-6
    assert gp.lengthscales == result.lengthscales and len(gp) == len(case["train_y"])
    assert math.isclose(gp.log_marginal_likelihood(), result.log_marginal_likelihood,
                        rel_tol=1e-9, abs_tol=1e-9)


def phi(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def Phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def test_expected_improvement_is_the_closed_form():
    rng = np.random.default_rng(1)
    mean, std, best = rng.normal(size=50), rng.uniform(0.1, 2, 50), rng.normal(size=50)
    ei = costbo.expected_improvement(mean, std, best)
    log_ei = costbo.log_ei(mean, std, best)
    assert ei.shape == (50,)
    for m, s, b, e, l in zip(mean, std, best, ei, log_ei):
        z = (m - b) / s
        want = s * (z * Phi(z) + phi(z))
        assert abs(e - want) <= 1e-12 * max(want, 1e-300) + 1e-15
        assert abs(l - math.log(want)) <= 1e-10 * max(1.0, abs(math.log(want)))
    # Far in the tail EI underflows; its log is -z²/2 - ln(z²) - ln(√2π)·... to leading order.
    far = costbo.log_ei(-40.0, 1.0, 0.0)
    assert isinstance(far, float) and -40.0**2 / 2 - 10 < far < -40.0**2 / 2
    assert costbo.log_ei(0.0, 0.0, 1.0) == -math.inf


def test_the_gittins_index_solves_its_equation():
    mean = np.array([0.0, 1.5, -2.0, 0.3])
    std = np.array([1.0, 0.2, 3.0, 1e-3])
    price = np.array([0.1, 0.01, 2.0, 1e-6])
    g = costbo.gittins_index(mean, std, price)
    ei = costbo.expected_improvement(mean, std, g)
    assert np.allclose(ei, price, rtol=1e-9, atol=0)
    assert costbo.gittins_index(1.0, 0.0, 0.25) == 0.75  # std = 0: mean - price


def test_the_normal_distribution_function_in_both_tails():
    xs = np.array([-30.0, -5.0, 0.0, 1.0, 8.0])
    got = costbo.normal_cdf(xs)
    for x, v in zip(xs, got):
        # The reference's own error: erfc's argument -x/√2 is rounded, and a relative error
        # ε in it moves Φ(x) by about x²·ε relatively.
        assert abs(v - Phi(x)) <= 4e-16 * (1 + x * x) * Phi(x)
