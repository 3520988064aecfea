"""costbo.CausalOptimizer: a contextual causal experiment (firmware/experiments/causal-contexts.toml)
decided as the Rust CausalOptimizer decides it, bit for bit (fixtures/causal.json, written and
checked by the Rust test `the_python_packages_causal_fixture_holds_the_rust_decisions`), in
f64 and f32; resumed from its state; bad input refused with the state unchanged."""

import json
import struct

import numpy as np
import pytest

import costbo
from conftest import FIXTURES, ROOT

CASES = json.loads((FIXTURES / "causal.json").read_text())["cases"]
FILE = ROOT / "firmware" / "experiments" / "causal-contexts.toml"


def bits(v):
    return None if v is None else struct.pack(">d", v).hex()


def number(h):
    return None if h is None else struct.unpack(">d", bytes.fromhex(h))[0]


@pytest.mark.parametrize("case", CASES, ids=[c["precision"] for c in CASES])
def test_every_decision_equals_the_rust_causal_optimizers(case):
    opt = costbo.CausalOptimizer.from_toml(case["experiment"], precision=case["precision"])
    played = 0
    while (arm := opt.next_arm()) is not None:
        assert played < len(case["rounds"]), "Python plays more rounds than Rust"
        want = case["rounds"][played]
        assert arm.arm == want["arm"], f"round {played}"
        contexts = [number(h) for h in want["contexts"]]
        assert [i for i, c in enumerate(contexts) if c is not None] == arm.contexts
        d = opt.ask(contexts)
        assert [bits(v) for v in d.values] == want["values"], f"round {played}"
        assert bits(d.ucb) == want["ucb"], f"round {played}"
        opt.tell(number(want["y"]))
        played += 1
    assert played == len(case["rounds"]) == 20
    best = opt.recommend()
    assert best.arm == case["recommend"]["arm"]
    assert bits(best.mean_outcome) == case["recommend"]["mean_outcome"]
    assert opt.to_json() == case["state"]
    assert opt.rounds == 20 and opt.spent <= opt.budget + 1e-9


def test_a_saved_causal_optimizer_resumes_and_contexts_may_be_named():
    case = CASES[0]
    opt = costbo.CausalOptimizer.from_file(FILE)
    names = opt.variable_names
    for want in case["rounds"][:6]:
        arm = opt.next_arm()
        contexts = [number(h) for h in want["contexts"]]
        # The same contexts as a dict of names, and as a NumPy array with NaN nowhere.
        named = {names[i]: contexts[i] for i in arm.contexts}
        d = opt.ask(named)
        assert [bits(v) for v in d.values] == want["values"]
        opt.tell(number(want["y"]))
    restored = costbo.CausalOptimizer.from_json(opt.to_json())
    assert restored.rounds == 6
    for want in case["rounds"][6:10]:
        arm = restored.next_arm()
        assert arm.arm == want["arm"]
        d = restored.ask([number(h) for h in want["contexts"]])
        assert [bits(v) for v in d.values] == want["values"]
        restored.tell(number(want["y"]))


def test_bad_input_is_refused_and_changes_nothing():
    opt = costbo.CausalOptimizer.from_file(FILE)
    state = opt.to_json()
    with pytest.raises(costbo.CostboError) as e:
        opt.ask([None] * 5)
    assert e.value.kind == "sequence"
    arm = opt.next_arm()
    assert arm.contexts == [0]
    for bad in (
        [None] * 5,  # the arm's context missing
        [float("nan"), None, None, None, None],
        [1e9, None, None, None, None],  # outside its bounds
        [1.0, None],  # the wrong length
        {"nitrate": 1.0},  # no such variable
        "1,2,3",
    ):
        with pytest.raises(costbo.CostboError):
            opt.ask(bad)
    assert opt.to_json() == state
    assert opt.next_arm() == arm
    first = CASES[0]["rounds"][0]["contexts"][0]
    d = opt.ask(np.array([number(first), 0.0, 0.0, 0.0, 0.0]))  # only the arm's context is read
    with pytest.raises(costbo.CostboError):
        opt.tell(float("inf"))
    opt.abandon()
    assert opt.to_json() == state
    assert d.arm == arm.arm
    with pytest.raises(costbo.CostboError) as e:
        costbo.CausalOptimizer.from_file(ROOT / "firmware" / "experiment.toml")
    assert e.value.kind == "experiment" and "[causal]" in str(e.value)
    with pytest.raises(costbo.CostboError) as e:
        costbo.Optimizer.from_file(FILE)
    assert "CausalOptimizer" in str(e.value)
