#!/usr/bin/env python3
"""Lunar Lander (d = 12) for costbo's external objective, as paper 002's code runs it.

Paper 002 (Xie et al., "Cost-aware Bayesian optimization via the Pandora's Box Gittins index")
tunes the 12 weights of gym's heuristic Lunar Lander controller (Eriksson et al. 2019's TuRBO
setup): the objective is the mean total reward over 50 episodes (environment seeds 0..49), the
cost the mean number of simulation steps divided by 16, an unknown cost the rule must learn.
As in the paper's code (`pandora_bayesopt/test_functions/lunar_lander.py` of
QianJaneXie/PandoraBayesOpt):

- the weights are the unit-cube point itself (the problem's nominal [0, 2] bounds are not
  applied);
- each episode builds a fresh discrete-action environment, with no time limit wrapper, and
  stops when the episode terminates or after 5001 steps;
- the cost is the mean step count / 16.

The paper's code uses its own copy of gym 0.26's `LunarLander` (v2); this driver uses
gymnasium's `LunarLander` class (v3 in gymnasium 1.x). Version 3 changed the observation-space
bounds and the world's clean-up between resets; neither matters here (no observation clipping,
a fresh environment per episode). Checked once by hand (gymnasium 1.4.0, Box2D 2.3.10): on three
weight vectors, among them gym's own heuristic (mean reward 265.01291092902085, cost 17.3025),
this driver's output equalled, to the last digit, the paper's own environment class and
episode loop run under gym 0.26.2.

Protocol (see costbo's `objectives::external`): one JSON line `{"x": [12 numbers]}` on
standard input per point, one line `{"y": mean reward, "cost": mean steps / 16}` on standard
output.

Install (not part of the build or CI):

    python3 -m venv venv-box2d && venv-box2d/bin/pip install "gymnasium[box2d]"

Use:

    costbo objective eval --dim 12 --points P.csv \
        --name 'external:venv-box2d/bin/python benches/pandora/lunar_lander.py'

Options: `--episodes N` (default 50), `--workers N` processes (default 1).
"""

import argparse
import json
import sys
from multiprocessing import Pool

EPISODES = 50
MAX_STEPS = 5000


def controller(s, w):
    """The 12-weight heuristic controller: the action (0 nothing, 1 left, 2 main, 3 right)."""
    angle_target = s[0] * w[0] + s[2] * w[1]
    angle_target = max(-w[2], min(w[2], angle_target))
    hover_target = w[3] * abs(s[0])
    angle_todo = (angle_target - s[4]) * w[4] - s[5] * w[5]
    hover_todo = (hover_target - s[1]) * w[6] - s[3] * w[7]
    if s[6] or s[7]:
        # Legs on the ground: hold the angle term fixed and brake the fall.
        angle_todo = w[8]
        hover_todo = -s[3] * w[9]
    if hover_todo > abs(angle_todo) and hover_todo > w[10]:
        return 2
    if angle_todo < -w[11]:
        return 3
    if angle_todo > w[11]:
        return 1
    return 0


def episode(args):
    """Total reward and steps of one episode of weights `w` in the environment seeded `seed`."""
    w, seed = args
    from gymnasium.envs.box2d.lunar_lander import LunarLander

    env = LunarLander()
    s, _ = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        s, r, terminated, truncated, _ = env.step(controller(s, w))
        total += r
        steps += 1
        if terminated or truncated or steps > MAX_STEPS:
            break
    env.close()
    return total, steps


def evaluate(w, episodes, pool):
    jobs = [(w, seed) for seed in range(episodes)]
    results = pool.map(episode, jobs) if pool else [episode(j) for j in jobs]
    reward = sum(r for r, _ in results) / episodes
    steps = sum(n for _, n in results) / episodes
    return reward, steps / 16.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=EPISODES)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    pool = Pool(args.workers) if args.workers > 1 else None
    for line in sys.stdin:
        if not line.strip():
            continue
        x = json.loads(line)["x"]
        if len(x) != 12:
            print(f"lunar_lander.py: expected 12 weights, got {len(x)}", file=sys.stderr)
            sys.exit(2)
        y, cost = evaluate([float(v) for v in x], args.episodes, pool)
        print(json.dumps({"y": y, "cost": cost}), flush=True)


if __name__ == "__main__":
    main()
