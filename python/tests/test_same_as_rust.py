"""The Python package decides as the Rust optimizer does, bit for bit: every round of
fixtures/seven.json (written and checked by the Rust test
`the_python_packages_fixture_holds_the_rust_decisions`) is replayed here, in f64 and f32."""

import json
import struct

import pytest

import costbo
from conftest import FIXTURES, SplitMix64, play

CASES = json.loads((FIXTURES / "seven.json").read_text())["cases"]


def bits(v):
    return None if v is None else struct.pack(">d", v).hex()


@pytest.mark.parametrize("case", CASES, ids=[c["precision"] for c in CASES])
def test_every_decision_equals_the_rust_optimizers(case):
    opt = costbo.Optimizer.from_toml(case["experiment"], precision=case["precision"])
    rng = SplitMix64(case["rng_seed"])
    played = 0
    while (ask := opt.ask()) is not None:
        assert played < len(case["rounds"]), "Python plays more rounds than Rust"
        want = case["rounds"][played]
        assert ask.set == want["set"], f"round {played}"
        assert [bits(v) for v in ask.values] == want["values"], f"round {played}"
        assert bits(ask.cost) == want["cost"] and bits(ask.score) == want["score"]
        x, y = play(opt, ask.values, rng)
        assert [bits(v) for v in x] == want["x"] and bits(y) == want["y"], f"round {played}"
        opt.tell(x, y)
        played += 1
    assert played == len(case["rounds"]) and played > 5
    best = opt.recommend()
    assert best.set == case["recommend"]["set"]
    assert [bits(v) for v in best.values] == case["recommend"]["values"]
    assert bits(best.expected) == case["recommend"]["expected"]
    assert opt.to_json() == case["state"]
