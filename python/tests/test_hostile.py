"""Hostile inputs to the package, one table (the command's suite is
std-adapter/command/tests/hostile.rs): endless or enormous files and texts, numbers at the edges
of f64, sizes far beyond the machine, and text that would garble a terminal. Each ends at once
in a costbo.CostboError of the right kind, with a message of bounded length that says what was
wrong, or in a correct, finite result; an optimizer that refused a call is unchanged."""

import math
import time

import numpy as np
import pytest

import costbo
from conftest import SplitMix64, play, seven

# Longest message: the adapter's cut (costbo_std::MESSAGE_BYTES, 2000) and its suffix.
LONGEST_MESSAGE = 2100


def played(rounds=3):
    opt = costbo.Optimizer.from_toml(seven(budget=20.0))
    rng = SplitMix64(5)
    for _ in range(rounds):
        ask = opt.ask()
        x, y = play(opt, ask.values, rng)
        opt.tell(x, y)
    return opt, rng


def tell_far(opt, rng, y):
    x, _ = play(opt, opt.ask().values, rng)
    return lambda: opt.tell(x, y)


def one_variable(**keywords):
    arguments = dict(variables=[dict(name="a", lower=0.0, upper=1.0)], sets=[(["a"], 1.0)])
    arguments.update(keywords)
    return lambda: costbo.Optimizer.build("x", 1.0, **arguments)


OPENING = [
    # (what, call, kind, words in the message)
    ("an endless file", lambda: costbo.Optimizer.from_file("/dev/zero"), "io",
     ["longer than 1 MiB"]),
    ("random bytes", lambda: costbo.Optimizer.from_file("/dev/urandom"), "io", ["/dev/urandom"]),
    ("a directory", lambda: costbo.Optimizer.from_file("/"), "io", ["directory"]),
    ("50 MB of text", lambda: costbo.Optimizer.from_toml("x" * 50_000_000), "experiment",
     ["bytes in all"]),
    ("a 10 MB string as state", lambda: costbo.Optimizer.from_json('"' + "a" * 10_000_000 + '"'),
     "state", ["bytes in all"]),
    ("JSON nested a million deep", lambda: costbo.Optimizer.from_json("[" * 1_000_000), "state",
     ["not a costbo optimizer state"]),
    ("a capacity of 10^12", one_variable(capacity=10**12), None, ["capacity"]),
    ("a GP of 10^5 points", lambda: costbo.GP().fit(np.zeros((100_000, 2)), np.zeros(100_000)),
     None, ["2048"]),
    ("an objective of 10^12 inputs", lambda: costbo.Objective("ackley", dim=10**12), None,
     ["allowed: 1..=10000"]),
    ("an objective of 2^70 inputs", lambda: costbo.Objective("ackley", dim=2**70), None,
     ["dim"]),
    ("outputs 1e308 apart",
     lambda: costbo.GP(kernel="se").fit(np.array([[0.1], [0.5], [0.9]]), [1e308, -1e308, 1e308]),
     "model", ["rescale y"]),
    ("a point outside the cube", lambda: costbo.Objective("hartmann3")([1.5, 0.5, 0.5]), None,
     ["outside"]),
    ("an escape sequence in a name", lambda: costbo.Objective("ha\x1b[31mrt"), None,
     ["\\u{1b}[31m"]),
]


@pytest.mark.parametrize("what,call,kind,words", OPENING, ids=[c[0] for c in OPENING])
def test_a_hostile_argument_is_refused_at_once_with_a_bounded_message(what, call, kind, words):
    start = time.monotonic()
    with pytest.raises(costbo.CostboError) as e:
        call()
    assert time.monotonic() - start < 10, what
    message = str(e.value)
    assert len(message) <= LONGEST_MESSAGE, (what, len(message))
    assert "\x1b" not in message, what
    if kind is not None:
        assert e.value.kind == kind, (what, e.value.kind, message)
    for w in words:
        assert w in message, (what, w, message[:300])


def test_an_outcome_too_far_from_the_others_is_refused_and_changes_nothing():
    opt, rng = played()
    before = opt.to_json()
    with pytest.raises(costbo.CostboError) as e:
        tell_far(opt, rng, -1e300)()
    assert e.value.kind == "input" and "rescale y" in str(e.value), str(e.value)
    assert opt.to_json() == before
    # Large but standardisable outcomes are taken, and the next ask is finite.
    opt, rng = played()
    for y in [1e100, -1e100, 3e99]:
        tell_far(opt, rng, y)()
    ask = opt.ask()
    assert ask is None or all(v is None or math.isfinite(v) for v in ask.values)


def fitted():
    gp = costbo.GP(kernel="se", lengthscales=0.3, outputscale=1.0, noise=0.01)
    gp.fit(np.array([[0.1], [0.5], [0.9]]), [1.0, 2.0, 0.5], optimize=False)
    return gp


EDGES = [
    # (what, value, the exact value or None for "finite")
    ("LogEI where EI underflows", lambda: costbo.log_ei(0.0, 1.0, 1000.0),
     -500_014.734_452_091_16),
    ("LogEI of mean 1e308 over -1e308", lambda: costbo.log_ei(1e308, 1.0, -1e308),
     709.889_355_822_726),
    ("LogEI at std 1e-308", lambda: costbo.log_ei(0.0, 1e-308, 0.0), -710.115_147_175_370_8),
    ("EI at std 1e-320", lambda: costbo.expected_improvement(1.0, 1e-320, 0.0), 1.0),
    ("the Gittins index at price 1e-300", lambda: costbo.gittins_index(10.0, 1e-3, 1e-300),
     10.036_762_417_436_687),
    # 3.66e-350 rounds to 0 in f64: the right value, not an underflow to NaN.
    ("the normal CDF at -40", lambda: costbo.normal_cdf(-40.0), 0.0),
    ("a GP at inputs of 1e308", lambda: fitted().predict(np.array([[1e308], [-1e308]])), None),
]


@pytest.mark.parametrize("what,call,exact", EDGES, ids=[c[0] for c in EDGES])
def test_numbers_at_the_edges_of_f64_give_the_right_finite_value(what, call, exact):
    value = call()
    values = np.concatenate([np.ravel(v) for v in value]) if isinstance(value, tuple) else \
        np.ravel(value)
    assert np.all(np.isfinite(values)), (what, values)
    if exact is not None:
        assert abs(float(values[0]) - exact) <= 1e-12 * max(1.0, abs(exact)), (what, values)


def test_values_beyond_f64_are_errors_not_infinities():
    # mean - std*u at mean 1e308, std 1e308 and a tiny price exceeds f64.
    with pytest.raises(costbo.CostboError) as e:
        costbo.gittins_index(1e308, 1e308, 1e-300)
    assert "f64" in str(e.value) or "finite" in str(e.value), str(e.value)
