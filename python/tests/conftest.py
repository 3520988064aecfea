"""Shared helpers of the package's tests: the 7-variable experiment, a deterministic
generator and the outcome of a round, written as the Rust tests write them
(std-adapter/tests/optimizer.rs), so that both languages play the same rounds bit for bit."""

from __future__ import annotations

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
MASK = (1 << 64) - 1


class SplitMix64:
    """SplitMix64, as the Rust tests' `Rng`."""

    def __init__(self, state: int):
        self.state = state & MASK

    def uniform(self) -> float:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return float((z ^ (z >> 31)) >> 11) / float(1 << 53)


def play(opt, values, rng):
    """The measured point (asked values, the rest drawn within the bounds) and the outcome,
    a smooth function with its optimum inside the box; the same operations in the same order
    as the Rust tests (no `sum`, which compensates from Python 3.12 on)."""
    x = []
    for v, info in zip(values, opt.variables):
        x.append(v if v is not None else info.lower + rng.uniform() * (info.upper - info.lower))
    total = 0.0
    for v, info in zip(x, opt.variables):
        u = (v - info.lower) / (info.upper - info.lower)
        d = u - 0.3
        total += d * d
    return x, -total


def seven(capacity=64, budget=3.0, rule="ucb-cvs"):
    """The 7-variable experiment of the Rust tests (four control sets)."""
    text = f"""
[experiment]
name = "seven"
seed = 11
budget = {budget}
capacity = {capacity}
bank = 32
rule = "{rule}"
growth_period_ms = 1

[model]
kernel = "se"
lengthscale = 0.3
outputscale = 1.0
noise = 1e-3

[inner]
pool = 16
starts = 2
evaluations_per_start = 8
"""
    for l in range(7):
        text += f"""
[[variable]]
name = "v{l}"
lower = {-float(l)}
upper = {1.0 + l}
distribution = {{ kind = "uniform" }}
"""
    for names, cost in [
        (["v0", "v1"], 0.1),
        (["v2", "v3", "v4"], 0.2),
        (["v5", "v6"], 0.15),
        ([f"v{l}" for l in range(7)], 1.0),
    ]:
        quoted = ", ".join(f'"{n}"' for n in names)
        text += f"\n[[control_set]]\nvariables = [{quoted}]\ncost = {cost}\n"
    return text


@pytest.fixture
def seven_text():
    return seven()
