"""The examples run as a newcomer runs them, and say what they should."""

import subprocess
import sys

from conftest import ROOT


def run(*args):
    out = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_dosing_loop_runs_to_its_budget_and_recommends():
    text = run(ROOT / "python" / "examples" / "ask_tell.py")
    assert "round  1:" in text and "spent" in text and "recommended: control set" in text


def test_the_box_loop_runs_and_says_whether_botorch_ran():
    text = run(ROOT / "python" / "examples" / "vs_botorch.py")
    assert "costbo pbgi" in text and "costbo log-ei" in text
    assert "BoTorch LogEI" in text or "BoTorch is not installed" in text


def test_the_causal_loop_measures_each_arms_contexts_and_recommends_an_arm():
    text = run(ROOT / "python" / "examples" / "causal_dosing.py")
    assert "round  1: arm 0 (contexts NO3=" in text
    assert "round 20:" in text and "recommended: arm" in text
