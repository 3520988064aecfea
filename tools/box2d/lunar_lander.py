#!/usr/bin/env python3
"""Lunar Lander (d = 12) for paper 002's Fig. 6, over costbo's JSON-lines protocol.

The 12 weights of the parameterised gym heuristic controller (as TuRBO, Eriksson et al. 2019,
tunes it) are the point u in [0, 1]^12, used as weights directly (the paper's code does not
apply the class's nominal [0, 2] bounds; notes §6.2 pitfall 11). The value is the total episode
reward averaged over 50 environments with seeds 0..49; the cost is the average number of
simulation steps divided by 16 (the paper's unknown cost). Episodes run on the discrete lander
without a TimeLimit wrapper and are cut at 5000 steps.

Differences from the paper: gymnasium's LunarLander-v3 physics (the paper ran gym's v2; v3
fixed the v2 bugs in wind and in determinism of reset), Box2D 2.3.10 through pybox2d; values
are not bit-for-bit the paper's.

    python3 lunar_lander.py            # serve points on stdin (costbo --command)
    python3 lunar_lander.py --check    # evaluate gym's own heuristic weights, print to stderr
    python3 lunar_lander.py --envs 5   # fewer environments (tests)
"""

import argparse
import sys
import time

from gymnasium.envs.box2d.lunar_lander import LunarLander

from protocol import serve

DIM = 12
ENVS = 50
MAX_STEPS = 5000
STEPS_PER_COST = 16.0

# Gym's hand-tuned heuristic, as weights of the controller below (all within [0, 1]).
GYM_HEURISTIC = [0.5, 1.0, 0.4, 0.55, 0.5, 1.0, 0.5, 0.5, 0.0, 0.5, 0.05, 0.05]


def action(s, w):
    """Gym's lander heuristic with its 12 constants replaced by weights `w`: steer the angle
    towards the pad, hover at a height proportional to the horizontal offset, and once a leg
    touches only damp the fall. Returns the discrete action (0 none, 1 left, 2 main, 3 right)."""
    target_angle = min(max(s[0] * w[0] + s[2] * w[1], -w[2]), w[2])
    target_height = w[3] * abs(s[0])
    turn = (target_angle - s[4]) * w[4] - s[5] * w[5]
    lift = (target_height - s[1]) * w[6] - s[3] * w[7]
    if s[6] or s[7]:
        turn = w[8]
        lift = -s[3] * w[9]
    if lift > abs(turn) and lift > w[10]:
        return 2
    if turn < -w[11]:
        return 3
    if turn > w[11]:
        return 1
    return 0


def episode(env, w, seed):
    """Total reward and steps of one episode from environment seed `seed`."""
    s, _ = env.reset(seed=seed)
    total, steps = 0.0, 0
    while steps < MAX_STEPS:
        s, r, terminated, truncated, _ = env.step(action(s, w))
        total += float(r)
        steps += 1
        if terminated or truncated:
            break
    return total, steps


def evaluate(u, envs=ENVS):
    """(mean total reward, mean steps / 16) over environment seeds 0..envs-1."""
    env = LunarLander(continuous=False)
    rewards, steps = 0.0, 0
    for seed in range(envs):
        r, n = episode(env, u, seed)
        rewards += r
        steps += n
    env.close()
    return rewards / envs, steps / envs / STEPS_PER_COST


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="evaluate gym's heuristic weights")
    parser.add_argument("--envs", type=int, default=ENVS, help="environments per evaluation")
    args = parser.parse_args()
    if args.check:
        started = time.process_time()
        y, c = evaluate(GYM_HEURISTIC, args.envs)
        seconds = time.process_time() - started
        print(f"lunar_lander: gym heuristic: mean reward {y:.2f}, cost {c:.3f} "
              f"({seconds:.2f} CPU s)", file=sys.stderr)
        # Gym's heuristic lands: its mean reward is well above 100.
        sys.exit(0 if y > 100.0 else 1)
    serve(DIM, lambda u: evaluate(u, args.envs))


if __name__ == "__main__":
    main()
