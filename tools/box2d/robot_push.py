#!/usr/bin/env python3
"""Robot Pushing (d = 14) for paper 002's Fig. 6, over costbo's JSON-lines protocol.

The two-robot, two-object push world of Wang & Jegelka (2017) as paper 002's code sets it up,
written here from its description (notes §4.3) on pybox2d. On a frictional table without
gravity, a square (half-side 0.5, start (0, 2)) and a disc (radius 1, start (0, -2)) are pushed
by two rectangular hands (half-extents 1 × 0.3). Each hand is placed at a position in
[-5, 5]^2 with an angle in [0, 2π], then driven towards a velocity in [0, 5]^2 and an angular
velocity in [0, 2π] for floor(10·duration) steps of 1/100 s, duration in [1, 30]; the world
then runs 100 more steps. The point u in [0, 1]^14 is, in this order, hand 1's x, y, vx, vy,
duration, angle, hand 2's x, y, vx, vy, duration, angle, then the two angular velocities,
each mapped affinely to its range.

The value is minus the summed distances of the objects from their targets (-4.4185, -4.3709)
(square) and (-3.7641, -4.4742) (disc). The cost (the paper's unknown cost) is the distance
each hand ends up from where it started, summed, plus 0.1. The commanded velocities get
N(0, 0.01²) noise drawn from numpy's RandomState(0) for every evaluation, so the simulation is
deterministic, as in the paper's code.

Not bit-for-bit the paper's: a Python/Box2D 2.3.10 rewrite from the description.

    python3 robot_push.py            # serve points on stdin (costbo --command)
    python3 robot_push.py --check    # the hand-checkable case: hands that never touch anything
"""

import argparse
import math
import sys

import numpy as np
from Box2D import b2CircleShape, b2PolygonShape, b2Vec2, b2World

from protocol import serve

DIM = 14
TARGETS = ((-4.4185, -4.3709), (-3.7641, -4.4742))
STARTS = ((0.0, 2.0), (0.0, -2.0))
TIME_STEP = 0.01
VELOCITY_ITERATIONS = 10
POSITION_ITERATIONS = 10
SETTLE_STEPS = 100
# How hard a hand is driven towards its commanded velocity (force per unit mass per unit of
# velocity error), for the rectangular hand; the same gain on angular velocity.
HAND_GAIN = 30.0
COST_FLOOR = 0.1


def parameters(u):
    """The 14 physical parameters of unit-cube point `u` (see the module documentation)."""
    def hand(v):
        return {
            "position": (10.0 * v[0] - 5.0, 10.0 * v[1] - 5.0),
            "velocity": (5.0 * v[2], 5.0 * v[3]),
            "steps": int(10.0 * (29.0 * v[4] + 1.0)),
            "angle": 2.0 * math.pi * v[5],
        }
    first, second = hand(u[0:6]), hand(u[6:12])
    first["spin"] = 2.0 * math.pi * u[12]
    second["spin"] = 2.0 * math.pi * u[13]
    return first, second


def simulate(first, second):
    """Runs the push; returns the objects' and the hands' final positions."""
    world = b2World(gravity=(0.0, 0.0), doSleep=True)
    table = world.CreateStaticBody(position=(0.0, 0.0),
                                   shapes=b2PolygonShape(box=(500.0, 500.0)))
    objects = []
    for start, shape in ((STARTS[0], b2PolygonShape(box=(0.5, 0.5))),
                         (STARTS[1], b2CircleShape(radius=1.0))):
        body = world.CreateDynamicBody(position=start)
        body.CreateFixture(shape=shape, density=0.05, friction=0.01)
        world.CreateFrictionJoint(bodyA=table, bodyB=body, maxForce=5.0, maxTorque=2.0)
        objects.append(body)
    hands = []
    for h in (first, second):
        body = world.CreateDynamicBody(position=h["position"], angle=h["angle"])
        body.CreateFixture(shape=b2PolygonShape(box=(1.0, 0.3)), density=0.1, friction=0.1)
        world.CreateFrictionJoint(bodyA=table, bodyB=body, maxForce=2.0, maxTorque=2.0)
        hands.append(body)
    # The same noise for every evaluation: the objective is deterministic.
    noise = np.random.RandomState(0)
    commanded = []
    for h in (first, second):
        vx = h["velocity"][0] + noise.normal(0.0, 0.01)
        vy = h["velocity"][1] + noise.normal(0.0, 0.01)
        commanded.append(b2Vec2(vx, vy))
    total = max(first["steps"], second["steps"]) + SETTLE_STEPS
    for t in range(total):
        for body, h, v in zip(hands, (first, second), commanded):
            if t >= h["steps"]:
                continue
            torque = body.mass * (h["spin"] - body.angularVelocity) * HAND_GAIN
            body.ApplyTorque(torque, wake=True)
            force = body.mass * (v - body.linearVelocity) * HAND_GAIN
            body.ApplyForce(force, body.position, wake=True)
        world.Step(TIME_STEP, VELOCITY_ITERATIONS, POSITION_ITERATIONS)
    return ([tuple(o.position) for o in objects], [tuple(b.position) for b in hands])


def distance(a, b):
    return math.hypot(a[0] - b[0], a[1] - b[1])


def evaluate(u):
    """(minus the objects' summed distances to their targets, hands' travel + 0.1)."""
    first, second = parameters(u)
    objects, hands = simulate(first, second)
    y = -(distance(objects[0], TARGETS[0]) + distance(objects[1], TARGETS[1]))
    cost = (distance(hands[0], first["position"]) + distance(hands[1], second["position"])
            + COST_FLOOR)
    return y, cost


def still_point():
    """Hands in the far corners (4, 4) and (4, -4), commanded to stand still: nothing touches
    an object, so the objects stay where they start."""
    return [0.9, 0.9, 0.0, 0.0, 0.0, 0.0, 0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="evaluate hands that stand still far from the objects")
    args = parser.parse_args()
    if args.check:
        y, cost = evaluate(still_point())
        expected = -(distance(STARTS[0], TARGETS[0]) + distance(STARTS[1], TARGETS[1]))
        print(f"robot_push: still hands: value {y:.6f} (objects unmoved: {expected:.6f}), "
              f"cost {cost:.6f}", file=sys.stderr)
        sys.exit(0 if abs(y - expected) < 1e-9 and cost < COST_FLOOR + 0.01 else 1)
    serve(DIM, evaluate)


if __name__ == "__main__":
    main()
