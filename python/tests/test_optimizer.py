"""The Optimizer's contract in Python: run to the budget, resume bit for bit, the costly
measurement's calls, an experiment by keywords, and the GIL released while the core decides."""

import math
import threading
import time

import numpy as np
import pytest

import costbo
from conftest import ROOT, SplitMix64, play, seven


def test_a_seven_variable_experiment_runs_to_its_budget():
    opt = costbo.Optimizer.from_toml(seven(capacity=300, budget=6.0))
    assert len(opt.variables) == 7 and len(opt.sets) == 4
    rng = SplitMix64(1)
    paid, rounds = 0.0, 0
    while (ask := opt.ask()) is not None:
        assert 0 <= ask.set < 4
        members = set(opt.sets[ask.set].variables)
        for l, v in enumerate(ask.values):
            assert (v is not None) == (l in members)
            if v is not None:
                info = opt.variables[l]
                assert info.lower <= v <= info.upper
        assert opt.pending == ask and opt.ask() == ask  # asked again: the same decision
        x, y = play(opt, ask.values, rng)
        opt.tell(np.asarray(x), np.float64(y))  # NumPy values, the asked cost
        paid += ask.cost
        rounds += 1
        assert rounds < 1000
    assert math.isclose(opt.spent, paid, abs_tol=1e-12)
    # Stopped because the set the rule chose no longer fits: less than the dearest (1.0) left.
    assert opt.spent <= 6.0 + 1e-12 and 6.0 - opt.spent < 1.0
    assert opt.rounds == rounds >= 6
    best = opt.recommend()
    assert 0 <= best.set < 4 and math.isfinite(best.expected)
    assert opt.ask() is None


def run(opt, rng, rounds):
    seen = []
    for _ in range(rounds):
        ask = opt.ask()
        if ask is None:
            break
        seen.append((ask.set, ask.values, ask.score))
        x, y = play(opt, ask.values, rng)
        opt.tell(x, y, ask.cost)
    return seen


@pytest.mark.parametrize("precision,rule", [("f64", "ucb-cvs"), ("f32", "etc-ada"),
                                            ("f64", "unknown-cost")])
def test_a_restored_optimizer_continues_bit_for_bit(precision, rule):
    # Capacity 8: the model drops its oldest observations before the save.
    live = costbo.Optimizer.from_toml(seven(capacity=8, budget=40.0, rule=rule), precision)
    rng = SplitMix64(7)
    run(live, rng, 14)
    assert live.observations == 8
    pending = live.ask()  # saved with a decision pending: asked again after the restore
    saved = live.to_json()
    restored = costbo.Optimizer.from_json(saved)
    assert restored.precision == precision
    assert restored.to_json() == saved
    assert restored.ask() == pending
    twin = SplitMix64(0)
    twin.state = rng.state
    a, b = run(live, rng, 10), run(restored, twin, 10)
    assert len(a) == 10 and a == b
    assert live.spent == restored.spent and live.to_json() == restored.to_json()


def test_the_entropy_rule_runs_and_resumes_bit_for_bit():
    # MES samples the maximum from a posterior: an initial design first.
    live = costbo.Optimizer.from_toml(seven(capacity=8, budget=40.0, rule="mes"), "f32")
    rng = SplitMix64(5)
    for _ in range(3):
        x, y = play(live, [None] * 7, rng)
        live.tell_prior(x, y)
    run(live, rng, 6)
    restored = costbo.Optimizer.from_json(live.to_json())
    twin = SplitMix64(0)
    twin.state = rng.state
    a, b = run(live, rng, 4), run(restored, twin, 4)
    assert len(a) == 4 and a == b


def test_the_firmware_experiment_opens_from_its_file():
    opt = costbo.Optimizer.from_file(ROOT / "firmware" / "experiment.toml")
    assert opt.name == "plant-dosing" and [v.name for v in opt.variables][:2] == ["Ca", "B"]
    assert opt.ask() is not None
    assert "plant-dosing" in opt.to_toml() and "plant-dosing" in repr(opt)


def test_pay_or_skip_runs_to_the_budget():
    opt = costbo.Optimizer.from_file(ROOT / "firmware" / "experiments" / "costly-measurement.toml")
    rng = SplitMix64(3)
    measured = skipped = 0
    while (ask := opt.ask()) is not None:
        x, y = play(opt, ask.values, rng)
        answer = opt.query(x)
        assert 0.0 <= answer.min_probability <= 1.0 and bool(answer) == answer.measure
        if answer.measure:
            opt.tell(x, y)
            measured += 1
        else:
            with pytest.raises(costbo.CostboError) as e:
                opt.tell(x, y)  # query said skip
            assert e.value.kind == "sequence"
            opt.skip(x)
            skipped += 1
        assert measured + skipped < 2000
    assert measured > 0 and skipped > 0
    assert opt.rounds == measured + skipped
    assert opt.spent <= opt.budget + 1e-9


def test_an_experiment_by_keywords_decides_as_its_file():
    variables = [
        {"name": "temperature", "unit": "C", "lower": 150.0, "upper": 250.0},
        {"name": "time", "unit": "min", "lower": 10, "upper": 60, "mean": 30.0, "variance": 40.0},
    ]
    sets = [(["temperature"], 0.5), {"variables": ["temperature", "time"], "cost": 1.0}]
    built = costbo.Optimizer.build("bake", 5.0, variables, sets, seed=3)
    from_text = costbo.Optimizer.from_toml(built.to_toml())
    rng_a, rng_b = SplitMix64(2), SplitMix64(2)
    assert run(built, rng_a, 100) == run(from_text, rng_b, 100)
    assert built.ask() is None and built.spent <= 5.0


def test_one_keyword_changes_one_entry_of_the_file():
    variables = [{"name": "a", "lower": 0.0, "upper": 1.0}]
    sets = [(["a"], 1.0)]
    plain = costbo.Optimizer.build("one", 5.0, variables, sets).to_toml().splitlines()
    for keyword, value in [("lengthscale", 0.5), ("outputscale", 2.5), ("noise", 0.01),
                           ("mean", -3.0), ("kernel", "matern32"), ("beta", 4.0)]:
        changed = costbo.Optimizer.build("one", 5.0, variables, sets,
                                         **{keyword: value}).to_toml().splitlines()
        differ = [(a, b) for a, b in zip(plain, changed) if a != b]
        assert len(plain) == len(changed) and len(differ) == 1, (keyword, differ)
        assert differ[0][1].split("=")[0].strip() == keyword, (keyword, differ)


def test_prior_data_are_not_charged(seven_text):
    opt = costbo.Optimizer.from_toml(seven_text)
    rng = SplitMix64(4)
    for _ in range(3):
        x = [info.lower + rng.uniform() * (info.upper - info.lower) for info in opt.variables]
        opt.tell_prior(x, -1.0)
    assert opt.spent == 0.0 and opt.observations == 3 and opt.rounds == 0


def test_the_gil_is_released_while_the_core_decides():
    # A pool of 8192 candidates per set on a model of 40 points: an ask takes milliseconds.
    text = seven(capacity=256, budget=400.0).replace("pool = 16", "pool = 8192")
    opt = costbo.Optimizer.from_toml(text)
    rng = SplitMix64(5)
    for _ in range(40):
        x = [v.lower + rng.uniform() * (v.upper - v.lower) for v in opt.variables]
        opt.tell_prior(x, -sum(u * u for u in x))
    started = threading.Event()
    ended = []

    def ask():
        started.set()
        opt.ask()
        ended.append(time.perf_counter())

    t = threading.Thread(target=ask)
    t.start()
    started.wait()
    # This thread runs again as soon as the other one lets go of the GIL: inside the ask if
    # the core decides without it, only after the ask returns if the ask held it.
    resumed = time.perf_counter()
    t.join()
    assert opt._core_seconds > 5e-3
    assert resumed < ended[0], (resumed, ended[0], opt._core_seconds)


def box(d, precision="f64", capacity=64):
    """A LogEI experiment over the unit box with one observation (LogEI needs a best one)."""
    names = [f"x{i}" for i in range(d)]
    opt = costbo.Optimizer.build(
        "box", 3.0, [{"name": n, "lower": 0, "upper": 1} for n in names], [(names, 1.0)],
        rule="log-ei", capacity=capacity, precision=precision)
    with pytest.raises(costbo.CostboError) as e:
        opt.ask()
    assert e.value.kind == "model" and "tell_prior" in str(e.value)
    opt.tell_prior([0.5] * d, 0.0)
    return opt


def test_sixteen_variables_run_in_both_precisions_and_the_limits_are_refused():
    for precision, capacity in [("f64", 64), ("f64", 1024), ("f32", 256)]:
        opt = box(16, precision, capacity)
        while (ask := opt.ask()) is not None:
            opt.tell(tuple(ask.values), -sum(v * v for v in ask.values))  # a tuple is a point too
        assert opt.rounds == 3
    assert (costbo.MAX_WIDE_DIM_F32, costbo.WIDE_MAX_CAPACITY) == (16, 1024)
    for d, precision, capacity in [(17, "f32", 64), (9, "f64", 4096), (65, "f64", 64)]:
        with pytest.raises(costbo.CostboError) as e:
            box(d, precision, capacity)
        assert e.value.kind == "experiment" and "variable" in str(e.value)


def test_numpy_scalars_and_single_precision_arrays_are_accepted():
    opt = box(2)
    ask = opt.ask()
    opt.tell(np.asarray(ask.values, dtype=np.float32), np.int64(0), np.float32(1.0))
    assert opt.rounds == 1 and opt.spent == 1.0


def test_a_fitted_model_and_learned_costs_by_keywords():
    variables = [dict(name="a", lower=0.0, upper=1.0), dict(name="b", lower=0.0, upper=2.0)]
    fixed = costbo.Optimizer.build("k", 3.0, variables, [(["a"], 0.1), (["a", "b"], 0.3)],
                                   rule="ucb-psq", seed=4)
    fitted = costbo.Optimizer.build("k", 3.0, variables, [(["a"], 0.1), (["a", "b"], 0.3)],
                                    rule="ucb-psq", seed=4, fit="map", refit_every=1)
    assert 'fit = "map"' in fitted.to_toml() and "refit_every = 1" in fitted.to_toml()
    for opt in (fixed, fitted):
        rng = SplitMix64(2)
        for _ in range(3):
            x, y = play(opt, [None, None], rng)
            opt.tell_prior(x, y)
    a, b = run(fixed, SplitMix64(3), 10), run(fitted, SplitMix64(3), 10)
    assert a != b  # the refitted model decides otherwise
    resumed = costbo.Optimizer.from_json(fitted.to_json())
    assert run(resumed, SplitMix64(4), 5) == run(fitted, SplitMix64(4), 5)

    learned = costbo.Optimizer.build("u", 3.0, variables, [(["a"], None), (["a", "b"], None)],
                                     rule="unknown-cost", seed=4)
    assert learned.learns_costs and [s.cost for s in learned.sets] == [None, None]
    assert 'costs = "learned"' in learned.to_toml()
    ask = learned.ask()
    assert ask.cost == 0.0  # nothing told yet for any set
    x, y = play(learned, ask.values, SplitMix64(5))
    before = learned.to_json()
    with pytest.raises(costbo.CostboError, match="costs are learned"):
        learned.tell(x, y)  # the cost is the caller's to tell
    assert learned.to_json() == before
    learned.tell(x, y, 0.17)
    assert learned.spent == 0.17
    told = {ask.set: [0.17]}
    rng = SplitMix64(6)
    for k in range(8):
        ask = learned.ask()
        paid = told.get(ask.set, [])
        # A set's cost is the mean of what was told for it, 0 before its first round.
        assert ask.cost == (sum(paid) / len(paid) if paid else 0.0)
        x, y = play(learned, ask.values, rng)
        learned.tell(x, y, 0.1 + 0.01 * k)
        told.setdefault(ask.set, []).append(0.1 + 0.01 * k)


def test_a_cost_function_is_learned_over_a_box():
    variables = [dict(name=f"x{l}", lower=0.0, upper=1.0) for l in range(3)]
    opt = costbo.Optimizer.build("box", 40.0, variables, [(["x0", "x1", "x2"], None)],
                                 rule="pbgi", seed=3, fit="botorch", refit_every=1,
                                 budget_rule="while-below")
    assert opt.learns_costs and opt.learns_cost_function

    def cost(x):
        return 1.0 + 4.0 * x[0]

    rng = SplitMix64(8)
    x, y = play(opt, [None] * 3, rng)
    before = opt.to_json()
    with pytest.raises(costbo.CostboError, match="tell_prior_with_cost"):
        opt.tell_prior(x, y)  # the model of ln(cost) needs what the point cost
    with pytest.raises(costbo.CostboError, match="cost"):
        opt.tell_prior(x, y, float("nan"))
    assert opt.to_json() == before
    opt.tell_prior(x, y, cost(x))
    for _ in range(7):  # 2(d + 1) points in all
        x, y = play(opt, [None] * 3, rng)
        opt.tell_prior(x, y, cost(x))
    for _ in range(4):
        ask = opt.ask()
        x, y = play(opt, ask.values, rng)
        # The asked cost is the learned model's estimate at the asked values (within a factor
        # 2 here, where the rule plays corners the eight random points are far from).
        assert abs(math.log(ask.cost / cost(x))) < math.log(2.0)
        opt.tell(x, y, cost(x))
    resumed = costbo.Optimizer.from_json(opt.to_json())
    assert run(resumed, SplitMix64(9), 4) == run(opt, SplitMix64(9), 4)


@pytest.mark.parametrize("kwargs,named", [
    (dict(fit="magic"), "fit"),
    (dict(refit_every=3), "refit_every"),
    (dict(fit="map", steps=3), "steps: not a setting"),
    (dict(fit="adam", steps=0), "steps"),
    (dict(fit="adam", from_spent=2.0), "from_spent"),
    (dict(fit="map", refit_every=0), "refit_every"),
    (dict(fit="map", noise_floor=-1.0), "noise_floor"),
])
def test_bad_model_keywords_are_refused(kwargs, named):
    variables = [dict(name="a", lower=0.0, upper=1.0)]
    with pytest.raises(costbo.CostboError, match=named):
        costbo.Optimizer.build("k", 1.0, variables, [(["a"], 0.1)], **kwargs)


def test_mixed_known_and_learned_costs_are_refused():
    variables = [dict(name="a", lower=0.0, upper=1.0), dict(name="b", lower=0.0, upper=1.0)]
    with pytest.raises(costbo.CostboError, match="cost"):
        costbo.Optimizer.build("k", 1.0, variables, [(["a"], 0.1), (["b"], None)],
                               rule="unknown-cost")


def test_prices_per_unit_dosed_by_keywords():
    variables = [dict(name="a", lower=1.0, upper=3.0, price=0.05),
                 dict(name="b", lower=0.0, upper=2.0)]
    opt = costbo.Optimizer.build("p", 3.0, variables, [(["a", "b"], 0.2)], rule="log-eipc",
                                 seed=1)
    assert [v.price for v in opt.variables] == [0.05, 0.0]
    assert "price = 0.05" in opt.to_toml()
    rng = SplitMix64(8)
    for _ in range(2):
        x, y = play(opt, [None, None], rng)
        opt.tell_prior(x, y)
    for _ in range(4):
        ask = opt.ask()
        assert math.isclose(ask.cost, 0.2 + 0.05 * ask.values[0], rel_tol=0, abs_tol=1e-12)
        x, y = play(opt, ask.values, rng)
        opt.tell(x, y)  # the asked cost, prices included
    with pytest.raises(costbo.CostboError, match="price"):
        costbo.Optimizer.build("p", 3.0, [dict(name="a", lower=0.0, upper=1.0, price=-1.0)],
                               [(["a"], 0.2)])


def test_the_box_loop_by_keywords():
    variables = [dict(name="a", lower=0.0, upper=1.0)]

    def rounds(**kw):
        opt = costbo.Optimizer.build("b", 2.5, variables, [(["a"], 1.0)], rule="ucb-psq", **kw)
        rng, n = SplitMix64(1), 0
        while (ask := opt.ask()) is not None:
            x, y = play(opt, ask.values, rng)
            opt.tell(x, y)
            n += 1
        return n, opt.spent

    assert rounds() == (2, 2.0)
    assert rounds(budget_rule="while-below") == (3, 3.0)
    opt = costbo.Optimizer.build("b", 2.5, variables, [(["a"], 1.0)], fit="botorch",
                                 refit_every=2)
    assert 'fit = "botorch"' in opt.to_toml()
    with pytest.raises(costbo.CostboError, match="budget_rule"):
        costbo.Optimizer.build("b", 2.5, variables, [(["a"], 1.0)], budget_rule="sometimes")


def test_the_authors_adam_refit_by_keywords():
    variables = [dict(name="a", lower=0.0, upper=1.0)]
    opt = costbo.Optimizer.build("a", 2.0, variables, [(["a"], None)], rule="unknown-cost-code",
                                 fit="adam", steps=4)
    text = opt.to_toml()
    assert 'fit = "adam"' in text and "steps = 4" in text and "from_spent = 0.6" in text


def test_sixty_four_control_sets_and_thirty_two_for_the_per_set_cost_rule():
    assert (costbo.MAX_SETS, costbo.MAX_SETS_LEARNING_COSTS) == (64, 32)
    variables = [dict(name=f"v{l}", lower=0.0, upper=1.0) for l in range(7)]

    def subsets(n, cost):
        return [([f"v{l}" for l in range(7) if k & (1 << l)], cost) for k in range(1, n + 1)]

    opt = costbo.Optimizer.build("wide", 2.0, variables, subsets(64, 0.1), rule="ucb-psq")
    assert len(opt.sets) == 64 and opt.ask() is not None
    with pytest.raises(costbo.CostboError, match="1 to 64"):
        costbo.Optimizer.build("wide", 2.0, variables, subsets(65, 0.1), rule="ucb-psq")
    costbo.Optimizer.build("u", 2.0, variables, subsets(32, None), rule="unknown-cost")
    with pytest.raises(costbo.CostboError, match="unknown-cost"):
        costbo.Optimizer.build("u", 2.0, variables, subsets(33, None), rule="unknown-cost")


def test_twenty_variables_on_a_padded_model_resume_bit_for_bit():
    assert (costbo.MAX_DIM, costbo.MAX_WIDE_DIM) == (8, 64)
    variables = [dict(name=f"v{l}", lower=-1.0, upper=1.0) for l in range(20)]
    every = [([v["name"] for v in variables], 1.0)]
    opt = costbo.Optimizer.build("wide", 4.0, variables, every, rule="pbgi", capacity=64)
    rng = SplitMix64(4)
    x, y = play(opt, [None] * 20, rng)
    opt.tell_prior(x, y)
    ask = opt.ask()
    x, y = play(opt, ask.values, rng)
    opt.tell(x, y)
    restored = costbo.Optimizer.from_json(opt.to_json())
    rounds = 1
    while (ask := opt.ask()) is not None:
        assert restored.ask() == ask and len(ask.values) == 20
        x, y = play(opt, ask.values, rng)
        opt.tell(x, y)
        restored.tell(x, y)
        rounds += 1
    assert rounds == 4 and restored.ask() is None
    too_many = [dict(name=f"v{l}", lower=0.0, upper=1.0) for l in range(65)]
    with pytest.raises(costbo.CostboError, match="variable"):
        costbo.Optimizer.build("w", 2.0, too_many, [([v["name"] for v in too_many], 1.0)])
    # A fit keeps the inert inputs ignored: a fitted padded model runs and resumes too.
    fitted = costbo.Optimizer.build("w", 4.0, variables, every, rule="pbgi", fit="map")
    x, y = play(fitted, [None] * 20, rng)
    fitted.tell_prior(x, y)
    restored = costbo.Optimizer.from_json(fitted.to_json())
    while (ask := fitted.ask()) is not None:
        assert restored.ask() == ask and len(ask.values) == 20
        x, y = play(fitted, ask.values, rng)
        fitted.tell(x, y)
        restored.tell(x, y)
