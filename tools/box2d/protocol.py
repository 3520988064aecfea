"""The JSON-lines exchange of costbo's external objective (std-adapter/objectives/src/external.rs).

Each request is one line `{"x": [u_1, ..., u_d], "id": k}` with unit-cube coordinates; each answer
is one line `{"y": value, "cost": cost, "id": k}` written and flushed before the next request is
read. End of input ends the program. Messages go to standard error only.
"""

import json
import math
import sys


def serve(dim, evaluate):
    """Answers every request on stdin with `evaluate(u) -> (y, cost)` until end of input."""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        u = [float(v) for v in request["x"]]
        if len(u) != dim:
            raise SystemExit(f"expected {dim} coordinates, got {len(u)}")
        if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in u):
            raise SystemExit(f"coordinates outside [0, 1]: {u}")
        y, cost = evaluate(u)
        # repr-exact floats: json writes the shortest round-tripping form.
        answer = {"y": float(y), "cost": float(cost)}
        if "id" in request:
            answer["id"] = request["id"]
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
