"""Every bad input raises costbo.CostboError (a ValueError) with a message that names it, and
leaves the object as it was: its saved state is unchanged and it goes on deciding as a twin
that never saw the bad call."""

import math

import numpy as np
import pytest

import costbo
from conftest import ROOT, SplitMix64, play, seven


@pytest.fixture
def pending():
    """An optimizer with 5 rounds played and a decision pending, and the point to tell."""
    opt = costbo.Optimizer.from_toml(seven(budget=20.0))
    rng = SplitMix64(9)
    for _ in range(5):
        ask = opt.ask()
        x, y = play(opt, ask.values, rng)
        opt.tell(x, y)
    ask = opt.ask()
    x, y = play(opt, ask.values, rng)
    return opt, ask, x, y


def refused(opt, call, *words, kind="input"):
    """Calls `call`, expects a CostboError of `kind` whose message holds every word, and
    checks that `opt` is unchanged."""
    before = opt.to_json()
    with pytest.raises(costbo.CostboError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert e.value.kind == kind, (e.value.kind, str(e.value))
    for w in words:
        assert w in str(e.value), (w, str(e.value))
    assert opt.to_json() == before
    return str(e.value)


def bad_points(x):
    nan = list(x)
    nan[2] = float("nan")
    inf = list(x)
    inf[6] = -math.inf
    text = list(x)
    text[1] = "1.0"
    flag = list(x)
    flag[0] = True
    out = list(x)
    out[3] = 1e6
    return [
        (nan, ["x[2]", "NaN"]),
        (np.asarray(inf), ["x[6]", "inf"]),
        (text, ["x[1]", "str"]),
        (flag, ["x[0]", "bool"]),
        (x[:-1], ["6 values", "7 variables"]),
        (x + [0.0], ["8 values"]),
        (np.asarray([x]), ["2 dimensions"]),
        ("abc", ["str"]),
        (None, ["NoneType"]),
        (out, ["x[3]", "outside"]),
        ([complex(1, 1)] * 7, ["x[0]", "complex"]),
    ]


def test_bad_points_outcomes_and_costs_are_refused_and_change_nothing(pending):
    opt, ask, x, y = pending
    twin = costbo.Optimizer.from_json(opt.to_json())
    for point, words in bad_points(x):
        refused(opt, lambda: opt.tell(point, y), *words)
    refused(opt, lambda: opt.tell_prior(x, y), "pending", kind="sequence")
    for outcome, words in [(float("nan"), ["y", "NaN"]), (math.inf, ["y"]), ("1", ["y", "str"]),
                           (None, ["y"]), (False, ["y", "bool"]), ([1.0], ["y", "list"])]:
        refused(opt, lambda: opt.tell(x, outcome), *words)
    for cost, words in [(0.0, ["cost"]), (-1.0, ["cost"]), (float("nan"), ["cost", "NaN"]),
                        ("0.1", ["cost", "str"])]:
        refused(opt, lambda: opt.tell(x, y, cost), *words)
    # A controlled value other than the one asked for.
    moved = list(x)
    l = opt.sets[ask.set].variables[0]
    info = opt.variables[l]
    moved[l] = info.lower if abs(x[l] - info.lower) > 0.5 * (info.upper - info.lower) else info.upper
    refused(opt, lambda: opt.tell(moved, y), f"x[{l}]")
    # Calls out of turn.
    refused(opt, lambda: opt.query(x), "[measurement]", kind="sequence")
    refused(opt, lambda: opt.skip(x), kind="sequence")
    # The optimizer goes on as its twin that never saw the bad calls.
    assert opt.ask() == twin.ask() == ask
    opt.tell(x, y)
    twin.tell(x, y)
    assert opt.ask() == twin.ask()
    assert opt.to_json() == twin.to_json()


def test_calls_out_of_turn_are_refused():
    opt = costbo.Optimizer.from_toml(seven())
    x = [0.0] * 7
    refused(opt, lambda: opt.tell(x, 1.0), "no decision is pending", kind="sequence")
    refused(opt, lambda: opt.tell(x, 1.0, 0.1), "no decision is pending", kind="sequence")
    refused(opt, lambda: opt.skip(x), "no decision is pending", kind="sequence")


def test_bad_files_and_states_are_refused():
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_toml("[experiment]\nname = 1")
    assert e.value.kind == "experiment"
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_toml(seven().replace("cost = 0.1", "cost = -0.1"))
    assert e.value.kind == "experiment" and "cost" in str(e.value)
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_toml(seven(), precision="f16")
    assert "precision" in str(e.value)
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_toml(b"[experiment]")
    assert "str" in str(e.value)
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_file(ROOT / "no-such-file.toml")
    assert e.value.kind == "io" and "no-such-file.toml" in str(e.value)
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_file(3)
    assert "path" in str(e.value)
    opt = costbo.Optimizer.from_toml(seven())
    ask = opt.ask()
    opt.tell(play(opt, ask.values, SplitMix64(1))[0], -1.0)
    saved = opt.to_json()
    for damaged in [saved[:-10], saved.replace('"y"', '"z"', 1), "{}", "", "[1, 2]",
                    saved.replace("seven", "eight", 1)]:
        with pytest.raises(costbo.CostboError) as e:
            costbo.Optimizer.from_json(damaged)
        assert e.value.kind == "state", (damaged[:40], str(e.value))


def test_bad_keywords_are_refused():
    good_vars = [{"name": "a", "lower": 0.0, "upper": 1.0}]
    good_sets = [(["a"], 1.0)]
    for variables, sets, words in [
        ([{"name": "a", "lower": 0.0, "uper": 1.0}], good_sets, ["uper"]),
        ([{"name": "a", "lower": 0.0}], good_sets, ["upper", "missing"]),
        ([{"name": "a", "lower": 0.0, "upper": 1.0, "mean": 0.5}], good_sets, ["variance"]),
        ([("a", 0.0, 1.0)], good_sets, ["variables[0]", "dict"]),
        (good_vars, [(["a"], float("nan"))], ["sets[0]", "cost"]),
        (good_vars, [(["a"], 0.0)], ["cost"]),
        (good_vars, [(["b"], 1.0)], ["b"]),
        (good_vars, [("a", 1.0)], ["sets[0]", "list"]),
        (good_vars, "a", ["sets", "list"]),
        ([{"name": "a", "lower": 1.0, "upper": 0.0}], good_sets, ["a"]),
    ]:
        with pytest.raises(costbo.CostboError) as e:
            costbo.Optimizer.build("x", 3.0, variables, sets)
        for w in words:
            assert w in str(e.value), (w, str(e.value))
    with pytest.raises(costbo.CostboError):
        costbo.Optimizer.build("x", float("inf"), good_vars, good_sets)
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.build("x", 3.0, good_vars, good_sets, rule="no-such-rule")
    assert "no-such-rule" in str(e.value)


def test_bad_gp_inputs_are_refused():
    X = np.random.default_rng(0).random((10, 2))
    y = np.sin(X.sum(axis=1))
    gp = costbo.GP("se", [0.3, 0.4], noise=1e-4)
    gp.fit(X, y, optimize=False)
    before = gp.predict(X[:3])
    for args, words in [
        ((X[:, :1], y), []),
        ((X, y[:-1]), ["10", "9"]),
        ((np.where(X > 0.5, np.nan, X), y), ["NaN"]),
        ((X, np.full(10, np.inf)), ["y"]),
        (([[0.1, "a"]] * 10, y), ["str"]),
        ((X[0], y), ["2-D"]),
    ]:
        with pytest.raises(costbo.CostboError) as e:
            gp.fit(*args)
        for w in words:
            assert w in str(e.value), (w, str(e.value))
    with pytest.raises(costbo.CostboError):
        gp.predict(X[:, :1])
    with pytest.raises(costbo.CostboError):
        gp.fit(X, y, starts=0)
    for kwargs in [{"kernel": "rbf"}, {"lengthscales": 0.0}, {"lengthscales": -1.0},
                   {"noise": float("nan")}, {"outputscale": "1"}, {"precision": "f16"}]:
        with pytest.raises(costbo.CostboError):
            costbo.GP(**kwargs)
    after = gp.predict(X[:3])
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])


def test_bad_acquisition_arguments_are_refused():
    with pytest.raises(costbo.CostboError) as e:
        costbo.log_ei([0.0, float("nan")], 1.0, 0.0)
    assert "mean[1]" in str(e.value) or "index 1" in str(e.value)
    with pytest.raises(costbo.CostboError):
        costbo.log_ei(0.0, -1.0, 0.0)
    with pytest.raises(costbo.CostboError):
        costbo.gittins_index(0.0, 1.0, 0.0)
    with pytest.raises(costbo.CostboError):
        costbo.log_ei([0.0, 1.0], [1.0, 1.0, 1.0], 0.0)
    with pytest.raises(costbo.CostboError):
        costbo.log_ei("a", 1.0, 0.0)


def test_arguments_of_the_wrong_type_raise_costbo_errors_too():
    good_vars = [{"name": "a", "lower": 0.0, "upper": 1.0}]
    good_sets = [(["a"], 1.0)]
    for kwargs in [{"seed": -1}, {"seed": 1.5}, {"seed": "1"}, {"capacity": True},
                   {"bank": -3}, {"precision": 3}, {"rule": 7},
                   {"kernel": b"se"}, {"inner": (1, 2)}, {"inner": (1, 2, -1)},
                   {"inner": [16, 2, 8]}]:
        with pytest.raises(costbo.CostboError):
            costbo.Optimizer.build("x", 3.0, good_vars, good_sets, **kwargs)
    with pytest.raises(costbo.CostboError):
        costbo.Optimizer.build(3, 3.0, good_vars, good_sets)
    with pytest.raises(costbo.CostboError):
        costbo.Optimizer.from_toml(seven(), precision=64)
    built = costbo.Optimizer.build("x", 3.0, good_vars, good_sets, seed=np.int64(4),
                                   inner=(16, 2, 8))
    assert "seed = 4" in built.to_toml()
    with pytest.raises(costbo.CostboError):
        costbo.GP(kernel=3)
    gp = costbo.GP("se", 0.3)
    X = np.random.default_rng(0).random((5, 2))
    for kwargs in [{"starts": -1}, {"evaluations": 2.0}, {"seed": "0"}, {"optimize": 1}]:
        with pytest.raises(costbo.CostboError):
            gp.fit(X, X[:, 0], **kwargs)
    for args, kwargs in [((3,), {}), (("hartmann3",), {"dim": -1}), (("gp-sample",), {"seed": 0.5})]:
        with pytest.raises(costbo.CostboError):
            costbo.Objective(*args, **kwargs)
